import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";
import { repoPath } from "../helpers/paths.js";

// X3: one vendorable ESM file per entry, with types.
test("X3: each entry is one self-contained ESM file with .d.ts, as package.json exports say", () => {
  const pkg = JSON.parse(readFileSync(repoPath("package.json"), "utf8")) as {
    exports: Record<string, { types: string; import: string }>;
    dependencies?: Record<string, string>;
    bin?: Record<string, string>;
  };
  assert.deepEqual(pkg.dependencies ?? {}, {}, "no runtime dependencies (X1)");
  for (const [entry, target] of Object.entries(pkg.exports)) {
    assert.ok(existsSync(repoPath(target.import)), `${entry}: ${target.import} is missing`);
    assert.ok(existsSync(repoPath(target.types)), `${entry}: ${target.types} is missing`);
  }
  const web = readFileSync(repoPath("dist", "yada.js"), "utf8");
  // Self-contained: the web bundle imports nothing; the Node bundles only node: built-ins.
  assert.doesNotMatch(web, /^\s*import\s.*from\s*["']/m);
  assert.doesNotMatch(web, /\bimport\s*\(/);
  for (const file of ["yada-node.js", "cli.js"]) {
    const text = readFileSync(repoPath("dist", file), "utf8");
    const specifiers = [...text.matchAll(/^\s*import\s[^;]*?from\s*["']([^"']+)["']/gm)].map((m) => m[1] ?? "");
    assert.ok(specifiers.every((s) => s.startsWith("node:")), `${file} imports ${specifiers.filter((s) => !s.startsWith("node:")).join(", ")}`);
  }
  assert.ok(pkg.bin?.yada && readFileSync(repoPath(pkg.bin.yada), "utf8").startsWith("#!/usr/bin/env node"));
});

// The published budget is 30,000 bytes gzip for the web bundle; it is not met yet
// (see the README's size table). This ceiling keeps it from growing unnoticed:
// lower it as the bundle shrinks; raising it needs a reason (the last raise: the
// linear-time pattern matcher that closes ReDoS through server schemas, and the
// checks added after the security review; then +100 for the SSE parser's
// word-at-a-time line-end search, 1.3x the throughput on small events; then
// +3,500 for approved writes and confirmed tools: roles and their checks, the
// action envelope, strict result envelopes, phase checks and version fingerprints;
// then +300 for the at-most-once send review: a mutation is never re-sent by the
// client, and a request the server took never reads as not sent).
const WEB_GZIP_CEILING = 47_400;

test("X3: the web bundle stays under its size ceiling (min+gzip)", async () => {
  const out = await esbuild.build({
    entryPoints: [repoPath("src", "index.ts")],
    bundle: true,
    minify: true,
    write: false,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    legalComments: "none",
    logLevel: "silent",
  });
  const gzip = gzipSync(out.outputFiles[0]?.contents ?? new Uint8Array(), { level: 9 }).length;
  assert.ok(gzip <= WEB_GZIP_CEILING, `web bundle is ${gzip} bytes gzip, over the ceiling of ${WEB_GZIP_CEILING}`);
});
