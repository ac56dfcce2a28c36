/**
 * The action state machine (W8, W14; ACTIONS.md "States"): which moves are allowed.
 * Every store checks a transition here before it writes, so no store can move an
 * action out of a final state or skip `executing` before a send.
 *
 * Two kinds of move: the worker's (and the approver's), and an operator's
 * resolution (W14), the only way out of `outcome_unknown`: a person who checked
 * the server settles the action as `succeeded` or `failed`. A resolution move
 * carries the person's `ActionResolution` (record.ts checks that it does).
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

// W14: the moves only an operator's resolution makes.
const RESOLUTION_MOVES: Readonly<Partial<Record<ActionState, readonly ActionState[]>>> = {
  outcome_unknown: ["succeeded", "failed"],
};

/** Every state, in the order of the diagram. */
export const ACTION_STATES: readonly ActionState[] = Object.keys(MOVES) as ActionState[];

/** Is `state` one of the states? */
export const isActionState = (state: unknown): state is ActionState => typeof state === "string" && Object.hasOwn(MOVES, state);

/**
 * Is the worker's part over? Nothing is sent, claimed or looked up again, and a
 * resumed run reads the outcome as it stands: `rejected`, `expired`, `succeeded`,
 * `failed` and `outcome_unknown` (which an operator may still resolve, see
 * {@link isFinal}).
 */
export const isTerminal = (state: ActionState): boolean => MOVES[state].length === 0;

/** Does the action never change again? Every terminal state but `outcome_unknown`, which a resolution settles once. */
export const isFinal = (state: ActionState): boolean => isTerminal(state) && (RESOLUTION_MOVES[state]?.length ?? 0) === 0;

/** Is `from` → `to` an operator's resolution (W14), the move that needs an `ActionResolution`? */
export const isResolutionMove = (from: ActionState, to: ActionState): boolean => RESOLUTION_MOVES[from]?.includes(to) ?? false;

/** Can the action only leave `state` by an operator's resolution? */
export const needsResolution = (state: ActionState): boolean => RESOLUTION_MOVES[state] !== undefined;

/** May an action move from `from` to `to` (a worker's or approver's move, or a resolution)? */
export const canTransition = (from: ActionState, to: ActionState): boolean => MOVES[from].includes(to) || isResolutionMove(from, to);
