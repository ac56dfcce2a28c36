#!/usr/bin/env node
// The long multi-worker fault loop (W9, W12): N worker processes on one embedded
// PostgreSQL, M approved actions against the reference contract server, workers
// SIGKILLed at random moments (half of them mid-send) and restarted until every
// action has settled; then the server's own log is checked: no duplicate, none
// lost, every uncertain action resolved by receipt only. The short version runs in
// the tests (spec-tests/actions/fault-loop.test.ts).
//
// --transport http-faults: the server over Streamable HTTP as a child process, SIGKILLed
// mid-request and restarted (--server-kills), behind a loopback proxy that refuses
// (401, 403, connections), answers 5xx after the server performed and cuts requests and
// answers at random points; part of the actions expire (late approvals refused). The
// judge also counts the renames that reached the server, at the proxy; an uncertain
// action is settled by its receipt or, past the reconcile window, as outcome_unknown.
//
// Usage: node scripts/build.mjs --no-types && node scripts/fault-loop.mjs [--actions 10000] [--workers 4] [--kills 400]
//          [--transport http | http-faults] [--server-kills 200] [--window 15000 (the workers' reconcile window, ms)]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runFaultLoop } from "../fixtures/actions/fault-loop.mjs";
import { startPostgres } from "../build/spec-tests/helpers/postgres.js";

const { values } = parseArgs({
  options: {
    actions: { type: "string", default: "10000" },
    workers: { type: "string", default: "4" },
    kills: { type: "string", default: "400" },
    transport: { type: "string", default: "http" },
    "server-kills": { type: "string", default: "200" },
    window: { type: "string", default: "15000" },
  },
});
const transport = values.transport;
if (transport !== "http" && transport !== "http-faults") throw new Error(`--transport is http or http-faults, not ${transport}`);
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
    transport, serverKills: Number(values["server-kills"]), serverKillMinMs: 1_000, serverKillMaxMs: 3_000, reconcileWindowMs: Number(values.window),
    progress: (line) => console.error(line),
  });
  console.log(JSON.stringify(r, null, 2));
  failed = !r.settled || r.duplicates > 0 || r.secondSends > 0 || r.lost > 0 || r.otherStates > 0 || r.reconciledBySecondSend > 0;
  if (transport === "http-faults") failed ||= r.expiredPerformed > 0 || r.expired !== r.expiring || r.lateApprovalsRefused !== r.lateApprovals || r.attentionTwice > 0;
  console.log(
    failed
      ? "FAIL"
      : transport === "http-faults"
        ? `ok: ${r.succeeded} succeeded, ${r.failed} failed (${r.failedNotSent} never sent), ${r.outcomeUnknown} outcome_unknown by the window (${r.unknownPerformed} of them performed), ${r.reconciled} reconciled, ${r.notSentThenSent} refused unsent then sent again (${r.notSentThenSucceeded} performed); ${r.expired} expired; ${r.serverKills} server kills, ${r.kills} worker kills, ${r.sends} sends; 0 duplicates, 0 second sends, 0 lost`
        : `ok: ${r.succeeded} succeeded, ${r.failed} failed, ${r.reconcilingUnsent} never sent (kept reconciling), ${r.reconciled} reconciled by receipt; 0 duplicates, 0 lost`,
  );
} finally {
  await db.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
