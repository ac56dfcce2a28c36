/**
 * The Durable Object action store (W12): the store contract on a Cloudflare Durable
 * Object's transactional storage, for agents on Workers. The object is the single
 * authority for its actions (one object per tenant is the usual shape); every
 * operation runs in one storage transaction, so it is atomic and serialized.
 *
 * Keys: `a:<age>` the record, where `<age>` sorts as (createdAt, id), the order
 * every store lists and claims in; `i:<id>` → age and `o:<operationId>` → id
 * (uniqueness); `w:<age>` marks an action that is not yet terminal (what a claim
 * scans); `c:<state>:<tenant>` the number of the tenant's actions in that state, kept
 * in the same transaction as every move once `c:ready` is set (the first count builds
 * them), so a count reads numbers, never records.
 *
 * Workers reach the object through {@link remoteActionStore} and
 * {@link serveActionStore} (durable-object-remote.ts).
 *
 * @module
 */
import { ActionConflictError, LimitError, StoreError, ValidationError, YadaError } from "../errors.js";
import { DO_LIST_SCAN_MAX } from "../limits.js";
import { isRec } from "../util/record.js";
import { quote } from "../util/text.js";
import { listStates } from "./record-check.js";
import { checkCountQuery, queryPage } from "./query.js";
import { applyTransition, checkClaim, claimsTool, isClaimable, leaseRecord, matchesQuery, parseActionRecord, parseNewRecord } from "./record.js";
import { ACTION_STATES, isTerminal } from "./states.js";
import { checkBatch, checkClaimMany, eachItem, single } from "./batch.js";
import type { ActionCountQuery, ActionCursor, ActionExpectation, ActionPatch, ActionQuery, ActionRecord, ActionState, ActionStore, ActionTransition, ClaimManyOptions, ClaimOptions, TransitionOutcome } from "./types.js";

/** The storage operations the store uses: a subset of `DurableObjectStorage` and of its transaction. */
export interface DurableObjectStorageOps {
  get(key: string): Promise<unknown>;
  get(keys: string[]): Promise<Map<string, unknown>>;
  put(entries: Record<string, unknown>): Promise<void>;
  delete(key: string): Promise<boolean>;
  list(options: { prefix?: string; start?: string; end?: string; reverse?: boolean; limit?: number }): Promise<Map<string, unknown>>;
}

/** What {@link DurableObjectActionStore} needs: `state.storage` of a Durable Object (`ctx.storage`). */
export interface DurableObjectStorageLike extends DurableObjectStorageOps {
  transaction<T>(fn: (txn: DurableObjectStorageOps) => Promise<T>): Promise<T>;
}

/** The key that says the per-state counts exist and are kept. */
const COUNTED = "c:ready";
const countKey = (state: ActionState, tenantId: string): string => `c:${state}:${tenantId}`;

/** Keys are listed in pages of this many. */
const PAGE = 128;
/** createdAt at or past this cannot be ordered by the key (ms since the epoch: the year 33658). */
const MAX_CREATED_AT = 1e15;
/** A key that sorts as (createdAt, id): 16 integer digits, 12 fraction digits, the id. */
function ageKey(r: ActionCursor): string {
  const whole = Math.floor(r.createdAt);
  return `${String(whole).padStart(16, "0")}.${(r.createdAt - whole).toFixed(12).slice(2)}:${r.id}`;
}

/** A stored count (a missing one is 0; anything else impossible is read as 0). */
const counted = (v: unknown): number => (typeof v === "number" && Number.isSafeInteger(v) && v > 0 ? v : 0);

/**
 * An {@link ActionStore} on a Durable Object's storage. Construct it in the
 * object's constructor with `ctx.storage` (`state.storage`), and serve it to
 * Workers with {@link serveActionStore}.
 *
 * Bounds: records ≤ `MAX_ACTION_RECORD_BYTES`, lists ≤ `MAX_ACTIONS_LISTED`, and
 * one list or claim reads at most `DO_LIST_SCAN_MAX` records.
 *
 * Throws by code: `conflict`, `store` (an impossible stored record, a storage
 * failure), `validation`, `limit`.
 *
 * @example
 * ```ts
 * import { DurableObjectActionStore, serveActionStore } from "yada-mcp";
 * export class ActionsObject {
 *   constructor(ctx) { this.store = new DurableObjectActionStore(ctx.storage); }
 *   fetch(request) { return serveActionStore(this.store, request); }
 * }
 * ```
 */
export class DurableObjectActionStore implements ActionStore {
  readonly #storage: DurableObjectStorageLike;
  readonly #where: string;

  constructor(storage: DurableObjectStorageLike, options: { name?: string } = {}) {
    if (!isRec(storage) || typeof storage.transaction !== "function" || typeof storage.get !== "function") {
      throw new ValidationError("durable object store: needs the object's storage (ctx.storage)");
    }
    this.#storage = storage;
    this.#where = `durable object store${options.name ? ` ${quote(options.name)}` : ""}`;
  }

  async create(record: ActionRecord): Promise<ActionRecord> {
    const r = parseNewRecord(record);
    if (r.createdAt >= MAX_CREATED_AT) throw new ValidationError(`${this.#where}: action createdAt is out of range`);
    return this.#tx("create", async (txn) => {
      const counter = countKey(r.state, r.tenantId);
      const got = await txn.get([`i:${r.id}`, `o:${r.operationId}`, COUNTED, counter]);
      if (got.has(`i:${r.id}`) || got.has(`o:${r.operationId}`)) throw new ActionConflictError(r.id, `${this.#where}: create: action ${quote(r.id)} or its operation id exists`);
      const k = ageKey(r);
      const entries: Record<string, unknown> = { [`a:${k}`]: r, [`i:${r.id}`]: k, [`o:${r.operationId}`]: r.id, [`w:${k}`]: 1 };
      if (got.has(COUNTED)) entries[counter] = counted(got.get(counter)) + 1;
      await txn.put(entries);
      return r;
    });
  }

  async get(id: string): Promise<ActionRecord | undefined> {
    if (typeof id !== "string" || id.length === 0) throw new ValidationError(`${this.#where}: get needs an action id`);
    return this.#tx("get", async (txn) => (await this.#find(txn, id))?.record);
  }

  /** Reads from the cursor's key on (backwards for `newest`), so a later page costs no more than the first. */
  async list(query: ActionQuery): Promise<ActionRecord[]> {
    const { limit, newest, after } = queryPage(query);
    const states = listStates(query);
    // Only live (not terminal) states asked for: the claim index is the shorter scan.
    const live = states !== undefined && states.every((s) => !isTerminal(s));
    return this.#tx("list", async (txn) => {
      const out: ActionRecord[] = [];
      const from = { reverse: newest, ...(after ? { after: ageKey(after) } : {}) };
      await this.#scan(txn, live ? "w:" : "a:", (r) => {
        if (!matchesQuery(r, query)) return false;
        out.push(r);
        return out.length >= limit;
      }, undefined, from);
      return out;
    });
  }

  /**
   * Reads the kept per-state numbers (building them in one pass over the records on
   * the first count of the object). A count by run reads the records, at most
   * `DO_LIST_SCAN_MAX` of them (a `limit` error past that).
   */
  async count(query: ActionCountQuery): Promise<number> {
    const states = checkCountQuery(query) ?? ACTION_STATES;
    return this.#tx("count", async (txn) => {
      if (query.runId !== undefined) {
        let n = 0;
        const read = await this.#scan(txn, "a:", (r) => {
          if (matchesQuery(r, query)) n++;
          return false;
        });
        if (read >= DO_LIST_SCAN_MAX) throw new LimitError("DO_LIST_SCAN_MAX", DO_LIST_SCAN_MAX, `${this.#where}: a count by run reads at most ${DO_LIST_SCAN_MAX} actions`);
        return n;
      }
      if ((await txn.get(COUNTED)) === undefined) await this.#buildCounts(txn);
      const got = await txn.get(states.map((s) => countKey(s, query.tenantId)));
      let n = 0;
      for (const v of got.values()) n += counted(v);
      return n;
    });
  }

  /** Counts every record by (state, tenant) and stores the numbers with the marker that they are kept from now on. */
  async #buildCounts(txn: DurableObjectStorageOps): Promise<void> {
    const counts = new Map<string, number>();
    let start: string | undefined;
    for (;;) {
      const page = await txn.list(start === undefined ? { prefix: "a:", limit: PAGE } : { prefix: "a:", start, limit: PAGE });
      for (const v of page.values()) {
        let r: ActionRecord;
        try {
          r = this.#parse(v);
        } catch {
          continue; // an impossible record is no action of any state
        }
        const k = countKey(r.state, r.tenantId);
        counts.set(k, (counts.get(k) ?? 0) + 1);
      }
      if (page.size < PAGE) break;
      start = `${[...page.keys()].at(-1)}\u0000`;
    }
    const entries: Record<string, unknown> = Object.fromEntries(counts);
    entries[COUNTED] = 1;
    for (let i = 0, all = Object.entries(entries); i < all.length; i += PAGE) await txn.put(Object.fromEntries(all.slice(i, i + PAGE)));
  }

  async transition(id: string, expected: ActionExpectation, patch: ActionPatch, now: number): Promise<ActionRecord> {
    return single(await this.transitionMany([{ id, expected, patch }], now));
  }

  async claim(options: ClaimOptions): Promise<ActionRecord | undefined> {
    checkClaim(options);
    return (await this.#tx("claim", (txn) => this.#claim(txn, options, 1)))[0];
  }

  /** Leases up to `limit` actions in one storage transaction (see ActionStore.claimMany). */
  async claimMany(options: ClaimManyOptions): Promise<ActionRecord[]> {
    const limit = checkClaimMany(options);
    return this.#tx("claim", (txn) => this.#claim(txn, options, limit));
  }

  /** Applies each compare-and-swap that holds, in one storage transaction (see ActionStore.transitionMany). */
  async transitionMany(items: readonly ActionTransition[], now: number): Promise<TransitionOutcome[]> {
    checkBatch(items, now);
    return this.#tx("transition", async (txn) => {
      const moved = new Map<string, number>();
      const outcomes = await eachItem(items, async (item) => {
        const found = await this.#find(txn, item.id);
        if (!found) throw new StoreError(`${this.#where}: transition: no action ${quote(item.id)}`);
        const next = applyTransition(found.record, item.expected, item.patch, now);
        await txn.put({ [`a:${found.key}`]: next });
        if (isTerminal(next.state)) await txn.delete(`w:${found.key}`);
        if (next.state !== found.record.state) {
          const from = countKey(found.record.state, next.tenantId);
          const to = countKey(next.state, next.tenantId);
          moved.set(from, (moved.get(from) ?? 0) - 1).set(to, (moved.get(to) ?? 0) + 1);
        }
        return { ok: true, record: next };
      });
      if (moved.size > 0) await this.#recount(txn, moved);
      return outcomes;
    });
  }

  /** Applies the moves of a transaction to the kept counts, when they are kept. */
  async #recount(txn: DurableObjectStorageOps, moved: Map<string, number>): Promise<void> {
    const got = await txn.get([COUNTED, ...moved.keys()]);
    if (!got.has(COUNTED)) return;
    await txn.put(Object.fromEntries([...moved].map(([k, d]) => [k, Math.max(0, counted(got.get(k)) + d)])));
  }

  async #claim(txn: DurableObjectStorageOps, options: ClaimOptions, limit: number): Promise<ActionRecord[]> {
    const picked: { key: string; record: ActionRecord }[] = [];
    let impossible: unknown;
    await this.#scan(
      txn,
      "w:",
      (r, key) => {
        if (!isClaimable(r, options.now) || !claimsTool(options, r.tool)) return false;
        picked.push({ key, record: r });
        return picked.length >= limit;
      },
      (e) => (impossible ??= e),
    );
    // An impossible record never blocks the others; it is reported once nothing else is due.
    if (picked.length === 0 && impossible) throw impossible;
    const leased = picked.map((p) => ({ key: p.key, record: leaseRecord(p.record, options) }));
    if (leased.length > 0) await txn.put(Object.fromEntries(leased.map((p) => [`a:${p.key}`, p.record])));
    return leased.map((p) => p.record);
  }

  /** The record of an id, with its seq key; parsed. */
  async #find(txn: DurableObjectStorageOps, id: string): Promise<{ key: string; record: ActionRecord } | undefined> {
    const key = await txn.get(`i:${id}`);
    if (key === undefined) return undefined;
    if (typeof key !== "string") throw new StoreError(`${this.#where}: the index entry of ${quote(id)} is impossible`);
    const record = this.#parse(await txn.get(`a:${key}`));
    if (record.id !== id) throw new StoreError(`${this.#where}: the index entry of ${quote(id)} names another action`);
    return { key, record };
  }

  /**
   * Visits records in creation order (newest first with `from.reverse`), past the key
   * `from.after` when given, through the index `prefix` ("a:" all, "w:" live) until
   * `visit` returns true or DO_LIST_SCAN_MAX records were read; resolves with how many
   * were read. An impossible record is passed to `onImpossible` (skipped) when given,
   * else thrown.
   */
  async #scan(
    txn: DurableObjectStorageOps,
    prefix: "a:" | "w:",
    visit: (r: ActionRecord, key: string) => boolean,
    onImpossible?: (e: unknown) => void,
    from: { after?: string; reverse?: boolean } = {},
  ): Promise<number> {
    // Forwards, `start` is inclusive: the first key past `after` is `after` + U+0000. Backwards, `end` is exclusive.
    let bound = from.after === undefined ? undefined : from.reverse ? `${prefix}${from.after}` : `${prefix}${from.after}\u0000`;
    let read = 0;
    while (read < DO_LIST_SCAN_MAX) {
      const options = { prefix, limit: PAGE, ...(from.reverse ? { reverse: true, ...(bound === undefined ? {} : { end: bound }) } : bound === undefined ? {} : { start: bound }) };
      const page = await txn.list(options);
      if (page.size === 0) return read;
      const keys = [...page.keys()].map((k) => k.slice(2));
      const values = prefix === "a:" ? new Map([...page].map(([k, v]) => [k.slice(2), v])) : await this.#records(txn, keys);
      for (const key of keys) {
        read++;
        let r: ActionRecord;
        try {
          r = this.#parse(values.get(key));
        } catch (e) {
          if (!onImpossible) throw e;
          onImpossible(e);
          continue;
        }
        if (visit(r, key)) return read;
        if (read >= DO_LIST_SCAN_MAX) return read;
      }
      if (page.size < PAGE) return read;
      bound = from.reverse ? `${prefix}${keys[keys.length - 1]}` : `${prefix}${keys[keys.length - 1]}\u0000`;
    }
    return read;
  }

  #parse(value: unknown): ActionRecord {
    return parseActionRecord(value, (m) => new StoreError(`${this.#where}: stored ${m}; it is not used`));
  }

  async #records(txn: DurableObjectStorageOps, keys: string[]): Promise<Map<string, unknown>> {
    const got = await txn.get(keys.map((k) => `a:${k}`));
    return new Map([...got].map(([k, v]) => [k.slice(2), v]));
  }

  async #tx<T>(op: string, fn: (txn: DurableObjectStorageOps) => Promise<T>): Promise<T> {
    try {
      return await this.#storage.transaction(fn);
    } catch (e) {
      if (e instanceof YadaError) throw e;
      throw new StoreError(`${this.#where}: ${op}: the storage failed`, { cause: e });
    }
  }
}
