/**
 * The numbers of actions by (tenant, state) of the memory and file stores (U4, W9),
 * kept as records change so that a count reads numbers, not records. One set of
 * numbers serves every table over the same data (two memory stores given one map
 * share them), and each record is counted by the stored text it was counted from: a
 * text that changes, through any table or behind every table's back, moves its count
 * the next time a table reads it; one added or removed behind their backs (the map's
 * size moved) has the numbers built again.
 *
 * @module
 */
import type { ActionRecord, ActionState } from "./types.js";

const key = (state: ActionState, tenantId: string): string => `${state}\u0000${tenantId}`;

/** See the module comment. */
export class StateCounts {
  static readonly #shared = new WeakMap<Map<string, string>, StateCounts>();
  #seen = new Map<string, { raw: string; key: string | undefined }>();
  #counts = new Map<string, number>();
  #built = false;

  /** The counts of the records in `data`, shared by every table over it. */
  static of(data: Map<string, string>): StateCounts {
    let c = StateCounts.#shared.get(data);
    if (!c) StateCounts.#shared.set(data, (c = new StateCounts()));
    return c;
  }

  /** Whether the numbers stand for `size` stored records. */
  current(size: number): boolean {
    return this.#built && this.#seen.size === size;
  }

  /** Starts counting again from nothing (each record is then {@link note}d). */
  reset(): void {
    this.#seen = new Map();
    this.#counts = new Map();
    this.#built = true;
  }

  /** Record `id` is stored as `raw`, holding `record` (`undefined`: an impossible record, counted nowhere). */
  note(id: string, raw: string, record: ActionRecord | undefined): void {
    if (!this.#built) return;
    const was = this.#seen.get(id);
    if (was?.raw === raw) return;
    const k = record === undefined ? undefined : key(record.state, record.tenantId);
    if (was?.key !== undefined) this.#counts.set(was.key, (this.#counts.get(was.key) ?? 1) - 1);
    if (k !== undefined) this.#counts.set(k, (this.#counts.get(k) ?? 0) + 1);
    this.#seen.set(id, { raw, key: k });
  }

  /** The number of `tenantId`'s actions in `states`. */
  count(tenantId: string, states: readonly ActionState[]): number {
    let n = 0;
    for (const s of states) n += this.#counts.get(key(s, tenantId)) ?? 0;
    return n;
  }
}
