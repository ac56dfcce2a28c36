// W9, W12: group commit without a timer. The worker's batches of moves go out whole
// (every action in flight that is not in a host call has asked) one microtask later,
// and one action alone never waits on a timer; the file store writes concurrent
// changes with one append and one fdatasync, acknowledges none before it, shows none
// to a read before it, and after a failed write acknowledges exactly what landed.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { coalescingTransition } from "../../src/actions/coalesce.js";
import { argumentsHash } from "../../src/actions/hash.js";
import { createWorker } from "../../src/actions/worker.js";
import { MemoryActionStore } from "../../src/actions/memory-store.js";
import type { ActionRecord, ActionStore, ActionTransition } from "../../src/actions/types.js";
import { openFileStoreWith } from "../../src/node/file-store.js";
import { nodeStoreFs, type StoreFs } from "../../src/node/store-fs.js";
import { COALESCE_MAX_WAIT_MS, FILE_STORE_GROUP_COMMIT_BYTES } from "../../src/limits.js";
import type { ConfirmTool } from "../../src/tools/types.js";
import { newRecord } from "./store-contract.js";
import { tempDir } from "./support.js";

const approval = { actorId: "bob", tenantId: "acme", at: 1 };
type Coded = Error & { code?: string };

async function approvedIn(store: ActionStore, n: number, hash = "0".repeat(64)): Promise<ActionRecord[]> {
  const out: ActionRecord[] = [];
  for (let i = 0; i < n; i++) {
    const r = await store.create(newRecord({ effect: "confirm", argumentsHash: hash }));
    out.push(await store.transition(r.id, { state: r.state, fence: r.fence }, { state: "approved", approval }, Date.now()));
  }
  return out;
}

/** Counts the timers that fire while `run` runs, by their delay. */
async function timersFired<T>(run: () => Promise<T>): Promise<{ value: T; fired: number[] }> {
  const fired: number[] = [];
  const real = globalThis.setTimeout;
  globalThis.setTimeout = ((f: () => void, ms?: number, ...rest: unknown[]) => real(() => (fired.push(ms ?? 0), f()), ms, ...rest)) as typeof setTimeout;
  try {
    return { value: await run(), fired };
  } finally {
    globalThis.setTimeout = real;
  }
}

const item = (r: ActionRecord, patch: ActionTransition["patch"]): ActionTransition => ({ id: r.id, expected: { state: r.state, fence: r.fence }, patch });

describe("W9: a worker's moves go out in whole batches, without a timer", { timeout: 60_000 }, () => {
  test("W9, W13: with 8 actions in flight the moves of different actions share batches, one executing per batch, and no timer fires", async () => {
    const store = new MemoryActionStore();
    const hash = await argumentsHash({ from: "a.txt", to: "b.txt" });
    const actions = await approvedIn(store, 8, hash);
    const sizes: number[] = [];
    const executingPerBatch: number[] = [];
    // The store as the worker sees it, counting its batches.
    const view: ActionStore = {
      create: (r) => store.create(r),
      get: (id) => store.get(id),
      list: (q) => store.list(q),
      transition: (...a) => store.transition(...a),
      claim: (o) => store.claim(o),
      claimMany: (o) => store.claimMany(o),
      transitionMany: (items, now) => (sizes.push(items.length), executingPerBatch.push(items.filter((i) => i.patch.state === "executing").length), store.transitionMany(items, now)),
    };
    const tool: ConfirmTool = {
      name: "files__rename",
      description: "",
      inputSchema: { type: "object" },
      effect: "confirm",
      version: "v1:abc",
      prepare: async (args) => ({ tool: "files__rename", version: "v1:abc", arguments: args as Record<string, unknown> }),
      // A tool says when its request was handed over (W13): the next action's executing may go out then.
      execute: async (_, context) => (context.onSent?.(), { status: "succeeded", result: { content: [], isError: false } }),
    };
    const worker = createWorker({ store: view, resolveTool: () => tool, concurrency: 8 });
    const { value: handled, fired } = await timersFired(() => worker.runOnce());
    assert.equal(handled, 8);
    // W13: executing is recorded one send at a time (a worker that dies strands at most one),
    // so each batch holds one action's executing and the outcome of the action before it.
    assert.deepEqual(sizes, [1, 2, 2, 2, 2, 2, 2, 2, 1], "each batch: the next action's executing with the previous outcome");
    assert.ok(executingPerBatch.every((n) => n <= 1), "never two executing moves in one batch");
    assert.deepEqual(fired, [], "no timer fired: neither a turn of the event loop per batch nor the bounded wait");
    for (const a of actions) assert.equal((await store.get(a.id))?.state, "succeeded");
  });

  test("W9, W13: a tool that never says its request left: the next action's executing still shares a statement with the outcome before it", async () => {
    const store = new MemoryActionStore();
    const hash = await argumentsHash({ from: "a.txt", to: "b.txt" });
    const actions = await approvedIn(store, 8, hash);
    const batches: string[][] = [];
    const many = store.transitionMany.bind(store);
    store.transitionMany = (items, now) => (batches.push(items.map((i) => i.patch.state)), many(items, now));
    // No onSent: the lane is left when execute returns, in the same turn as its outcome is asked for.
    const tool: ConfirmTool = {
      name: "files__rename", description: "", inputSchema: { type: "object" }, effect: "confirm", version: "v1:abc",
      prepare: async (args) => ({ tool: "files__rename", version: "v1:abc", arguments: args as Record<string, unknown> }),
      execute: async () => ({ status: "succeeded", result: { content: [], isError: false } }),
    };
    const worker = createWorker({ store, resolveTool: () => tool, concurrency: 8 });
    const { value: handled, fired } = await timersFired(() => worker.runOnce());
    assert.equal(handled, 8);
    const pair = ["succeeded", "executing"];
    assert.deepEqual(batches, [["executing"], pair, pair, pair, pair, pair, pair, pair, ["succeeded"]], "one statement per action: its executing with the outcome before it");
    assert.deepEqual(fired, [], "no timer fired: the batch waited only for the move it knew was coming");
    for (const a of actions) assert.equal((await store.get(a.id))?.state, "succeeded");
  });

  test("W9: one action alone asks, and its move goes out at once: no timer is set", async () => {
    const store = new MemoryActionStore();
    const [a] = await approvedIn(store, 1);
    assert.ok(a);
    const transition = coalescingTransition(store, Date.now);
    transition.join(a.id);
    const armed: number[] = [];
    const real = globalThis.setTimeout;
    globalThis.setTimeout = ((f: () => void, ms?: number) => (armed.push(ms ?? 0), real(f, ms))) as typeof setTimeout;
    try {
      const moved = await transition(item(a, { state: "executing" }));
      assert.equal(moved.state, "executing");
    } finally {
      globalThis.setTimeout = real;
    }
    assert.deepEqual(armed, []);
    transition.leave(a.id);
  });

  test("W9: a batch waits for an action on its way to a move, not for one away in a host call, and not past COALESCE_MAX_WAIT_MS", async () => {
    const store = new MemoryActionStore();
    const [a, b, c] = await approvedIn(store, 3);
    assert.ok(a && b && c);
    const sizes: number[] = [];
    const many = store.transitionMany.bind(store);
    store.transitionMany = (items, now) => (sizes.push(items.length), many(items, now));
    const transition = coalescingTransition(store, Date.now);
    for (const r of [a, b, c]) transition.join(r.id);
    // c is away (its execute is running): it holds nothing back.
    let release!: () => void;
    const away = transition.away(c.id, new Promise<void>((r) => (release = r)));
    // b is on its way (hashing its arguments): a's move waits for b's, and they go together.
    const first = transition(item(a, { state: "executing" }));
    await new Promise((r) => setImmediate(r));
    const second = transition(item(b, { state: "executing" }));
    await Promise.all([first, second]);
    assert.deepEqual(sizes, [2]);
    // b never asks again (slow work not marked away): a's next move waits COALESCE_MAX_WAIT_MS at most.
    const t0 = performance.now();
    const a1 = await store.get(a.id);
    assert.ok(a1);
    await transition(item(a1, { state: "succeeded", outcome: { result: { content: [], isError: false } } }));
    const waited = performance.now() - t0;
    assert.ok(waited >= COALESCE_MAX_WAIT_MS - 1 && waited < COALESCE_MAX_WAIT_MS + 200, `waited ${waited.toFixed(1)} ms`);
    release();
    await away;
    // Once b is done, nothing waits for it.
    transition.leave(b.id);
    const c1 = await transition(item(c, { state: "executing" }));
    assert.equal(c1.state, "executing");
    assert.deepEqual(sizes, [2, 1, 1]);
  });
});

/** The real file system, counting appends and syncs, with a sync that can be held. */
function countingFs(): StoreFs & { writes: number[]; syncs: number; hold: boolean; held: (() => void)[] } {
  const fs = {
    ...nodeStoreFs,
    writes: [] as number[],
    syncs: 0,
    hold: false,
    held: [] as (() => void)[],
  };
  fs.write = (fd, data, offset, length) => (fs.writes.push(length), nodeStoreFs.write(fd, data, offset, length));
  fs.datasync = async (fd) => {
    fs.syncs++;
    if (fs.hold) await new Promise<void>((r) => fs.held.push(r));
    return nodeStoreFs.datasync(fd);
  };
  return fs;
}

describe("W9: the file store's group commit", { timeout: 60_000 }, () => {
  test("W9: eight concurrent changes share one append and one fdatasync", async () => {
    const fs = countingFs();
    const store = await openFileStoreWith(join(tempDir(), "actions.jsonl"), {}, { fs });
    const [w0, s0] = [fs.writes.length, fs.syncs];
    const made = await Promise.all(Array.from({ length: 8 }, () => store.create(newRecord())));
    assert.equal(fs.writes.length - w0, 1);
    assert.equal(fs.syncs - s0, 1);
    // Approvals and transitions of different callers, asked for while that append syncs, share the next one.
    fs.hold = true;
    const one = store.create(newRecord());
    await new Promise((r) => setImmediate(r));
    const more = made.map((r) => store.transition(r.id, { state: r.state, fence: r.fence }, { state: "approved", approval }, Date.now()));
    fs.hold = false;
    for (const r of fs.held.splice(0)) r();
    await Promise.all([one, ...more]);
    assert.equal(fs.syncs - s0, 3, "the create alone, then the eight approvals together");
    await store.close();
  });

  test("W9: a change is acknowledged, and shown to a read, only once its append is synced", async () => {
    const fs = countingFs();
    const path = join(tempDir(), "actions.jsonl");
    const store = await openFileStoreWith(path, {}, { fs });
    const a = await store.create(newRecord());
    fs.hold = true;
    let acked = false;
    const creating = store.create(newRecord()).then((r) => ((acked = true), r));
    const moving = store.transition(a.id, { state: a.state, fence: a.fence }, { state: "approved", approval }, Date.now());
    while (fs.held.length === 0) await new Promise((r) => setImmediate(r));
    assert.equal(acked, false, "not acknowledged while its sync runs");
    assert.deepEqual(await store.get(a.id), a, "a read still shows what is on disk");
    assert.deepEqual((await store.list({ tenantId: "acme" })).map((r) => r.id), [a.id], "and lists it alone");
    // A change checked against the one being written sees it: its compare-and-swap holds.
    await assert.rejects(store.transition(a.id, { state: a.state, fence: a.fence }, { state: "approved", approval }, Date.now()), { code: "conflict" });
    fs.hold = false;
    for (const r of fs.held.splice(0)) r();
    const [b, a1] = await Promise.all([creating, moving]);
    assert.equal((await store.get(a.id))?.state, "approved");
    assert.deepEqual((await store.list({ tenantId: "acme" })).map((r) => r.id).sort(), [a.id, b.id].sort());
    assert.equal(a1.state, "approved");
    await store.close();
  });

  test("W9: an append fails part way: the changes that landed whole are acknowledged, the rest fail, the store goes on", async () => {
    const fs = countingFs();
    const path = join(tempDir(), "actions.jsonl");
    const store = await openFileStoreWith(path, {}, { fs });
    let cut = false;
    fs.write = (fd, data, offset, length) => {
      if (!cut) return nodeStoreFs.write(fd, data, offset, length);
      cut = false;
      // The disk fills up part way into the second line: a short write, then ENOSPC.
      const first = new TextDecoder().decode(data.subarray(offset)).indexOf("\n") + 1;
      const n = nodeStoreFs.write(fd, data, offset, first + 20);
      fs.write = () => {
        fs.write = (f, d, o, l) => nodeStoreFs.write(f, d, o, l);
        throw Object.assign(new Error("no space left on device"), { code: "ENOSPC" });
      };
      return n;
    };
    cut = true;
    const outcomes = await Promise.allSettled([store.create(newRecord()), store.create(newRecord()), store.create(newRecord())]);
    assert.deepEqual(outcomes.map((o) => o.status), ["fulfilled", "rejected", "rejected"]);
    for (const o of outcomes) if (o.status === "rejected") assert.equal((o.reason as Coded).code, "store");
    const kept = (outcomes[0] as PromiseFulfilledResult<ActionRecord>).value;
    assert.deepEqual((await store.list({ tenantId: "acme" })).map((r) => r.id), [kept.id], "what failed is undone");
    const after = await store.create(newRecord());
    await store.close();
    const again = await openFileStoreWith(path, {}, {});
    assert.deepEqual((await again.list({ tenantId: "acme" })).map((r) => r.id).sort(), [kept.id, after.id].sort(), "the journal holds exactly what was acknowledged");
    await again.close();
  });

  test("W9: a failed fdatasync closes the store: the change fails as a store error, and so does every later call", async () => {
    const fs = countingFs();
    const path = join(tempDir(), "actions.jsonl");
    const store = await openFileStoreWith(path, {}, { fs });
    const a = await store.create(newRecord());
    fs.datasync = async () => {
      throw Object.assign(new Error("input/output error"), { code: "EIO" });
    };
    await assert.rejects(store.create(newRecord()), (e: Coded) => e.code === "store" && /cannot sync/.test(e.message));
    await assert.rejects(store.get(a.id), { code: "store" });
    await store.close();
    const again = await openFileStoreWith(path, {}, {});
    assert.equal((await again.get(a.id))?.id, a.id);
    await again.close();
  });

  test("W9: a compaction that fails before its rename leaves the journal in use: the store goes on and loses nothing", async () => {
    const fs = countingFs();
    const path = join(tempDir(), "actions.jsonl");
    const store = await openFileStoreWith(path, {}, { fs });
    const a = await store.create(newRecord());
    fs.open = (p, flags, mode) => {
      if (p.endsWith(".compact")) throw Object.assign(new Error("no space left on device"), { code: "ENOSPC" });
      return nodeStoreFs.open(p, flags, mode);
    };
    await assert.rejects(store.compact(), (e: Coded) => e.code === "store" && /cannot compact/.test(e.message));
    const b = await store.create(newRecord());
    fs.open = nodeStoreFs.open;
    await store.close();
    const again = await openFileStoreWith(path, {}, {});
    assert.deepEqual((await again.list({ tenantId: "acme" })).map((r) => r.id).sort(), [a.id, b.id].sort());
    await again.compact();
    await again.close();
  });

  test("W9: one append holds at most FILE_STORE_GROUP_COMMIT_BYTES: more concurrent changes take more appends", async () => {
    const fs = countingFs();
    const store = await openFileStoreWith(join(tempDir(), "actions.jsonl"), {}, { fs });
    const w0 = fs.writes.length;
    const pad = "x".repeat(400_000);
    const count = Math.ceil((FILE_STORE_GROUP_COMMIT_BYTES * 1.5) / pad.length);
    await Promise.all(Array.from({ length: count }, () => store.create(newRecord({ arguments: { pad } }))));
    const writes = fs.writes.slice(w0);
    assert.ok(writes.length >= 2, `${writes.length} appends`);
    for (const n of writes) assert.ok(n <= FILE_STORE_GROUP_COMMIT_BYTES, `an append of ${n} bytes`);
    assert.equal((await store.list({ tenantId: "acme" })).length, count);
    await store.close();
  });
});
