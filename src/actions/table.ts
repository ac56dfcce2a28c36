/**
 * The in-memory table behind the memory and file stores (W9): records kept as JSON
 * text by id, each parsed and checked once per stored text (a text changed behind
 * the store's back is parsed again), the operation-id index, the set of actions
 * that are not terminal, so a claim looks only at those, and the numbers of actions
 * by tenant and state (counts.ts), so a count reads no record.
 *
 * @module
 */
import { ActionConflictError, LimitError, StoreError } from "../errors.js";
import { checkCountQuery, isAfter, queryPage } from "./query.js";
import { applyTransition, byAge, checkClaim, claimsTool, isClaimable, leaseRecord, matchesQuery, parseActionRecord, parseNewRecord } from "./record.js";
import { StateCounts } from "./counts.js";
import { ACTION_STATES, isTerminal } from "./states.js";
import type { ActionCountQuery, ActionExpectation, ActionPatch, ActionQuery, ActionRecord, ClaimOptions } from "./types.js";

interface Parsed {
  raw: string;
  record: ActionRecord;
}

/** See the module comment. Methods that change nothing return new records; {@link RecordTable.commit} stores one. */
export class RecordTable {
  readonly #data: Map<string, string>;
  readonly #max: number;
  readonly #limitName: string;
  #parsed = new Map<string, Parsed>();
  #ops = new Map<string, string>();
  #live = new Set<string>();
  #indexed = -1;
  readonly #counts: StateCounts;

  constructor(data: Map<string, string>, max: number, limitName: string) {
    this.#data = data;
    this.#counts = StateCounts.of(data);
    this.#max = max;
    this.#limitName = limitName;
  }

  /** The number of actions. */
  get size(): number {
    return this.#data.size;
  }

  /** Every stored text (for compaction). */
  texts(): IterableIterator<string> {
    return this.#data.values();
  }

  #read(id: string, raw: string): ActionRecord {
    const cached = this.#parsed.get(id);
    if (cached && cached.raw === raw) return cached.record;
    // Only the stored text is cached and counted: a text read instead of it (`before`, the
    // file store's view while a change is being written) must not move the kept counts back.
    const stored = this.#data.get(id) === raw;
    let record: ActionRecord;
    try {
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch (cause) {
        throw new StoreError("a stored action is not JSON", { cause });
      }
      record = parseActionRecord(value);
      if (record.id !== id) throw new StoreError("a stored action is filed under another id");
    } catch (e) {
      if (stored) this.#counts.note(id, raw, undefined);
      throw e;
    }
    if (stored) {
      this.#parsed.set(id, { raw, record });
      this.#counts.note(id, raw, record);
    }
    return record;
  }

  /** Rebuilds the indexes when another store sharing the data added or changed records. */
  #index(): void {
    if (this.#indexed === this.#data.size) return;
    this.#ops = new Map();
    this.#live = new Set();
    for (const [id, raw] of this.#data) {
      try {
        const r = this.#read(id, raw);
        this.#ops.set(r.operationId, id);
        if (!isTerminal(r.state)) this.#live.add(id);
      } catch {
        this.#live.add(id); // read again (and reported) when it is touched
      }
    }
    this.#indexed = this.#data.size;
  }

  /** A copy of the action (its stored JSON, parsed again), or `undefined`. @throws StoreError (`store`) for an impossible stored record. */
  get(id: string): ActionRecord | undefined {
    const raw = this.#data.get(id);
    if (raw === undefined) return undefined;
    this.#read(id, raw);
    return JSON.parse(raw) as ActionRecord;
  }

  /**
   * See ActionStore.list: the matching records past the cursor, sorted, then the page of
   * them copied. `before` gives, for some ids, the text to read instead of the stored one
   * (`undefined`: the action is left out): the file store lists what is on disk while
   * later changes are still being written.
   */
  list(query: ActionQuery, before?: ReadonlyMap<string, string | undefined>): ActionRecord[] {
    const page = queryPage(query);
    const out: ActionRecord[] = [];
    for (const [id, stored] of this.#data) {
      const raw = before?.has(id) ? before.get(id) : stored;
      if (raw === undefined) continue;
      const r = this.#read(id, raw);
      if (matchesQuery(r, query) && isAfter(r, page)) out.push(r);
    }
    out.sort(page.newest ? (a, b) => byAge(b, a) : byAge);
    return out.slice(0, page.limit).map((r) => structuredClone(r));
  }

  /**
   * See ActionStore.count: the kept numbers by tenant and state (built in one pass when
   * there are none yet, or records came or went behind every table's back); a count by
   * run is one pass over the records. An impossible record is counted nowhere.
   */
  count(query: ActionCountQuery, before?: ReadonlyMap<string, string | undefined>): number {
    const states = checkCountQuery(query) ?? ACTION_STATES;
    if (query.runId !== undefined || before !== undefined) {
      // By run, or while changes are being written (the kept numbers already hold them): one pass.
      let n = 0;
      for (const [id, stored] of this.#data) {
        const raw = before?.has(id) ? before.get(id) : stored;
        if (raw !== undefined && matchesQuery(this.#read(id, raw), query)) n++;
      }
      return n;
    }
    if (!this.#counts.current(this.#data.size)) {
      this.#counts.reset();
      for (const [id, raw] of this.#data) {
        try {
          this.#counts.note(id, raw, this.#read(id, raw));
        } catch {
          // noted as impossible by #read
        }
      }
    }
    return this.#counts.count(query.tenantId, states);
  }

  /** The checked new record. @throws as ActionStore.create. */
  checkCreate(record: ActionRecord): ActionRecord {
    const r = parseNewRecord(record);
    this.#index();
    if (this.#data.has(r.id)) throw new ActionConflictError(r.id, "an action with this id exists");
    if (this.#ops.has(r.operationId)) throw new ActionConflictError(r.id, "an action with this operation id exists");
    if (this.#data.size >= this.#max) throw new LimitError(this.#limitName, this.#max, `the store holds ${this.#max} actions`);
    return r;
  }

  /** The record after the transition, not yet stored. @throws as ActionStore.transition. */
  checkTransition(id: string, expected: ActionExpectation, patch: ActionPatch, now: number): ActionRecord {
    const raw = this.#data.get(id);
    if (raw === undefined) throw new StoreError(`no action ${JSON.stringify(String(id).slice(0, 80))}`);
    return applyTransition(this.#read(id, raw), expected, patch, now);
  }

  /** The leased copies of the `limit` oldest claimable actions, oldest first, not yet stored. */
  pickClaims(options: ClaimOptions, limit: number): ActionRecord[] {
    checkClaim(options);
    this.#index();
    const found: ActionRecord[] = [];
    for (const id of this.#live) {
      const raw = this.#data.get(id);
      if (raw === undefined) continue;
      let r: ActionRecord;
      try {
        r = this.#read(id, raw);
      } catch {
        continue; // never handed to a worker; get and list report it
      }
      if (isTerminal(r.state)) this.#live.delete(id);
      else if (isClaimable(r, options.now) && claimsTool(options, r.tool)) found.push(r);
    }
    return found.sort(byAge).slice(0, limit).map((r) => leaseRecord(r, options));
  }

  /** {@link RecordTable.commit} of `record` as its JSON; answers the caller's copy (that JSON, parsed). */
  keep(record: ActionRecord): ActionRecord {
    const text = JSON.stringify(record);
    this.commit(record, text);
    return JSON.parse(text) as ActionRecord;
  }

  /**
   * Stores `record` (checked by one of the methods above) as `text`, its JSON. The table
   * keeps `record` itself as the parsed form: the caller hands it over and answers copies.
   */
  commit(record: ActionRecord, text: string): void {
    const isNew = !this.#data.has(record.id);
    this.#data.set(record.id, text);
    this.#parsed.set(record.id, { raw: text, record });
    this.#counts.note(record.id, text, record);
    if (isNew) {
      this.#ops.set(record.operationId, record.id);
      if (this.#indexed === this.#data.size - 1) this.#indexed++;
    }
    if (isTerminal(record.state)) this.#live.delete(record.id);
    else this.#live.add(record.id);
  }
}
