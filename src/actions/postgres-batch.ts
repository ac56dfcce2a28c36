/**
 * Batched compare-and-swap on PostgreSQL (W9, W12): several transitions in ONE
 * `UPDATE … FROM (VALUES …)` statement, one row of plain parameters per item. Each row is compared on its own
 * (id, state, fence, allowed move, the decision's tenant, the effect's rules, a
 * resolution exactly on the move out of `outcome_unknown`), so
 * the batch is a set of independent compare-and-swaps that commit together: a
 * stale worker's item is refused exactly as a single transition would be, and the
 * others still apply. A single transition is a batch of one.
 *
 * @module
 */
import { LimitError, ValidationError, type YadaError } from "../errors.js";
import { MAX_ACTION_RECORD_BYTES } from "../limits.js";
import { isRec } from "../util/record.js";
import { quote } from "../util/text.js";
import { checkPatch } from "./record-check.js";
import { utf8Length } from "./record.js";
import { MUTABLE_COLUMNS, ROW_SELECT } from "./postgres-rows.js";
import { ACTION_STATES, canTransition, isActionState } from "./states.js";
import type { ActionTransition } from "./types.js";

// The move list of states.ts, as literals for the SQL compare-and-swap.
const MOVES_SQL = ACTION_STATES.flatMap((from) => ACTION_STATES.filter((to) => canTransition(from, to)).map((to) => `'${from}>${to}'`)).join(", ");

/** The database's clock, in ms since the epoch: the time every lease and back-off is judged by. */
export const DB_NOW = "(extract(epoch FROM statement_timestamp()) * 1000)::float8";

/** Times a patch gives in the worker's clock: sent relative to the transition's `now`, stored relative to {@link DB_NOW}. */
const RELATIVE = new Set(["lease_until", "not_before"]);

/** The columns a transition writes: every field a patch may change, `state` and `updatedAt` (never `fence`). */
const WRITTEN = Object.entries(MUTABLE_COLUMNS).filter(([k]) => k !== "fence");

/** The columns an item sets only when its patch names them (`state` is always set, `updated_at` is always the database's clock). */
const OPTIONAL = WRITTEN.filter(([, [c]]) => c !== "state" && c !== "updated_at");

/** The SQL type of each column of an item's row of parameters, in order. */
const ITEM_TYPES: readonly string[] = ["int", "text", "text", "bigint", "text", "text", "int", ...OPTIONAL.map(([, [, type]]) => type)];

/** The names of those columns: item number, id, expected state and fence, new state, the decision's tenant, the bit mask of the columns named, their values. */
const ITEM_COLUMNS = ["i", "id", "es", "ef", "ns", "tenant", "named", ...OPTIONAL.map(([, [c]]) => c)];

/** Parameters per item of {@link transitionManySql}. */
export const ITEM_PARAMS = ITEM_COLUMNS.length;

/**
 * The statement for a batch of `k` items: a `VALUES` list of `k` rows of typed
 * parameters (see {@link itemParams}), joined to the table by primary key. Each row
 * is its own compare-and-swap; each column its item does not name keeps its stored
 * value (bit `n` of `named` says whether the item names the `n`-th optional column;
 * null clears one); a lease or back-off time is ms from the transition's `now`, stored
 * from the database's clock; `updated_at` is the database's clock. It returns the
 * changed rows (bounded, as every read) and the item number `batch_item` of each.
 * Plain parameters, no JSON to take apart and no record to rebuild per row: the cost
 * of a move is the row's own update.
 */
export function transitionManySql(t: string, k: number): string {
  const rows = Array.from({ length: k }, (_, j) => `(${ITEM_TYPES.map((type, n) => `$${j * ITEM_PARAMS + n + 1}::${type}`).join(", ")})`);
  const set = WRITTEN.map(([, [c]]) => {
    if (c === "state") return "state = x.ns";
    if (c === "updated_at") return `updated_at = ${DB_NOW}`;
    const bit = 1 << OPTIONAL.findIndex(([, [o]]) => o === c);
    return `${c} = CASE WHEN x.named & ${bit} <> 0 THEN ${RELATIVE.has(c) ? `${DB_NOW} + x.${c}` : `x.${c}`} ELSE a.${c} END`;
  });
  return `WITH u AS (UPDATE ${t} a SET ${set.join(", ")}
  FROM (VALUES ${rows.join(", ")}) AS x(${ITEM_COLUMNS.join(", ")})
  WHERE a.id = x.id AND a.state = x.es AND a.fence = x.ef AND (a.state || '>' || x.ns) IN (${MOVES_SQL})
  AND (x.tenant IS NULL OR a.tenant_id = x.tenant)
  AND NOT (a.effect = 'confirm' AND x.ns = 'reconciling') AND NOT (a.effect = 'write' AND x.ns = 'outcome_unknown' AND a.state <> 'reconciling')
  AND (a.state = 'outcome_unknown') = coalesce(json_typeof(x.resolution) = 'object', false)
  RETURNING a.*, x.i AS batch_item)
${ROW_SELECT("u", "batch_item")}`;
}

/** One item of a batch as the statement reads it: the columns its patch names (a lease or back-off time as ms from `now`). */
export interface ItemRow {
  i: number;
  id: string;
  es: string;
  ef: number;
  ns: string;
  tenant: string | null;
  p: Record<string, unknown>;
}

/** The parameters of one item's row of {@link transitionManySql}, in order. */
export function itemParams({ i, id, es, ef, ns, tenant, p }: ItemRow): (string | null)[] {
  let named = 0;
  const values = OPTIONAL.map(([, [c, type]], n) => {
    if (!Object.hasOwn(p, c)) return null;
    named |= 1 << n;
    const v = p[c];
    return v === null || v === undefined ? null : type === "json" ? JSON.stringify(v) : String(v);
  });
  return [String(i), id, es, String(ef), ns, tenant, String(named), ...values];
}

/** What checking one item before the statement found. */
export type Prepared = { kind: "row"; row: ItemRow } | { kind: "error"; error: YadaError } | { kind: "refused" };

/**
 * Checks one item as a single transition would, and builds its JSON row; the
 * decision's tenant and the effect's rules are compared in SQL.
 */
export function itemRow({ id, expected, patch }: ActionTransition, index: number, now: number, where: string): Prepared {
  try {
    if (!isRec(expected) || !isActionState(expected.state) || !Number.isSafeInteger(expected.fence)) {
      throw new ValidationError(`${where}: transition of ${quote(id)} needs the expected state and fence`);
    }
    checkPatch(expected.state, patch);
    // A move the state machine never allows: a conflict if the action exists (one read says which).
    if (!canTransition(expected.state, patch.state)) return { kind: "refused" };
    const p: Record<string, unknown> = {};
    for (const [key, [column]] of WRITTEN) {
      if (!Object.hasOwn(patch, key)) continue;
      const v = (patch as Record<string, unknown>)[key] ?? null;
      p[column] = RELATIVE.has(column) && typeof v === "number" ? v - now : v;
    }
    const text = JSON.stringify(p);
    if (utf8Length(text) > MAX_ACTION_RECORD_BYTES) {
      throw new LimitError("MAX_ACTION_RECORD_BYTES", MAX_ACTION_RECORD_BYTES, `${where}: transition of ${quote(id)} is larger than ${MAX_ACTION_RECORD_BYTES} bytes`);
    }
    const decided = patch.approval ?? patch.rejection ?? patch.resolution;
    return { kind: "row", row: { i: index, id, es: expected.state, ef: expected.fence, ns: patch.state, tenant: decided ? decided.tenantId : null, p } };
  } catch (e) {
    if (e instanceof ValidationError || e instanceof LimitError) return { kind: "error", error: e };
    throw e;
  }
}
