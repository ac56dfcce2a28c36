/**
 * The Durable Object action store (W12): the store contract on a Cloudflare Durable
 * Object's transactional storage, for agents on Workers. The object is the single
 * authority for its actions (one object per tenant is the usual shape); every
 * operation runs in one storage transaction, so it is atomic and serialized.
 *
 * Keys: `a:<seq>` the record (seq: 16 digits, creation order); `i:<id>` and
 * `o:<operationId>` → seq (uniqueness); `w:<seq>` marks an action that is not yet
 * terminal (what a claim scans); `n` the last seq.
 *
 * Workers reach the object through {@link remoteActionStore} and
 * {@link serveActionStore} (durable-object-remote.ts).
 *
 * @module
 */
import { ActionConflictError, StoreError, ValidationError, YadaError } from "../errors.js";
import { DO_LIST_SCAN_MAX } from "../limits.js";
import { isRec } from "../util/record.js";
import { quote } from "../util/text.js";
import {
  applyPatch,
  checkClaim,
  checkNewRecord,
  checkPatch,
  checkRecordSize,
  checkTransition,
  claimable,
  listLimit,
  listStates,
  parseActionRecord,
} from "./record-check.js";
import { canTransition, isTerminal } from "./states.js";
import type { ActionExpectation, ActionPatch, ActionQuery, ActionRecord, ActionStore, ClaimOptions } from "./types.js";

/** The storage operations the store uses: a subset of `DurableObjectStorage` and of its transaction. */
export interface DurableObjectStorageOps {
  get(key: string): Promise<unknown>;
  get(keys: string[]): Promise<Map<string, unknown>>;
  put(entries: Record<string, unknown>): Promise<void>;
  delete(key: string): Promise<boolean>;
  list(options: { prefix?: string; start?: string; limit?: number }): Promise<Map<string, unknown>>;
}

/** What {@link DurableObjectActionStore} needs: `state.storage` of a Durable Object (`ctx.storage`). */
export interface DurableObjectStorageLike extends DurableObjectStorageOps {
  transaction<T>(fn: (txn: DurableObjectStorageOps) => Promise<T>): Promise<T>;
}

/** Keys are listed in pages of this many. */
const PAGE = 128;
const seqKey = (seq: number): string => String(seq).padStart(16, "0");

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
 * import { DurableObjectActionStore, serveActionStore } from "yada";
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
    const r = checkNewRecord(record, this.#where);
    return this.#tx("create", async (txn) => {
      const taken = await txn.get([`i:${r.id}`, `o:${r.operationId}`]);
      if (taken.size > 0) throw new ActionConflictError(r.id, `${this.#where}: create: action ${quote(r.id)} or its operation id exists`);
      const last = await txn.get("n");
      const seq = (typeof last === "number" && Number.isSafeInteger(last) ? last : 0) + 1;
      const k = seqKey(seq);
      await txn.put({ n: seq, [`a:${k}`]: r, [`i:${r.id}`]: k, [`o:${r.operationId}`]: k, [`w:${k}`]: 1 });
      return r;
    });
  }

  async get(id: string): Promise<ActionRecord | undefined> {
    if (typeof id !== "string" || id.length === 0) throw new ValidationError(`${this.#where}: get needs an action id`);
    return this.#tx("get", async (txn) => (await this.#find(txn, id))?.record);
  }

  async list(query: ActionQuery): Promise<ActionRecord[]> {
    const states = listStates(query, this.#where);
    const limit = listLimit(query);
    // Only live (not terminal) states asked for: the claim index is the shorter scan.
    const live = states !== undefined && states.every((s) => !isTerminal(s));
    return this.#tx("list", async (txn) => {
      const out: ActionRecord[] = [];
      await this.#scan(txn, live ? "w:" : "a:", (r) => {
        if (r.tenantId !== query.tenantId) return false;
        if (states && !states.includes(r.state)) return false;
        if (query.runId !== undefined && r.runId !== query.runId) return false;
        out.push(r);
        return out.length >= limit;
      });
      return out;
    });
  }

  async transition(id: string, expected: ActionExpectation, patch: ActionPatch, now: number): Promise<ActionRecord> {
    checkTransition(id, expected, patch, now, this.#where);
    if (!canTransition(expected.state, patch.state)) {
      throw new ActionConflictError(id, `${this.#where}: transition of ${quote(id)} from ${expected.state} to ${patch.state} is not allowed`);
    }
    checkPatch(id, expected.state, patch, this.#where);
    return this.#tx("transition", async (txn) => {
      const found = await this.#find(txn, id);
      if (!found) throw new StoreError(`${this.#where}: transition: no action ${quote(id)}`);
      const cur = found.record;
      if (cur.state !== expected.state || cur.fence !== expected.fence) {
        throw new ActionConflictError(
          id,
          `${this.#where}: transition of ${quote(id)} expected ${expected.state} at fence ${expected.fence}, found ${cur.state} at fence ${cur.fence}`,
        );
      }
      const next = applyPatch(cur, patch, now, this.#where);
      checkRecordSize(next, this.#where);
      await txn.put({ [`a:${found.key}`]: next });
      if (isTerminal(next.state)) await txn.delete(`w:${found.key}`);
      return next;
    });
  }

  async claim(options: ClaimOptions): Promise<ActionRecord | undefined> {
    checkClaim(options, this.#where);
    return this.#tx("claim", async (txn) => {
      let picked: { key: string; record: ActionRecord } | undefined;
      let impossible: unknown;
      await this.#scan(
        txn,
        "w:",
        (r, key) => {
          if (!claimable(r, options.now)) return false;
          picked = { key, record: r };
          return true;
        },
        (e) => (impossible ??= e),
      );
      if (!picked) {
        // An impossible record never blocks the others; it is reported once nothing else is due.
        if (impossible) throw impossible;
        return undefined;
      }
      const r = picked.record;
      const next: ActionRecord = { ...r, fence: r.fence + 1, leaseOwner: options.workerId, leaseUntil: options.now + options.leaseMs, updatedAt: Math.max(options.now, r.createdAt) };
      await txn.put({ [`a:${picked.key}`]: next });
      return next;
    });
  }

  /** The record of an id, with its seq key; parsed. */
  async #find(txn: DurableObjectStorageOps, id: string): Promise<{ key: string; record: ActionRecord } | undefined> {
    const key = await txn.get(`i:${id}`);
    if (key === undefined) return undefined;
    if (typeof key !== "string") throw new StoreError(`${this.#where}: the index entry of ${quote(id)} is impossible`);
    const record = parseActionRecord(await txn.get(`a:${key}`), this.#where);
    if (record.id !== id) throw new StoreError(`${this.#where}: the index entry of ${quote(id)} names another action`);
    return { key, record };
  }

  /**
   * Visits records in creation order through the index `prefix` ("a:" all, "w:" live)
   * until `visit` returns true or DO_LIST_SCAN_MAX records were read. An impossible
   * record is passed to `onImpossible` (skipped) when given, else thrown.
   */
  async #scan(
    txn: DurableObjectStorageOps,
    prefix: "a:" | "w:",
    visit: (r: ActionRecord, key: string) => boolean,
    onImpossible?: (e: unknown) => void,
  ): Promise<void> {
    let start: string | undefined;
    for (let read = 0; read < DO_LIST_SCAN_MAX; ) {
      const page = await txn.list(start === undefined ? { prefix, limit: PAGE } : { prefix, start, limit: PAGE });
      if (page.size === 0) return;
      const keys = [...page.keys()].map((k) => k.slice(2));
      const values = prefix === "a:" ? new Map([...page].map(([k, v]) => [k.slice(2), v])) : await this.#records(txn, keys);
      for (const key of keys) {
        read++;
        let r: ActionRecord;
        try {
          r = parseActionRecord(values.get(key), this.#where);
        } catch (e) {
          if (!onImpossible) throw e;
          onImpossible(e);
          continue;
        }
        if (visit(r, key)) return;
        if (read >= DO_LIST_SCAN_MAX) return;
      }
      if (page.size < PAGE) return;
      start = `${prefix}${keys[keys.length - 1]}\u0000`;
    }
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
