/**
 * Batched compare-and-swap on PostgreSQL (W9, W12): several transitions in ONE
 * `UPDATE … FROM json_to_recordset($1)` statement. Each row is compared on its own
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

/**
 * The statement: `$1` is a JSON array of items (see {@link itemRow}), `$2` their ids
 * (so the rows are found by the primary key, never by a scan of the table). Each item's
 * `p` holds the columns its patch names (null clears one; a lease or back-off time as
 * ms from the transition's `now`); `json_populate_record` keeps the stored value of
 * every column it does not name; `updated_at` is the database's clock. It returns the changed
 * rows (bounded, as every read) and the item number `batch_item` of each.
 */
export function transitionManySql(t: string): string {
  const cols = WRITTEN.map(([, [c]]) => c);
  const value = (c: string): string =>
    c === "updated_at" ? DB_NOW : RELATIVE.has(c) ? `CASE WHEN x.p::jsonb ? '${c}' THEN ${DB_NOW} + r.${c} ELSE r.${c} END` : `r.${c}`;
  return `WITH x AS (SELECT * FROM json_to_recordset($1::json) AS x(i int, id text, es text, ef bigint, ns text, tenant text, p json)),
u AS (UPDATE ${t} a SET (${cols.join(", ")}) = (SELECT ${cols.map(value).join(", ")} FROM json_populate_record(a, x.p) r)
  FROM x WHERE a.id = ANY(ARRAY(SELECT json_array_elements_text($2::json))) AND a.id = x.id AND a.state = x.es AND a.fence = x.ef AND (a.state || '>' || x.ns) IN (${MOVES_SQL})
  AND (x.tenant IS NULL OR a.tenant_id = x.tenant)
  AND NOT (a.effect = 'confirm' AND x.ns = 'reconciling') AND NOT (a.effect = 'write' AND x.ns = 'outcome_unknown' AND a.state <> 'reconciling')
  AND (a.state = 'outcome_unknown') = coalesce(json_typeof(x.p -> 'resolution') = 'object', false)
  RETURNING a.*, x.i AS batch_item)
${ROW_SELECT("u", "batch_item")}`;
}

/** What checking one item before the statement found. */
export type Prepared = { kind: "row"; row: Record<string, unknown> } | { kind: "error"; error: YadaError } | { kind: "refused" };

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
