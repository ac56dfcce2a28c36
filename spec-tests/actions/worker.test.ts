// W5, W6, W7, W8: the approval API and the worker against the reference contract
// server (a real stdio child with its own durable log of every mutation).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { createActions } from "../../src/actions/approvals.js";
import { MemoryActionStore } from "../../src/actions/memory-store.js";
import { createWorker, reconcileDelay, type ActionWorker } from "../../src/actions/worker.js";
import { argumentsHash } from "../../src/actions/hash.js";
import { MAX_NOT_SENT_ATTEMPTS, RECONCILE_MAX_DELAY_MS } from "../../src/limits.js";
import type { ActionRecord } from "../../src/actions/types.js";
import type { Identity, WriteTool, ConfirmTool } from "../../src/tools/types.js";
import { alice, bob, deleteTool, eve, logLines, performed, renameLines, renameTool, startContract } from "./support.js";

const anyone = () => true;

async function proposeRename(actions: ReturnType<typeof createActions>, tool: WriteTool, args = { id: "A", name: "Gear" }): Promise<ActionRecord> {
  const prepared = await tool.prepare(args, { identity: alice });
  return actions.propose(prepared, { identity: alice, effect: "write", runId: "run-1", callId: "call-1" });
}

const resolver = (tools: Array<WriteTool | ConfirmTool>) => (a: ActionRecord, who: Identity) => {
  assert.deepEqual(who, { actorId: a.actorId, tenantId: a.tenantId }, "resolved for the action's own identity");
  return tools.find((t) => t.name === a.tool);
};

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "resolved";
  } catch (e) {
    return String((e as { code?: unknown }).code);
  }
}

describe("W8: approval API", { timeout: 60_000 }, () => {
  test("W8: propose records the prepared action bound to its hash; pending lists it for its tenant only", async () => {
    const server = await startContract();
    try {
      const store = new MemoryActionStore();
      const actions = createActions({ store, mayApprove: anyone, approvalTtlMs: 60_000 });
      const a = await proposeRename(actions, renameTool(server.client, alice));
      assert.equal(a.state, "awaiting_approval");
      assert.equal(a.argumentsHash, await argumentsHash({ name: "Gear", id: "A" }));
      assert.equal(a.stateVersion, "A:1");
      assert.match(a.preview ?? "", /Rename A/);
      assert.ok(a.expiresAt > Date.now() + 50_000 && a.expiresAt <= Date.now() + 60_000);
      assert.deepEqual((await actions.pending("acme")).map((x) => x.id), [a.id]);
      assert.deepEqual(await actions.pending("evil"), []);
      assert.equal(logLines(server.log).length, 0, "preparation wrote nothing");
    } finally {
      await server.close();
    }
  });

  test("W8: an approver of another tenant, or one the host callback refuses, cannot approve", async () => {
    const store = new MemoryActionStore();
    const actions = createActions({ store, mayApprove: (who, a) => who.actorId !== a.actorId });
    const a = await actions.propose({ tool: "items__rename", version: "v1", arguments: { id: "A", name: "x" } }, { identity: alice, effect: "write" });
    assert.equal(await code(actions.approve(a, eve)), "unauthorized");
    assert.equal(await code(actions.approve(a, alice)), "unauthorized", "the callback refuses self-approval");
    assert.equal(await code(actions.reject(a, eve, "no")), "unauthorized");
    assert.equal((await store.get(a.id))?.state, "awaiting_approval");
    assert.equal((await actions.approve(a, bob)).approval?.actorId, "bob");
  });

  test("W8: an approval whose arguments, version, state version or tool differ from the stored action is refused", async () => {
    const store = new MemoryActionStore();
    const actions = createActions({ store, mayApprove: anyone });
    const a = await actions.propose({ tool: "items__rename", version: "v1", arguments: { id: "A", name: "x" }, stateVersion: "A:1" }, { identity: alice, effect: "write" });
    for (const change of [{ argumentsHash: await argumentsHash({ id: "A", name: "y" }) }, { version: "v2" }, { stateVersion: "A:2" }, { tool: "items__delete_item" }, { actorId: "mallory" }]) {
      assert.equal(await code(actions.approve({ ...a, ...change }, bob)), "conflict", JSON.stringify(change));
    }
    assert.equal((await store.get(a.id))?.state, "awaiting_approval");
  });

  test("W8: a second approval, or an approval after a rejection, is a conflict; the rejection reason is kept", async () => {
    const store = new MemoryActionStore();
    const actions = createActions({ store, mayApprove: anyone });
    const a = await actions.propose({ tool: "t", version: "v1", arguments: {} }, { identity: alice, effect: "confirm" });
    await actions.approve(a, bob);
    assert.equal(await code(actions.approve(a, bob)), "conflict");
    const b = await actions.propose({ tool: "t", version: "v1", arguments: {} }, { identity: alice, effect: "confirm" });
    const rejected = await actions.reject(b, bob, "not during the freeze");
    assert.equal(rejected.rejection?.reason, "not during the freeze");
    assert.equal(await code(actions.approve(b, bob)), "conflict");
  });

  test("W8: past its TTL an action cannot be approved and becomes expired; the worker expires the rest", async () => {
    const store = new MemoryActionStore();
    let clock = Date.now();
    const actions = createActions({ store, mayApprove: anyone, approvalTtlMs: 1_000, now: () => clock });
    const a = await actions.propose({ tool: "t", version: "v1", arguments: {} }, { identity: alice, effect: "confirm" });
    const b = await actions.propose({ tool: "t", version: "v1", arguments: { n: 2 } }, { identity: alice, effect: "confirm" });
    clock += 1_001;
    assert.deepEqual(await actions.pending("acme"), [], "an expired action is not pending");
    assert.equal(await code(actions.approve(a, bob)), "conflict");
    assert.equal((await store.get(a.id))?.state, "expired");
    const worker = createWorker({ store, resolveTool: () => undefined, now: () => clock });
    assert.equal(await worker.runOnce(), 1);
    assert.equal((await store.get(b.id))?.state, "expired");
  });
});

describe("W8: the worker", { timeout: 60_000 }, () => {
  test("W8: an approved write is marked executing before the send, performed once, and succeeded", async () => {
    const server = await startContract();
    try {
      const store = new MemoryActionStore();
      const actions = createActions({ store, mayApprove: anyone });
      const seen: string[] = [];
      const tool = renameTool(server.client, alice, "reviewed-1", async (action) => {
        // At the moment of the send the store already says executing.
        seen.push((await store.list({ tenantId: "acme" })).find((r) => r.operationId === action.operationId)?.state ?? "none");
      });
      const a = await proposeRename(actions, tool);
      await actions.approve(a, bob);
      const worker = createWorker({ store, resolveTool: resolver([tool]) });
      assert.equal(await worker.runOnce(), 1);
      assert.deepEqual(seen, ["executing"]);
      const done = await store.get(a.id);
      assert.equal(done?.state, "succeeded");
      assert.match(JSON.stringify(done?.outcome?.result), /renamed A/);
      assert.equal(performed(server.log, a.operationId), 1);
      assert.equal(await worker.runOnce(), 0, "nothing left: a succeeded action is never sent again");
      assert.equal(performed(server.log, a.operationId), 1);
    } finally {
      await server.close();
    }
  });

  test("W6: a tool whose version changed since approval fails with version_changed and nothing is sent", async () => {
    const server = await startContract();
    try {
      const store = new MemoryActionStore();
      const actions = createActions({ store, mayApprove: anyone });
      const a = await proposeRename(actions, renameTool(server.client, alice, "reviewed-1"));
      await actions.approve(a, bob);
      const changed = renameTool(server.client, alice, "reviewed-2");
      await createWorker({ store, resolveTool: resolver([changed]) }).runOnce();
      const done = await store.get(a.id);
      assert.equal(done?.state, "failed");
      assert.match(JSON.stringify(done?.outcome?.result), /version_changed/);
      assert.equal(changed.executes, 0);
      assert.equal(renameLines(server.log, a.operationId), 0, "the server never saw the mutation");
    } finally {
      await server.close();
    }
  });

  test("W5: an execute answered unknown goes reconciling and is resolved by the receipt helper only", async () => {
    const server = await startContract({ modes: ["unknown-status"] });
    try {
      const store = new MemoryActionStore();
      const actions = createActions({ store, mayApprove: anyone });
      const tool = renameTool(server.client, alice);
      const a = await proposeRename(actions, tool);
      await actions.approve(a, bob);
      let clock = Date.now();
      const worker = createWorker({ store, resolveTool: resolver([tool]), now: () => clock });
      await worker.runOnce();
      const r = await store.get(a.id);
      assert.equal(r?.state, "reconciling");
      assert.equal(r.attempts, 0);
      assert.ok(r.notBefore !== undefined && r.notBefore > clock, "backs off before the first lookup");
      assert.equal(await worker.runOnce(), 0, "not before notBefore");
      clock += RECONCILE_MAX_DELAY_MS;
      await worker.runOnce();
      assert.equal((await store.get(a.id))?.state, "succeeded");
      assert.equal(tool.executes, 1, "the mutation was never resent");
      assert.equal(performed(server.log, a.operationId), 1);
    } finally {
      await server.close();
    }
  });

  test("W5: a receipt that stays unknown keeps the action reconciling with a bounded, growing back-off", async () => {
    const server = await startContract({ modes: ["receipt-unknown"] });
    try {
      const store = new MemoryActionStore();
      const actions = createActions({ store, mayApprove: anyone });
      const tool = renameTool(server.client, alice);
      const a = await proposeRename(actions, tool);
      await actions.approve(a, bob);
      let clock = Date.now();
      const worker = createWorker({ store, resolveTool: resolver([tool]), now: () => clock, random: () => 0.999 });
      await worker.runOnce();
      const delays: number[] = [];
      for (let i = 0; i < 6; i++) {
        const r = await store.get(a.id);
        assert.equal(r?.state, "reconciling");
        delays.push((r.notBefore ?? 0) - clock);
        clock += RECONCILE_MAX_DELAY_MS + 1;
        await worker.runOnce();
      }
      assert.equal((await store.get(a.id))?.attempts, 6);
      for (let i = 1; i < delays.length; i++) assert.ok((delays[i] ?? 0) >= (delays[i - 1] ?? 0), `back-off grows: ${delays.join(", ")}`);
      assert.ok(delays.every((d) => d <= RECONCILE_MAX_DELAY_MS));
      assert.ok(reconcileDelay(1_000, () => 0.999) <= RECONCILE_MAX_DELAY_MS && reconcileDelay(3, () => 0) >= 4_000);
      assert.equal(tool.executes, 1);
      assert.equal(renameLines(server.log, a.operationId), 1, "one send in all");
    } finally {
      await server.close();
    }
  });

  test("W5: an execute that times out after the server performed it is reconciled by receipt, not resent", async () => {
    const server = await startContract({ modes: ["timeout-after-perform"], callTimeoutMs: 300 });
    try {
      const store = new MemoryActionStore();
      const actions = createActions({ store, mayApprove: anyone });
      const tool = renameTool(server.client, alice);
      const a = await proposeRename(actions, tool);
      await actions.approve(a, bob);
      let clock = Date.now();
      const worker = createWorker({ store, resolveTool: resolver([tool]), now: () => clock });
      await worker.runOnce();
      const r = await store.get(a.id);
      assert.equal(r?.state, "reconciling");
      assert.match(r.outcome?.reason ?? "", /timed out/);
      clock += RECONCILE_MAX_DELAY_MS;
      await worker.runOnce();
      assert.equal((await store.get(a.id))?.state, "succeeded");
      assert.equal(tool.executes, 1);
      assert.equal(performed(server.log, a.operationId), 1);
    } finally {
      await server.close();
    }
  });

  test("W8: an executing action whose lease lapsed is never sent again: a write reconciles, a confirm is outcome_unknown", async () => {
    const server = await startContract();
    try {
      const store = new MemoryActionStore();
      const actions = createActions({ store, mayApprove: anyone });
      const write = renameTool(server.client, alice);
      const confirm = deleteTool(server.client);
      const w = await proposeRename(actions, write);
      const c = await actions.propose(await confirm.prepare({ id: "B" }, { identity: alice }), { identity: alice, effect: "confirm" });
      await actions.approve(w, bob);
      await actions.approve(c, bob);
      // A worker that died right after recording executing: claimed, marked, never sent.
      for (let i = 0; i < 2; i++) {
        const claimed = await store.claim({ workerId: "dead", now: Date.now(), leaseMs: 400 });
        assert.ok(claimed);
        await store.transition(claimed.id, { state: "approved", fence: claimed.fence }, { state: "executing" }, Date.now());
      }
      await new Promise((r) => setTimeout(r, 500));
      await createWorker({ store, resolveTool: resolver([write, confirm]), workerId: "alive" }).runOnce();
      const wr = await store.get(w.id);
      assert.equal(wr?.state, "reconciling", "the receipt says nothing happened: still unknown, never resent");
      assert.ok((wr.attempts ?? 0) >= 1, "the receipt was looked up");
      const cr = await store.get(c.id);
      assert.equal(cr?.state, "outcome_unknown");
      assert.equal(write.executes + confirm.executes, 0);
      assert.equal(logLines(server.log).length, 0, "the server performed nothing");
    } finally {
      await server.close();
    }
  });

  test("W7: a confirm call runs once; an uncertain one is outcome_unknown and never retried", async () => {
    const server = await startContract();
    try {
      const store = new MemoryActionStore();
      const actions = createActions({ store, mayApprove: anyone });
      const confirm = deleteTool(server.client);
      const ok = await actions.propose(await confirm.prepare({ id: "C" }, { identity: alice }), { identity: alice, effect: "confirm" });
      await actions.approve(ok, bob);
      const worker = createWorker({ store, resolveTool: resolver([confirm]) });
      await worker.runOnce();
      assert.equal((await store.get(ok.id))?.state, "succeeded");
      const lost = await actions.propose(await confirm.prepare({ id: "A" }, { identity: alice }), { identity: alice, effect: "confirm" });
      await actions.approve(lost, bob);
      await server.close(); // the connection is gone: the call's outcome is uncertain
      await worker.runOnce();
      const r = await store.get(lost.id);
      assert.equal(r?.state, "outcome_unknown");
      assert.equal(await worker.runOnce(), 0);
      assert.equal(confirm.executes, 2, "one send per approval");
      assert.equal(logLines(server.log).filter((l) => l.tool === "delete_item").length, 1);
    } finally {
      await server.close();
    }
  });

  test("W8: an execute that never reached the server (connection refused) is retried under the same operation id", async () => {
    const server = await startContract();
    const closed = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const port = (s.address() as { port: number }).port;
        s.close(() => resolve(port));
      });
    });
    try {
      const store = new MemoryActionStore();
      const actions = createActions({ store, mayApprove: anyone });
      const ops: string[] = [];
      const tool = renameTool(server.client, alice, "reviewed-1", async (action) => {
        ops.push(action.operationId);
        // The first attempt goes to a port nobody listens on: refused before any byte is sent.
        if (ops.length === 1) await fetch(`http://127.0.0.1:${closed}/mcp`, { method: "POST", body: "{}" });
      });
      const a = await proposeRename(actions, tool);
      await actions.approve(a, bob);
      await createWorker({ store, resolveTool: resolver([tool]) }).runOnce();
      assert.equal((await store.get(a.id))?.state, "succeeded");
      assert.deepEqual(ops, [a.operationId, a.operationId]);
      assert.equal(performed(server.log, a.operationId), 1);

      // Refused every time: failed as not sent after MAX_NOT_SENT_ATTEMPTS, nothing performed.
      const never = { ...renameTool(server.client, alice), execute: async () => fetch(`http://127.0.0.1:${closed}/`).then(() => ({ status: "unknown" as const, reason: "?" })) };
      let tries = 0;
      const counted = { ...never, execute: async () => (tries++, never.execute()) };
      const b = await proposeRename(actions, counted, { id: "B", name: "Other" });
      await actions.approve(b, bob);
      // The shortest pauses between the tries (the jitter at its low end).
      await createWorker({ store, resolveTool: resolver([counted]), random: () => 0 }).runOnce();
      const rb = await store.get(b.id);
      assert.equal(rb?.state, "failed");
      assert.match(JSON.stringify(rb.outcome?.result), /not_sent/);
      assert.equal(tries, MAX_NOT_SENT_ATTEMPTS);
    } finally {
      await server.close();
    }
  });

  test("W8: two workers on one store perform every approved action exactly once", async () => {
    const server = await startContract();
    try {
      const store = new MemoryActionStore();
      const actions = createActions({ store, mayApprove: anyone });
      const tool = renameTool(server.client, alice);
      const ids: ActionRecord[] = [];
      for (const [i, item] of ["A", "B", "C"].entries()) {
        const a = await proposeRename(actions, tool, { id: item, name: `New ${i}` });
        await actions.approve(a, bob);
        ids.push(a);
      }
      const w1 = createWorker({ store, resolveTool: resolver([tool]), workerId: "w1" });
      const w2 = createWorker({ store, resolveTool: resolver([tool]), workerId: "w2" });
      const [n1, n2] = await Promise.all([w1.runOnce(), w2.runOnce()]);
      assert.equal(n1 + n2, 3);
      for (const a of ids) {
        assert.equal((await store.get(a.id))?.state, "succeeded");
        assert.equal(performed(server.log, a.operationId), 1);
      }
    } finally {
      await server.close();
    }
  });

  test("W8: a started worker picks up approvals as they come and stops with await using", async () => {
    const server = await startContract();
    try {
      const store = new MemoryActionStore();
      const actions = createActions({ store, mayApprove: anyone });
      const tool = renameTool(server.client, alice);
      const moved: string[] = [];
      {
        await using worker = createWorker({ store, resolveTool: resolver([tool]), pollMs: 20, onAction: (r) => moved.push(r.state) }) as ActionWorker & AsyncDisposable;
        worker.start();
        const a = await proposeRename(actions, tool);
        await actions.approve(a, bob);
        for (let i = 0; i < 200 && (await store.get(a.id))?.state !== "succeeded"; i++) await new Promise((r) => setTimeout(r, 25));
        assert.equal((await store.get(a.id))?.state, "succeeded");
      }
      assert.deepEqual(moved, ["executing", "succeeded"]);
    } finally {
      await server.close();
    }
  });
});
