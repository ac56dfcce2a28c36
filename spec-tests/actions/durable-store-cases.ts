// The store contract (ACTIONS.md) as cases any durable store runs (W9, W12): the
// PostgreSQL and Durable Object stores call durableStoreCases with a factory that
// gives a fresh, empty store per case.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ActionRecord, ActionStore } from "../../src/actions/types.js";
import { isYadaError } from "../../src/errors.js";

let n = 0;
/** A valid new action; ids are unique within the process. */
export function newAction(over: Partial<ActionRecord> = {}): ActionRecord {
  n++;
  return {
    id: `act-${process.pid}-${n}`,
    operationId: `op-${process.pid}-${n}`,
    actorId: "alice",
    tenantId: "acme",
    tool: "crm__update",
    effect: "write",
    version: "v1",
    arguments: { name: "x", n },
    argumentsHash: "a".repeat(64),
    state: "awaiting_approval",
    fence: 0,
    attempts: 0,
    createdAt: 1_000 + n,
    updatedAt: 1_000 + n,
    expiresAt: 10_000_000,
    ...over,
  };
}

export const approval = { actorId: "bob", tenantId: "acme", at: 2_000 };

/** Creates an action and approves it. */
export async function approved(store: ActionStore, over: Partial<ActionRecord> = {}): Promise<ActionRecord> {
  const a = await store.create(newAction(over));
  return store.transition(a.id, { state: "awaiting_approval", fence: 0 }, { state: "approved", approval: { ...approval, tenantId: a.tenantId } }, 2_000);
}

const rejectsWith = (p: Promise<unknown>, code: string): Promise<void> =>
  assert.rejects(p, (e: unknown) => {
    assert.ok(isYadaError(e), `expected a YadaError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    return true;
  });

/** Registers the contract's cases for one store. `id` is W9 or W12. */
export function durableStoreCases(id: string, name: string, makeStore: () => Promise<ActionStore>, opts: { timeout?: number } = {}): void {
  const t = { timeout: opts.timeout ?? 30_000 };

  test(`${id}: ${name}: create then get returns the same record; a duplicate id or operation id is a conflict`, t, async () => {
    const store = await makeStore();
    const a = newAction({ runId: "run-1", callId: "c1", preview: "Set name to x\u0000", stateVersion: "sv-1" });
    await store.create(a);
    assert.deepEqual(await store.get(a.id), a);
    assert.equal(await store.get("no-such-action"), undefined);
    await rejectsWith(store.create({ ...a, operationId: "other" }), "conflict");
    await rejectsWith(store.create({ ...newAction(), operationId: a.operationId }), "conflict");
  });

  test(`${id}: ${name}: a new action must await approval at fence 0`, t, async () => {
    const store = await makeStore();
    await rejectsWith(store.create(newAction({ state: "approved", approval })), "validation");
    await rejectsWith(store.create(newAction({ fence: 3 })), "validation");
  });

  test(`${id}: ${name}: list is per tenant, oldest first, filtered by state and run, bounded by limit`, t, async () => {
    const store = await makeStore();
    const a = await store.create(newAction({ runId: "r1" }));
    const b = await store.create(newAction({ runId: "r2" }));
    const c = await store.create(newAction({ runId: "r1" }));
    await store.create(newAction({ tenantId: "other" }));
    await store.transition(b.id, { state: "awaiting_approval", fence: 0 }, { state: "approved", approval }, 3_000);
    assert.deepEqual((await store.list({ tenantId: "acme" })).map((r) => r.id), [a.id, b.id, c.id]);
    assert.deepEqual((await store.list({ tenantId: "acme", state: "approved" })).map((r) => r.id), [b.id]);
    assert.deepEqual((await store.list({ tenantId: "acme", state: ["approved", "awaiting_approval"], runId: "r1" })).map((r) => r.id), [a.id, c.id]);
    assert.deepEqual((await store.list({ tenantId: "acme", limit: 2 })).map((r) => r.id), [a.id, b.id]);
    assert.deepEqual(await store.list({ tenantId: "nobody" }), []);
  });

  test(`${id}: ${name}: a transition is a compare-and-swap on state and fence, within the state machine`, t, async () => {
    const store = await makeStore();
    const a = await store.create(newAction());
    await rejectsWith(store.transition(a.id, { state: "awaiting_approval", fence: 1 }, { state: "approved", approval }, 3_000), "conflict");
    await rejectsWith(store.transition(a.id, { state: "approved", fence: 0 }, { state: "executing" }, 3_000), "conflict");
    await rejectsWith(store.transition(a.id, { state: "awaiting_approval", fence: 0 }, { state: "executing" }, 3_000), "conflict");
    await rejectsWith(store.transition(a.id, { state: "awaiting_approval", fence: 0 }, { state: "approved" }, 3_000), "validation");
    const b = await store.transition(a.id, { state: "awaiting_approval", fence: 0 }, { state: "approved", approval }, 3_000);
    assert.equal(b.state, "approved");
    assert.equal(b.updatedAt, 3_000);
    assert.deepEqual(b.approval, approval);
    assert.deepEqual(await store.get(a.id), b);
    await rejectsWith(store.transition("no-such-action", { state: "approved", fence: 0 }, { state: "executing" }, 3_000), "store");
  });

  test(`${id}: ${name}: a decision of another tenant is refused`, t, async () => {
    const store = await makeStore();
    const a = await store.create(newAction());
    await rejectsWith(store.transition(a.id, { state: "awaiting_approval", fence: 0 }, { state: "approved", approval: { ...approval, tenantId: "evil" } }, 3_000), "validation");
    assert.equal((await store.get(a.id))?.state, "awaiting_approval");
  });

  test(`${id}: ${name}: terminal states never change again`, t, async () => {
    const store = await makeStore();
    const a = await store.create(newAction());
    const r = await store.transition(a.id, { state: "awaiting_approval", fence: 0 }, { state: "rejected", rejection: { ...approval, reason: "no" } }, 3_000);
    assert.equal(r.rejection?.reason, "no");
    for (const to of ["approved", "executing", "succeeded", "rejected"] as const) {
      await rejectsWith(store.transition(a.id, { state: "rejected", fence: 0 }, { state: to, approval }, 4_000), "conflict");
    }
    assert.deepEqual(await store.get(a.id), r);
  });

  test(`${id}: ${name}: a claim leases the oldest approved action and bumps its fence; a lapsed lease is claimed again`, t, async () => {
    const store = await makeStore();
    const a = await approved(store);
    const b = await approved(store);
    const c1 = await store.claim({ workerId: "w1", now: 5_000, leaseMs: 1_000 });
    assert.equal(c1?.id, a.id);
    assert.equal(c1?.fence, 1);
    assert.equal(c1?.leaseOwner, "w1");
    assert.equal(c1?.leaseUntil, 6_000);
    assert.equal(c1?.state, "approved");
    const c2 = await store.claim({ workerId: "w2", now: 5_100, leaseMs: 1_000 });
    assert.equal(c2?.id, b.id);
    assert.equal(await store.claim({ workerId: "w3", now: 5_200, leaseMs: 1_000 }), undefined);
    const c3 = await store.claim({ workerId: "w3", now: 6_000, leaseMs: 1_000 });
    assert.equal(c3?.id, a.id);
    assert.equal(c3?.fence, 2);
    // The first lease holder's write is refused by the fence.
    await rejectsWith(store.transition(a.id, { state: "approved", fence: 1 }, { state: "executing" }, 6_100), "conflict");
    const ex = await store.transition(a.id, { state: "approved", fence: 2 }, { state: "executing" }, 6_100);
    assert.equal(ex.state, "executing");
    assert.equal(ex.fence, 2);
  });

  test(`${id}: ${name}: an executing action is claimed only once its lease lapsed; reconciling waits for notBefore; an expired proposal is claimed`, t, async () => {
    const store = await makeStore();
    const a = await approved(store);
    const c = await store.claim({ workerId: "w1", now: 5_000, leaseMs: 1_000 });
    assert.equal(c?.id, a.id);
    await store.transition(a.id, { state: "approved", fence: 1 }, { state: "executing" }, 5_001);
    assert.equal(await store.claim({ workerId: "w2", now: 5_500, leaseMs: 1_000 }), undefined);
    const lapsed = await store.claim({ workerId: "w2", now: 6_000, leaseMs: 1_000 });
    assert.equal(lapsed?.state, "executing");
    assert.equal(lapsed?.fence, 2);
    await store.transition(a.id, { state: "executing", fence: 2 }, { state: "reconciling", notBefore: 9_000, leaseOwner: undefined, leaseUntil: undefined, attempts: 1 }, 6_001);
    assert.equal(await store.claim({ workerId: "w3", now: 8_999, leaseMs: 1_000 }), undefined);
    const rec = await store.claim({ workerId: "w3", now: 9_000, leaseMs: 1_000 });
    assert.equal(rec?.state, "reconciling");
    assert.equal(rec?.fence, 3);
    assert.equal(rec?.attempts, 1);
    const old = await store.create(newAction({ expiresAt: 9_500 }));
    assert.equal(await store.claim({ workerId: "w4", now: 9_400, leaseMs: 1_000 }), undefined);
    const exp = await store.claim({ workerId: "w4", now: 9_500, leaseMs: 1_000 });
    assert.equal(exp?.id, old.id);
    assert.equal(exp?.state, "awaiting_approval");
    const done = await store.transition(old.id, { state: "awaiting_approval", fence: 1 }, { state: "expired" }, 9_501);
    assert.equal(done.state, "expired");
  });

  test(`${id}: ${name}: concurrent claims never hand out one action twice`, t, async () => {
    const store = await makeStore();
    const ids = new Set<string>();
    for (let i = 0; i < 24; i++) ids.add((await approved(store)).id);
    const got: string[] = [];
    await Promise.all(
      Array.from({ length: 6 }, async (_, w) => {
        for (;;) {
          const c = await store.claim({ workerId: `w${w}`, now: 5_000, leaseMs: 60_000 });
          if (!c) return;
          got.push(c.id);
        }
      }),
    );
    assert.equal(got.length, ids.size);
    assert.deepEqual(new Set(got), ids);
  });

  test(`${id}: ${name}: an oversized record is refused with a limit error`, t, async () => {
    const store = await makeStore();
    await rejectsWith(store.create(newAction({ arguments: { blob: "x".repeat(1024 * 1024 + 1) } })), "limit");
  });
}
