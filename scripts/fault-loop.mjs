#!/usr/bin/env node
// The long fault loops (W9, W12), one per store dimension, each judged by the
// reference contract server's own log: no duplicate, none lost, every uncertain
// action resolved by receipt only. The short versions run in the tests
// (spec-tests/actions/fault-loop.test.ts, spec-tests/actions/do-fault-loop.test.ts).
//
// - postgres: N worker processes on one embedded PostgreSQL, M approved actions,
//   workers SIGKILLed at random moments (half of them mid-send) and restarted until
//   every action has settled.
// - durable-object: N worker processes on the Durable Object store in workerd (local
//   on-disk storage), M approved actions, workerd itself SIGKILLed at random moments
//   (half of them while a send is in flight) and started again on the same storage.
//
// Usage: node scripts/build.mjs --no-types && node scripts/fault-loop.mjs
//          [--store postgres,durable-object] [--actions 10000] [--workers 4] [--kills 400]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runFaultLoop } from "../fixtures/actions/fault-loop.mjs";
import { runDoFaultLoop } from "../fixtures/actions/do-fault-loop.mjs";
import { startPostgres } from "../build/spec-tests/helpers/postgres.js";

const STORES = ["postgres", "durable-object"];
const { values } = parseArgs({
  options: {
    store: { type: "string", default: STORES.join(",") },
    actions: { type: "string", default: "10000" },
    workers: { type: "string", default: "4" },
    kills: { type: "string", default: "400" },
  },
});
const stores = values.store.split(",").map((s) => s.trim()).filter(Boolean);
for (const s of stores) if (!STORES.includes(s)) throw new Error(`--store: ${s} is not one of ${STORES.join(", ")}`);
const actions = Number(values.actions);
const workers = Number(values.workers);
const maxKills = Number(values.kills);
const progress = (line) => console.error(line);

async function postgresLoop(dir) {
  const db = await startPostgres();
  try {
    return await runFaultLoop({
      db: db.config, query: db.query, table: "fault_loop", dir, actions, workers, maxKills,
      killMinMs: 100, killMaxMs: 600, leaseMs: 1_500, executeDelayMs: 5, boundMs: 60 * 60_000, progress,
    });
  } finally {
    await db.stop();
  }
}

const durableObjectLoop = (dir) =>
  runDoFaultLoop({ dir, actions, workers, maxKills, killMinMs: 100, killMaxMs: 600, downMaxMs: 200, leaseMs: 1_500, executeDelayMs: 5, boundMs: 60 * 60_000, progress });

let failed = false;
for (const store of stores) {
  const dir = mkdtempSync(join(tmpdir(), `yada-fault-${store}-`));
  try {
    console.error(`${store}: ${actions} actions, ${workers} workers, at most ${maxKills} kills`);
    const r = await (store === "postgres" ? postgresLoop(dir) : durableObjectLoop(dir));
    console.log(JSON.stringify({ store, ...r }, null, 2));
    const bad = !r.settled || r.duplicates > 0 || r.secondSends > 0 || r.lost > 0 || r.otherStates > 0 || r.reconciledBySecondSend > 0;
    failed ||= bad;
    const killed = store === "postgres" ? `${r.kills} worker kills` : `${r.kills} workerd kills (${r.killsDuringSend} while a send was in flight)`;
    console.log(
      bad
        ? `${store}: FAIL`
        : `${store} ok: ${killed}, ${r.sends} sends; ${r.succeeded} succeeded, ${r.failed} failed, ${r.reconcilingUnsent} never sent (kept reconciling), ${r.reconciled} reconciled by receipt; 0 duplicates, 0 lost`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
process.exit(failed ? 1 : 0);
