#!/usr/bin/env node
// The long multi-worker fault loop (W9, W12): N worker processes on one embedded
// PostgreSQL, M approved actions against the reference contract server, workers
// SIGKILLed at random moments (half of them mid-send) and restarted until every
// action has settled; then the server's own log is checked: no duplicate, none
// lost, every uncertain action resolved by receipt only. The short version runs in
// the tests (spec-tests/actions/fault-loop.test.ts).
//
// Usage: node scripts/build.mjs --no-types && node scripts/fault-loop.mjs [--actions 10000] [--workers 4] [--kills 400]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runFaultLoop } from "../fixtures/actions/fault-loop.mjs";
import { startPostgres } from "../build/spec-tests/helpers/postgres.js";

const { values } = parseArgs({
  options: { actions: { type: "string", default: "10000" }, workers: { type: "string", default: "4" }, kills: { type: "string", default: "400" } },
});
const actions = Number(values.actions);
const workers = Number(values.workers);
const maxKills = Number(values.kills);
const dir = mkdtempSync(join(tmpdir(), "yada-fault-"));
const db = await startPostgres();
let failed = false;
try {
  const r = await runFaultLoop({
    db: db.config, query: db.query, table: "fault_loop", dir, actions, workers, maxKills,
    killMinMs: 100, killMaxMs: 600, leaseMs: 1_500, executeDelayMs: 5, boundMs: 60 * 60_000,
    progress: (line) => console.error(line),
  });
  console.log(JSON.stringify(r, null, 2));
  failed = !r.settled || r.duplicates > 0 || r.secondSends > 0 || r.lost > 0 || r.otherStates > 0 || r.reconciledBySecondSend > 0;
  console.log(failed ? "FAIL" : `ok: ${r.succeeded} succeeded, ${r.failed} failed, ${r.reconcilingUnsent} never sent (kept reconciling), ${r.reconciled} reconciled by receipt; 0 duplicates, 0 lost`);
} finally {
  await db.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
