// W13: no action stays uncertain forever. Past the reconcile window a reconciling
// action becomes outcome_unknown with the reason, and is never sent again; U5: the
// worker's onNeedsAttention is told once per such action, after its record is on disk,
// and what it throws or rejects with goes to onError without holding the worker up.
// Against the reference contract server (a real stdio child with its own log) and
// the file store (a real journal on disk).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createActions } from "../../src/actions/approvals.js";
import { MemoryActionStore } from "../../src/actions/memory-store.js";
import { createWorker } from "../../src/actions/worker.js";
import { argumentsHash } from "../../src/actions/hash.js";
import type { ActionRecord, ActionStore } from "../../src/actions/types.js";
import { MAX_RECONCILE_AGE_MS, RECONCILE_MAX_DELAY_MS } from "../../src/limits.js";
import { openFileStore } from "../../src/node/file-store.js";
import type { WriteTool } from "../../src/tools/types.js";
import { alice, bob, deleteTool, renameLines, renameTool, startContract, tempDir } from "./support.js";

const T = { timeout: 60_000 };

async function approved(store: ActionStore, tool: WriteTool, id: string): Promise<ActionRecord> {
  const actions = createActions({ store, mayApprove: () => true });
  const a = await actions.propose(await tool.prepare({ id, name: `${id} renamed` }, { identity: alice }), { identity: alice, effect: "write" });
  return actions.approve(a, bob);
}

/** The last journal line of action `id`, as the file store wrote it to disk. */
function lastOnDisk(path: string, id: string): { state?: string } | undefined {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { r?: { id?: string; state?: string } })
    .map((line) => line.r) // a record line of the journal: {"h": holder, "r": record}
    .filter((r) => r?.id === id)
    .at(-1);
}

describe("W13: the reconcile window", T, () => {
  test("W13: a receipt that stays unknown keeps the action reconciling until the window has passed, then outcome_unknown with the reason, never resent", T, async () => {
    const server = await startContract({ modes: ["receipt-unknown"] });
    try {
      const store = new MemoryActionStore();
      const tool = renameTool(server.client, alice);
      const a = await approved(store, tool, "A");
      const start = Date.now();
      let clock = start;
      const windowMs = 60_000;
      const worker = createWorker({ store, resolveTool: () => tool, now: () => clock, random: () => 0.999, reconcileWindowMs: windowMs });
      await worker.runOnce();
      const first = await store.get(a.id);
      assert.equal(first?.state, "reconciling");
      assert.equal(first.outcome?.uncertainSince, start);
      let lookups = 0;
      for (let r = await store.get(a.id); r?.state === "reconciling"; r = await store.get(a.id)) {
        assert.ok((r.notBefore ?? 0) <= start + windowMs, "the next lookup comes by the end of the window");
        assert.equal(r.outcome?.uncertainSince, start, "the window's start is kept");
        clock = r.notBefore ?? clock;
        await worker.runOnce();
        assert.ok(++lookups < 50, "bounded");
      }
      const done = await store.get(a.id);
      assert.equal(done?.state, "outcome_unknown");
      assert.ok(clock >= start + windowMs, "not before the window's end");
      assert.match(done.outcome?.reason ?? "", /reconcile window of 60000 ms; not retried \(.*unknown/);
      assert.ok((done.attempts ?? 0) >= 3, `receipts were looked up (${done.attempts})`);
      assert.equal(tool.executes, 1);
      assert.equal(renameLines(server.log, a.operationId), 1, "one send in all");
      clock += MAX_RECONCILE_AGE_MS;
      assert.equal(await worker.runOnce(), 0, "outcome_unknown is never claimed again");
    } finally {
      await server.close();
    }
  });

  test("W13: the default window is MAX_RECONCILE_AGE_MS; a receipt inside it still settles the action; a record reconciling from before starts its window at its next lookup", T, async () => {
    const server = await startContract({ modes: ["unknown-status"] });
    try {
      const store = new MemoryActionStore();
      const tool = renameTool(server.client, alice);
      const a = await approved(store, tool, "B");
      let clock = Date.now();
      const worker = createWorker({ store, resolveTool: () => tool, now: () => clock });
      await worker.runOnce();
      assert.equal((await store.get(a.id))?.state, "reconciling");
      // Just inside the default window, the receipt answers: succeeded, as ever.
      clock += MAX_RECONCILE_AGE_MS - 1;
      await worker.runOnce();
      assert.equal((await store.get(a.id))?.state, "succeeded");
      assert.equal(MAX_RECONCILE_AGE_MS, 24 * 60 * 60_000);

      // A reconciling record without a window start (written before the window existed).
      const args = { id: "C", name: "old" };
      const t0 = clock;
      const old = await store.create({
        id: "old-1", operationId: "op-old-1", actorId: "alice", tenantId: "acme", tool: tool.name, effect: "write", version: tool.version,
        arguments: args, argumentsHash: await argumentsHash(args), stateVersion: "C:1", state: "awaiting_approval", fence: 0, attempts: 0, createdAt: t0, updatedAt: t0, expiresAt: t0 + 60_000,
      });
      await store.transition(old.id, { state: "awaiting_approval", fence: 0 }, { state: "approved", approval: { actorId: "bob", tenantId: "acme", at: t0 } }, t0);
      const claimed = await store.claim({ workerId: "gone", now: t0, leaseMs: 1 });
      assert.ok(claimed);
      await store.transition(claimed.id, { state: "approved", fence: claimed.fence }, { state: "executing" }, t0);
      await store.transition(claimed.id, { state: "executing", fence: claimed.fence }, { state: "reconciling", outcome: { reason: "from before" }, leaseOwner: undefined, leaseUntil: undefined }, t0);
      const w = createWorker({ store, resolveTool: () => tool, now: () => clock, reconcileWindowMs: 1_000 });
      clock = t0 + 500;
      await w.runOnce();
      const kept = await store.get(old.id);
      assert.equal(kept?.state, "reconciling", "its window starts at this lookup");
      assert.equal(kept.outcome?.uncertainSince, t0 + 500);
      clock = t0 + 1_499;
      await w.runOnce();
      assert.equal((await store.get(old.id))?.state, "reconciling");
      clock = t0 + 1_500;
      await w.runOnce();
      assert.equal((await store.get(old.id))?.state, "outcome_unknown");
      assert.equal(renameLines(server.log, "op-old-1"), 0, "never sent");
    } finally {
      await server.close();
    }
  });

  test("W13: reconcileWindowMs is an integer from 1 to MAX_RECONCILE_AGE_MS", () => {
    const store = new MemoryActionStore();
    for (const reconcileWindowMs of [0, -1, 1.5, MAX_RECONCILE_AGE_MS + 1, Number.NaN]) {
      assert.throws(() => createWorker({ store, resolveTool: () => undefined, reconcileWindowMs }), (e: unknown) => (e as { code?: string }).code === "validation", String(reconcileWindowMs));
    }
    assert.ok(createWorker({ store, resolveTool: () => undefined, reconcileWindowMs: MAX_RECONCILE_AGE_MS }));
  });
});

describe("U5: onNeedsAttention", T, () => {
  test("U5, W13: told once per action made outcome_unknown, after its record is on disk; a throw, a rejection or a promise that never settles neither blocks nor fails the worker", T, async () => {
    const server = await startContract({ modes: ["receipt-unknown"] });
    const dir = tempDir();
    const path = join(dir, "actions.jsonl");
    const store = await openFileStore(path);
    try {
      const tool = renameTool(server.client, alice);
      const confirm = deleteTool(server.client);
      const writes = [await approved(store, tool, "A"), await approved(store, tool, "B"), await approved(store, tool, "C")];
      // A confirmed call whose worker died after recording executing: outcome unknown at once.
      const actions = createActions({ store, mayApprove: () => true });
      const c = await actions.approve(await actions.propose(await confirm.prepare({ id: "B" }, { identity: alice }), { identity: alice, effect: "confirm" }), bob);
      let clock = Date.now();
      const dead = await store.claim({ workerId: "dead", now: clock, leaseMs: 1 });
      assert.equal(dead?.id, writes[0]?.id, "oldest first");
      // Claim until the confirm action is ours to strand (the writes go back to approved by their lapsed leases).
      let stranded = dead;
      while (stranded && stranded.id !== c.id) stranded = await store.claim({ workerId: "dead", now: clock, leaseMs: 1 });
      assert.ok(stranded);
      await store.transition(stranded.id, { state: "approved", fence: stranded.fence }, { state: "executing" }, clock);
      clock += 10;

      const told: Array<{ id: string; state: string; onDisk?: string }> = [];
      const errors: unknown[] = [];
      let n = 0;
      const worker = createWorker({
        store,
        resolveTool: (a) => (a.tool === confirm.name ? confirm : tool),
        now: () => clock,
        reconcileWindowMs: 30_000,
        onError: (e) => errors.push(e),
        onNeedsAttention: (a) => {
          told.push({ id: a.id, state: a.state, onDisk: lastOnDisk(path, a.id)?.state });
          a.state = "succeeded"; // a copy: the host cannot change the worker's record
          n++;
          if (n === 1) throw new Error("the pager is down");
          if (n === 2) return Promise.reject(new Error("webhook answered 500"));
          return new Promise<void>(() => {}); // never settles
        },
      });
      await worker.runOnce();
      assert.deepEqual(told.map((t) => [t.id, t.state, t.onDisk]), [[c.id, "outcome_unknown", "outcome_unknown"]], "the stranded confirm call, once it is on disk");
      for (let i = 0; i < 40 && writes.some((w) => told.every((t) => t.id !== w.id)); i++) {
        clock += RECONCILE_MAX_DELAY_MS;
        await worker.runOnce();
      }
      await new Promise((r) => setTimeout(r, 20)); // the rejection reaches onError
      assert.deepEqual(told.map((t) => t.id).sort(), [c.id, ...writes.map((w) => w.id)].sort(), "each action once");
      assert.ok(told.every((t) => t.state === "outcome_unknown" && t.onDisk === "outcome_unknown"), JSON.stringify(told));
      for (const w of writes) assert.equal((await store.get(w.id))?.state, "outcome_unknown");
      assert.deepEqual(errors.map((e) => (e as Error).message).sort(), ["the pager is down", "webhook answered 500"]);
      clock += MAX_RECONCILE_AGE_MS;
      assert.equal(await worker.runOnce(), 0);
      assert.equal(told.length, 4, "never told twice");
    } finally {
      await store.close();
      await server.close();
    }
  });
});
