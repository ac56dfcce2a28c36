/**
 * Checks the stores past one process add to the shared record rules (record.ts),
 * W9, W12, W14: a patch checked on its own, for a store that applies it in one SQL
 * compare-and-swap without reading the record first, and a list's states.
 *
 * @module
 */
import { ValidationError } from "../errors.js";
import { isRec, type Rec } from "../util/record.js";
import { checkResolutionPatch, parseActionRecord } from "./record.js";
import { ACTION_STATES, canTransition, isActionState } from "./states.js";
import type { ActionPatch, ActionQuery, ActionState } from "./types.js";

const PATCH_KEYS = new Set(["state", "leaseOwner", "leaseUntil", "attempts", "notBefore", "approval", "rejection", "outcome", "stateVersion", "resolution"]);
const APPROVED_STATES: ReadonlySet<ActionState> = new Set(["approved", "executing", "reconciling", "succeeded", "failed", "outcome_unknown"]);

/**
 * Checks a transition's patch without the record it applies to: each field by the
 * rules of record.ts (a probe record carrying the patch's fields in its target
 * state is parsed), the decision a move needs, and a resolution exactly where one
 * is needed (W14). What depends on the stored record (its tenant, its effect) the
 * SQL statement compares itself.
 *
 * @throws ValidationError (`validation`); LimitError (`limit`) for a patch over `MAX_ACTION_RECORD_BYTES`.
 */
export function checkPatch(expected: ActionState, patch: ActionPatch): void {
  if (!isRec(patch) || !isActionState(patch.state)) throw new ValidationError("a transition patch needs a known state");
  const p = patch as unknown as Rec;
  for (const k of Object.keys(p)) if (!PATCH_KEYS.has(k)) throw new ValidationError(`a transition may not change ${k.length > 40 ? "a fixed field" : k}`);
  const state = patch.state;
  if (expected === "awaiting_approval" && state === "approved" && patch.approval == null) throw new ValidationError("an approval needs its decision");
  if ("approval" in p && p["approval"] == null && APPROVED_STATES.has(state)) throw new ValidationError(`action in state ${state} lacks an approval`);
  if ("attempts" in p && p["attempts"] == null) throw new ValidationError("action attempts cannot be cleared");
  // A move the state machine refuses is a conflict (the caller's), as applyTransition says first.
  if (canTransition(expected, state)) checkResolutionPatch(expected, patch);
  const decided = patch.approval ?? patch.rejection ?? patch.resolution;
  const tenantId = decided && isRec(decided) && typeof decided.tenantId === "string" ? decided.tenantId : "probe";
  const probe: Rec = {
    id: "probe",
    operationId: "probe",
    actorId: "probe",
    tenantId,
    tool: "probe",
    effect: state === "outcome_unknown" ? "confirm" : "write",
    version: "probe",
    arguments: {},
    argumentsHash: "0".repeat(64),
    state,
    fence: 0,
    attempts: 0,
    createdAt: 0,
    updatedAt: 0,
    expiresAt: 0,
  };
  if (APPROVED_STATES.has(state)) probe["approval"] = { actorId: "probe", tenantId, at: 0 };
  for (const [k, v] of Object.entries(p)) if (v !== undefined && v !== null) probe[k] = v;
  parseActionRecord(probe, (m) => new ValidationError(m));
}

/** The states a list selects, checked. @throws ValidationError (`validation`). */
export function listStates(query: ActionQuery): readonly ActionState[] | undefined {
  if (!isRec(query) || query.state === undefined) return undefined;
  const states = typeof query.state === "string" ? [query.state] : query.state;
  if (!Array.isArray(states) || states.length > ACTION_STATES.length || !states.every(isActionState)) throw new ValidationError("a list query has an unknown state");
  return states;
}
