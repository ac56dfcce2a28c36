/**
 * The PostgreSQL action store (W9, W12): many worker processes on many machines
 * share one table. No driver is imported: the host passes its own query function
 * (`pg`'s `Pool.query` as it is; postgres.js through a two-line adapter).
 *
 * - Every transition is ONE `UPDATE … WHERE id AND state AND fence AND <allowed move>`
 *   statement: a compare-and-swap that also enforces the state machine, so a stale
 *   worker (its lease lapsed and another claimed the action, bumping the fence) can
 *   never commit over a newer one.
 * - A claim is one statement: `SELECT … FOR UPDATE SKIP LOCKED LIMIT 1` of the oldest
 *   action that needs a worker, then the fence bump and the lease, in the same
 *   statement; concurrent claims skip each other's rows instead of waiting.
 * - Rows are read back as one bounded JSON text per row and parsed field by field:
 *   a row edited by hand into an impossible state is a `store` error, never executed.
 * - Optional wake-up: `LISTEN`/`NOTIFY` (a trigger notifies when an action becomes
 *   approved or reconciling), with polling as the fallback.
 *
 * @module
 */
import { ActionConflictError, LimitError, StoreError, ValidationError, YadaError } from "../errors.js";
import { MAX_ACTION_RECORD_BYTES, PG_POLL_INTERVAL_MS, PG_QUERY_TIMEOUT_MS } from "../limits.js";
import { isRec } from "../util/record.js";
import { sleep, startTimer } from "../util/sleep.js";
import { quote } from "../util/text.js";
import { checkClaim, checkNewRecord, checkPatch, checkTransition, listLimit, listStates, parseActionRecord } from "./record-check.js";
import { ACTION_STATES, canTransition } from "./states.js";
import type { ActionExpectation, ActionPatch, ActionQuery, ActionRecord, ActionStore, ClaimOptions } from "./types.js";
import { migrationSql, SCHEMA_VERSION } from "./postgres-schema.js";

/**
 * Runs one SQL statement with `$1…$n` parameters and resolves with its rows:
 * the shape of `pg`'s `Pool.query`. Parameters are always strings or `null`.
 *
 * For postgres.js: `const query = (text, params) => sql.unsafe(text, params).then((rows) => ({ rows }));`
 */
export type PgQuery = (text: string, params?: (string | null)[]) => Promise<unknown>;

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

// The move list of states.ts, as literals for the SQL compare-and-swap.
const MOVES_SQL = ACTION_STATES.flatMap((from) => ACTION_STATES.filter((to) => canTransition(from, to)).map((to) => `'${from}>${to}'`)).join(", ");

// Each row as one JSON text, keys as in ActionRecord (bigint columns become JSON numbers).
const ROW_JSON = `json_build_object('id', id, 'operationId', operation_id, 'runId', run_id, 'callId', call_id,
 'actorId', actor_id, 'tenantId', tenant_id, 'tool', tool, 'effect', effect, 'version', version,
 'arguments', arguments, 'argumentsHash', arguments_hash, 'stateVersion', state_version, 'preview', preview,
 'state', state, 'fence', fence, 'leaseOwner', lease_owner, 'leaseUntil', lease_until, 'attempts', attempts,
 'notBefore', not_before, 'createdAt', created_at, 'updatedAt', updated_at, 'expiresAt', expires_at,
 'approval', approval, 'rejection', rejection, 'outcome', outcome)::text`;
// The bound is applied in the database: an oversized row is never sent.
const bounded = (from: string): string =>
  `SELECT CASE WHEN octet_length(j) <= ${MAX_ACTION_RECORD_BYTES} THEN j END AS j, octet_length(j) AS n FROM (SELECT ${ROW_JSON} AS j FROM ${from}) s`;

// Patch fields: column and SQL type. JSON-typed columns keep any string (a NUL included) verbatim.
const PATCH_COLUMNS: Readonly<Record<string, readonly [string, "text" | "bigint" | "json"]>> = {
  leaseOwner: ["lease_owner", "text"],
  leaseUntil: ["lease_until", "bigint"],
  attempts: ["attempts", "bigint"],
  notBefore: ["not_before", "bigint"],
  approval: ["approval", "json"],
  rejection: ["rejection", "json"],
  outcome: ["outcome", "json"],
  stateVersion: ["state_version", "json"],
};

const param = (v: unknown, type: "text" | "bigint" | "json"): string | null =>
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
 * import { PostgresActionStore } from "yada";
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const store = new PostgresActionStore({ query: (text, params) => pool.query(text, params) });
 * await store.migrate();
 * const next = await store.claim({ workerId: "w1", now: Date.now(), leaseMs: 30_000 });
 * ```
 */
export class PostgresActionStore implements ActionStore {
  readonly #query: PgQuery;
  readonly #table: string;
  readonly #where: string;
  readonly #timeoutMs: number;
  readonly #pollMs: number;
  readonly #listen: PgListen | undefined;
  #unlisten: (() => unknown) | undefined;
  #listening: Promise<void> | undefined;
  #wakers = new Set<() => void>();
  #pendingWake = false;
  readonly #sql: Readonly<Record<"insert" | "get" | "list" | "claimWork" | "claimExpiry", string>>;

  constructor(options: PostgresActionStoreOptions) {
    if (!isRec(options) || typeof options.query !== "function") throw new ValidationError("postgres store: options.query must be a function");
    const table = options.table ?? "yada_actions";
    if (typeof table !== "string" || !TABLE_NAME.test(table)) throw new ValidationError(`postgres store: table ${quote(String(table))} must match ${TABLE_NAME.source}`);
    this.#query = options.query;
    this.#table = table;
    this.#where = `postgres store ${quote(table)}`;
    this.#timeoutMs = positive(options.queryTimeoutMs, PG_QUERY_TIMEOUT_MS);
    this.#pollMs = positive(options.pollIntervalMs, PG_POLL_INTERVAL_MS);
    this.#listen = typeof options.listen === "function" ? options.listen : undefined;
    const t = table;
    const claimTail = `ORDER BY %ORDER% LIMIT 1 FOR UPDATE SKIP LOCKED
), u AS (
  UPDATE ${t} a SET fence = a.fence + 1, lease_owner = $2, lease_until = $1::bigint + $3::bigint, updated_at = greatest($1::bigint, a.created_at)
  FROM next WHERE a.id = next.id RETURNING a.*
) ${bounded("u")}`;
    this.#sql = {
      insert: `INSERT INTO ${t} (id, operation_id, run_id, call_id, actor_id, tenant_id, tool, effect, version, arguments,
  arguments_hash, state_version, preview, state, fence, lease_owner, lease_until, attempts, not_before, created_at, updated_at, expires_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::json, $10::json, $11, $12::json, $13::json, $14, $15::bigint, $16, $17::bigint,
  $18::bigint, $19::bigint, $20::bigint, $21::bigint, $22::bigint)
ON CONFLICT DO NOTHING RETURNING id`,
      get: `${bounded(`${t} WHERE id = $1`)}`,
      list: `${bounded(`(SELECT * FROM ${t} WHERE tenant_id = $1
  AND ($2::json IS NULL OR state IN (SELECT json_array_elements_text($2::json)))
  AND ($3::text IS NULL OR run_id = $3) ORDER BY created_at, seq LIMIT $4::int) l`)} `,
      // Work first (approved; reconciling past its back-off; executing whose lease lapsed), oldest first.
      claimWork: `WITH next AS (
  SELECT id FROM ${t} WHERE state IN ('approved', 'reconciling', 'executing')
  AND (lease_until IS NULL OR lease_until <= $1::bigint)
  AND (state <> 'reconciling' OR not_before IS NULL OR not_before <= $1::bigint)
  ${claimTail.replace("%ORDER%", "created_at, seq")}`,
      // Then an action awaiting approval past its expiry, to expire it.
      claimExpiry: `WITH next AS (
  SELECT id FROM ${t} WHERE state = 'awaiting_approval' AND expires_at <= $1::bigint
  AND (lease_until IS NULL OR lease_until <= $1::bigint)
  ${claimTail.replace("%ORDER%", "expires_at, seq")}`,
    };
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
    const r = checkNewRecord(record, this.#where);
    const rows = await this.#run("create", this.#sql.insert, [
      r.id, r.operationId, r.runId ?? null, r.callId ?? null, r.actorId, r.tenantId, r.tool, r.effect,
      JSON.stringify(r.version), JSON.stringify(r.arguments), r.argumentsHash, param(r.stateVersion, "json"), param(r.preview, "json"),
      r.state, String(r.fence), r.leaseOwner ?? null, param(r.leaseUntil, "bigint"), String(r.attempts), param(r.notBefore, "bigint"),
      String(r.createdAt), String(r.updatedAt), String(r.expiresAt),
    ]);
    if (rows.length !== 1) throw new ActionConflictError(r.id, `${this.#where}: create: action ${quote(r.id)} or its operation id exists`);
    return r;
  }

  async get(id: string): Promise<ActionRecord | undefined> {
    if (typeof id !== "string" || id.length === 0) throw new ValidationError(`${this.#where}: get needs an action id`);
    const found = this.#records(await this.#run("get", this.#sql.get, [id]), 1);
    const r = found[0];
    if (r && r.id !== id) throw new StoreError(`${this.#where}: get ${quote(id)} read another action`);
    return r;
  }

  async list(query: ActionQuery): Promise<ActionRecord[]> {
    const states = listStates(query, this.#where);
    const limit = listLimit(query);
    const runId = typeof query.runId === "string" ? query.runId : null;
    const rows = await this.#run("list", this.#sql.list, [query.tenantId, states ? JSON.stringify(states) : null, runId, String(limit)]);
    const records = this.#records(rows, limit);
    for (const r of records) if (r.tenantId !== query.tenantId) throw new StoreError(`${this.#where}: list read an action of another tenant`);
    return records;
  }

  async transition(id: string, expected: ActionExpectation, patch: ActionPatch, now: number): Promise<ActionRecord> {
    checkTransition(id, expected, patch, now, this.#where);
    if (!canTransition(expected.state, patch.state)) {
      throw new ActionConflictError(id, `${this.#where}: transition of ${quote(id)} from ${expected.state} to ${patch.state} is not allowed`);
    }
    checkPatch(id, expected.state, patch, this.#where);
    const params: (string | null)[] = [id, expected.state, String(expected.fence), patch.state, String(now)];
    const sets = ["state = $4", "updated_at = greatest($5::bigint, created_at)"];
    for (const key of Object.keys(patch)) {
      const column = PATCH_COLUMNS[key];
      if (!column) continue;
      params.push(param((patch as Record<string, unknown>)[key], column[1]));
      sets.push(`${column[0]} = $${params.length}::${column[1]}`);
    }
    const bytes = params.reduce((n, p) => n + (p === null ? 0 : p.length), 0);
    if (bytes > MAX_ACTION_RECORD_BYTES) {
      throw new LimitError("MAX_ACTION_RECORD_BYTES", MAX_ACTION_RECORD_BYTES, `${this.#where}: transition of ${quote(id)} is larger than ${MAX_ACTION_RECORD_BYTES} bytes`);
    }
    // A decision must be of the action's own tenant: part of the compare.
    const decided = patch.approval ?? patch.rejection;
    params.push(decided ? decided.tenantId : null);
    const tenantCheck = `($${params.length}::text IS NULL OR tenant_id = $${params.length}::text)`;
    const sql = `WITH u AS (UPDATE ${this.#table} SET ${sets.join(", ")}
  WHERE id = $1 AND state = $2 AND fence = $3::bigint AND (state || '>' || $4::text) IN (${MOVES_SQL}) AND ${tenantCheck}
  RETURNING *) ${bounded("u")}`;
    const rows = await this.#run("transition", sql, params);
    const done = this.#records(rows, 1)[0];
    if (done) return done;
    // Nothing changed: say why (one read, for the error only).
    const current = await this.get(id);
    if (!current) throw new StoreError(`${this.#where}: transition: no action ${quote(id)}`);
    if (current.state === expected.state && current.fence === expected.fence) {
      throw new ValidationError(`${this.#where}: transition of ${quote(id)}: the decision is not of the action's tenant`);
    }
    throw new ActionConflictError(
      id,
      `${this.#where}: transition of ${quote(id)} expected ${expected.state} at fence ${expected.fence}, found ${current.state} at fence ${current.fence}`,
    );
  }

  async claim(options: ClaimOptions): Promise<ActionRecord | undefined> {
    checkClaim(options, this.#where);
    const params = [String(options.now), options.workerId, String(options.leaseMs)];
    const work = this.#records(await this.#run("claim", this.#sql.claimWork, params), 1)[0];
    if (work) return work;
    return this.#records(await this.#run("claim", this.#sql.claimExpiry, params), 1)[0];
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
      result = await Promise.race([params === undefined ? this.#query(text) : this.#query(text, params), timeout]);
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

  /** Parses bounded JSON rows into checked records. */
  #records(rows: unknown[], max: number): ActionRecord[] {
    if (rows.length > max) throw new StoreError(`${this.#where}: read ${rows.length} rows where at most ${max} were asked for`);
    return rows.map((row) => {
      const j = isRec(row) ? row["j"] : undefined;
      if (typeof j !== "string") {
        throw new StoreError(`${this.#where}: a stored action is larger than ${MAX_ACTION_RECORD_BYTES} bytes (or unreadable); it is not used`);
      }
      let value: unknown;
      try {
        value = JSON.parse(j);
      } catch (e) {
        throw new StoreError(`${this.#where}: a stored action is not JSON; it is not used`, { cause: e });
      }
      return parseActionRecord(value, this.#where);
    });
  }
}

function positive(v: unknown, fallback: number): number {
  return typeof v === "number" && Number.isFinite(v) && v > 0 ? v : fallback;
}
