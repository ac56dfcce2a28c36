// Approved-action round trips (W8, W9): propose → approve → claim → executing →
// succeeded, through createActions and createWorker: five changes each. Against the
// limit of this disk measured in the same run: one change per fdatasync (a bare
// append + fdatasync loop of lines of the journal's size), in slices interleaved with
// the file store rows' slices, so a disk whose pace drifts weighs on both alike.
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
const { openFileStoreWith } = await import(join(root, "build/src/node/file-store.js"));
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

/** Round trips one after the other on `store`: returns a runner of `n` more, which answers the seconds they took. */
function oneAtATime(store) {
  const actions = createActions({ store, mayApprove: () => true });
  const worker = createWorker({ store, resolveTool: () => tool });
  let i = 0;
  return async (n) => {
    const t0 = performance.now();
    for (const end = i + n; i < end; i++) {
      const a = await actions.propose(await tool.prepare({ path: `/srv/item-${i}`, value: i }), { identity: alice, effect: "confirm", runId: "bench", callId: `c${i}` });
      await actions.approve(a, bob);
      await worker.runOnce();
    }
    return (performance.now() - t0) / 1000;
  };
}

/** WIDE round trips at once on `store` (WIDE proposals, WIDE approvals, a worker with WIDE in flight), `n` at a time; and the worker's batch sizes. */
function wide(store) {
  const actions = createActions({ store, mayApprove: () => true });
  const { view, sizes } = counted(store);
  const worker = createWorker({ store: view, resolveTool: () => tool, concurrency: WIDE });
  let r = 0;
  const run = async (n) => {
    const t0 = performance.now();
    for (const end = r + Math.ceil(n / WIDE); r < end; r++) {
      const proposed = await Promise.all(
        Array.from({ length: WIDE }, async (_, i) =>
          actions.propose(await tool.prepare({ path: `/srv/wide-${r}-${i}`, value: i }), { identity: alice, effect: "confirm", runId: "bench", callId: `w${r}-${i}` }),
        ),
      );
      await Promise.all(proposed.map((a) => actions.approve(a, bob)));
      await worker.runOnce();
    }
    return (performance.now() - t0) / 1000;
  };
  return { run, sizes };
}

/** One append + fdatasync per change: returns a runner of `n` more changes, which answers the seconds they took. */
async function diskLimit(path, lineBytes) {
  const h = await open(path, "a");
  const line = "x".repeat(lineBytes - 1) + "\n";
  const run = async (n) => {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      await h.appendFile(line);
      await h.datasync();
    }
    return (performance.now() - t0) / 1000;
  };
  return { run, close: () => h.close() };
}

/** The file system of the store, counting its fdatasync calls. */
function syncCounting() {
  const fs = { ...nodeStoreFs, syncs: 0 };
  fs.datasync = (fd) => (fs.syncs++, nodeStoreFs.datasync(fd));
  return fs;
}

// The disk's pace drifts (other work on the machine): the limit and the file store rows
// run in SEGMENTS interleaved slices, so that each ratio compares like with like.
const SEGMENTS = 6;
const dir = mkdtempSync(join(tmpdir(), "yada-bench-actions-"));
try {
  const memSeq = oneAtATime(new MemoryActionStore());
  const memSeconds = await memSeq(N);
  const memWide = wide(new MemoryActionStore());
  const memWideSeconds = await memWide.run(N);

  const fs1 = syncCounting();
  const seqStore = await openFileStoreWith(join(dir, "one.jsonl"), {}, { fs: fs1 });
  const fs8 = syncCounting();
  const wideStore = await openFileStoreWith(join(dir, "wide.jsonl"), {}, { fs: fs8 });
  const seq = oneAtATime(seqStore);
  const fileWide = wide(wideStore);
  await seq(1); // the journal line size, for the limit's lines
  const probe = (await seqStore.list({ tenantId: "acme" }))[0];
  const lineBytes = JSON.stringify(probe).length + 30;
  const limit = await diskLimit(join(dir, "bare.jsonl"), lineBytes);
  const [s1, s8] = [fs1.syncs, fs8.syncs];
  const per = Math.ceil(N / SEGMENTS);
  const t = { limit: 0, seq: 0, wide: 0 };
  const paces = [];
  for (let k = 0; k < SEGMENTS; k++) {
    const l = await limit.run(per * CHANGES_PER_TRIP);
    paces.push((per * CHANGES_PER_TRIP) / l);
    t.limit += l;
    t.seq += await seq(per);
    t.wide += await fileWide.run(per);
  }
  const seqSyncs = fs1.syncs - s1;
  const wideSyncs = fs8.syncs - s8;
  await limit.close();
  await seqStore.close();
  await wideStore.close();

  const changes = per * SEGMENTS * CHANGES_PER_TRIP;
  const wideChanges = Math.ceil(per / WIDE) * WIDE * SEGMENTS * CHANGES_PER_TRIP;
  const limitPerSec = changes / t.limit;
  const avg = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const rows = [
    ["disk limit (one append + fdatasync per change)", limitPerSec, undefined],
    ["file store, one change at a time", changes / t.seq, 0.9],
    [`file store, ${WIDE} round trips at once`, wideChanges / t.wide, 2],
    ["memory store, one change at a time", (N * CHANGES_PER_TRIP) / memSeconds, 10],
    [`memory store, ${WIDE} round trips at once`, (Math.ceil(N / WIDE) * WIDE * CHANGES_PER_TRIP) / memWideSeconds, undefined],
  ];
  console.log(`${per * SEGMENTS} round trips per file store row in ${SEGMENTS} slices between slices of the limit, ${N} per memory row; ${CHANGES_PER_TRIP} changes each, ~${lineBytes}-byte journal lines`);
  console.log(`the limit's pace by slice: ${paces.map((p) => p.toFixed(0)).join(", ")} changes/s`);
  console.log(`${"row".padEnd(48)} ${"changes/s".padStart(10)}  ${"x limit".padStart(8)}  target`);
  let missed = 0;
  for (const [name, v, target] of rows) {
    const ratio = v / limitPerSec;
    const ok = target === undefined || ratio >= target;
    if (!ok) missed++;
    console.log(`${name.padEnd(48)} ${v.toFixed(0).padStart(10)}  ${ratio.toFixed(2).padStart(7)}x  ${target === undefined ? "" : `>= ${target}x ${ok ? "met" : "MISSED"}`}`);
  }
  console.log(`fdatasync per change: one at a time ${(seqSyncs / changes).toFixed(2)}, ${WIDE} at once ${(wideSyncs / wideChanges).toFixed(2)}`);
  console.log(`worker batches with ${WIDE} in flight: ${avg(fileWide.sizes).toFixed(1)} moves per batch on the file store, ${avg(memWide.sizes).toFixed(1)} on the memory store (whole: ${WIDE})`);
  if (missed) console.log(`${missed} target(s) missed`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
