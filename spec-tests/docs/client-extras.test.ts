// The guide docs/client-extras.md (V8, V9, H14): every ```js block runs from the
// repository (imports of "yada" / "yada/node" resolve through the package's own
// exports) and exits 0. The HTTP+SSE example gets server-everything in "sse"
// mode and the skills example the skills fixture, through the environment
// variables the examples read.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { startEverything } from "../helpers/everything.js";
import { fixtureServer, repoPath } from "../helpers/paths.js";

const guide = readFileSync(repoPath("docs", "client-extras.md"), "utf8");
const examples = [...guide.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");

function runExample(file: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { cwd: repoPath(), env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 45_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

test("V8, V9, H14: every js example of docs/client-extras.md runs", { timeout: 180_000 }, async () => {
  assert.equal(examples.length, 4);
  const dir = repoPath("build", "docs-examples");
  mkdirSync(dir, { recursive: true });
  const sse = await startEverything("sse");
  try {
    const env = { MCP_SSE_URL: sse.url, SKILLS_SERVER: fixtureServer("skills.mjs") };
    const results = await Promise.all(
      examples.map((code, i) => {
        const file = `${dir}/client-extras-${i + 1}.mjs`;
        writeFileSync(file, code);
        return runExample(file, env);
      }),
    );
    results.forEach((r, i) => assert.equal(r.code, 0, `example ${i + 1} failed:\n${examples[i]}\n${r.out}`));
    assert.match(results[0]?.out ?? "", /# Research Report: tidal energy/);
    assert.match(results[1]?.out ?? "", /Echo: hello over SSE/);
    assert.match(results[2]?.out ?? "", /David/);
    assert.match(results[3]?.out ?? "", /pdf-tools - Fill and merge PDF forms/);
  } finally {
    await sse.stop();
  }
});
