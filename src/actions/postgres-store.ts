/**
 * The PostgreSQL action store (W9, W12): many worker processes on many machines
 * share one table. No driver is imported: the host passes its own query function
 * (`pg`'s `Pool.query` as it is; postgres.js through a two-line adapter).
 *
 * - Every transition is ONE `UPDATE … WHERE id AND state AND fence AND <allowed move>`
 *   statement: a compare-and-swap that also enforces the state machine, so a stale
 *   worker (its lease lapsed and another claimed the action, bumping the fence) can
 *   never commit over a newer one. A batch of transitions is one statement too, each
 *   row its own compare-and-swap (postgres-batch.ts).
 * - A claim is one statement: `SELECT … FOR UPDATE SKIP LOCKED LIMIT n` of the oldest
 *   actions that need a worker, then each one's fence bump and lease, in the same
 *   statement; concurrent claims skip each other's rows instead of waiting. A claim
 *   commits asynchronously (no WAL flush wait): a database crash can lose only the
 *   lease, never a send, because nothing is sent before the synchronous commit of
 *   `executing`, which flushes the claim with it. Every transition commits as the
 *   database is configured (synchronously by default).
 * - Leases are judged by the database's clock, never a worker's: a claim takes a lease
 *   that lapsed by the database's `statement_timestamp()` and runs the new one from it;
 *   a transition's `leaseUntil` and `notBefore` are read relative to the `now` it is
 *   given and stored relative to the database's clock. A worker whose clock is off can
 *   neither steal a live lease nor set one that has already lapsed.
 * - Rows are read back bounded and parsed by the shared record rules (postgres-rows.ts):
 *   a row edited by hand into an impossible state is a `store` error, never executed.
 * - Optional wake-up: `LISTEN`/`NOTIFY` (a trigger notifies when an action becomes
 *   approved or reconciling), with polling as the fallback.
 *
 * @module
 */
import { ActionConflictError, StoreError, ValidationError, YadaError } from "../errors.js";
import { MAX_ACTION_RECORD_BYTES, PG_POLL_INTERVAL_MS, PG_QUERY_TIMEOUT_MS } from "../limits.js";
import { isRec } from "../util/record.js";
import { sleep, startTimer } from "../util/sleep.js";
import { quote } from "../util/text.js";
import { checkBatch, checkClaimMany, failed, itemError, single } from "./batch.js";
import { canTransition } from "./states.js";
import { DB_NOW, itemParams, itemRow, transitionManySql, type Prepared } from "./postgres-batch.js";
import { listStates } from "./record-check.js";
import { byAge, checkClaim, parseNewRecord } from "./record.js";
import { checkCountQuery, queryPage } from "./query.js";
import { MUTABLE_COLUMNS, ROW_SELECT, parseRows, recordBody } from "./postgres-rows.js";
import type { ActionCountQuery, ActionExpectation, ActionPatch, ActionQuery, ActionRecord, ActionState, ActionStore, ActionTransition, ClaimManyOptions, ClaimOptions, TransitionOutcome } from "./types.js";
import { migrationSql, SCHEMA_VERSION } from "./postgres-schema.js";

/**
 * Runs one SQL statement with `$1…$n` parameters and resolves with its rows:
 * the shape of `pg`'s `Pool.query`. Parameters are always strings or `null`.
 *
 * For postgres.js: `const query = (text, params) => sql.unsafe(text, params).then((rows) => ({ rows }));`
 */
export type PgQuery = (text: string, params?: (string | null)[]) => Promise<unknown>;

/**
 * Runs one statement as the named prepared statement `name` (the same text every
 * time for one name): parsed and planned once per connection instead of on every
 * run. With `pg`: `(name, text, values) => pool.query({ name, text, values })`.
 * Not through a pooler that shares one server connection between clients per
 * transaction (PgBouncer in transaction mode without prepared-statement support).
 */
export type PgPrepared = (name: string, text: string, params: (string | null)[]) => Promise<unknown>;

/**
 * Subscribes to `NOTIFY` on `channel` (a plain identifier): calls `onNotify` for
 * each notification, resolves once `LISTEN` is in effect, and resolves with a
 * function that ends the subscription. With `pg`:
 *
 * ```js
 * const listen = async (channel, onNotify) => {
 *   const client = await pool.connect();
 *   client.on("notification", onNotify);
 *   await client.query(`LISTEN ${channel}`);
 *   return async () => { await client.query(`UNLISTEN ${channel}`); client.release(); };
 * };
 * ```
 */
export type PgListen = (channel: string, onNotify: () => void) => Promise<() => unknown>;

/** Options of {@link PostgresActionStore}. */
export interface PostgresActionStoreOptions {
  /** Runs one statement (see {@link PgQuery}). */
  query: PgQuery;
  /**
   * Runs the statements of every claim and transition, a worker's whole path, as
   * prepared statements (see {@link PgPrepared}): measured, a third less PostgreSQL
   * CPU per action at a worker's default concurrency. Without it they go through `query`.
   */
  prepared?: PgPrepared;
  /** The table (and notification channel) name: lowercase letters, digits and `_`, ≤ 48 characters. Default `yada_actions`. */
  table?: string;
  /** Enables LISTEN/NOTIFY wake-up for {@link PostgresActionStore.waitForWork}; without it, waits poll. */
  listen?: PgListen;
  /** Longest wait for one query (default `PG_QUERY_TIMEOUT_MS`). A query that does not answer in time may still commit. */
  queryTimeoutMs?: number;
  /** Longest sleep of {@link PostgresActionStore.waitForWork} without a notification (default `PG_POLL_INTERVAL_MS`). */
  pollIntervalMs?: number;
}

/** What {@link PostgresActionStore.migrate} did. */
export interface MigrationResult {
  /** The schema version found (0: no table yet). */
  from: number;
  /** The schema version now. */
  to: number;
}

const TABLE_NAME = /^[a-z_][a-z0-9_]{0,47}$/;

const param = (v: unknown, type: "text" | "bigint" | "float8" | "json"): string | null =>
  v === undefined || v === null ? null : type === "json" ? JSON.stringify(v) : String(v);

/**
 * An {@link ActionStore} on PostgreSQL, for several worker processes on one
 * database. Call {@link PostgresActionStore.migrate} once at start-up (it is
 * idempotent and safe to run from every process at once).
 *
 * Bounds: records ≤ `MAX_ACTION_RECORD_BYTES` (checked on write, and in the database
 * on read), lists ≤ `MAX_ACTIONS_LISTED`, each query ≤ `queryTimeoutMs`.
 *
 * Throws by code: `conflict` (a compare-and-swap that found the action moved on, a
 * duplicate id), `store` (a lost connection, a database error, a query timeout, an
 * impossible stored row, a schema newer than this version), `validation` (bad
 * arguments), `limit` (an oversized record). After a `store` error from
 * `transition`, the statement may or may not have committed: read the action again.
 *
 * @example
 * ```ts
 * import pg from "pg";
 * import { PostgresActionStore } from "yada-mcp";
 * const pool = new pg.Pool({ connectionString: "postgres://app@db.internal/app" });
 * const store = new PostgresActionStore({
 *   query: (text, params) => pool.query(text, params),
 *   prepared: (name, text, values) => pool.query({ name, text, values }),
 * });
 * await store.migrate();
 * const next = await store.claim({ workerId: "w1", now: Date.now(), leaseMs: 30_000 });
 * ```
 */
export class PostgresActionStore implements ActionStore {
  readonly #query: PgQuery;
  readonly #prepared: PgPrepared | undefined;
  /** The prepared statement name of each hot-path statement text. */
  readonly #names = new Map<string, string>();
  readonly #table: string;
  readonly #where: string;
  readonly #timeoutMs: number;
  readonly #pollMs: number;
  readonly #listen: PgListen | undefined;
  #unlisten: (() => unknown) | undefined;
  #listening: Promise<void> | undefined;
  #wakers = new Set<() => void>();
  #pendingWake = false;
  readonly #sql: Readonly<Record<"insert" | "get" | "claimWork" | "claimExpiry", string>>;
  readonly #lists = new Map<string, string>();
  /** The transition statement of each batch size asked for so far (at most `MAX_TRANSITION_BATCH` of them). */
  readonly #moves = new Map<number, string>();

  constructor(options: PostgresActionStoreOptions) {
    if (!isRec(options) || typeof options.query !== "function") throw new ValidationError("postgres store: options.query must be a function");
    const table = options.table ?? "yada_actions";
    if (typeof table !== "string" || !TABLE_NAME.test(table)) throw new ValidationError(`postgres store: table ${quote(String(table))} must match ${TABLE_NAME.source}`);
    this.#query = options.query;
    if (options.prepared !== undefined && typeof options.prepared !== "function") throw new ValidationError("postgres store: options.prepared must be a function");
    this.#prepared = options.prepared;
    this.#table = table;
    this.#where = `postgres store ${quote(table)}`;
    this.#timeoutMs = positive(options.queryTimeoutMs, PG_QUERY_TIMEOUT_MS);
    this.#pollMs = positive(options.pollIntervalMs, PG_POLL_INTERVAL_MS);
    this.#listen = typeof options.listen === "function" ? options.listen : undefined;
    const t = table;
    this.#sql = {
      insert: `INSERT INTO ${t} (id, operation_id, tenant_id, run_id, effect, created_at, expires_at, body,
  state, fence, lease_owner, lease_until, attempts, not_before, updated_at, state_version, approval, rejection, outcome)
VALUES ($1, $2, $3, $4, $5, $6::float8, $7::float8, $8::json, $9, $10::bigint, $11, $12::float8, $13::bigint, $14::float8,
  $15::float8, $16::json, $17::json, $18::json, $19::json)
ON CONFLICT DO NOTHING RETURNING id`,
      get: ROW_SELECT(`${t} WHERE id = $1`),
      // Work (approved; reconciling past its back-off; executing whose lease lapsed), oldest first: the
      // order of the work index, so the scan stops after `limit` rows whatever the backlog.
      // A negative fence or count is impossible: such a row is never leased (and reads as a store error).
      claimWork: claimSql(t, `state IN ('approved', 'reconciling', 'executing')
  AND (state <> 'reconciling' OR not_before IS NULL OR not_before <= ${DB_NOW})`, "created_at, id"),
      // Then actions awaiting approval past their expiry (to expire them), soonest expired first.
      claimExpiry: claimSql(t, `state = 'awaiting_approval' AND expires_at <= ${DB_NOW}`, "expires_at, id"),
    };
    // Named by a hash of the text (which holds the table), so that a new text never reuses a name.
    for (const text of [this.#sql.claimWork, this.#sql.claimExpiry]) this.#name(text);
  }

  /** Gives hot-path statement `text` its prepared statement name. */
  #name(text: string): string {
    this.#names.set(text, `yada_${text.length}_${fnv1a(text)}`);
    return text;
  }

  /** The transition statement for a batch of `k` items, built once per size. */
  #movesSql(k: number): string {
    let text = this.#moves.get(k);
    if (text === undefined) this.#moves.set(k, (text = this.#name(transitionManySql(this.#table, k))));
    return text;
  }

  /**
   * Creates or upgrades the store's tables, indexes and notify trigger to the
   * current schema version, in one transaction under an advisory lock: idempotent,
   * and safe when several processes run it at once.
   *
   * @throws StoreError (`store`) when the database fails or holds a newer schema.
   */
  async migrate(): Promise<MigrationResult> {
    const before = await this.#schemaVersion();
    if (before > SCHEMA_VERSION) {
      throw new StoreError(`${this.#where}: schema version ${before} is newer than this version of yada (${SCHEMA_VERSION})`);
    }
    await this.#run("migrate", migrationSql(this.#table), undefined);
    const after = await this.#schemaVersion();
    if (after !== SCHEMA_VERSION) throw new StoreError(`${this.#where}: migrate left schema version ${after}, expected ${SCHEMA_VERSION}`);
    return { from: before, to: after };
  }

  async #schemaVersion(): Promise<number> {
    const present = await this.#run("migrate", "SELECT to_regclass($1) IS NOT NULL AS present", [`${this.#table}_schema`]);
    if (!isRec(present[0]) || present[0]["present"] !== true) return 0;
    const rows = await this.#run("migrate", `SELECT max(version)::text AS v FROM ${this.#table}_schema`, []);
    const v = Number(isRec(rows[0]) ? rows[0]["v"] : NaN);
    return Number.isSafeInteger(v) && v >= 0 ? v : 0;
  }

  async create(record: ActionRecord): Promise<ActionRecord> {
    const r = parseNewRecord(record);
    const m = (k: string, v: unknown): string | null => param(v, MUTABLE_COLUMNS[k]?.[1] ?? "text");
    const rows = await this.#run("create", this.#sql.insert, [
      r.id, r.operationId, r.tenantId, r.runId ?? null, r.effect, String(r.createdAt), String(r.expiresAt), JSON.stringify(recordBody(r)),
      r.state, String(r.fence), m("leaseOwner", r.leaseOwner), m("leaseUntil", r.leaseUntil), String(r.attempts), m("notBefore", r.notBefore),
      String(r.updatedAt), m("stateVersion", r.stateVersion), m("approval", r.approval), m("rejection", r.rejection), m("outcome", r.outcome),
    ]);
    if (rows.length !== 1) throw new ActionConflictError(r.id, `${this.#where}: create: action ${quote(r.id)} or its operation id exists`);
    return r;
  }

  async get(id: string): Promise<ActionRecord | undefined> {
    if (typeof id !== "string" || id.length === 0) throw new ValidationError(`${this.#where}: get needs an action id`);
    const r = parseRows(await this.#run("get", this.#sql.get, [id]), 1, this.#where)[0];
    if (r && r.id !== id) throw new StoreError(`${this.#where}: get ${quote(id)} read another action`);
    return r;
  }

  /**
   * One statement: the page in (created_at, id) order from the cursor on, read from
   * the (tenant, state, created_at, id) index for one state (it stops after `limit`
   * entries however large the backlog) and from the (tenant, created_at, id) index
   * otherwise.
   */
  async list(query: ActionQuery): Promise<ActionRecord[]> {
    const { limit, newest, after } = queryPage(query);
    const states = listStates(query);
    const params = [query.tenantId, ...stateParams(states), typeof query.runId === "string" ? query.runId : null, String(limit)];
    if (after) params.push(String(after.createdAt), after.id);
    const rows = await this.#run("list", this.#listSql(states, newest, after !== undefined), params);
    const records = parseRows(rows, limit, this.#where);
    for (const r of records) if (r.tenantId !== query.tenantId) throw new StoreError(`${this.#where}: list read an action of another tenant`);
    return records;
  }

  /** One `count(*)` over the index entries of the selection (an index-only scan of one state's entries). */
  async count(query: ActionCountQuery): Promise<number> {
    const states = checkCountQuery(query);
    const params = [query.tenantId, ...stateParams(states), typeof query.runId === "string" ? query.runId : null];
    const rows = await this.#run("count", this.#listSql(states, false, false, true), params);
    const n = Number(isRec(rows[0]) ? rows[0]["n"] : NaN);
    if (rows.length !== 1 || !Number.isSafeInteger(n) || n < 0) throw new StoreError(`${this.#where}: count read no number`);
    return n;
  }

  /**
   * The list (or count) statement for a selection: `$1` tenant, `$2` the state (one: an
   * equality the index orders by) or the states (a JSON array), `$3` run, `$4` limit,
   * `$5`, `$6` the cursor. Built once per shape.
   */
  #listSql(states: readonly ActionState[] | undefined, newest: boolean, cursor: boolean, count = false): string {
    const shape = `${states === undefined ? "all" : states.length === 1 ? "one" : "some"}${newest ? "-desc" : ""}${cursor ? "-after" : ""}${count ? "-count" : ""}`;
    const known = this.#lists.get(shape);
    if (known) return known;
    const t = this.#table;
    const state = states === undefined ? "$2::text IS NULL" : states.length === 1 ? "state = $2" : "state IN (SELECT json_array_elements_text($2::json))";
    const where = `tenant_id = $1 AND ${state} AND ($3::text IS NULL OR run_id = $3)`;
    const dir = newest ? " DESC" : "";
    const sql = count
      ? `SELECT count(*)::text AS n FROM ${t} WHERE ${where}`
      : // The inner and outer ORDER BY are the page's own order (the planner keeps it without sorting again).
        `${ROW_SELECT(`(SELECT * FROM ${t} WHERE ${where}${cursor ? ` AND (created_at, id) ${newest ? "<" : ">"} ($5::float8, $6::text)` : ""}
  ORDER BY created_at${dir}, id${dir} LIMIT $4::int) l`, "created_at, id", `created_at${dir}, id${dir}`)} ORDER BY created_at${dir}, id${dir}`;
    this.#lists.set(shape, sql);
    return sql;
  }

  async transition(id: string, expected: ActionExpectation, patch: ActionPatch, now: number): Promise<ActionRecord> {
    return single(await this.transitionMany([{ id, expected, patch }], now));
  }

  /**
   * Applies each compare-and-swap that holds in ONE statement (postgres-batch.ts),
   * committed as the database is configured (synchronously by default): one WAL flush
   * for the whole batch. An item that changed nothing costs one read, to say why.
   */
  async transitionMany(items: readonly ActionTransition[], now: number): Promise<TransitionOutcome[]> {
    checkBatch(items, now);
    const seen = new Set<string>();
    const prepared = items.map((item, i): Prepared => {
      const bad = itemError(item, seen);
      return bad ? { kind: "error", error: bad } : itemRow(item, i, now, this.#where);
    });
    const rows = prepared.flatMap((p) => (p.kind === "row" ? [p.row] : []));
    const done = new Map<number, ActionRecord>();
    if (rows.length > 0) {
      const got = await this.#run("transition", this.#movesSql(rows.length), rows.flatMap(itemParams));
      const records = parseRows(got, rows.length, this.#where);
      got.forEach((row, k) => {
        const i = Number(isRec(row) ? row["batch_item"] : NaN);
        const r = records[k]!;
        if (!Number.isSafeInteger(i) || items[i]?.id !== r.id || done.has(i)) throw new StoreError(`${this.#where}: transition read back another action`);
        done.set(i, r);
      });
    }
    const out: TransitionOutcome[] = [];
    for (const [i, p] of prepared.entries()) {
      const r = done.get(i);
      if (r) out.push({ ok: true, record: r });
      else if (p.kind === "error") out.push({ ok: false, error: p.error });
      else out.push(await this.#whyNot(items[i]!).catch(failed));
    }
    return out;
  }

  /** Why an item changed nothing (one read, for the error only). */
  async #whyNot({ id, expected, patch }: ActionTransition): Promise<TransitionOutcome> {
    const current = await this.get(id);
    if (!current) return { ok: false, error: new StoreError(`${this.#where}: transition: no action ${quote(id)}`) };
    if (!canTransition(expected.state, patch.state)) {
      return { ok: false, error: new ActionConflictError(id, `${this.#where}: transition of ${quote(id)} from ${expected.state} to ${patch.state} is not allowed`) };
    }
    if (current.state === expected.state && current.fence === expected.fence) {
      return { ok: false, error: new ValidationError(`${this.#where}: transition of ${quote(id)} to ${patch.state} does not fit the action (its tenant or effect)`) };
    }
    const message = `${this.#where}: transition of ${quote(id)} expected ${expected.state} at fence ${expected.fence}, found ${current.state} at fence ${current.fence}`;
    return { ok: false, error: new ActionConflictError(id, message) };
  }

  async claim(options: ClaimOptions): Promise<ActionRecord | undefined> {
    checkClaim(options);
    return (await this.#claim(options, 1))[0];
  }

  /**
   * Leases up to `limit` actions in one statement (`FOR UPDATE SKIP LOCKED LIMIT n`,
   * each row its own fence bump and lease), oldest first; a second statement looks for
   * expired proposals only when the first found fewer than `limit`.
   */
  async claimMany(options: ClaimManyOptions): Promise<ActionRecord[]> {
    return this.#claim(options, checkClaimMany(options));
  }

  async #claim(options: ClaimOptions, limit: number): Promise<ActionRecord[]> {
    // $4: the claim's tool-name prefixes as a JSON array, or null for any tool.
    const params = [options.workerId, String(options.leaseMs), String(limit), options.toolPrefixes === undefined ? null : JSON.stringify(options.toolPrefixes)];
    const work = parseRows(await this.#run("claim", this.#sql.claimWork, params), limit, this.#where).sort(byAge);
    if (work.length >= limit) return work;
    params[2] = String(limit - work.length);
    const expiring = parseRows(await this.#run("claim", this.#sql.claimExpiry, params), limit - work.length, this.#where);
    return [...work, ...expiring.sort((a, b) => a.expiresAt - b.expiresAt || byAge(a, b))];
  }

  /**
   * Waits until there may be work: a notification (with `listen`), or at most
   * `maxMs` (default the poll interval), or `signal` aborts. Resolves `true` when a
   * notification arrived. A notification that arrives while nobody waits is kept
   * for the next call. A failed LISTEN falls back to polling.
   */
  async waitForWork(options: { maxMs?: number; signal?: AbortSignal } = {}): Promise<boolean> {
    const maxMs = positive(options.maxMs, this.#pollMs);
    if (this.#listen && !this.#listening) this.#listening = this.#subscribe(this.#listen);
    if (this.#listening) await this.#listening;
    if (this.#pendingWake) {
      this.#pendingWake = false;
      return true;
    }
    if (!this.#unlisten) {
      await sleep(maxMs, options.signal);
      return false;
    }
    return new Promise<boolean>((resolve) => {
      const finish = (notified: boolean): void => {
        clearTimeout(timer);
        this.#wakers.delete(wake);
        options.signal?.removeEventListener("abort", onAbort);
        resolve(notified);
      };
      const wake = (): void => finish(true);
      const onAbort = (): void => finish(false);
      const timer = startTimer(() => finish(false), maxMs);
      this.#wakers.add(wake);
      if (options.signal?.aborted) finish(false);
      else options.signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Ends the LISTEN subscription, if any. The query function's pool is the host's to close. */
  async close(): Promise<void> {
    const unlisten = this.#unlisten;
    this.#unlisten = undefined;
    this.#listening = undefined;
    for (const wake of [...this.#wakers]) wake();
    if (unlisten) await unlisten();
  }

  async #subscribe(listen: PgListen): Promise<void> {
    try {
      const stop = await listen(this.#table, () => {
        if (this.#wakers.size === 0) this.#pendingWake = true;
        for (const wake of [...this.#wakers]) wake();
      });
      this.#unlisten = typeof stop === "function" ? stop : () => undefined;
    } catch {
      // Polling it is; LISTEN is tried again by the next waitForWork after this one.
      startTimer(() => (this.#listening = undefined), this.#pollMs);
    }
  }

  /** Runs one statement within the time bound; driver failures become `store` errors. */
  async #run(op: string, text: string, params: (string | null)[] | undefined): Promise<unknown[]> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = startTimer(() => reject(new StoreError(`${this.#where}: ${op}: no answer within ${this.#timeoutMs} ms; the statement may still commit`)), this.#timeoutMs);
    });
    let result: unknown;
    try {
      const name = this.#prepared && params !== undefined ? this.#names.get(text) : undefined;
      const run = name !== undefined ? this.#prepared!(name, text, params!) : params === undefined ? this.#query(text) : this.#query(text, params);
      result = await Promise.race([run, timeout]);
    } catch (e) {
      if (e instanceof YadaError) throw e;
      const sqlState = isRec(e) && typeof e["code"] === "string" && /^[0-9A-Z]{5}$/.test(e["code"]) ? ` (SQLSTATE ${e["code"]})` : "";
      throw new StoreError(`${this.#where}: ${op} failed${sqlState}: the database refused the statement or the connection was lost`, { cause: e });
    } finally {
      clearTimeout(timer);
    }
    const rows = isRec(result) ? result["rows"] : undefined;
    if (!Array.isArray(rows)) throw new StoreError(`${this.#where}: ${op}: the query function did not resolve with { rows }`);
    return rows;
  }
}

/**
 * A claim of up to `$3` rows of `t` matching `where`, in `order`: `$1` the worker, `$2`
 * the lease in ms (from the database's clock), `$4` a JSON array of tool-name prefixes
 * one of which the action's tool starts with, or null for any tool.
 */
function claimSql(t: string, where: string, order: string): string {
  return `WITH next AS (SELECT id FROM ${t} WHERE ${where}
  AND (lease_until IS NULL OR lease_until <= ${DB_NOW}) AND fence >= 0 AND attempts >= 0
  AND ($4::json IS NULL OR EXISTS (SELECT 1 FROM json_array_elements_text($4::json) AS p(prefix) WHERE left(body->>'tool', length(p.prefix)) = p.prefix))
  ORDER BY ${order} LIMIT $3::int FOR UPDATE SKIP LOCKED
), u AS (UPDATE ${t} a SET fence = a.fence + 1, lease_owner = $1, lease_until = ${DB_NOW} + $2::float8, updated_at = ${DB_NOW}
  FROM (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit
  WHERE a.id = ANY(ARRAY(SELECT id FROM next)) RETURNING a.*) ${ROW_SELECT("u")}`;
}

/** The `$2` of a list or count: null (every state), the one state, or the states as a JSON array. */
function stateParams(states: readonly ActionState[] | undefined): [string | null] {
  return [states === undefined ? null : states.length === 1 ? states[0]! : JSON.stringify(states)];
}

/** FNV-1a of `s`'s UTF-16 units, as 8 hex digits. */
function fnv1a(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}

function positive(v: unknown, fallback: number): number {
  return typeof v === "number" && Number.isFinite(v) && v > 0 ? v : fallback;
}
