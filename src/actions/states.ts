/**
 * The action state machine (W8; ACTIONS.md "States"): which moves are allowed.
 * Every store checks a transition here before it writes, so no store can move an
 * action out of a terminal state or skip `executing` before a send.
 *
 * @module
 */
import type { ActionState } from "./types.js";

const MOVES: Readonly<Record<ActionState, readonly ActionState[]>> = {
  awaiting_approval: ["approved", "rejected", "expired"],
  // A claimed approved action is marked executing before its send; a version or
  // authorization that no longer holds fails it with nothing sent.
  approved: ["executing", "failed"],
  executing: ["succeeded", "failed", "reconciling", "outcome_unknown"],
  // A receipt lookup that stays unknown keeps the action reconciling (a new attempt count);
  // past the reconcile window (W13) its outcome is unknown for good, never resent.
  reconciling: ["reconciling", "succeeded", "failed", "outcome_unknown"],
  rejected: [],
  expired: [],
  succeeded: [],
  failed: [],
  outcome_unknown: [],
};

/** Every state, in the order of the diagram. */
export const ACTION_STATES: readonly ActionState[] = Object.keys(MOVES) as ActionState[];

/** Is `state` one of the states? */
export const isActionState = (state: unknown): state is ActionState => typeof state === "string" && Object.hasOwn(MOVES, state);

/** Terminal states never change again. */
export const isTerminal = (state: ActionState): boolean => MOVES[state].length === 0;

/** May an action move from `from` to `to`? */
export const canTransition = (from: ActionState, to: ActionState): boolean => MOVES[from].includes(to);
