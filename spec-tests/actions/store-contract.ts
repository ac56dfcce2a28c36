// W9, W12, W14: the action store conformance suite. Every store (memory, file, PostgreSQL,
// Durable Objects) runs it unchanged; it talks to the store only through the
// ActionStore interface, plus `tamper` to plant an impossible record as raw JSON.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { ActionRecord, ActionRecordFields, ActionState, ActionStore } from "../../src/actions/types.js";
import { ACTION_STATES, canTransition, isFinal, isTerminal } from "../../src/actions/states.js";
import { MAX_ACTION_RECORD_BYTES, MAX_ACTIONS_LISTED, MAX_OPERATION_ID_CHARS, MAX_RESOLUTION_NOTE_CHARS } from "../../src/limits.js";
import { batchContract } from "./store-contract-batch.js";
import { pagesContract } from "./store-contract-pages.js";

/** What a store under test gives the suite. Each `open()` is a fresh, empty store. */
export interface StoreHarness {
  store: ActionStore;
  /** Closes the store and frees what it holds (files, connections). */
  close(): Promise<void>;
  /** Closes this store and opens the same data again (a process restart, for durable stores). */
  reopen(): Promise<ActionStore>;
  /**
   * Overwrites the stored record `id` with `raw`, bypassing every check (how a corrupt
   * row looks). It may replace `store` (the suite reads `store` again afterwards).
   */
  tamper(id: string, raw: Record<string, unknown>): Promise<void>;
}

let seq = 0;
/** A fresh, valid record awaiting approval (unique id and operation id). */
export function newRecord(overrides: Partial<ActionRecordFields> = {}): ActionRecord {
  seq++;
  const now = Date.now();
  return {
    id: `act-${now.toString(36)}-${seq}-${Math.random().toString(36).slice(2, 8)}`,
    operationId: `op-${now.toString(36)}-${seq}-${Math.random().toString(36).slice(2, 8)}`,
    actorId: "alice",
    tenantId: "acme",
    tool: "files__rename",
    effect: "write",
    version: "v1:abc",
    arguments: { from: "a.txt", to: "b.txt" },
    argumentsHash: "0".repeat(64),
    stateVersion: "sv-1",
    preview: "rename a.txt to b.txt",
    state: "awaiting_approval",
    fence: 0,
    attempts: 0,
    createdAt: now + seq / 1000,
    updatedAt: now,
    expiresAt: now + 3_600_000,
    ...overrides,
  } as ActionRecord;
}

const approval = { actorId: "bob", tenantId: "acme", at: 1 };
const rejection = { actorId: "bob", tenantId: "acme", at: 1, reason: "no" };
export const okResult = { result: { content: [{ type: "text" as const, text: "done" }], isError: false } };

/** An operator's resolution (W14) of an outcome_unknown action as `outcome`. */
export const resolutionOf = (outcome: "succeeded" | "failed", over: Record<string, unknown> = {}) => ({
  actorId: "carol", tenantId: "acme", at: 2, outcome, note: "checked the server's audit log", ...over,
});

/** The patch that makes a move valid for the record's consistency rules. */
function patchFor(to: ActionState, from?: ActionState): { state: ActionState } & Record<string, unknown> {
  if (from === "outcome_unknown" && (to === "succeeded" || to === "failed")) return { state: to, resolution: resolutionOf(to) };
  if (to === "approved") return { state: to, approval };
  if (to === "rejected") return { state: to, rejection };
  if (to === "succeeded" || to === "failed" || to === "outcome_unknown") return { state: to, outcome: to === "outcome_unknown" ? { reason: "lost" } : okResult };
  return { state: to };
}

/** The path of allowed moves from awaiting_approval to each state. */
const PATHS: Record<ActionState, ActionState[]> = {
  awaiting_approval: [],
  approved: ["approved"],
  rejected: ["rejected"],
  expired: ["expired"],
  executing: ["approved", "executing"],
  succeeded: ["approved", "executing", "succeeded"],
  failed: ["approved", "executing", "failed"],
  reconciling: ["approved", "executing", "reconciling"],
  outcome_unknown: ["approved", "executing", "outcome_unknown"],
};

/** Creates a record (confirm for outcome_unknown) and drives it to `state` by allowed moves. */
export async function inState(store: ActionStore, state: ActionState, overrides: Partial<ActionRecordFields> = {}): Promise<ActionRecord> {
  let r = await store.create(newRecord({ effect: state === "outcome_unknown" ? "confirm" : "write", ...overrides }));
  for (const s of PATHS[state]) r = await store.transition(r.id, { state: r.state, fence: r.fence }, patchFor(s) as never, Date.now());
  return r;
}

export async function rejectsWith(p: Promise<unknown>, code: string, what: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.equal((e as { code?: unknown }).code, code, `${what}: expected code ${code}, got ${String(e)}`);
    return true;
  });
}

// Leases and windows that must still be open at the next call and lapsed after a pause:
// wide enough for a loaded machine and a store that flushes each change to disk.
const WINDOW_MS = 500;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Registers the store contract tests for one store. `open` must return a fresh,
 * empty store each time; the suite closes it.
 */
export function storeContract(label: string, open: () => Promise<StoreHarness>): void {
  const withStore = (fn: (h: StoreHarness) => Promise<void>) => async () => {
    const h = await open();
    try {
      await fn(h);
    } finally {
      await h.close();
    }
  };

  describe(`W9: store contract: ${label}`, { timeout: 60_000 }, () => {
    test("W9: create returns the record, get returns an equal copy, an unknown id is undefined", withStore(async ({ store }) => {
      const rec = newRecord({ runId: "run-1", callId: "call-1" });
      assert.deepEqual(await store.create(rec), rec);
      assert.deepEqual(await store.get(rec.id), rec);
      assert.equal(await store.get("no-such-action"), undefined);
      const copy = await store.get(rec.id);
      assert.ok(copy);
      copy.arguments.from = "changed";
      copy.state = "approved";
      assert.deepEqual(await store.get(rec.id), rec, "a returned record is a copy");
    }));

    test("W9: a taken id or operation id is a conflict and changes nothing", withStore(async ({ store }) => {
      const rec = await store.create(newRecord());
      await rejectsWith(store.create({ ...newRecord(), id: rec.id }), "conflict", "same id");
      await rejectsWith(store.create({ ...newRecord(), operationId: rec.operationId }), "conflict", "same operation id");
      assert.deepEqual(await store.get(rec.id), rec);
      assert.equal((await store.list({ tenantId: "acme" })).length, 1);
    }));

    test("W9: create refuses a record that is not new or not possible", withStore(async ({ store }) => {
      await rejectsWith(store.create(newRecord({ state: "approved", approval })), "validation", "not awaiting approval");
      await rejectsWith(store.create(newRecord({ fence: 3 })), "validation", "fence not 0");
      await rejectsWith(store.create({ ...newRecord(), tool: "" }), "validation", "empty tool");
      await rejectsWith(store.create(newRecord({ operationId: "x".repeat(MAX_OPERATION_ID_CHARS + 1) })), "validation", "long operation id");
      await rejectsWith(store.create(newRecord({ argumentsHash: "nothex" })), "validation", "bad hash");
      await rejectsWith(store.create({ ...newRecord(), extra: 1 } as unknown as ActionRecord), "validation", "unknown member");
      await rejectsWith(store.create(newRecord({ stateVersion: "" })), "validation", "empty state version");
      assert.deepEqual(await store.list({ tenantId: "acme" }), []);
    }));

    test("W9: a record over MAX_ACTION_RECORD_BYTES is a limit error on create and on transition", withStore(async ({ store }) => {
      await rejectsWith(store.create(newRecord({ arguments: { blob: "é".repeat(MAX_ACTION_RECORD_BYTES / 2) } })), "limit", "huge create");
      const r = await inState(store, "executing");
      const huge = { result: { content: [{ type: "text" as const, text: "x".repeat(MAX_ACTION_RECORD_BYTES) }], isError: false } };
      await rejectsWith(store.transition(r.id, { state: r.state, fence: r.fence }, { state: "succeeded", outcome: huge }, Date.now()), "limit", "huge outcome");
      assert.deepEqual(await store.get(r.id), r);
    }));

    test("W9: list selects by tenant, state and run, oldest first, bounded", withStore(async ({ store }) => {
      const t0 = Date.now();
      const a = await store.create(newRecord({ createdAt: t0 + 3, runId: "r1" }));
      const b = await store.create(newRecord({ createdAt: t0 + 1, runId: "r2" }));
      const c = await store.create(newRecord({ createdAt: t0 + 2, runId: "r1", tenantId: "other", actorId: "eve" }));
      const d = await inState(store, "approved", { createdAt: t0 + 4, runId: "r1" });
      const ids = (rs: ActionRecord[]) => rs.map((r) => r.id);
      assert.deepEqual(ids(await store.list({ tenantId: "acme" })), [b.id, a.id, d.id]);
      assert.deepEqual(ids(await store.list({ tenantId: "other" })), [c.id]);
      assert.deepEqual(ids(await store.list({ tenantId: "nobody" })), []);
      assert.deepEqual(ids(await store.list({ tenantId: "acme", state: "awaiting_approval" })), [b.id, a.id]);
      assert.deepEqual(ids(await store.list({ tenantId: "acme", state: ["approved", "rejected"] })), [d.id]);
      assert.deepEqual(ids(await store.list({ tenantId: "acme", runId: "r1" })), [a.id, d.id]);
      assert.deepEqual(ids(await store.list({ tenantId: "acme", runId: "r1", state: "approved" })), [d.id]);
      assert.deepEqual(ids(await store.list({ tenantId: "acme", limit: 2 })), [b.id, a.id]);
      assert.equal((await store.list({ tenantId: "acme", limit: MAX_ACTIONS_LISTED * 10 })).length, 3);
      await rejectsWith(store.list({ tenantId: "acme", limit: 0 }), "validation", "limit 0");
      await rejectsWith(store.list({ tenantId: "acme", limit: 1.5 }), "validation", "limit 1.5");
      await rejectsWith(store.list({ tenantId: "" }), "validation", "no tenant");
    }));

    test("W9: every allowed move succeeds, every other move is a conflict and changes nothing", withStore(async ({ store }) => {
      let allowed = 0;
      let refused = 0;
      for (const from of ACTION_STATES) {
        for (const to of ACTION_STATES) {
          // Consistency rules outside the move table: a confirm action never reconciles, a write never ends outcome_unknown.
          const effect = from === "outcome_unknown" || (to === "outcome_unknown" && from !== "reconciling") ? "confirm" : "write";
          const r = await inState(store, from, { effect });
          const before = await store.get(r.id);
          const p = store.transition(r.id, { state: from, fence: r.fence }, patchFor(to, from) as never, Date.now() + 5);
          if (canTransition(from, to)) {
            const next = await p;
            assert.equal(next.state, to, `${from} → ${to}`);
            assert.equal(next.fence, r.fence, "a transition keeps the fence");
            assert.ok(next.updatedAt >= r.updatedAt);
            assert.deepEqual(await store.get(r.id), next);
            allowed++;
          } else {
            await rejectsWith(p, "conflict", `${from} → ${to}`);
            assert.deepEqual(await store.get(r.id), before, `${from} → ${to} changed nothing`);
            refused++;
          }
        }
      }
      assert.ok(allowed >= 10 && refused >= 60, `allowed ${allowed}, refused ${refused}`);
    }));

    test("W9: final states never change, whatever the patch", withStore(async ({ store }) => {
      const finals = ACTION_STATES.filter(isFinal);
      assert.deepEqual(finals, ["rejected", "expired", "succeeded", "failed"]);
      for (const state of finals) {
        const r = await inState(store, state);
        for (const to of ACTION_STATES) {
          await rejectsWith(store.transition(r.id, { state, fence: r.fence }, patchFor(to) as never, Date.now()), "conflict", `${state} → ${to}`);
          if (to === "succeeded" || to === "failed") {
            await rejectsWith(store.transition(r.id, { state, fence: r.fence }, patchFor(to, "outcome_unknown") as never, Date.now()), "conflict", `${state} → ${to} by a resolution`);
          }
        }
        assert.deepEqual(await store.get(r.id), r);
      }
    }));

    test("W14: an outcome_unknown action leaves it only by an operator's resolution: to succeeded or failed, in its tenant, once", withStore(async (h) => {
      const { store } = h;
      const r = await inState(store, "outcome_unknown");
      assert.ok(isTerminal(r.state) && !isFinal(r.state), "outcome_unknown is terminal for the worker, not final");
      const at = { state: r.state, fence: r.fence };
      const refused: Array<[string, Record<string, unknown>]> = [
        ["succeeded without a resolution", { state: "succeeded", outcome: okResult }],
        ["failed without a resolution", { state: "failed" }],
        ["a resolution from another tenant", { state: "succeeded", resolution: resolutionOf("succeeded", { tenantId: "other" }) }],
        ["a resolution whose verdict is not the new state", { state: "succeeded", resolution: resolutionOf("failed") }],
        ["a resolution without a note", { state: "failed", resolution: resolutionOf("failed", { note: "" }) }],
        ["a resolution with a note over MAX_RESOLUTION_NOTE_CHARS", { state: "failed", resolution: resolutionOf("failed", { note: "n".repeat(MAX_RESOLUTION_NOTE_CHARS + 1) }) }],
        ["a resolution with an unknown member", { state: "failed", resolution: { ...resolutionOf("failed"), extra: 1 } }],
        ["a resolution with an unknown verdict", { state: "failed", resolution: resolutionOf("failed", { outcome: "maybe" }) }],
        ["a resolution that also changes the outcome", { state: "succeeded", resolution: resolutionOf("succeeded"), outcome: okResult }],
        ["a resolution that also changes the attempts", { state: "succeeded", resolution: resolutionOf("succeeded"), attempts: 3 }],
      ];
      for (const [what, patch] of refused) {
        await rejectsWith(store.transition(r.id, at, patch as never, Date.now()), "validation", what);
        assert.deepEqual(await store.get(r.id), r, `${what} changed nothing`);
      }
      // A resolution on any other move is refused too: only outcome_unknown is settled by a person.
      const running = await inState(store, "executing");
      await rejectsWith(store.transition(running.id, { state: "executing", fence: running.fence }, { state: "succeeded", outcome: okResult, resolution: resolutionOf("succeeded") } as never, Date.now()), "validation", "a resolution of an executing action");
      const unknownRes = await inState(store, "reconciling");
      await rejectsWith(store.transition(unknownRes.id, { state: "reconciling", fence: unknownRes.fence }, { state: "failed", resolution: resolutionOf("failed") } as never, Date.now()), "validation", "a resolution of a reconciling action");
      assert.equal((await store.get(running.id))?.state, "executing");

      const settled = await store.transition(r.id, at, { state: "failed", resolution: resolutionOf("failed") } as never, Date.now() + 1);
      assert.equal(settled.state, "failed");
      assert.deepEqual(settled.resolution, resolutionOf("failed"));
      assert.deepEqual(settled.outcome, r.outcome, "the worker's outcome is kept as it was");
      assert.deepEqual(await store.get(r.id), settled);
      // Once: a second resolution, with the old or the new expectation, is a conflict.
      await rejectsWith(store.transition(r.id, at, { state: "succeeded", resolution: resolutionOf("succeeded") } as never, Date.now()), "conflict", "a second resolution (stale)");
      await rejectsWith(store.transition(r.id, { state: "failed", fence: r.fence }, { state: "succeeded", resolution: resolutionOf("succeeded") } as never, Date.now()), "conflict", "a second resolution");
      // Neither the unresolved nor the resolved action is ever handed to a worker.
      const other = await inState(store, "outcome_unknown");
      for (let i = 0; i < 10; i++) {
        const c = await store.claim({ workerId: "w", now: Date.now(), leaseMs: 60_000 });
        if (!c) break;
        assert.ok(c.id !== r.id && c.id !== other.id, "an outcome_unknown or resolved action was claimed");
      }
      // Durable: the resolution survives a reopen with every member.
      const again = await h.reopen();
      assert.deepEqual(await again.get(r.id), settled);
      const ok = await again.transition(other.id, { state: other.state, fence: other.fence }, { state: "succeeded", resolution: resolutionOf("succeeded") } as never, Date.now());
      assert.equal(ok.state, "succeeded");
      assert.deepEqual((await again.list({ tenantId: "acme", state: ["succeeded", "failed"] })).filter((a) => a.resolution).map((a) => a.id).sort(), [r.id, other.id].sort());
      // In a batch, each item by the same rules: the resolution applies, the bare move out of outcome_unknown is refused alone.
      const b1 = await inState(again, "outcome_unknown");
      const b2 = await inState(again, "outcome_unknown");
      const out = await again.transitionMany!([
        { id: b1.id, expected: { state: b1.state, fence: b1.fence }, patch: { state: "succeeded", resolution: resolutionOf("succeeded") } },
        { id: b2.id, expected: { state: b2.state, fence: b2.fence }, patch: { state: "succeeded", outcome: okResult } },
      ], Date.now());
      assert.deepEqual(out.map((o) => (o.ok ? o.record.state : o.error.code)), ["succeeded", "validation"]);
      assert.equal((await again.get(b2.id))?.state, "outcome_unknown");
    }));

    test("W9: compare-and-swap: a wrong expected state or a stale fence is a conflict and changes nothing", withStore(async ({ store }) => {
      const r = await store.create(newRecord());
      await rejectsWith(store.transition(r.id, { state: "approved", fence: 0 }, { state: "executing" }, Date.now()), "conflict", "wrong state");
      await rejectsWith(store.transition(r.id, { state: "awaiting_approval", fence: 1 }, { state: "approved", approval }, Date.now()), "conflict", "future fence");
      const approved = await store.transition(r.id, { state: "awaiting_approval", fence: 0 }, { state: "approved", approval }, Date.now());
      const claimed = await store.claim({ workerId: "w1", now: Date.now(), leaseMs: 60_000 });
      assert.equal(claimed?.id, r.id);
      assert.equal(claimed.fence, approved.fence + 1);
      // The worker that held fence 0 is stale now.
      await rejectsWith(store.transition(r.id, { state: "approved", fence: approved.fence }, { state: "executing" }, Date.now()), "conflict", "stale fence");
      assert.deepEqual(await store.get(r.id), claimed);
      const executing = await store.transition(r.id, { state: "approved", fence: claimed.fence }, { state: "executing" }, Date.now());
      assert.equal(executing.state, "executing");
      assert.equal(executing.leaseOwner, "w1");
      // The same expectation again: the record moved on.
      await rejectsWith(store.transition(r.id, { state: "approved", fence: claimed.fence }, { state: "executing" }, Date.now()), "conflict", "replayed transition");
    }));

    test("W9: a transition of an unknown action is a store error; a fixed field cannot be patched", withStore(async ({ store }) => {
      await rejectsWith(store.transition("no-such-action", { state: "awaiting_approval", fence: 0 }, { state: "expired" }, Date.now()), "store", "unknown id");
      const r = await store.create(newRecord());
      for (const bad of [{ tool: "other" }, { arguments: {} }, { tenantId: "other" }, { fence: 9 }, { version: "v2" }, { operationId: "op-x" }]) {
        await rejectsWith(store.transition(r.id, { state: r.state, fence: r.fence }, { state: "approved", approval, ...bad } as never, Date.now()), "validation", JSON.stringify(bad));
      }
      await rejectsWith(store.transition(r.id, { state: r.state, fence: r.fence }, { state: "approved" }, Date.now()), "validation", "approved without an approval");
      await rejectsWith(store.transition(r.id, { state: r.state, fence: r.fence }, { state: "approved", approval: { ...approval, tenantId: "other" } }, Date.now()), "validation", "approval from another tenant");
      assert.deepEqual(await store.get(r.id), r);
    }));

    test("W9: claim leases an approved action: fence bumped, owner and lease set, state unchanged; not again while leased", withStore(async ({ store }) => {
      assert.equal(await store.claim({ workerId: "w1", now: Date.now(), leaseMs: 60_000 }), undefined, "an empty store has nothing");
      await store.create(newRecord()); // awaiting approval, not expired: not claimable
      const r = await inState(store, "approved");
      const now = Date.now();
      const c = await store.claim({ workerId: "w1", now, leaseMs: 60_000 });
      assert.ok(c);
      assert.equal(c.id, r.id);
      assert.equal(c.state, "approved");
      assert.equal(c.fence, r.fence + 1);
      assert.equal(c.leaseOwner, "w1");
      assert.ok(c.leaseUntil !== undefined && c.leaseUntil >= now + 59_000);
      assert.deepEqual(await store.get(r.id), c);
      assert.equal(await store.claim({ workerId: "w2", now: Date.now(), leaseMs: 60_000 }), undefined, "a live lease is not taken over");
      await rejectsWith(store.claim({ workerId: "", now: Date.now(), leaseMs: 1 }), "validation", "empty worker id");
      await rejectsWith(store.claim({ workerId: "w", now: Date.now(), leaseMs: 0 }), "validation", "zero lease");
    }));

    test("W9: claim hands out the oldest eligible action first; terminal actions never", withStore(async ({ store }) => {
      const t0 = Date.now() - 1_000;
      for (const s of ["succeeded", "failed", "rejected", "expired", "outcome_unknown"] as const) await inState(store, s, { createdAt: t0 - 10 });
      const young = await inState(store, "approved", { createdAt: t0 + 2 });
      const old = await inState(store, "approved", { createdAt: t0 + 1 });
      const first = await store.claim({ workerId: "w", now: Date.now(), leaseMs: 60_000 });
      const second = await store.claim({ workerId: "w", now: Date.now(), leaseMs: 60_000 });
      assert.deepEqual([first?.id, second?.id], [old.id, young.id]);
      assert.equal(await store.claim({ workerId: "w", now: Date.now(), leaseMs: 60_000 }), undefined);
    }));

    test("W9: claim takes an executing action only once its lease lapsed, and a lapsed approved lease", withStore(async ({ store }) => {
      const r = await inState(store, "approved");
      const c = await store.claim({ workerId: "w1", now: Date.now(), leaseMs: WINDOW_MS });
      assert.ok(c);
      const e = await store.transition(c.id, { state: "approved", fence: c.fence }, { state: "executing" }, Date.now());
      assert.equal(await store.claim({ workerId: "w2", now: Date.now(), leaseMs: 60_000 }), undefined, "live lease");
      await pause(WINDOW_MS + 100);
      const again = await store.claim({ workerId: "w2", now: Date.now(), leaseMs: 60_000 });
      assert.equal(again?.id, r.id);
      assert.equal(again.state, "executing", "the state is unchanged: the recovering worker decides");
      assert.equal(again.fence, e.fence + 1);
      assert.equal(again.leaseOwner, "w2");
      await rejectsWith(store.transition(r.id, { state: "executing", fence: e.fence }, patchFor("succeeded") as never, Date.now()), "conflict", "the first worker's commit");

      const a = await inState(store, "approved");
      const ca = await store.claim({ workerId: "w1", now: Date.now(), leaseMs: WINDOW_MS });
      assert.equal(ca?.id, a.id);
      await pause(WINDOW_MS + 100);
      const ca2 = await store.claim({ workerId: "w3", now: Date.now(), leaseMs: 60_000 });
      assert.equal(ca2?.id, a.id, "an approved action whose worker died is claimed again");
      assert.equal(ca2.fence, ca.fence + 1);
    }));

    test("W9: claim takes a reconciling action only past notBefore", withStore(async ({ store }) => {
      const r = await inState(store, "reconciling");
      const later = await store.transition(r.id, { state: "reconciling", fence: r.fence }, { state: "reconciling", attempts: 1, notBefore: Date.now() + WINDOW_MS, leaseUntil: undefined, leaseOwner: undefined }, Date.now());
      assert.equal(later.attempts, 1);
      assert.equal(await store.claim({ workerId: "w", now: Date.now(), leaseMs: 60_000 }), undefined, "before notBefore");
      await pause(WINDOW_MS + 100);
      const c = await store.claim({ workerId: "w", now: Date.now(), leaseMs: 60_000 });
      assert.equal(c?.id, r.id);
      assert.equal(c.state, "reconciling");
      assert.equal(c.fence, later.fence + 1);
    }));

    test("W9: claim takes an awaiting_approval action only past expiresAt (to expire it)", withStore(async ({ store }) => {
      const r = await store.create(newRecord({ expiresAt: Date.now() + WINDOW_MS }));
      assert.equal(await store.claim({ workerId: "w", now: Date.now(), leaseMs: 60_000 }), undefined);
      await pause(WINDOW_MS + 100);
      const c = await store.claim({ workerId: "w", now: Date.now(), leaseMs: 60_000 });
      assert.equal(c?.id, r.id);
      assert.equal(c.state, "awaiting_approval");
      const expired = await store.transition(r.id, { state: c.state, fence: c.fence }, { state: "expired" }, Date.now());
      assert.equal(expired.state, "expired");
      assert.equal(await store.claim({ workerId: "w", now: Date.now(), leaseMs: 60_000 }), undefined);
    }));

    test("W9: concurrent claims never hand out the same action with the same fence", withStore(async ({ store }) => {
      const n = 12;
      const ids = new Set<string>();
      for (let i = 0; i < n; i++) ids.add((await inState(store, "approved")).id);
      const claims = await Promise.all(Array.from({ length: n * 2 }, (_, i) => store.claim({ workerId: `w${i}`, now: Date.now(), leaseMs: 60_000 })));
      const got = claims.filter((c): c is ActionRecord => c !== undefined);
      const keys = got.map((c) => `${c.id}#${c.fence}`);
      assert.equal(new Set(keys).size, keys.length, "no action+fence twice");
      assert.equal(new Set(got.map((c) => c.id)).size, got.length, "under a live lease each action is claimed once");
      assert.equal(got.length, n, "every action claimed");
      for (const c of got) assert.ok(ids.has(c.id));
      // Each claim's owner holds the stored lease.
      for (const c of got) assert.equal((await store.get(c.id))?.leaseOwner, c.leaseOwner);
    }));

    test("W9: an impossible stored record is a store error when read, and is never claimed", withStore(async (h) => {
      const impossible: Array<Record<string, unknown>> = [
        { state: "bogus" },
        { fence: -1 },
        { approval: undefined }, // approved without an approval
        { tool: 42 },
        { operationId: "" },
        { arguments: [1, 2] },
        { approval: { actorId: "bob", tenantId: "other", at: 1 }, state: "approved" },
        { effect: "confirm", state: "reconciling", approval },
        // W14: a resolution only on the state it settled to, in the action's tenant, well formed.
        { resolution: resolutionOf("succeeded") }, // approved, carrying a resolution
        { effect: "confirm", state: "outcome_unknown", outcome: { reason: "lost" }, resolution: resolutionOf("failed") },
        { state: "succeeded", outcome: okResult, resolution: resolutionOf("failed") },
        { state: "failed", resolution: resolutionOf("failed", { tenantId: "other" }) },
        { state: "failed", resolution: resolutionOf("failed", { note: "" }) },
        { state: "failed", resolution: resolutionOf("failed", { at: -1 }) },
        // O2: a trace context read back is used only in its exact form.
        { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01" },
      ];
      for (const change of impossible) {
        const r = await inState(h.store, "approved");
        await h.tamper(r.id, { ...r, ...change });
        await rejectsWith(h.store.get(r.id), "store", `get ${JSON.stringify(change)}`);
        await rejectsWith(h.store.list({ tenantId: "acme" }), "store", `list ${JSON.stringify(change)}`);
        const claimed = await h.store.claim({ workerId: "w", now: Date.now(), leaseMs: 60_000 }).catch((e: unknown) => {
          assert.equal((e as { code?: unknown }).code, "store");
          return undefined;
        });
        assert.notEqual(claimed?.id, r.id, `claimed ${JSON.stringify(change)}`);
        await rejectsWith(h.store.transition(r.id, { state: "approved", fence: r.fence }, { state: "executing" }, Date.now()), "store", `transition ${JSON.stringify(change)}`);
        // Put it back so the next round's list reads.
        await h.tamper(r.id, { ...r, state: "failed", outcome: { reason: "restored" } });
      }
    }));

    test("O2: a proposal's traceparent is kept as it was through every move and a reopen; one not in the exact W3C form is refused", withStore(async (h) => {
      const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
      const a = await inState(h.store, "succeeded", { traceparent });
      assert.equal(a.traceparent, traceparent);
      const again = await h.reopen();
      assert.equal((await again.get(a.id))?.traceparent, traceparent);
      for (const bad of [traceparent.toUpperCase(), `${traceparent}-00`, "00-" + "0".repeat(32) + "-00f067aa0ba902b7-01", "", 7]) {
        await rejectsWith(again.create(newRecord({ traceparent: bad as string })), "validation", `traceparent ${JSON.stringify(bad)}`);
      }
      const b = await again.create(newRecord());
      await rejectsWith(again.transition(b.id, { state: b.state, fence: b.fence }, { state: "approved", approval, traceparent } as never, Date.now()), "validation", "a transition that sets it");
    }));

    batchContract(withStore);
    pagesContract(withStore, { newRecord, inState, rejectsWith });

    test("W9: records survive a reopen with every field", withStore(async (h) => {
      const a = await inState(h.store, "reconciling", { runId: "r9", callId: "c9" });
      const b = await h.store.create(newRecord());
      const again = await h.reopen();
      assert.deepEqual(await again.get(a.id), a);
      assert.deepEqual(await again.get(b.id), b);
      const c = await again.claim({ workerId: "w", now: Date.now(), leaseMs: 60_000 });
      assert.equal(c?.id, a.id);
      await rejectsWith(again.create({ ...newRecord(), operationId: b.operationId }), "conflict", "operation id after reopen");
    }));
  });
}
