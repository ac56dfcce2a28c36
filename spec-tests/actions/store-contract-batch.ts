// W12: the batched operations of the store contract (claimMany, transitionMany), part
// of the one conformance suite (store-contract.ts) that every store runs unchanged.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ActionRecord } from "../../src/actions/types.js";
import { MAX_ACTION_RECORD_BYTES, MAX_CLAIM_BATCH, MAX_CLAIM_TOOL_PREFIXES, MAX_TOOL_NAME_CHARS, MAX_TRANSITION_BATCH } from "../../src/limits.js";
import { inState, newRecord, okResult, rejectsWith, type StoreHarness } from "./store-contract.js";

type WithStore = (fn: (h: StoreHarness) => Promise<void>) => () => Promise<void>;

/** Registers the batch tests inside storeContract's describe block. */
export function batchContract(withStore: WithStore): void {
    test("W12: claimMany leases the oldest eligible actions, each with its own fence bump and lease; a bad limit is a validation error", withStore(async ({ store }) => {
      assert.ok(store.claimMany, "every store has a batched claim");
      const claimMany = store.claimMany.bind(store);
      assert.deepEqual(await claimMany({ workerId: "w1", now: Date.now(), leaseMs: 60_000, limit: 5 }), [], "an empty store has nothing");
      const t0 = Date.now() - 1_000;
      await inState(store, "succeeded", { createdAt: t0 - 5 });
      await store.create(newRecord({ createdAt: t0 - 4 })); // awaiting approval, not expired
      const due: ActionRecord[] = [];
      for (let i = 0; i < 5; i++) due.push(await inState(store, "approved", { createdAt: t0 + 5 - i }));
      const oldestFirst = [...due].reverse();
      const now = Date.now();
      const first = await claimMany({ workerId: "w1", now, leaseMs: 60_000, limit: 3 });
      assert.deepEqual(first.map((c) => c.id), oldestFirst.slice(0, 3).map((r) => r.id), "the three oldest, oldest first");
      for (const c of first) {
        const before = due.find((r) => r.id === c.id)!;
        assert.equal(c.state, "approved");
        assert.equal(c.fence, before.fence + 1);
        assert.equal(c.leaseOwner, "w1");
        assert.ok(c.leaseUntil !== undefined && c.leaseUntil >= now + 59_000);
        assert.deepEqual(await store.get(c.id), c);
      }
      const rest = await claimMany({ workerId: "w2", now: Date.now(), leaseMs: 60_000, limit: MAX_CLAIM_BATCH });
      assert.deepEqual(rest.map((c) => c.id), oldestFirst.slice(3).map((r) => r.id), "only what no live lease holds");
      assert.deepEqual(await claimMany({ workerId: "w3", now: Date.now(), leaseMs: 60_000, limit: 10 }), []);
      for (const limit of [0, -1, 1.5, MAX_CLAIM_BATCH + 1, Number.NaN]) {
        await rejectsWith(claimMany({ workerId: "w", now: Date.now(), leaseMs: 1_000, limit }), "validation", `limit ${limit}`);
      }
      await rejectsWith(claimMany({ workerId: "", now: Date.now(), leaseMs: 1_000, limit: 1 }), "validation", "empty worker id");
    }));

    test("W12, U6: a claim limited to toolPrefixes takes only those tools' actions, of every kind a claim takes, and claimMany the same; the others are never leased", withStore(async ({ store }) => {
      const mine: string[] = [];
      const theirs: string[] = [];
      for (const [tool, into] of [["billing__refund", mine], ["files__rename", theirs]] as const) {
        into.push((await inState(store, "approved", { tool })).id);
        into.push((await inState(store, "reconciling", { tool })).id);
        into.push((await inState(store, "executing", { tool })).id); // no live lease: a worker died mid-send
        into.push((await store.create(newRecord({ tool, expiresAt: Date.now() - 60_000 }))).id); // to expire
      }
      const limited = { workerId: "w-billing", now: Date.now(), leaseMs: 60_000, toolPrefixes: ["ledger__", "billing__"] };
      const one = await store.claim(limited);
      assert.ok(one && mine.includes(one.id), "a claim takes an action of its tools");
      const rest = await store.claimMany!({ ...limited, limit: MAX_CLAIM_BATCH });
      assert.deepEqual(new Set([one.id, ...rest.map((c) => c.id)]), new Set(mine), "every kind of its tools' actions, and only those");
      assert.equal(await store.claim(limited), undefined);
      assert.deepEqual(await store.claimMany!({ ...limited, limit: 5 }), []);
      for (const id of theirs) assert.equal((await store.get(id))?.leaseOwner, undefined, "another server's action is never leased");
      assert.equal(await store.claim({ ...limited, toolPrefixes: [] }), undefined, "no prefix: no action");
      const any = await store.claimMany!({ workerId: "w-any", now: Date.now(), leaseMs: 60_000, limit: MAX_CLAIM_BATCH });
      assert.deepEqual(new Set(any.map((c) => c.id)), new Set(theirs), "without toolPrefixes, any action");
      for (const bad of [[""], ["x".repeat(MAX_TOOL_NAME_CHARS + 1)], Array.from({ length: MAX_CLAIM_TOOL_PREFIXES + 1 }, (_, i) => `s${i}__`), "billing__", [1]]) {
        await rejectsWith(store.claim({ ...limited, toolPrefixes: bad as never }), "validation", `toolPrefixes ${JSON.stringify(bad).slice(0, 40)}`);
        await rejectsWith(store.claimMany!({ ...limited, limit: 1, toolPrefixes: bad as never }), "validation", `claimMany toolPrefixes ${JSON.stringify(bad).slice(0, 40)}`);
      }
      // At the bound: as many prefixes as MAX_CLAIM_TOOL_PREFIXES, each of MAX_TOOL_NAME_CHARS.
      const full = Array.from({ length: MAX_CLAIM_TOOL_PREFIXES }, (_, i) => `${i}`.padEnd(MAX_TOOL_NAME_CHARS, "_"));
      assert.equal(await store.claim({ ...limited, toolPrefixes: full }), undefined);
    }));

    test("W12: concurrent claimMany calls never hand out the same action", withStore(async ({ store }) => {
      const n = 12;
      for (let i = 0; i < n; i++) await inState(store, "approved");
      const batches = await Promise.all(Array.from({ length: 6 }, (_, i) => store.claimMany!({ workerId: `w${i}`, now: Date.now(), leaseMs: 60_000, limit: 4 })));
      const got = batches.flat();
      assert.equal(new Set(got.map((c) => c.id)).size, got.length, "each action in one batch only");
      assert.equal(got.length, n, "every action claimed");
      for (const c of got) assert.equal((await store.get(c.id))?.leaseOwner, c.leaseOwner);
    }));

    test("W12: transitionMany applies each compare-and-swap on its own; a stale, refused, unknown or repeated item fails alone", withStore(async ({ store }) => {
      assert.ok(store.transitionMany, "every store has batched transitions");
      const transitionMany = store.transitionMany.bind(store);
      assert.deepEqual(await transitionMany([], Date.now()), []);
      const a = await inState(store, "approved");
      const b = await inState(store, "executing");
      const stale = await inState(store, "approved");
      const claimed = await store.claim({ workerId: "w2", now: Date.now(), leaseMs: 60_000 }); // bumps the oldest approved: a
      assert.equal(claimed?.id, a.id);
      const terminal = await inState(store, "succeeded");
      const out = await transitionMany([
        { id: a.id, expected: { state: "approved", fence: claimed.fence }, patch: { state: "executing" } },
        { id: b.id, expected: { state: "executing", fence: b.fence }, patch: { state: "succeeded", outcome: okResult, leaseOwner: undefined, leaseUntil: undefined } },
        { id: stale.id, expected: { state: "approved", fence: stale.fence + 7 }, patch: { state: "executing" } },
        { id: terminal.id, expected: { state: "succeeded", fence: terminal.fence }, patch: { state: "executing" } },
        { id: "no-such-action", expected: { state: "approved", fence: 0 }, patch: { state: "executing" } },
        { id: a.id, expected: { state: "approved", fence: claimed.fence }, patch: { state: "executing" } },
        { id: stale.id, expected: { state: "approved", fence: stale.fence }, patch: { state: "approved", tool: "other" } as never },
      ], Date.now());
      assert.equal(out.length, 7, "one outcome per item, in order");
      const codes = out.map((o) => (o.ok ? "ok" : o.error.code));
      assert.deepEqual(codes, ["ok", "ok", "conflict", "conflict", "store", "validation", "validation"]);
      const [oa, ob] = out;
      assert.ok(oa?.ok && ob?.ok);
      assert.equal(oa.record.state, "executing");
      assert.equal(oa.record.fence, claimed.fence, "a transition keeps the fence");
      assert.equal(oa.record.leaseOwner, "w2");
      assert.deepEqual(await store.get(a.id), oa.record);
      assert.equal(ob.record.state, "succeeded");
      assert.equal(ob.record.leaseOwner, undefined, "a member set to undefined is removed");
      assert.deepEqual(await store.get(b.id), ob.record);
      assert.deepEqual(await store.get(stale.id), stale, "a failed item changed nothing");
      assert.deepEqual(await store.get(terminal.id), terminal);
    }));

    test("W12: transitionMany refuses a batch over MAX_TRANSITION_BATCH or without a finite now, and changes nothing", withStore(async ({ store }) => {
      const r = await inState(store, "approved");
      const item = { id: r.id, expected: { state: "approved" as const, fence: r.fence }, patch: { state: "executing" as const } };
      await rejectsWith(store.transitionMany!(Array.from({ length: MAX_TRANSITION_BATCH + 1 }, () => item), Date.now()), "validation", "too many");
      await rejectsWith(store.transitionMany!([item], Number.NaN), "validation", "now NaN");
      assert.deepEqual(await store.get(r.id), r);
      const huge = { result: { content: [{ type: "text" as const, text: "x".repeat(MAX_ACTION_RECORD_BYTES) }], isError: false } };
      const e = await inState(store, "executing");
      const [big] = await store.transitionMany!([{ id: e.id, expected: { state: "executing", fence: e.fence }, patch: { state: "succeeded", outcome: huge } }], Date.now());
      assert.ok(big && !big.ok && big.error.code === "limit", "an oversized item is a limit outcome");
      assert.deepEqual(await store.get(e.id), e);
    }));

}
