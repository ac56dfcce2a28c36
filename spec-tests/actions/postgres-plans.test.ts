// W12: what the PostgreSQL store asks of the database stays bounded as the table
// grows, on a real PostgreSQL: a batch of transitions finds its rows by the primary
// key (EXPLAIN of the very statement the store sends shows no scan of the table).
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

test("W12: a batch of transitions finds its rows by primary key, never by a scan of the table", { timeout: 60_000 }, async () => {
  const table = freshTable();
  const sent: Array<{ text: string; params: (string | null)[] }> = [];
  const store = new PostgresActionStore({ query: (text, params) => (sent.push({ text, params: params ?? [] }), db.query(text, params)), table });
  await store.migrate();
  const now = Date.now() - 60_000;
  await fill(table, 3_000, now);
  const leased = await store.claimMany({ workerId: "w1", now: Date.now(), leaseMs: 60_000, limit: 8 });
  assert.equal(leased.length, 8);
  sent.length = 0;
  const moved = await store.transitionMany(leased.map((a) => ({ id: a.id, expected: { state: a.state, fence: a.fence }, patch: { state: "executing" } })), Date.now());
  assert.ok(moved.every((o) => o.ok), "every item applied");
  assert.equal(sent.length, 1, "one statement for the batch");
  const [{ text, params }] = sent as [{ text: string; params: (string | null)[] }];
  const plan = JSON.stringify((await db.query(`EXPLAIN (FORMAT JSON) ${text}`, params)).rows);
  assert.doesNotMatch(plan, /"Seq Scan"/, "no sequential scan of the action table");
  assert.match(plan, new RegExp(`"Index Name":"${table}_pkey"`), "the rows are found by the primary key");
});
