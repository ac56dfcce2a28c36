// U4, W9: pages and counts of the action store conformance suite (store-contract.ts):
// every store lists from a cursor in either order and counts a selection the same way.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ActionRecord, ActionStore } from "../../src/actions/types.js";
import type { StoreHarness } from "./store-contract.js";

type WithStore = (fn: (h: StoreHarness) => Promise<void>) => () => Promise<void>;
type Helpers = {
  newRecord(overrides?: Partial<ActionRecord>): ActionRecord;
  inState(store: ActionStore, state: ActionRecord["state"], overrides?: Partial<ActionRecord>): Promise<ActionRecord>;
  rejectsWith(p: Promise<unknown>, code: string, what: string): Promise<void>;
};

const ids = (rs: readonly ActionRecord[]) => rs.map((r) => r.id);
const cursorOf = (r: ActionRecord | undefined) => (r ? { createdAt: r.createdAt, id: r.id } : undefined);

/** Every page of `query` by `limit`, following each page's last action. */
async function allPages(store: ActionStore, query: Parameters<ActionStore["list"]>[0], limit: number): Promise<ActionRecord[][]> {
  const pages: ActionRecord[][] = [];
  let after: { createdAt: number; id: string } | undefined;
  for (let i = 0; i < 50; i++) {
    const page = await store.list({ ...query, limit, ...(after ? { after } : {}) });
    if (page.length === 0) return pages;
    pages.push(page);
    after = cursorOf(page.at(-1));
  }
  throw new Error("the pages never ended");
}

/** Registers the page and count tests inside storeContract's describe block. */
export function pagesContract(withStore: WithStore, { newRecord, inState, rejectsWith }: Helpers): void {
  test("U4: pages from a cursor, oldest first, cover every matching action once and in order; ties on createdAt go by id", withStore(async ({ store }) => {
    const t0 = Date.now() - 10_000;
    const made: ActionRecord[] = [];
    // Two pairs share a createdAt: the id orders them, in every store.
    for (const [i, at] of [5, 1, 3, 3, 7, 2, 2, 9].entries()) made.push(await store.create(newRecord({ id: `page-${String.fromCharCode(104 - i)}-${t0}`, createdAt: t0 + at })));
    await store.create(newRecord({ createdAt: t0 + 4, tenantId: "other", actorId: "eve" }));
    await inState(store, "approved", { createdAt: t0 + 6 });
    const expected = ids(await store.list({ tenantId: "acme", state: "awaiting_approval" }));
    assert.equal(expected.length, 8);
    const sorted = [...made].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
    assert.deepEqual(expected, ids(sorted), "one list is in (createdAt, id) order");
    const pages = await allPages(store, { tenantId: "acme", state: "awaiting_approval" }, 3);
    assert.deepEqual(pages.map((p) => p.length), [3, 3, 2]);
    assert.deepEqual(pages.flatMap(ids), expected, "the pages, one after another, are the list");
    // The cursor is exclusive, and it names a place, not an action: one that never existed works too.
    const third = sorted[2]!;
    assert.deepEqual(ids(await store.list({ tenantId: "acme", state: "awaiting_approval", after: cursorOf(third) })), expected.slice(3));
    assert.deepEqual(ids(await store.list({ tenantId: "acme", state: "awaiting_approval", after: { createdAt: third.createdAt, id: `${third.id}~` } })), expected.slice(3));
    assert.deepEqual(ids(await store.list({ tenantId: "acme", state: "awaiting_approval", after: { createdAt: t0 + 1_000, id: "z" } })), []);
    assert.deepEqual(ids(await store.list({ tenantId: "acme", state: "awaiting_approval", after: { createdAt: 0, id: "a" } })), expected);
  }));

  test("U4: newest first pages backwards from a cursor; the selection by state and run holds on every page", withStore(async ({ store }) => {
    const t0 = Date.now() - 10_000;
    const mine: ActionRecord[] = [];
    for (let i = 0; i < 7; i++) mine.push(await inState(store, i % 2 ? "rejected" : "succeeded", { createdAt: t0 + i, runId: i < 5 ? "r1" : "r2" }));
    await store.create(newRecord({ createdAt: t0 + 100, runId: "r1" })); // awaiting: not decided
    const decided = ["rejected", "succeeded"] as const;
    const newest = ids(await store.list({ tenantId: "acme", state: decided, order: "newest" }));
    assert.deepEqual(newest, ids([...mine].reverse()));
    assert.deepEqual(ids(await store.list({ tenantId: "acme", state: decided, order: "oldest" })), ids(mine), "oldest is the default order");
    const pages = await allPages(store, { tenantId: "acme", state: decided, order: "newest" }, 2);
    assert.deepEqual(pages.flatMap(ids), newest);
    const r1 = await allPages(store, { tenantId: "acme", state: decided, runId: "r1", order: "newest" }, 2);
    assert.deepEqual(r1.flatMap(ids), ids(mine.slice(0, 5).reverse()));
    assert.deepEqual(ids(await store.list({ tenantId: "acme", state: "rejected", order: "newest", limit: 1, after: cursorOf(mine[5]) })), [mine[3]!.id]);
  }));

  test("U4: an action added behind the cursor is not on a later page; one added ahead of it is", withStore(async ({ store }) => {
    const t0 = Date.now() - 10_000;
    for (let i = 0; i < 4; i++) await store.create(newRecord({ createdAt: t0 + 10 * i }));
    const first = await store.list({ tenantId: "acme", limit: 2 });
    const behind = await store.create(newRecord({ createdAt: t0 + 1 }));
    const ahead = await store.create(newRecord({ createdAt: t0 + 25 }));
    const rest = await store.list({ tenantId: "acme", after: cursorOf(first.at(-1)) });
    assert.ok(!ids(rest).includes(behind.id));
    assert.ok(ids(rest).includes(ahead.id));
    assert.equal(rest.length, 3);
  }));

  test("U4: a malformed cursor or order is a validation error", withStore(async ({ store }) => {
    for (const bad of [{ createdAt: Number.NaN, id: "x" }, { createdAt: -1, id: "x" }, { createdAt: 1, id: "" }, { createdAt: 1, id: "x".repeat(300) }, { createdAt: "1", id: "x" }, "cursor"]) {
      await rejectsWith(store.list({ tenantId: "acme", after: bad as never }), "validation", `cursor ${JSON.stringify(bad)}`);
    }
    await rejectsWith(store.list({ tenantId: "acme", order: "sideways" as never }), "validation", "order");
  }));

  test("U4: count counts a tenant's actions by state and run, and follows every move", withStore(async ({ store }) => {
    assert.ok(store.count, "the store counts");
    const count = store.count.bind(store);
    assert.equal(await count({ tenantId: "acme" }), 0);
    const a = await store.create(newRecord({ runId: "r1" }));
    await store.create(newRecord({ runId: "r2" }));
    await store.create(newRecord({ tenantId: "other", actorId: "eve" }));
    const u = await inState(store, "outcome_unknown", { runId: "r1" });
    assert.equal(await count({ tenantId: "acme", state: "awaiting_approval" }), 2);
    assert.equal(await count({ tenantId: "acme", state: ["outcome_unknown", "reconciling"] }), 1);
    assert.equal(await count({ tenantId: "acme" }), 3);
    assert.equal(await count({ tenantId: "other" }), 1);
    assert.equal(await count({ tenantId: "nobody", state: "awaiting_approval" }), 0);
    assert.equal(await count({ tenantId: "acme", runId: "r1" }), 2);
    assert.equal(await count({ tenantId: "acme", runId: "r1", state: "awaiting_approval" }), 1);
    await store.transition(a.id, { state: "awaiting_approval", fence: 0 }, { state: "rejected", rejection: { actorId: "bob", tenantId: "acme", at: 1 } }, Date.now());
    assert.equal(await count({ tenantId: "acme", state: "awaiting_approval" }), 1);
    assert.equal(await count({ tenantId: "acme", state: "rejected" }), 1);
    // A refused move changes no count.
    await rejectsWith(store.transition(a.id, { state: "rejected", fence: a.fence }, { state: "approved", approval: { actorId: "bob", tenantId: "acme", at: 1 } }, Date.now()), "conflict", "terminal");
    assert.equal(await count({ tenantId: "acme", state: "rejected" }), 1);
    assert.equal(await count({ tenantId: "acme", state: "outcome_unknown" }), 1);
    assert.equal(u.state, "outcome_unknown");
    await rejectsWith(count({ tenantId: "" }), "validation", "no tenant");
    await rejectsWith(count({ tenantId: "acme", state: "bogus" as never }), "validation", "unknown state");
  }));

  test("U4: counts survive a reopen and go on following moves", withStore(async (h) => {
    const a = await h.store.create(newRecord());
    await h.store.create(newRecord());
    assert.equal(await h.store.count?.({ tenantId: "acme", state: "awaiting_approval" }), 2);
    const again = await h.reopen();
    assert.equal(await again.count?.({ tenantId: "acme", state: "awaiting_approval" }), 2);
    await again.transition(a.id, { state: "awaiting_approval", fence: 0 }, { state: "expired" }, Date.now());
    await again.create(newRecord());
    assert.equal(await again.count?.({ tenantId: "acme", state: "awaiting_approval" }), 2);
    assert.equal(await again.count?.({ tenantId: "acme", state: "expired" }), 1);
  }));
}
