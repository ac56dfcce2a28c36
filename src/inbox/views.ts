/**
 * What the inbox's JSON routes say of an action (U1): the record as the store holds
 * it, without the worker's lease bookkeeping (lease owner and end, fence, back-off),
 * plus whether its approval window has passed.
 *
 * @module
 */
import type { ActionRecord } from "../actions/types.js";

/** An action as the JSON routes show it. */
export type ActionView = Omit<ActionRecord, "leaseOwner" | "leaseUntil" | "fence" | "notBefore"> & { expired: boolean };

/** The view of `a` at `now`. */
export function actionView(a: ActionRecord, now: number): ActionView {
  const { leaseOwner: _o, leaseUntil: _u, fence: _f, notBefore: _n, ...rest } = a;
  return { ...rest, expired: a.state === "expired" || (a.state === "awaiting_approval" && a.expiresAt <= now) };
}
