// docs/server-contract.md: every ts example is runnable as it stands (plain
// JavaScript), from the examples/ project (servers/contract.mjs), importing
// "yada-mcp" / "yada-mcp/node" through the package's own exports.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { guideBlocks } from "../helpers/guide.js";
import { repoPath } from "../helpers/paths.js";

test("W1, W3, W7: every example of the server contract guide runs, and a declined and a broken preparation are told apart", { timeout: 60_000 }, () => {
  // Run one after another: they share the server's journal.
  const examples = guideBlocks("server-contract", "ts");
  assert.ok(examples.length >= 3);
  const dir = repoPath("build", "guide-examples");
  mkdirSync(dir, { recursive: true });
  const logs = mkdtempSync(join(tmpdir(), "yada-guide-"));
  try {
    examples.forEach((code, i) => {
      const file = join(dir, `server-contract-${i + 1}.mjs`);
      writeFileSync(file, code.replaceAll("contract-log.jsonl", join(logs, "log.jsonl")));
      const r = spawnSync(process.execPath, [file], { cwd: repoPath("examples"), encoding: "utf8", timeout: 30_000 });
      assert.equal(r.status, 0, `example ${i + 1} failed:\n${code}\n${r.stdout}\n${r.stderr}`);
      if (code.includes("contract__rename")) assert.match(r.stdout, /A:1\nsucceeded\n/);
    });
    const js = guideBlocks("server-contract");
    assert.equal(js.length, 1);
    const file = join(dir, "server-contract-js-1.mjs");
    writeFileSync(file, js[0] ?? "");
    const r = spawnSync(process.execPath, [file], { cwd: repoPath("examples"), encoding: "utf8", timeout: 30_000 });
    assert.equal(r.status, 0, `the js example failed:\n${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /^true tool_failed\ntrue contract$/m);
  } finally {
    rmSync(logs, { recursive: true, force: true });
  }
});
