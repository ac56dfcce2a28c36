/**
 * The rules every action store applies (W8, W9): parsing a record (on create and
 * on every read back), compare-and-swap transitions, and claim eligibility. A store
 * keeps bytes; these functions decide what the bytes may mean, so the memory, file,
 * PostgreSQL and Durable Objects stores cannot drift apart.
 *
 * @module
 */
import { LimitError, StoreError, ValidationError, ActionConflictError, type YadaError } from "../errors.js";
import {
  MAX_ACTION_ID_CHARS,
  MAX_ACTION_PREVIEW_CHARS,
  MAX_ACTION_REASON_CHARS,
  MAX_ACTION_RECORD_BYTES,
  MAX_ACTION_VERSION_CHARS,
  MAX_ACTIONS_LISTED,
  MAX_CLAIM_TOOL_PREFIXES,
  MAX_OPERATION_ID_CHARS,
  MAX_RESOLUTION_NOTE_CHARS,
  MAX_STATE_VERSION_CHARS,
  MAX_TOOL_NAME_CHARS,
} from "../limits.js";
import { isRec, type Rec } from "../util/record.js";
import { parseTraceparent } from "../trace/span.js";
import { canTransition, isActionState, isFinal, isResolutionMove } from "./states.js";
import type { ActionDecision, ActionExpectation, ActionPatch, ActionQuery, ActionRecord, ActionResult, ActionState, ClaimOptions } from "./types.js";

const RECORD_KEYS = new Set([
  "id", "operationId", "runId", "callId", "traceparent", "actorId", "tenantId", "tool", "effect", "version", "arguments", "argumentsHash",
  "stateVersion", "preview", "state", "fence", "leaseOwner", "leaseUntil", "attempts", "notBefore", "createdAt", "updatedAt",
  "expiresAt", "approval", "rejection", "outcome", "resolution",
]);
const PATCH_KEYS = new Set(["state", "leaseOwner", "leaseUntil", "attempts", "notBefore", "approval", "rejection", "outcome", "stateVersion", "resolution"]);
// States an action only reaches through an approval.
const APPROVED_STATES: ReadonlySet<ActionState> = new Set(["approved", "executing", "reconciling", "succeeded", "failed", "outcome_unknown"]);
const HEX64 = /^[0-9a-f]{64}$/;

/** UTF-8 length of a string, without encoding it. */
export function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) n += c >= 0x800 && !(c >= 0xd800 && c <= 0xdfff) ? 2 : 1;
  }
  // A surrogate pair counted 1 + 1 extra per half = 4 bytes in all: right.
  return n;
}

type Fail = (message: string) => YadaError;

function str(r: Rec, key: string, max: number, fail: Fail, optional = false): void {
  const v = r[key];
  if (v === undefined && optional) return;
  if (typeof v !== "string" || v.length === 0 || v.length > max) throw fail(`action ${key} must be a nonempty string of at most ${max} characters`);
}

function num(r: Rec, key: string, fail: Fail, optional = false, integer = false): void {
  const v = r[key];
  if (v === undefined && optional) return;
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || (integer && !Number.isSafeInteger(v))) {
    throw fail(`action ${key} must be a ${integer ? "non-negative integer" : "non-negative finite number"}`);
  }
}

// Who decided and when: an approval, a rejection (with its reason) or a resolution (W14: a verdict and a note).
const DECISION_KEYS = new Set(["actorId", "tenantId", "at", "reason"]);
const RESOLUTION_KEYS = new Set(["actorId", "tenantId", "at", "outcome", "note"]);

function decision(v: unknown, key: string, tenantId: unknown, fail: Fail, keys = DECISION_KEYS): asserts v is ActionDecision {
  if (!isRec(v)) throw fail(`action ${key} must be an object`);
  for (const k of Object.keys(v)) if (!keys.has(k)) throw fail(`action ${key} has an unknown member`);
  str(v, "actorId", MAX_ACTION_ID_CHARS, fail);
  str(v, "tenantId", MAX_ACTION_ID_CHARS, fail);
  num(v, "at", fail);
  if (v.reason !== undefined && (typeof v.reason !== "string" || v.reason.length > MAX_ACTION_REASON_CHARS)) throw fail(`action ${key} reason is too long or not a string`);
  if (v.tenantId !== tenantId) throw fail(`action ${key} was made in another tenant`);
  if (keys === RESOLUTION_KEYS) {
    if (v.outcome !== "succeeded" && v.outcome !== "failed") throw fail("action resolution outcome must be succeeded or failed");
    str(v, "note", MAX_RESOLUTION_NOTE_CHARS, fail);
  }
}

/**
 * W14: the rules of a resolution move, on top of the state machine: a move out of
 * `outcome_unknown` is an operator's resolution and its patch is exactly
 * `{ state, resolution }`; no other move carries a resolution. (The resolution's
 * shape, tenant and outcome are checked with the record it makes.)
 *
 * @throws ValidationError (`validation`).
 */
export function checkResolutionPatch(from: ActionState, patch: ActionPatch): void {
  const p = patch as unknown as Rec;
  if (isResolutionMove(from, patch.state) ? p["resolution"] == null || Object.keys(p).some((k) => k !== "state" && k !== "resolution") : "resolution" in p) {
    throw new ValidationError(`a move out of outcome_unknown is a resolution, its patch exactly { state, resolution }; no other move carries one (from ${from})`);
  }
}

function outcome(v: unknown, fail: Fail): asserts v is ActionResult {
  if (!isRec(v)) throw fail("action outcome must be an object");
  for (const k of Object.keys(v)) if (k !== "result" && k !== "reason" && k !== "uncertainSince") throw fail("action outcome has an unknown member");
  if (v.reason !== undefined && (typeof v.reason !== "string" || v.reason.length > MAX_ACTION_REASON_CHARS)) throw fail("action outcome reason is too long or not a string");
  num(v, "uncertainSince", fail, true);
  if (v.result === undefined) return;
  const res = v.result;
  if (!isRec(res) || typeof res.isError !== "boolean" || !Array.isArray(res.content)) throw fail("action outcome result must be a tool result");
  for (const k of Object.keys(res)) if (k !== "content" && k !== "isError") throw fail("action outcome result has an unknown member");
  for (const p of res.content as unknown[]) {
    const ok = isRec(p) && ((p.type === "text" && typeof p.text === "string" && Object.keys(p).length === 2) ||
      (p.type === "image" && typeof p.mimeType === "string" && typeof p.data === "string" && Object.keys(p).length === 3));
    if (!ok) throw fail("action outcome result has a malformed content part");
  }
}

/** Can `value` be stored as an outcome's tool result (the rules {@link parseActionRecord} applies)? */
export function isStorableResult(value: unknown): boolean {
  try {
    outcome({ result: value }, (m) => new ValidationError(m));
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks that `value` is a possible action record and returns it typed. `fail` makes
 * the error: a `validation` error for what a caller hands in, a `store` error for
 * what a store reads back (an impossible stored record is never executed).
 *
 * @throws LimitError (`limit`) when the record's JSON is over `MAX_ACTION_RECORD_BYTES`.
 */
export function parseActionRecord(value: unknown, fail: Fail = (m) => new StoreError(m)): ActionRecord {
  if (!isRec(value)) throw fail("an action record must be a JSON object");
  const r = value;
  for (const k of Object.keys(r)) if (!RECORD_KEYS.has(k)) throw fail("action record has an unknown member");
  str(r, "id", MAX_ACTION_ID_CHARS, fail);
  str(r, "operationId", MAX_OPERATION_ID_CHARS, fail);
  str(r, "runId", MAX_ACTION_ID_CHARS, fail, true);
  str(r, "callId", MAX_ACTION_ID_CHARS, fail, true);
  // O2: only the exact W3C form (55 characters); the spans that read it back link to it.
  if (r.traceparent !== undefined && parseTraceparent(r.traceparent) === undefined) throw fail("action traceparent must be a W3C traceparent");
  str(r, "actorId", MAX_ACTION_ID_CHARS, fail);
  str(r, "tenantId", MAX_ACTION_ID_CHARS, fail);
  str(r, "tool", MAX_TOOL_NAME_CHARS, fail);
  if (r.effect !== "write" && r.effect !== "confirm") throw fail("action effect must be write or confirm");
  str(r, "version", MAX_ACTION_VERSION_CHARS, fail);
  if (!isRec(r.arguments)) throw fail("action arguments must be a JSON object");
  if (typeof r.argumentsHash !== "string" || !HEX64.test(r.argumentsHash)) throw fail("action argumentsHash must be 64 lowercase hex digits");
  str(r, "stateVersion", MAX_STATE_VERSION_CHARS, fail, true);
  if (r.preview !== undefined && (typeof r.preview !== "string" || r.preview.length > MAX_ACTION_PREVIEW_CHARS)) throw fail("action preview is too long or not a string");
  if (!isActionState(r.state)) throw fail("action state is not a known state");
  num(r, "fence", fail, false, true);
  num(r, "attempts", fail, false, true);
  str(r, "leaseOwner", MAX_ACTION_ID_CHARS, fail, true);
  num(r, "leaseUntil", fail, true);
  num(r, "notBefore", fail, true);
  num(r, "createdAt", fail);
  num(r, "updatedAt", fail);
  num(r, "expiresAt", fail);
  if (r.approval !== undefined) decision(r.approval, "approval", r.tenantId, fail);
  if (r.rejection !== undefined) decision(r.rejection, "rejection", r.tenantId, fail);
  if (r.outcome !== undefined) outcome(r.outcome, fail);
  if (r.resolution !== undefined) {
    decision(r.resolution, "resolution", r.tenantId, fail, RESOLUTION_KEYS);
    // A resolution is what the action ended as: only a settled one carries it, and its state is the verdict.
    if (r.state !== (r.resolution as unknown as Rec).outcome) throw fail(`action in state ${r.state} carries a resolution of another verdict`);
  }
  // Consistency: the states only an approval reaches carry one; a rejection carries its decision.
  if (APPROVED_STATES.has(r.state) !== (r.approval !== undefined)) throw fail(`action in state ${r.state} ${r.approval === undefined ? "lacks" : "must not carry"} an approval`);
  if ((r.state === "rejected") !== (r.rejection !== undefined)) throw fail(`action in state ${r.state} ${r.rejection === undefined ? "lacks" : "must not carry"} a rejection`);
  if (r.effect === "confirm" && r.state === "reconciling") throw fail("a confirm action cannot be reconciling");
  const bytes = utf8Length(JSON.stringify(r));
  if (bytes > MAX_ACTION_RECORD_BYTES) {
    throw new LimitError("MAX_ACTION_RECORD_BYTES", MAX_ACTION_RECORD_BYTES, `action record is ${bytes} bytes, over ${MAX_ACTION_RECORD_BYTES}`);
  }
  return r as unknown as ActionRecord;
}

/** Parses a record handed to `create`: as {@link parseActionRecord}, and it must be new (awaiting approval, fence 0). */
export function parseNewRecord(value: unknown): ActionRecord {
  const r = parseActionRecord(value, (m) => new ValidationError(m));
  if (r.state !== "awaiting_approval" || r.fence !== 0) throw new ValidationError("a new action must be awaiting_approval with fence 0");
  return structuredClone(r);
}

/**
 * The compare-and-swap every store's `transition` performs on the stored record
 * `current`: returns the new record, or throws and changes nothing. The new record
 * shares the members the patch leaves alone with `current` (a store's records are never
 * changed in place) and holds a copy of the patch's.
 *
 * @throws ActionConflictError (`conflict`) when state or fence differ or the move is not allowed;
 * ValidationError (`validation`) for a patch member that may not change; LimitError (`limit`) when the result is too large.
 */
export function applyTransition(current: ActionRecord, expected: ActionExpectation, patch: ActionPatch, now: number): ActionRecord {
  if (!isRec(patch) || !isActionState(patch.state)) throw new ValidationError("a transition patch needs a known state");
  for (const k of Object.keys(patch)) if (!PATCH_KEYS.has(k)) throw new ValidationError(`a transition may not change ${k.length > 40 ? "a fixed field" : k}`);
  if (!isRec(expected) || current.state !== expected.state || current.fence !== expected.fence) {
    throw new ActionConflictError(current.id, `action is ${current.state} with fence ${current.fence}, not what the transition expected`);
  }
  if (!canTransition(current.state, patch.state)) {
    throw new ActionConflictError(current.id, `action cannot move from ${current.state} to ${patch.state}${isFinal(current.state) ? " (final)" : ""}`);
  }
  // W13: a write action's outcome is unknown only once its reconcile window passed (from reconciling).
  if (current.effect === "write" && patch.state === "outcome_unknown" && current.state !== "reconciling") {
    throw new ActionConflictError(current.id, `a write action becomes outcome_unknown only from reconciling, not from ${current.state}`);
  }
  checkResolutionPatch(current.state, patch);
  if (typeof now !== "number" || !Number.isFinite(now)) throw new ValidationError("a transition needs a finite now");
  const next: Rec = { ...current };
  for (const [k, v] of Object.entries(structuredClone(patch))) {
    if (v === undefined) delete next[k];
    else next[k] = v;
  }
  next.updatedAt = now;
  return parseActionRecord(next, (m) => new ValidationError(m));
}

/**
 * Does `record` need a worker at `now` (ACTIONS.md "Store contract")? Approved or
 * reconciling (past `notBefore`) and not under a live lease; executing with a lapsed
 * lease; awaiting approval past `expiresAt`.
 */
export function isClaimable(record: ActionRecord, now: number): boolean {
  const leased = record.leaseUntil !== undefined && record.leaseUntil > now;
  switch (record.state) {
    case "approved":
      return !leased;
    case "reconciling":
      return !leased && (record.notBefore === undefined || record.notBefore <= now);
    case "executing":
      return !leased;
    case "awaiting_approval":
      return record.expiresAt <= now && !leased;
    default:
      return false;
  }
}

/**
 * The leased record of a claimed one (sharing its other members): fence bumped, owner and
 * lease set, state unchanged. `options` were checked ({@link checkClaim}) by the claim.
 */
export function leaseRecord(record: ActionRecord, options: ClaimOptions): ActionRecord {
  return { ...record, fence: record.fence + 1, leaseOwner: options.workerId, leaseUntil: options.now + options.leaseMs, updatedAt: options.now };
}

/** Checks the options of a claim. @throws ValidationError (`validation`). */
export function checkClaim(options: ClaimOptions): void {
  if (!isRec(options) || typeof options.workerId !== "string" || options.workerId.length === 0 || options.workerId.length > MAX_ACTION_ID_CHARS) {
    throw new ValidationError(`a claim needs a workerId of 1 to ${MAX_ACTION_ID_CHARS} characters`);
  }
  if (!Number.isFinite(options.now) || !Number.isFinite(options.leaseMs) || options.leaseMs <= 0) throw new ValidationError("a claim needs a finite now and a positive leaseMs");
  const prefixes: unknown = options.toolPrefixes;
  if (prefixes !== undefined && (!Array.isArray(prefixes) || prefixes.length > MAX_CLAIM_TOOL_PREFIXES ||
    !prefixes.every((p) => typeof p === "string" && p.length > 0 && p.length <= MAX_TOOL_NAME_CHARS))) {
    throw new ValidationError(`a claim's toolPrefixes are at most ${MAX_CLAIM_TOOL_PREFIXES} names of 1 to ${MAX_TOOL_NAME_CHARS} characters`);
  }
}

/** Is the action of `tool` one a claim with `options` may take (its `toolPrefixes`)? */
export function claimsTool(options: ClaimOptions, tool: string): boolean {
  return options.toolPrefixes === undefined || options.toolPrefixes.some((p) => tool.startsWith(p));
}

/** Oldest first; ties by id, so every store lists and claims in the same order. */
export function byAge(a: ActionRecord, b: ActionRecord): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The checked limit of a query (default and maximum `MAX_ACTIONS_LISTED`). @throws ValidationError (`validation`). */
export function queryLimit(query: ActionQuery): number {
  if (!isRec(query) || typeof query.tenantId !== "string" || query.tenantId.length === 0) throw new ValidationError("a list query needs a tenantId");
  const limit = query.limit ?? MAX_ACTIONS_LISTED;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new ValidationError("a list limit must be a positive integer");
  return Math.min(limit, MAX_ACTIONS_LISTED);
}

/** Does `record` match `query` (tenant, states, run)? */
export function matchesQuery(record: ActionRecord, query: ActionQuery): boolean {
  if (record.tenantId !== query.tenantId) return false;
  if (query.runId !== undefined && record.runId !== query.runId) return false;
  if (query.state === undefined) return true;
  return typeof query.state === "string" ? record.state === query.state : query.state.includes(record.state);
}
