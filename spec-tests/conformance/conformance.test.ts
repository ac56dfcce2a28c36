import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { repoPath } from "../helpers/paths.js";

// X5: every non-auth client scenario of the official conformance suite (0.1.16 and
// the 0.2.0 alpha line), run by scripts/conformance/run.mjs against the client in
// scripts/conformance/client.mjs; failures outside the committed baseline fail it.
test("X5: the official conformance suite's client scenarios pass (auth/* excepted; see spec-tests/auth)", { timeout: 600_000 }, () => {
  const r = spawnSync(process.execPath, [repoPath("scripts", "conformance", "run.mjs"), "--no-auth"], { encoding: "utf8", timeout: 590_000 });
  const out = `${r.stdout}${r.stderr}`;
  const summary = /conformance: (\d+) of (\d+) scenario runs passed with checks/.exec(out);
  assert.ok(summary, out.slice(-3000));
  assert.ok(Number(summary[1]) >= 17, out.slice(-3000)); // every run with checks: 4 of 0.1.16, 13 of the alpha line
  assert.equal(r.status, 0, out.slice(-3000));
});
