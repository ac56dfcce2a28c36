/**
 * Batched compare-and-swap on PostgreSQL (W9, W12): several transitions in ONE
 * `UPDATE … FROM json_to_recordset($1)` statement. Each row is compared on its own
 * (id, state, fence, allowed move, the decision's tenant, the effect's rules), so
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

/** The columns a patch may set (beside `state`), with the record key each comes from. */
const SETTABLE = Object.entries(MUTABLE_COLUMNS).filter(([k]) => k !== "state" && k !== "fence" && k !== "updatedAt");

/**
 * The statement: `$1` is a JSON array of items (see {@link itemRow}), `$2` now. It
 * returns the changed rows (bounded, as every read) and the item number `batch_item` of each.
 */
export function transitionManySql(t: string): string {
  const cols = ["i int", "id text", "es text", "ef bigint", "ns text", "tenant text", ...SETTABLE.flatMap(([, [c, type]]) => [`s_${c} boolean`, `${c} ${type === "float8" ? "double precision" : type}`])];
  const sets = ["state = x.ns", "updated_at = $2::float8", ...SETTABLE.map(([, [c]]) => `${c} = CASE WHEN x.s_${c} THEN x.${c} ELSE a.${c} END`)];
  return `WITH x AS (SELECT * FROM json_to_recordset($1::json) AS x(${cols.join(", ")})),
u AS (UPDATE ${t} a SET ${sets.join(", ")}
  FROM x WHERE a.id = x.id AND a.state = x.es AND a.fence = x.ef AND (a.state || '>' || x.ns) IN (${MOVES_SQL})
  AND (x.tenant IS NULL OR a.tenant_id = x.tenant)
  AND NOT (a.effect = 'confirm' AND x.ns = 'reconciling') AND NOT (a.effect = 'write' AND x.ns = 'outcome_unknown')
  RETURNING a.*, x.i AS batch_item)
${ROW_SELECT("u", "batch_item")}`;
}

/** What checking one item before the statement found. */
export type Prepared =
  | { kind: "row"; row: Record<string, unknown> }
  | { kind: "error"; error: YadaError }
  /** A move the state machine never allows: a conflict if the action exists (one read says which). */
  | { kind: "refused"; message: string };

/**
 * Checks one item as a single transition would, and builds its JSON row: every
 * column the patch names gets its value and `s_<column>: true` (a member set to
 * `undefined` clears the column); the decision's tenant is compared in SQL.
 */
export function itemRow(item: ActionTransition, index: number, where: string): Prepared {
  const { id, expected, patch } = item;
  try {
    if (!isRec(expected) || !isActionState(expected.state) || !Number.isSafeInteger(expected.fence)) {
      throw new ValidationError(`${where}: transition of ${quote(id)} needs the expected state and fence`);
    }
    checkPatch(expected.state, patch);
    if (!canTransition(expected.state, patch.state)) {
      return { kind: "refused", message: `${where}: transition of ${quote(id)} from ${expected.state} to ${patch.state} is not allowed` };
    }
    const decided = patch.approval ?? patch.rejection;
    const row: Record<string, unknown> = { i: index, id, es: expected.state, ef: expected.fence, ns: patch.state, tenant: decided ? decided.tenantId : null };
    let bytes = 0;
    for (const [key, [column]] of SETTABLE) {
      if (!Object.hasOwn(patch, key)) continue;
      const v = (patch as Record<string, unknown>)[key];
      row[`s_${column}`] = true;
      row[column] = v === undefined ? null : v;
      if (v !== undefined && v !== null) bytes += utf8Length(typeof v === "string" ? v : JSON.stringify(v));
    }
    if (bytes > MAX_ACTION_RECORD_BYTES) {
      throw new LimitError("MAX_ACTION_RECORD_BYTES", MAX_ACTION_RECORD_BYTES, `${where}: transition of ${quote(id)} is larger than ${MAX_ACTION_RECORD_BYTES} bytes`);
    }
    return { kind: "row", row };
  } catch (e) {
    if (e instanceof ValidationError || e instanceof LimitError) return { kind: "error", error: e };
    throw e;
  }
}
