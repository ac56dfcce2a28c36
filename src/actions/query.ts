/**
 * Pages of a list and counts (W8, W9, W12; the approval inbox's U4): the checked
 * shape of a query's page (limit, order, cursor) and the rules every store applies
 * to it, so the memory, file, PostgreSQL and Durable Objects stores page alike.
 *
 * A page is a run of the (createdAt, id) order, the order every store lists and
 * claims in. Neither field of an action ever changes, so a cursor (the last
 * action's pair) names one place in the order whatever happened since: a page never
 * repeats or skips an action that was there before the first page was read.
 *
 * @module
 */
import { ValidationError } from "../errors.js";
import { MAX_ACTION_ID_CHARS } from "../limits.js";
import { isRec } from "../util/record.js";
import { listStates } from "./record-check.js";
import { queryLimit } from "./record.js";
import type { ActionCountQuery, ActionCursor, ActionQuery, ActionRecord, ActionState } from "./types.js";

/** A query's page, checked. */
export interface Page {
  limit: number;
  /** `true` for `order: "newest"`. */
  newest: boolean;
  after: ActionCursor | undefined;
}

/** Checks a cursor. @throws ValidationError (`validation`). */
export function checkCursor(after: unknown): ActionCursor {
  if (!isRec(after) || typeof after.createdAt !== "number" || !Number.isFinite(after.createdAt) || after.createdAt < 0) {
    throw new ValidationError("a list cursor needs a finite, non-negative createdAt");
  }
  if (typeof after.id !== "string" || after.id.length === 0 || after.id.length > MAX_ACTION_ID_CHARS) {
    throw new ValidationError(`a list cursor needs an id of 1 to ${MAX_ACTION_ID_CHARS} characters`);
  }
  return { createdAt: after.createdAt, id: after.id };
}

/** The checked page of a list query (tenant, limit, order, cursor, states). @throws ValidationError (`validation`). */
export function queryPage(query: ActionQuery): Page {
  const limit = queryLimit(query);
  listStates(query);
  if (query.order !== undefined && query.order !== "oldest" && query.order !== "newest") throw new ValidationError('a list order is "oldest" or "newest"');
  return { limit, newest: query.order === "newest", after: query.after === undefined ? undefined : checkCursor(query.after) };
}

/** Checks a count query (tenant, states, run) and returns its states. @throws ValidationError (`validation`). */
export function checkCountQuery(query: ActionCountQuery): readonly ActionState[] | undefined {
  if (!isRec(query) || typeof query.tenantId !== "string" || query.tenantId.length === 0) throw new ValidationError("a count query needs a tenantId");
  if (query.runId !== undefined && typeof query.runId !== "string") throw new ValidationError("a count query's runId is a string");
  return listStates(query);
}

/** (createdAt, id) order of two positions: negative when `a` comes first. */
export function compareAge(a: ActionCursor, b: ActionCursor): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Is `record` past the page's cursor, in the page's order? */
export function isAfter(record: ActionRecord, page: Page): boolean {
  if (page.after === undefined) return true;
  const c = compareAge(record, page.after);
  return page.newest ? c < 0 : c > 0;
}

/** The cursor of the page after `records` (the last one), or `undefined` for an empty page. */
export function nextCursor(records: readonly ActionRecord[]): ActionCursor | undefined {
  const last = records.at(-1);
  return last === undefined ? undefined : { createdAt: last.createdAt, id: last.id };
}
