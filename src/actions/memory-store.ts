/**
 * The in-memory action store (W9): for tests, demos, and hosts that accept losing
 * pending actions on restart. Web-standard; every method is atomic because it
 * does its work between two awaits.
 *
 * @module
 */
import { ActionConflictError, LimitError, StoreError } from "../errors.js";
import { MAX_FILE_STORE_ACTIONS } from "../limits.js";
import { applyTransition, byAge, checkClaim, isClaimable, leaseRecord, matchesQuery, parseActionRecord, parseNewRecord, queryLimit } from "./record.js";
import type { ActionExpectation, ActionPatch, ActionQuery, ActionRecord, ActionStore, ClaimOptions } from "./types.js";

/** Options of {@link MemoryActionStore}. */
export interface MemoryStoreOptions {
  /**
   * The map the records live in, as JSON text by id. Two stores given the same map
   * see the same actions (a host can keep it across store instances). Every value
   * is parsed and checked when read.
   */
  data?: Map<string, string>;
  /** Most actions held (default `MAX_FILE_STORE_ACTIONS`). */
  maxActions?: number;
}

/**
 * An {@link ActionStore} in memory. Records are copied in and out (as JSON), so a
 * caller never holds a live reference to stored state.
 *
 * @throws on `create`: ValidationError (`validation`) for an impossible record,
 * ActionConflictError (`conflict`) for a taken id or operation id, LimitError (`limit`)
 * over `maxActions` or `MAX_ACTION_RECORD_BYTES`; StoreError (`store`) when a stored
 * value is not a possible record.
 *
 * @example
 * ```ts
 * import { MemoryActionStore, createActions } from "yada";
 * const store = new MemoryActionStore();
 * const actions = createActions({ store, mayApprove: () => true });
 * console.log(await actions.pending("acme"));
 * ```
 */
export class MemoryActionStore implements ActionStore {
  readonly #data: Map<string, string>;
  readonly #max: number;
  // operation id → action id; rebuilt when another store sharing the map added records.
  #ops = new Map<string, string>();

  constructor(options: MemoryStoreOptions = {}) {
    this.#data = options.data ?? new Map();
    this.#max = options.maxActions ?? MAX_FILE_STORE_ACTIONS;
  }

  #read(id: string, raw: string): ActionRecord {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (cause) {
      throw new StoreError(`stored action ${JSON.stringify(id.slice(0, 80))} is not JSON`, { cause });
    }
    const record = parseActionRecord(value);
    if (record.id !== id) throw new StoreError("stored action is filed under another id");
    return record;
  }

  #all(): ActionRecord[] {
    const out: ActionRecord[] = [];
    for (const [id, raw] of this.#data) out.push(this.#read(id, raw));
    return out;
  }

  async create(record: ActionRecord): Promise<ActionRecord> {
    const r = parseNewRecord(record);
    if (this.#data.has(r.id)) throw new ActionConflictError(r.id, "an action with this id exists");
    if (this.#ops.size !== this.#data.size) {
      this.#ops = new Map();
      for (const [id, raw] of this.#data) this.#ops.set(this.#read(id, raw).operationId, id);
    }
    if (this.#ops.has(r.operationId)) throw new ActionConflictError(r.id, "an action with this operation id exists");
    if (this.#data.size >= this.#max) throw new LimitError("MAX_FILE_STORE_ACTIONS", this.#max, `the store holds ${this.#max} actions`);
    this.#data.set(r.id, JSON.stringify(r));
    this.#ops.set(r.operationId, r.id);
    return structuredClone(r);
  }

  async get(id: string): Promise<ActionRecord | undefined> {
    const raw = this.#data.get(id);
    return raw === undefined ? undefined : this.#read(id, raw);
  }

  async list(query: ActionQuery): Promise<ActionRecord[]> {
    const limit = queryLimit(query);
    return this.#all().filter((r) => matchesQuery(r, query)).sort(byAge).slice(0, limit);
  }

  async transition(id: string, expected: ActionExpectation, patch: ActionPatch, now: number): Promise<ActionRecord> {
    const raw = this.#data.get(id);
    if (raw === undefined) throw new StoreError(`no action ${JSON.stringify(String(id).slice(0, 80))}`);
    const next = applyTransition(this.#read(id, raw), expected, patch, now);
    this.#data.set(id, JSON.stringify(next));
    return next;
  }

  async claim(options: ClaimOptions): Promise<ActionRecord | undefined> {
    checkClaim(options);
    let best: ActionRecord | undefined;
    for (const [id, raw] of this.#data) {
      let r: ActionRecord;
      try {
        r = this.#read(id, raw);
      } catch {
        continue; // An impossible record is never handed to a worker; get/list report it.
      }
      if (isClaimable(r, options.now) && (best === undefined || byAge(r, best) < 0)) best = r;
    }
    if (best === undefined) return undefined;
    const leased = leaseRecord(best, options);
    this.#data.set(leased.id, JSON.stringify(leased));
    return leased;
  }
}
