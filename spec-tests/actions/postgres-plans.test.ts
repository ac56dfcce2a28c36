// W12: the PostgreSQL store on a real PostgreSQL, past the contract: what it asks of
// the database stays bounded as the table grows (EXPLAIN of the very statement it
// sends shows no scan of the table), and leases are judged by the database's clock,
// so workers whose clocks are off can neither steal a live lease nor set a lapsed one.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { PostgresActionStore } from "../../src/actions/postgres-store.js";
import { startPostgres, freshTable, type TestPostgres } from "../helpers/postgres.js";

let db: TestPostgres;
before(async () => {
  db = await startPostgres();
});
after(async () => {
  await db?.stop();
});

/** `n` approved actions written in one statement, then ANALYZE (setup only). */
async function fill(table: string, n: number, now: number): Promise<void> {
  await db.query(
    `INSERT INTO ${table} (id, operation_id, tenant_id, effect, created_at, expires_at, body, state, fence, attempts, updated_at, approval)
     SELECT 'p-' || g, 'op-p-' || g, 'acme', 'write', $1::float8 + g, $1::float8 + 3600000,
       json_build_object('id', 'p-' || g, 'operationId', 'op-p-' || g, 'actorId', 'alice', 'tenantId', 'acme', 'tool', 'notes__append',
         'effect', 'write', 'version', 'v1', 'arguments', '{}'::json, 'argumentsHash', repeat('0', 64), 'createdAt', $1::float8 + g,
         'expiresAt', $1::float8 + 3600000),
       'approved', 0, 0, $1::float8, json_build_object('actorId', 'bob', 'tenantId', 'acme', 'at', 1)
     FROM generate_series(1, $2::int) g`,
    [String(now), String(n)],
  );
  await db.query(`ANALYZE ${table}`);
}

test("W12: a batched claim stops at its batch on the work index, and a batch of transitions finds its rows by primary key, whatever the backlog", { timeout: 60_000 }, async () => {
  const table = freshTable();
  const sent: Array<{ text: string; params: (string | null)[] }> = [];
  const store = new PostgresActionStore({ query: (text, params) => (sent.push({ text, params: params ?? [] }), db.query(text, params)), table });
  await store.migrate();
  const now = Date.now() - 60_000;
  await fill(table, 3_000, now);
  sent.length = 0;
  const leased = await store.claimMany({ workerId: "w1", now: Date.now(), leaseMs: 60_000, limit: 8 });
  assert.equal(leased.length, 8);
  assert.equal(sent.length, 1, "a full batch is one statement");
  // The claim walks the work index in its order and stops at the batch: no sort of the backlog.
  const claimPlan = JSON.stringify((await db.query(`EXPLAIN (FORMAT JSON) ${sent[0]!.text}`, sent[0]!.params)).rows);
  assert.match(claimPlan, new RegExp(`"Index Name":"${table}_work"`), "the claim reads the work index");
  assert.doesNotMatch(claimPlan, /"Node Type":"Sort"|"Seq Scan"/, "no sort or scan of the whole backlog");
  sent.length = 0;
  const moved = await store.transitionMany(leased.map((a) => ({ id: a.id, expected: { state: a.state, fence: a.fence }, patch: { state: "executing" } })), Date.now());
  assert.ok(moved.every((o) => o.ok), "every item applied");
  assert.equal(sent.length, 1, "one statement for the batch");
  const [{ text, params }] = sent as [{ text: string; params: (string | null)[] }];
  const plan = JSON.stringify((await db.query(`EXPLAIN (FORMAT JSON) ${text}`, params)).rows);
  assert.doesNotMatch(plan, /"Seq Scan"/, "no sequential scan of the action table");
  assert.match(plan, new RegExp(`"Index Name":"${table}_pkey"`), "the rows are found by the primary key");
});

test("W12: on a small table too, a claim's update finds its leased rows by primary key, never by a scan of the table, and a read builds each row's JSON once", { timeout: 60_000 }, async () => {
  const table = freshTable();
  const sent: Array<{ text: string; params: (string | null)[] }> = [];
  const store = new PostgresActionStore({ query: (text, params) => (sent.push({ text, params: params ?? [] }), db.query(text, params)), table });
  await store.migrate();
  await fill(table, 300, Date.now() - 60_000);
  sent.length = 0;
  const leased = await store.claimMany({ workerId: "w1", now: Date.now(), leaseMs: 60_000, limit: 8 });
  assert.equal(leased.length, 8);
  const claimPlan = JSON.stringify((await db.query(`EXPLAIN (FORMAT JSON) ${sent[0]!.text}`, sent[0]!.params)).rows);
  assert.doesNotMatch(claimPlan, /"Seq Scan"/, "the leased rows are not looked for by a scan of the table");
  assert.match(claimPlan, new RegExp(`"Index Name":"${table}_pkey"`), "they are found by primary key");
  sent.length = 0;
  assert.equal((await store.get(leased[0]!.id))?.fence, leased[0]!.fence);
  // The bounded read checks the size of the row's JSON and returns it: computed once, not once per use.
  const readPlan = JSON.stringify((await db.query(`EXPLAIN (VERBOSE, FORMAT JSON) ${sent[0]!.text}`, sent[0]!.params)).rows);
  assert.equal(readPlan.split("json_build_object(").length - 1, 1, readPlan);
});

test("W12: leases follow the database's clock: a worker clock 10 minutes ahead cannot steal a live lease, one 10 minutes behind cannot set a lapsed one", { timeout: 60_000 }, async () => {
  const table = freshTable();
  const store = new PostgresActionStore({ query: db.query, table });
  await store.migrate();
  const now = Date.now() - 60_000;
  await fill(table, 2, now);
  const skew = 10 * 60_000;
  const owner = await store.claim({ workerId: "on-time", now: Date.now(), leaseMs: 60_000 });
  assert.equal(owner?.id, "p-1");
  // A clock 10 minutes ahead sees the 60 s lease as lapsed long ago: the database does not.
  const ahead = await store.claimMany({ workerId: "ahead", now: Date.now() + skew, leaseMs: 60_000, limit: 10 });
  assert.deepEqual(ahead.map((a) => a.id), ["p-2"], "the live lease of p-1 is not taken over");
  assert.ok(ahead[0]!.leaseUntil! <= Date.now() + 61_000, "the lease runs from the database's clock, not 10 minutes on");
  // A clock 10 minutes behind marks executing with a lease that, in its clock, ends in 60 s.
  const behindNow = Date.now() - skew;
  const executing = await store.transition("p-2", { state: "approved", fence: ahead[0]!.fence }, { state: "executing", leaseUntil: behindNow + 60_000 }, behindNow);
  assert.ok(executing.leaseUntil! >= Date.now() + 50_000, "stored as 60 s from the database's now");
  assert.equal(await store.claim({ workerId: "third", now: Date.now(), leaseMs: 60_000 }), undefined, "neither lease is taken over");
  // A back-off is read the same way: 60 s from the caller's now, whatever its clock.
  const reconciling = await store.transition("p-2", { state: "executing", fence: executing.fence }, { state: "reconciling", attempts: 0, notBefore: behindNow + 60_000, leaseOwner: undefined, leaseUntil: undefined }, behindNow);
  assert.ok(reconciling.notBefore! >= Date.now() + 50_000);
  assert.equal(await store.claim({ workerId: "third", now: Date.now() + skew, leaseMs: 60_000 }), undefined, "not before its back-off ends");
});

test("U4: a page of a tenant's 10,000 pending actions, a later page and their count read the tenant-state index, never the table's other actions", { timeout: 60_000 }, async () => {
  const table = freshTable();
  const sent: Array<{ text: string; params: (string | null)[] }> = [];
  const store = new PostgresActionStore({ query: (text, params) => (sent.push({ text, params: params ?? [] }), db.query(text, params)), table });
  await store.migrate();
  const now = Date.now() - 60_000;
  await fill(table, 40_000, now);
  // A quarter of them pending, interleaved with the others: the pending page must not walk past those.
  await db.query(`UPDATE ${table} SET state = 'awaiting_approval', approval = NULL WHERE (substr(id, 3))::int % 4 = 0`);
  await db.query(`VACUUM ANALYZE ${table}`);
  const plans: string[] = [];
  const explain = async () => {
    const { text, params } = sent.at(-1)!;
    plans.push(JSON.stringify((await db.query(`EXPLAIN (FORMAT JSON) ${text}`, params)).rows));
  };
  const first = await store.list({ tenantId: "acme", state: "awaiting_approval", limit: 50 });
  assert.equal(first.length, 50);
  await explain();
  const later = await store.list({ tenantId: "acme", state: "awaiting_approval", limit: 50, after: { createdAt: first.at(-1)!.createdAt, id: first.at(-1)!.id } });
  assert.equal(later[0]!.createdAt > first.at(-1)!.createdAt, true);
  await explain();
  const newest = await store.list({ tenantId: "acme", state: "awaiting_approval", limit: 50, order: "newest" });
  assert.equal(newest[0]!.id, "p-40000");
  await explain();
  assert.equal(await store.count({ tenantId: "acme", state: "awaiting_approval" }), 10_000);
  await explain();
  for (const [i, plan] of plans.entries()) {
    assert.match(plan, new RegExp(`"Index Name":"${table}_tenant_state"`), `statement ${i} reads the tenant-state index: ${plan}`);
    assert.doesNotMatch(plan, /"Seq Scan"|"Node Type":"Sort"/, `statement ${i}: no scan of the table, no sort of the backlog`);
  }
});
