// W15: the bounded share of scripts/lock-race.mjs inside the suite. Eight racer
// processes, released at one instant, race to open stores whose holder process was
// SIGKILLed, for each lock mechanism: no store ever has two holders at once and no
// approved confirm action is executed twice (judged by marker files created with
// O_EXCL outside the stores); every store is won and every approved action executed
// once. The long run is `node scripts/lock-race.mjs` (10,000 trials).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { repoPath } from "../helpers/paths.js";

for (const lock of ["socket", "files"] as const) {
  test(`W15 (${lock}): 8 processes racing for 100 stores whose holder was SIGKILLed: 0 double holders, 0 double executes`, { timeout: 120_000 }, () => {
    const r = spawnSync(process.execPath, [repoPath("scripts", "lock-race.mjs"), "--rounds", "4", "--stores", "25", "--racers", "8", "--lock", lock, "--json"], { encoding: "utf8", timeout: 110_000 });
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    const report = JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "{}") as Record<string, unknown>;
    assert.equal(report.trials, 100);
    assert.ok(Number(report.processes) >= 12, `${report.processes} processes`);
    assert.equal(report.doubleHolders, 0);
    assert.equal(report.doubleExecutes, 0);
    assert.equal(report.unclaimed, 0, "every store was won by one racer");
    assert.equal(report.missing, 0, "every approved action was executed once");
    assert.equal(report.errorCount, 0, JSON.stringify(report.errors));
  });
}
