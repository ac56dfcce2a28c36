import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
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

// X3: the size ceilings, measured as scripts/size.mjs measures (the same function):
// the whole web entry, and McpClient + HttpTransport alone. Lower them as the bundle
// shrinks; the second must not grow.
type SizeModule = {
  CEILINGS: { web: number; client: number };
  rows: { name: string }[];
  measure(row: { name: string }): Promise<{ min: number; gzip: number }>;
};
const size = (await import(pathToFileURL(repoPath("scripts", "size.mjs")).href)) as SizeModule;

test("X3: the whole web entry stays within 81,000 bytes min+gzip", async () => {
  assert.equal(size.CEILINGS.web, 81_000);
  const web = size.rows.find((r) => r.name.startsWith("yada (web"));
  assert.ok(web);
  const { gzip } = await size.measure(web);
  assert.ok(gzip <= size.CEILINGS.web, `the web entry is ${gzip} bytes min+gzip, over ${size.CEILINGS.web}`);
});

test("X3: McpClient + HttpTransport alone stay within 36,000 bytes min+gzip", async () => {
  assert.equal(size.CEILINGS.client, 36_000);
  const client = size.rows.find((r) => r.name.startsWith("yada: McpClient"));
  assert.ok(client);
  const { gzip } = await size.measure(client);
  assert.ok(gzip <= size.CEILINGS.client, `McpClient + HttpTransport are ${gzip} bytes min+gzip, over ${size.CEILINGS.client}`);
});
