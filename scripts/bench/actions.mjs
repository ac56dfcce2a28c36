// Approved-action round trips per second (W8, W9): propose → approve → claim →
// executing → succeeded, through createActions and createWorker, on the memory and
// file stores, beside the limit of this disk: a bare append + fdatasync loop of the
// same number of journal writes (5 per round trip) with lines of the same size.
//   node scripts/build.mjs --no-types && node scripts/bench/actions.mjs
// The tool is an in-process confirm tool that succeeds at once, so the figures are
// the action layer's own cost. Target: the file store at >= 0.5x the disk's limit.
import { mkdtempSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const { MemoryActionStore } = await import(join(root, "build/src/actions/memory-store.js"));
const { createActions } = await import(join(root, "build/src/actions/approvals.js"));
const { createWorker } = await import(join(root, "build/src/actions/worker.js"));
const { openFileStore } = await import(join(root, "build/src/node/file-store.js"));

const N = Number(process.env.ACTIONS ?? 300);
const WRITES_PER_TRIP = 5; // create, approve, claim, executing, succeeded

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

async function trips(store) {
  const actions = createActions({ store, mayApprove: () => true });
  const worker = createWorker({ store, resolveTool: () => tool });
  let lineBytes = 0;
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    const a = await actions.propose(await tool.prepare({ path: `/srv/item-${i}`, value: i }), { identity: alice, effect: "confirm", runId: "bench", callId: `c${i}` });
    await actions.approve(a, bob);
    await worker.runOnce();
    if (i === 0) lineBytes = JSON.stringify(await store.get(a.id)).length + 1;
  }
  const s = (performance.now() - t0) / 1000;
  return { perSec: N / s, lineBytes };
}

async function diskLimit(dir, lineBytes) {
  const h = await open(join(dir, "bare.jsonl"), "a");
  const line = "x".repeat(lineBytes - 1) + "\n";
  const t0 = performance.now();
  for (let i = 0; i < N * WRITES_PER_TRIP; i++) {
    await h.appendFile(line);
    await h.datasync();
  }
  const s = (performance.now() - t0) / 1000;
  await h.close();
  return N / s; // round trips' worth of writes per second
}

const dir = mkdtempSync(join(tmpdir(), "yada-bench-actions-"));
try {
  const mem = await trips(new MemoryActionStore());
  // The disk's pace drifts (other work on the machine): the limit is measured before and after the file store, and averaged.
  const before = await diskLimit(dir, 616);
  const fileStore = await openFileStore(join(dir, "actions.jsonl"));
  const file = await trips(fileStore);
  await fileStore.close();
  const after = await diskLimit(dir, file.lineBytes);
  const limit = (before + after) / 2;
  const row = (name, v) => console.log(`${name.padEnd(34)} ${v.toFixed(0).padStart(8)} round trips/s   ${(v / limit).toFixed(2)}x the disk's limit`);
  console.log(`${N} round trips, ${WRITES_PER_TRIP} journal writes each, ${file.lineBytes}-byte lines`);
  row("disk limit (append + fdatasync)", limit);
  row("file store", file.perSec);
  row("memory store", mem.perSec);
  console.log(`file store / limit: ${(file.perSec / limit).toFixed(2)} (target >= 0.50)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
