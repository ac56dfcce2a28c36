/**
 * What every durable action store checks (W9, W12): a record read back from
 * storage is parsed field by field and checked against the state machine before
 * anyone may act on it, so a row edited by hand into an impossible state is a
 * `store` error, never executed; and what a host hands a store (a new record, a
 * patch, a query, a claim) is checked before it is written.
 *
 * @module
 */
import { StoreError, ValidationError, LimitError } from "../errors.js";
import { MAX_ACTION_FIELD_CHARS, MAX_ACTION_RECORD_BYTES, MAX_ACTIONS_LISTED } from "../limits.js";
import { isRec, type Rec } from "../util/record.js";
import { quote } from "../util/text.js";
import { ACTION_STATES, canTransition, isActionState } from "./states.js";
import type { ActionDecision, ActionPatch, ActionQuery, ActionRecord, ActionResult, ActionState, ClaimOptions } from "./types.js";

/** Thrown inside the parser; turned into one StoreError naming the record and the field. */
class Bad extends Error {}

const str = (r: Rec, k: string, max = MAX_ACTION_FIELD_CHARS): string => {
  const v = r[k];
  // A NUL is refused: PostgreSQL text cannot hold one, and no identifier needs it.
  if (typeof v !== "string" || v.length === 0 || v.length > max || v.includes("\u0000")) throw new Bad(k);
  return v;
};
const optStr = (r: Rec, k: string, max = MAX_ACTION_FIELD_CHARS): string | undefined =>
  r[k] === undefined || r[k] === null ? undefined : str(r, k, max);
const int = (r: Rec, k: string): number => {
  const v = r[k];
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) throw new Bad(k);
  return v;
};
const optInt = (r: Rec, k: string): number | undefined => (r[k] === undefined || r[k] === null ? undefined : int(r, k));

function decision(v: unknown, k: string): ActionDecision | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isRec(v)) throw new Bad(k);
  const d: ActionDecision = { actorId: str(v, "actorId"), tenantId: str(v, "tenantId"), at: int(v, "at") };
  const reason = v["reason"];
  if (reason !== undefined && reason !== null) {
    if (typeof reason !== "string" || reason.length > MAX_ACTION_RECORD_BYTES) throw new Bad(`${k}.reason`);
    d.reason = reason;
  }
  return d;
}

function outcome(v: unknown): ActionResult | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isRec(v)) throw new Bad("outcome");
  const o: ActionResult = {};
  const reason = v["reason"];
  if (reason !== undefined && reason !== null) {
    if (typeof reason !== "string") throw new Bad("outcome.reason");
    o.reason = reason;
  }
  const res = v["result"];
  if (res !== undefined && res !== null) {
    if (!isRec(res) || typeof res["isError"] !== "boolean" || !Array.isArray(res["content"])) throw new Bad("outcome.result");
    for (const part of res["content"] as unknown[]) {
      if (!isRec(part)) throw new Bad("outcome.result.content");
      const ok =
        (part["type"] === "text" && typeof part["text"] === "string") ||
        (part["type"] === "image" && typeof part["mimeType"] === "string" && typeof part["data"] === "string");
      if (!ok) throw new Bad("outcome.result.content");
    }
    o.result = res as unknown as ActionResult["result"];
  }
  return o;
}

/** The states reached only through an approval: a record in one of them without one is impossible. */
const APPROVED_STATES: ReadonlySet<ActionState> = new Set(["approved", "executing", "succeeded", "failed", "reconciling", "outcome_unknown"]);

/**
 * Parses a stored record. Every field is checked for type and bound, and the
 * record for coherence with the state machine: a state that needs an approval has
 * one (of the action's own tenant), a rejected action has a rejection and no
 * approval, an action awaiting approval has neither.
 *
 * @throws StoreError (`store`) naming the store, the action and the field.
 */
export function parseActionRecord(value: unknown, where: string): ActionRecord {
  const id = isRec(value) && typeof value["id"] === "string" ? quote(value["id"]) : "(no id)";
  try {
    if (!isRec(value)) throw new Bad("record");
    const state = value["state"];
    if (!isActionState(state)) throw new Bad("state");
    const effect = value["effect"];
    if (effect !== "write" && effect !== "confirm") throw new Bad("effect");
    const args = value["arguments"];
    if (!isRec(args)) throw new Bad("arguments");
    const hash = value["argumentsHash"];
    if (typeof hash !== "string" || !/^[0-9a-f]{64}$/.test(hash)) throw new Bad("argumentsHash");
    const r: ActionRecord = {
      id: str(value, "id"),
      operationId: str(value, "operationId"),
      actorId: str(value, "actorId"),
      tenantId: str(value, "tenantId"),
      tool: str(value, "tool"),
      effect,
      version: str(value, "version", MAX_ACTION_RECORD_BYTES),
      arguments: args,
      argumentsHash: hash,
      state,
      fence: int(value, "fence"),
      attempts: int(value, "attempts"),
      createdAt: int(value, "createdAt"),
      updatedAt: int(value, "updatedAt"),
      expiresAt: int(value, "expiresAt"),
    };
    const runId = optStr(value, "runId");
    if (runId !== undefined) r.runId = runId;
    const callId = optStr(value, "callId");
    if (callId !== undefined) r.callId = callId;
    const stateVersion = optStr(value, "stateVersion", MAX_ACTION_RECORD_BYTES);
    if (stateVersion !== undefined) r.stateVersion = stateVersion;
    const pv = value["preview"];
    if (pv !== undefined && pv !== null) {
      if (typeof pv !== "string") throw new Bad("preview");
      r.preview = pv;
    }
    const leaseOwner = optStr(value, "leaseOwner");
    if (leaseOwner !== undefined) r.leaseOwner = leaseOwner;
    const leaseUntil = optInt(value, "leaseUntil");
    if (leaseUntil !== undefined) r.leaseUntil = leaseUntil;
    const notBefore = optInt(value, "notBefore");
    if (notBefore !== undefined) r.notBefore = notBefore;
    const approval = decision(value["approval"], "approval");
    if (approval) r.approval = approval;
    const rejection = decision(value["rejection"], "rejection");
    if (rejection) r.rejection = rejection;
    const out = outcome(value["outcome"]);
    if (out) r.outcome = out;
    // Coherence: the fields a state implies (an action never runs without its approval).
    if (APPROVED_STATES.has(state) && !approval) throw new Bad("approval (missing for this state)");
    if (approval && approval.tenantId !== r.tenantId) throw new Bad("approval.tenantId");
    if (rejection && rejection.tenantId !== r.tenantId) throw new Bad("rejection.tenantId");
    if (state === "rejected" && (!rejection || approval)) throw new Bad("rejection");
    if ((state === "awaiting_approval" || state === "expired") && (approval || rejection)) throw new Bad("approval");
    if (r.updatedAt < r.createdAt) throw new Bad("updatedAt");
    return r;
  } catch (e) {
    if (!(e instanceof Bad)) throw e;
    throw new StoreError(`${where}: stored action ${id} is impossible (${e.message}); it is not used`);
  }
}

/** UTF-8 bytes of a record's JSON. */
export const recordBytes = (r: ActionRecord): number => new TextEncoder().encode(JSON.stringify(r)).length;

/** Refuses a record whose JSON is larger than MAX_ACTION_RECORD_BYTES. */
export function checkRecordSize(r: ActionRecord, where: string): void {
  if (recordBytes(r) > MAX_ACTION_RECORD_BYTES) {
    throw new LimitError("MAX_ACTION_RECORD_BYTES", MAX_ACTION_RECORD_BYTES, `${where}: action ${quote(r.id)} is larger than ${MAX_ACTION_RECORD_BYTES} bytes`);
  }
}

/**
 * Checks a record a host asks a store to create: a valid record, `awaiting_approval`
 * with fence 0, within the size bound.
 *
 * @throws ValidationError (`validation`), LimitError (`limit`).
 */
export function checkNewRecord(record: unknown, where: string): ActionRecord {
  let r: ActionRecord;
  try {
    r = parseActionRecord(record, where);
  } catch (e) {
    throw new ValidationError(e instanceof Error ? e.message.replace("stored action", "new action").replace("; it is not used", "") : `${where}: invalid new action`);
  }
  if (r.state !== "awaiting_approval" || r.fence !== 0) {
    throw new ValidationError(`${where}: a new action ${quote(r.id)} must be awaiting_approval with fence 0`);
  }
  checkRecordSize(r, where);
  return r;
}

const PATCH_KEYS = new Set(["state", "leaseOwner", "leaseUntil", "attempts", "notBefore", "approval", "rejection", "outcome", "stateVersion"]);

/**
 * Applies a transition's patch to the record it expects (JS stores). A key present
 * with `undefined` (or `null`) clears the field. The result is parsed again, so a patch cannot
 * produce an impossible record.
 *
 * @throws ValidationError (`validation`) for an unknown key or an impossible result.
 */
export function applyPatch(record: ActionRecord, patch: ActionPatch, now: number, where: string): ActionRecord {
  const next: Rec = { ...record };
  for (const k of Object.keys(patch)) {
    if (!PATCH_KEYS.has(k)) throw new ValidationError(`${where}: a transition may not change ${quote(k)}`);
    const v = (patch as Rec)[k];
    if (v === undefined || v === null) delete next[k];
    else next[k] = v;
  }
  next["updatedAt"] = Math.max(now, record.createdAt);
  try {
    return parseActionRecord(JSON.parse(JSON.stringify(next)), where);
  } catch (e) {
    throw new ValidationError(e instanceof Error ? e.message.replace("stored action", "transition of action").replace("; it is not used", "") : where);
  }
}

/**
 * Checks a transition's arguments before a store looks at the record.
 *
 * @throws ValidationError (`validation`).
 */
export function checkTransition(id: unknown, expected: unknown, patch: unknown, now: unknown, where: string): void {
  if (typeof id !== "string" || id.length === 0 || id.length > MAX_ACTION_FIELD_CHARS) throw new ValidationError(`${where}: transition needs an action id`);
  if (!isRec(expected) || !isActionState(expected["state"]) || typeof expected["fence"] !== "number" || !Number.isSafeInteger(expected["fence"])) {
    throw new ValidationError(`${where}: transition of ${quote(id)} needs the expected state and fence`);
  }
  if (!isRec(patch) || !isActionState(patch["state"])) throw new ValidationError(`${where}: transition of ${quote(id)} needs a target state`);
  if (typeof now !== "number" || !Number.isSafeInteger(now) || now < 0) throw new ValidationError(`${where}: transition of ${quote(id)} needs a time`);
}

/** The states a list selects, checked. */
export function listStates(query: ActionQuery, where: string): readonly ActionState[] | undefined {
  if (!isRec(query) || typeof query.tenantId !== "string" || query.tenantId.length === 0) throw new ValidationError(`${where}: list needs a tenant`);
  if (query.state === undefined) return undefined;
  const states = typeof query.state === "string" ? [query.state] : query.state;
  if (!Array.isArray(states) || states.length > ACTION_STATES.length || !states.every(isActionState)) throw new ValidationError(`${where}: list has an unknown state`);
  return states;
}

/** A list's limit, within MAX_ACTIONS_LISTED. */
export function listLimit(query: ActionQuery): number {
  const n = query.limit;
  return typeof n === "number" && Number.isSafeInteger(n) && n > 0 ? Math.min(n, MAX_ACTIONS_LISTED) : MAX_ACTIONS_LISTED;
}

/**
 * Checks a claim's options.
 *
 * @throws ValidationError (`validation`).
 */
export function checkClaim(o: ClaimOptions, where: string): void {
  if (!isRec(o) || typeof o.workerId !== "string" || o.workerId.length === 0 || o.workerId.length > MAX_ACTION_FIELD_CHARS) {
    throw new ValidationError(`${where}: claim needs a worker id`);
  }
  if (!Number.isSafeInteger(o.now) || o.now < 0 || !Number.isSafeInteger(o.leaseMs) || o.leaseMs <= 0) {
    throw new ValidationError(`${where}: claim needs a time and a positive lease`);
  }
}

/**
 * Checks a transition's patch on its own (the SQL store applies it without reading
 * the record first): each field's type and bound, and the decision a move needs
 * (an approval to leave `awaiting_approval` for `approved`, a rejection for `rejected`).
 *
 * @throws ValidationError (`validation`).
 */
export function checkPatch(id: string, expected: ActionState, patch: ActionPatch, where: string): void {
  const p = patch as unknown as Rec;
  try {
    for (const k of Object.keys(p)) if (!PATCH_KEYS.has(k)) throw new Bad(`${k} (not changeable)`);
    // undefined or null clears a field.
    if (p["leaseOwner"] != null) str(p, "leaseOwner");
    for (const k of ["leaseUntil", "notBefore", "attempts"]) if (p[k] != null) int(p, k);
    if ("attempts" in p && p["attempts"] == null) throw new Bad("attempts (cannot be cleared)");
    if (p["stateVersion"] != null) str(p, "stateVersion", MAX_ACTION_RECORD_BYTES);
    decision(p["approval"], "approval");
    decision(p["rejection"], "rejection");
    outcome(p["outcome"]);
    if (expected === "awaiting_approval" && patch.state === "approved" && !patch.approval) throw new Bad("approval (needed to approve)");
    if (patch.state === "rejected" && !patch.rejection) throw new Bad("rejection (needed to reject)");
  } catch (e) {
    if (!(e instanceof Bad)) throw e;
    throw new ValidationError(`${where}: transition of action ${quote(id)} has an invalid ${e.message}`);
  }
}

/**
 * Does a record need a worker now (the claim rule shared by every store)? Approved,
 * or reconciling past `notBefore`, when not leased or the lease lapsed; executing
 * with a lapsed lease; awaiting approval past `expiresAt`.
 */
export function claimable(r: ActionRecord, now: number): boolean {
  const free = r.leaseUntil === undefined || r.leaseUntil <= now;
  switch (r.state) {
    case "approved":
      return free;
    case "reconciling":
      return free && (r.notBefore === undefined || r.notBefore <= now);
    case "executing":
      return free;
    case "awaiting_approval":
      return free && r.expiresAt <= now;
    default:
      return false;
  }
}

/** Is the move allowed? Re-exported for the stores' SQL and JS checks. */
export { canTransition };
