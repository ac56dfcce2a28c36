/**
 * How an action record lies in a PostgreSQL row and comes back out (W9). The fields
 * that never change are one verbatim JSON `body`; each field a transition may change
 * is a column; the columns queries use (id, operation id, tenant, run, effect,
 * times) are copies of body fields. A row is read as two bounded JSON texts (the
 * bound applied in the database, so an oversized row is never sent), merged, checked
 * against its column copies and parsed by the shared record rules: a row edited by
 * hand into an impossible state is a `store` error, never executed.
 *
 * @module
 */
import { StoreError } from "../errors.js";
import { MAX_ACTION_RECORD_BYTES } from "../limits.js";
import { isRec, type Rec } from "../util/record.js";
import { parseActionRecord } from "./record.js";
import type { ActionRecord } from "./types.js";

/** The record fields kept in `body` (they never change). */
export const BODY_KEYS = [
  "id", "operationId", "runId", "callId", "traceparent", "actorId", "tenantId", "tool", "effect", "version", "arguments", "argumentsHash",
  "preview", "createdAt", "expiresAt",
] as const;

/** The record fields a transition may change: column and SQL type. */
export const MUTABLE_COLUMNS: Readonly<Record<string, readonly [string, "text" | "bigint" | "float8" | "json"]>> = {
  state: ["state", "text"],
  fence: ["fence", "bigint"],
  leaseOwner: ["lease_owner", "text"],
  leaseUntil: ["lease_until", "float8"],
  attempts: ["attempts", "bigint"],
  notBefore: ["not_before", "float8"],
  updatedAt: ["updated_at", "float8"],
  stateVersion: ["state_version", "json"],
  approval: ["approval", "json"],
  rejection: ["rejection", "json"],
  outcome: ["outcome", "json"],
  resolution: ["resolution", "json"],
};

// The column copies of body fields, checked against the body on every read.
const COPIES: readonly (readonly [string, string])[] = [
  ["id", "id"], ["operationId", "operation_id"], ["tenantId", "tenant_id"], ["runId", "run_id"], ["effect", "effect"],
  ["createdAt", "created_at"], ["expiresAt", "expires_at"],
];

const mutableJson = `json_build_object(${[
  ...Object.entries(MUTABLE_COLUMNS).map(([k, [c]]) => `'${k}', ${c}`),
  ...COPIES.map(([k, c]) => `'_${k}', ${c}`),
].join(", ")})::text`;

/** Some slack over the record bound for the JSON envelope and the column copies. */
const ROW_BOUND = MAX_ACTION_RECORD_BYTES + 4_096;

/**
 * The select list of a bounded row read from relation `from` (a table or a CTE), with
 * column `extra` of it passed through, in `order` if given. `OFFSET 0` keeps the inner query from being
 * merged into the outer one, which would build each row's JSON three times (once for
 * each use of `b` and `m`) instead of once.
 */
export const ROW_SELECT = (from: string, extra?: string, order?: string): string =>
  `SELECT ${extra ? `${extra}, ` : ""}CASE WHEN octet_length(b) + octet_length(m) <= ${ROW_BOUND} THEN b END AS b,
  CASE WHEN octet_length(b) + octet_length(m) <= ${ROW_BOUND} THEN m END AS m
  FROM (SELECT ${extra ? `${extra}, ` : ""}body::text AS b, ${mutableJson} AS m FROM ${from}${order ? ` ORDER BY ${order}` : ""} OFFSET 0) s`;

const parseJson = (text: unknown, where: string): unknown => {
  if (typeof text !== "string") throw new StoreError(`${where}: a stored action is larger than ${MAX_ACTION_RECORD_BYTES} bytes or unreadable; it is not used`);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new StoreError(`${where}: a stored action is not JSON; it is not used`, { cause: e });
  }
};

/** One row's record: merged, cross-checked, parsed. @throws StoreError (`store`). */
function parseRow(row: unknown, where: string): ActionRecord {
  const body = parseJson(isRec(row) ? row["b"] : undefined, where);
  const mut = parseJson(isRec(row) ? row["m"] : undefined, where);
  if (!isRec(body) || !isRec(mut)) throw new StoreError(`${where}: a stored action is not a JSON object; it is not used`);
  const record: Rec = {};
  for (const [k, v] of Object.entries(body)) {
    if (Object.hasOwn(MUTABLE_COLUMNS, k)) throw new StoreError(`${where}: a stored action's body holds ${k.length > 40 ? "a changeable field" : k}; it is not used`);
    record[k] = v;
  }
  for (const k of Object.keys(MUTABLE_COLUMNS)) if (mut[k] !== null && mut[k] !== undefined) record[k] = mut[k];
  for (const [k] of COPIES) {
    if ((body[k] ?? null) !== (mut[`_${k}`] ?? null)) throw new StoreError(`${where}: a stored action's ${k} column differs from its record; it is not used`);
  }
  return parseActionRecord(record, (m) => new StoreError(`${where}: stored ${m}; it is not used`));
}

/** Parses the rows of a read, at most `max`. @throws StoreError (`store`). */
export function parseRows(rows: unknown[], max: number, where: string): ActionRecord[] {
  if (rows.length > max) throw new StoreError(`${where}: read ${rows.length} rows where at most ${max} were asked for`);
  return rows.map((row) => parseRow(row, where));
}

/** The body of a record: the fields that never change. */
export function recordBody(r: ActionRecord): Rec {
  const body: Rec = {};
  for (const k of BODY_KEYS) if (r[k] !== undefined) body[k] = r[k];
  return body;
}
