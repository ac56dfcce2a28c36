// W9, W12: the multi-worker fault loop, short: 4 worker processes on one PostgreSQL
// table, 500 approved actions against the reference contract server, workers
// SIGKILLed at random moments and restarted until every action has settled. The
// server's own log shows no duplicate, none lost, and every uncertain action
// resolved by receipt only. The long run is scripts/fault-loop.mjs.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { repoPath } from "../helpers/paths.js";
import { freshTable, startPostgres, type TestPostgres } from "../helpers/postgres.js";
import type { FaultLoopResult, RunLoop } from "./loop-result.js";

type RunFaultLoop = RunLoop<FaultLoopResult>;

let db: TestPostgres;
const dir = mkdtempSync(join(tmpdir(), "yada-fault-"));
before(async () => {
  db = await startPostgres();
});
after(async () => {
  await db?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("W12: 4 workers SIGKILLed at random on one PostgreSQL: 500 actions, the server's log shows 0 duplicates, 0 lost, uncertain ones resolved by receipt only", { timeout: 150_000 }, async () => {
  const { runFaultLoop } = (await import(pathToFileURL(repoPath("fixtures", "actions", "fault-loop.mjs")).href)) as { runFaultLoop: RunFaultLoop };
  const r = await runFaultLoop({ db: db.config, query: db.query, table: freshTable(), dir, actions: 500, workers: 4, killMinMs: 150, killMaxMs: 400, maxKills: 12, leaseMs: 1_200, executeDelayMs: 5, boundMs: 120_000 });
  console.log(`fault loop: ${JSON.stringify(r)}`);
  assert.ok(r.settled, `did not settle: ${JSON.stringify(r)}`);
  assert.ok(r.kills >= 5, `only ${r.kills} kills`);
  assert.equal(r.duplicates, 0);
  assert.equal(r.secondSends, 0, "no execute reached the server twice");
  assert.equal(r.lost, 0);
  assert.equal(r.otherStates, 0);
  assert.equal(r.reconciledBySecondSend, 0);
  assert.equal(r.succeeded + r.failed + r.reconcilingUnsent, 500);
  // Kills landed mid-send: some actions were uncertain, and each was settled without a second send.
  assert.ok(r.reconciled + r.reconcilingUnsent >= 1, "no kill landed during an execute");
});
