import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as esbuild from "esbuild";
import { pathToFileURL } from "node:url";
import { repoPath } from "../helpers/paths.js";

const { purityViolations: check } = (await import(pathToFileURL(repoPath("scripts", "purity.mjs")).href)) as {
  purityViolations: (files: string[], read?: (f: string) => string) => string[];
};

test("X1: the web entry bundles for a neutral platform with no externals", async () => {
  const out = await esbuild.build({
    entryPoints: [repoPath("src", "index.ts")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    logLevel: "silent",
  });
  const text = out.outputFiles[0]?.text ?? "";
  assert.ok(text.length > 1000);
  assert.doesNotMatch(text, /from\s*["']node:/);
});

test("X1: the web entry type-checks with only ES2022 and WebWorker libs, no Node types", () => {
  execFileSync(repoPath("node_modules", ".bin", "tsc"), ["-p", repoPath("tsconfig.web.json")], { stdio: "pipe" });
});

test("X1: the purity rules flag node: imports, Node globals and eval outside src/node", () => {
  const files: Record<string, string> = {
    "src/tools/a.ts": 'import { readFileSync } from "node:fs";',
    "src/tools/b.ts": "const x = process.env.HOME;",
    "src/tools/c.ts": "const b = Buffer.from('x');",
    "src/agent/d.ts": "const f = new Function('return 1');",
    "src/node/e.ts": 'import { spawn } from "node:child_process"; process.exit(0);',
    "src/node/f.ts": "eval('1');",
    "src/tools/g.ts": "// process.env is mentioned in a comment only\nconst ok = 1;",
  };
  const problems = check(Object.keys(files), (f) => files[f] ?? "");
  assert.deepEqual(problems.sort(), [
    "src/agent/d.ts calls the Function constructor",
    "src/node/f.ts calls eval",
    "src/tools/a.ts imports a node: module",
    "src/tools/b.ts touches process",
    "src/tools/c.ts touches Buffer",
  ]);
});
