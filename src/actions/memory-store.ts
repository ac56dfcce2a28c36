/**
 * The in-memory action store (W9): for tests, demos, and hosts that accept losing
 * pending actions on restart. Web-standard; every method is atomic because it
 * does its work between two awaits.
 *
 * @module
 */
import { MAX_FILE_STORE_ACTIONS } from "../limits.js";
import { checkBatch, checkClaimMany, eachItem, single } from "./batch.js";
import { RecordTable } from "./table.js";
import type { ActionCountQuery, ActionExpectation, ActionPatch, ActionQuery, ActionRecord, ActionStore, ActionTransition, ClaimManyOptions, ClaimOptions, TransitionOutcome } from "./types.js";

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
 * import { MemoryActionStore, createActions } from "yada-mcp";
 * const store = new MemoryActionStore();
 * const actions = createActions({ store, mayApprove: () => true });
 * console.log(await actions.pending("acme"));
 * ```
 */
export class MemoryActionStore implements ActionStore {
  readonly #table: RecordTable;

  constructor(options: MemoryStoreOptions = {}) {
    this.#table = new RecordTable(options.data ?? new Map(), options.maxActions ?? MAX_FILE_STORE_ACTIONS, "MAX_FILE_STORE_ACTIONS");
  }

  async create(record: ActionRecord): Promise<ActionRecord> {
    return this.#table.keep(this.#table.checkCreate(record));
  }

  async get(id: string): Promise<ActionRecord | undefined> {
    return this.#table.get(id);
  }

  async list(query: ActionQuery): Promise<ActionRecord[]> {
    return this.#table.list(query);
  }

  async count(query: ActionCountQuery): Promise<number> {
    return this.#table.count(query);
  }

  async transition(id: string, expected: ActionExpectation, patch: ActionPatch, now: number): Promise<ActionRecord> {
    return single(await this.transitionMany([{ id, expected, patch }], now));
  }

  async claim(options: ClaimOptions): Promise<ActionRecord | undefined> {
    return this.#claim(options, 1)[0];
  }

  async claimMany(options: ClaimManyOptions): Promise<ActionRecord[]> {
    return this.#claim(options, checkClaimMany(options));
  }

  #claim(options: ClaimOptions, limit: number): ActionRecord[] {
    return this.#table.pickClaims(options, limit).map((r) => this.#table.keep(r));
  }

  async transitionMany(items: readonly ActionTransition[], now: number): Promise<TransitionOutcome[]> {
    checkBatch(items, now);
    return eachItem(items, (item) => {
      return { ok: true, record: this.#table.keep(this.#table.checkTransition(item.id, item.expected, item.patch, now)) };
    });
  }
}
