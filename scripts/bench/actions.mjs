// Approved-action round trips (W8, W9): propose → approve → claim → executing →
// succeeded, through createActions and createWorker: five changes each. Against the
// limit of this disk measured in the same run: one change per fdatasync (a bare
// append + fdatasync loop of lines of the journal's size), before and after the file
// store rows, averaged.
//   node scripts/build.mjs --no-types && node scripts/bench/actions.mjs
// Rows, in changes per second and as a ratio to the limit, targets beside them:
//   - the file store one change at a time (a round trip after the other): >= 0.9x;
//   - the file store with 8 round trips at once (8 proposals, 8 approvals, a worker
//     with 8 in flight): concurrent changes share one append and one fdatasync: >= 2x;
//   - the memory store one change at a time: >= 10x.
// Also printed: how many moves the worker's batches hold with 8 in flight (a whole
// batch is 8), and the fdatasync calls per change of each file store row.
// The tool is an in-process confirm tool that succeeds at once, so the figures are
// the action layer's own cost. ACTIONS=n sets the round trips per row (default 300).
import { mkdtempSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const { MemoryActionStore } = await import(join(root, "build/src/actions/memory-store.js"));
const { createActions } = await import(join(root, "build/src/actions/approvals.js"));
const { createWorker } = await import(join(root, "build/src/actions/worker.js"));
const { openFileStore, openFileStoreWith } = await import(join(root, "build/src/node/file-store.js"));
const { nodeStoreFs } = await import(join(root, "build/src/node/store-fs.js"));

const N = Number(process.env.ACTIONS ?? 300);
const CHANGES_PER_TRIP = 5; // create, approve, claim, executing, succeeded
const WIDE = 8;

const tool = {
  name: "bench__touch",
  description: "",
  inputSchema: { type: "object" },
  effect: "confirm",
  version: "v1",
  prepare: async (args) => ({ tool: "bench__touch", version: "v1", arguments: args }),
  execute: async () => ({ status: "succeeded", result: { content: [{ type: "text", text: "ok" }], isError: false } }),
};
const alice = { actorId: "alice", tenantId: "acme" };
const bob = { actorId: "bob", tenantId: "acme" };

/** The store as the worker sees it, counting the sizes of the worker's transitionMany batches. */
function counted(store) {
  const sizes = [];
  const view = {};
  for (const k of ["create", "get", "list", "transition", "claim", "claimMany", "transitionMany"]) view[k] = store[k].bind(store);
  view.transitionMany = (items, now) => (sizes.push(items.length), store.transitionMany(items, now));
  return { view, sizes };
}

/** Round trips one after the other: changes per second. */
async function oneAtATime(store) {
  const actions = createActions({ store, mayApprove: () => true });
  const worker = createWorker({ store, resolveTool: () => tool });
  let lineBytes = 0;
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    const a = await actions.propose(await tool.prepare({ path: `/srv/item-${i}`, value: i }), { identity: alice, effect: "confirm", runId: "bench", callId: `c${i}` });
    await actions.approve(a, bob);
    await worker.runOnce();
    if (i === 0) lineBytes = JSON.stringify(await store.get(a.id)).length + 30;
  }
  return { perSec: (N * CHANGES_PER_TRIP) / ((performance.now() - t0) / 1000), lineBytes };
}

/** WIDE round trips at once: WIDE proposals, WIDE approvals, a worker with WIDE in flight. Changes per second, and the worker's batch sizes. */
async function wide(store) {
  const actions = createActions({ store, mayApprove: () => true });
  const { view, sizes } = counted(store);
  const worker = createWorker({ store: view, resolveTool: () => tool, concurrency: WIDE });
  const rounds = Math.ceil(N / WIDE);
  const t0 = performance.now();
  for (let r = 0; r < rounds; r++) {
    const proposed = await Promise.all(
      Array.from({ length: WIDE }, async (_, i) =>
        actions.propose(await tool.prepare({ path: `/srv/wide-${r}-${i}`, value: i }), { identity: alice, effect: "confirm", runId: "bench", callId: `w${r}-${i}` }),
      ),
    );
    await Promise.all(proposed.map((a) => actions.approve(a, bob)));
    await worker.runOnce();
  }
  return { perSec: (rounds * WIDE * CHANGES_PER_TRIP) / ((performance.now() - t0) / 1000), sizes };
}

/** One append + fdatasync per change: the limit, in changes per second. */
async function diskLimit(dir, lineBytes) {
  const h = await open(join(dir, "bare.jsonl"), "a");
  const line = "x".repeat(lineBytes - 1) + "\n";
  const n = N * CHANGES_PER_TRIP;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    await h.appendFile(line);
    await h.datasync();
  }
  const s = (performance.now() - t0) / 1000;
  await h.close();
  return n / s;
}

/** The file system of the store, counting its fdatasync calls. */
function syncCounting() {
  const fs = { ...nodeStoreFs, syncs: 0 };
  fs.datasync = (fd) => (fs.syncs++, nodeStoreFs.datasync(fd));
  return fs;
}

const dir = mkdtempSync(join(tmpdir(), "yada-bench-actions-"));
try {
  const mem = await oneAtATime(new MemoryActionStore());
  const memWide = await wide(new MemoryActionStore());
  const before = await diskLimit(dir, 640);
  const fs1 = syncCounting();
  const seqStore = await openFileStoreWith(join(dir, "one.jsonl"), {}, { fs: fs1 });
  const syncs0 = fs1.syncs;
  const file = await oneAtATime(seqStore);
  const seqSyncs = fs1.syncs - syncs0;
  await seqStore.close();
  const fs8 = syncCounting();
  const wideStore = await openFileStoreWith(join(dir, "wide.jsonl"), {}, { fs: fs8 });
  const wideSyncs0 = fs8.syncs;
  const fileWide = await wide(wideStore);
  const wideSyncs = fs8.syncs - wideSyncs0;
  await wideStore.close();
  const after = await diskLimit(dir, file.lineBytes);
  const limit = (before + after) / 2;
  const wideChanges = Math.ceil(N / WIDE) * WIDE * CHANGES_PER_TRIP;
  const avg = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

  const rows = [
    ["disk limit (one append + fdatasync per change)", limit, undefined],
    ["file store, one change at a time", file.perSec, 0.9],
    [`file store, ${WIDE} round trips at once`, fileWide.perSec, 2],
    ["memory store, one change at a time", mem.perSec, 10],
    [`memory store, ${WIDE} round trips at once`, memWide.perSec, undefined],
  ];
  console.log(`${N} round trips per row, ${CHANGES_PER_TRIP} changes each, ~${file.lineBytes}-byte journal lines; limit ${before.toFixed(0)} before, ${after.toFixed(0)} after`);
  console.log(`${"row".padEnd(48)} ${"changes/s".padStart(10)}  ${"x limit".padStart(8)}  target`);
  let missed = 0;
  for (const [name, v, target] of rows) {
    const ratio = v / limit;
    const ok = target === undefined || ratio >= target;
    if (!ok) missed++;
    console.log(`${name.padEnd(48)} ${v.toFixed(0).padStart(10)}  ${ratio.toFixed(2).padStart(7)}x  ${target === undefined ? "" : `>= ${target}x ${ok ? "met" : "MISSED"}`}`);
  }
  console.log(`fdatasync per change: one at a time ${(seqSyncs / (N * CHANGES_PER_TRIP)).toFixed(2)}, ${WIDE} at once ${(wideSyncs / wideChanges).toFixed(2)}`);
  console.log(`worker batches with ${WIDE} in flight: ${avg(fileWide.sizes).toFixed(1)} moves per batch on the file store, ${avg(memWide.sizes).toFixed(1)} on the memory store (whole: ${WIDE})`);
  if (missed) console.log(`${missed} target(s) missed`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
