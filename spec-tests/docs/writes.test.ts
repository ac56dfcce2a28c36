// The writes guide docs/writes.md (W8, W9): every ```js block runs from the
// examples/ project of the repository (imports of "yada" / "yada/node" resolve
// through the package's own exports; the MCP example starts servers/contract.mjs)
// and prints what the guide says.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { repoPath } from "../helpers/paths.js";

const guide = readFileSync(repoPath("docs", "writes.md"), "utf8");
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

test("W8, W9: every js example of docs/writes.md runs", { timeout: 120_000 }, async () => {
  assert.equal(examples.length, 5);
  const dir = repoPath("build", "docs-examples");
  mkdirSync(dir, { recursive: true });
  const results = await Promise.all(
    examples.map((code, i) => {
      const file = `${dir}/writes-${i + 1}.mjs`;
      writeFileSync(file, code);
      return runExample(file);
    }),
  );
  results.forEach((r, i) => assert.equal(r.code, 0, `example ${i + 1} failed:\n${examples[i]}\n${r.out}`));
  assert.match(results[0]?.out ?? "", /approval_required true\nYour note is saved\. \[ 'buy milk' \]/);
  assert.match(results[1]?.out ?? "", /a changed state is refused/);
  assert.match(results[2]?.out ?? "", /^true\ntrue\nconflict\nawaiting_approval\napproved$/m);
  assert.match(results[3]?.out ?? "", /^store\nawaiting_approval$/m);
  assert.match(results[4]?.out ?? "", /Rename A from "Product A" to "Gear"\nRenamed\./);
});
