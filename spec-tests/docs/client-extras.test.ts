// The guide docs/client-extras.md (V8, V9, H14): every ```js block runs and says
// what the guide says it prints. docs.test.ts runs the same blocks from a consumer
// project of the packed package; here they run from the examples/ project of the
// repository (imports of "yada" / "yada/node" resolve through the package's own
// exports, servers/ holds the example servers), so each output can be checked.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { repoPath } from "../helpers/paths.js";

const guide = readFileSync(repoPath("docs", "client-extras.md"), "utf8");
const examples = [...guide.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");

function runExample(file: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { cwd: repoPath("examples"), stdio: ["ignore", "pipe", "pipe"] });
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
  const results = await Promise.all(
    examples.map((code, i) => {
      const file = `${dir}/client-extras-${i + 1}.mjs`;
      writeFileSync(file, code);
      return runExample(file);
    }),
  );
  results.forEach((r, i) => assert.equal(r.code, 0, `example ${i + 1} failed:\n${examples[i]}\n${r.out}`));
  assert.match(results[0]?.out ?? "", /status: working: step 1 of 3\n[\s\S]*researched in 3 steps/);
  assert.match(results[1]?.out ?? "", /Echo: hello over SSE/);
  assert.match(results[2]?.out ?? "", /\[ 'Sales', 'Support' \]\n\[ 'David', 'Eve', 'Frank' \]/);
  assert.match(results[3]?.out ?? "", /pdf-tools - Fill and merge PDF forms/);
});
