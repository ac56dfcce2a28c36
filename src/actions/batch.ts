/**
 * The batched store operations every store shares (W12): the checks of
 * `claimMany` and `transitionMany`, and the per-item outcome of a batch, so the
 * memory, file, PostgreSQL and Durable Objects stores refuse the same batches in
 * the same words.
 *
 * @module
 */
import { StoreError, ValidationError, YadaError } from "../errors.js";
import { MAX_CLAIM_BATCH, MAX_TRANSITION_BATCH } from "../limits.js";
import { isRec } from "../util/record.js";
import { checkClaim } from "./record.js";
import type { ActionRecord, ActionTransition, ClaimManyOptions, TransitionOutcome } from "./types.js";

/** The checked limit of a `claimMany`. @throws ValidationError (`validation`). */
export function checkClaimMany(options: ClaimManyOptions): number {
  checkClaim(options);
  const limit = options.limit;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_CLAIM_BATCH) {
    throw new ValidationError(`a claim limit is from 1 to ${MAX_CLAIM_BATCH} (MAX_CLAIM_BATCH)`);
  }
  return limit;
}

/** Checks the shape of a `transitionMany` call. @throws ValidationError (`validation`). */
export function checkBatch(items: readonly ActionTransition[], now: number): void {
  if (!Array.isArray(items) || items.length > MAX_TRANSITION_BATCH) {
    throw new ValidationError(`a batch holds at most ${MAX_TRANSITION_BATCH} transitions (MAX_TRANSITION_BATCH)`);
  }
  if (typeof now !== "number" || !Number.isFinite(now)) throw new ValidationError("a transition needs a finite now");
}

/** The error of an item that is not `{ id, expected, patch }`, or repeats an id of the batch; else `undefined`. */
export function itemError(item: unknown, seen: Set<string>): YadaError | undefined {
  if (!isRec(item) || typeof item["id"] !== "string" || item["id"].length === 0) return new ValidationError("a transition needs an action id");
  if (seen.has(item["id"])) return new ValidationError("an action appears twice in one batch");
  seen.add(item["id"]);
  return undefined;
}

/** An item's outcome from what its own transition threw: a typed error as it is, anything else as a `store` error. */
export function failed(e: unknown): TransitionOutcome {
  return { ok: false, error: e instanceof YadaError ? e : new StoreError("a transition failed", { cause: e }) };
}

/** The one outcome of a batch of one, as {@link ActionStore.transition} answers: the record, or its error thrown. */
export function single(outcomes: TransitionOutcome[]): ActionRecord {
  const o = outcomes[0];
  if (!o) throw new StoreError("a transition had no outcome");
  if (!o.ok) throw o.error;
  return o.record;
}

/**
 * Applies each item with `apply` (one item's transition, inside the caller's own
 * atomic step), in order, catching each item's error into its outcome.
 */
export async function eachItem(
  items: readonly ActionTransition[],
  apply: (item: ActionTransition) => Promise<TransitionOutcome> | TransitionOutcome,
): Promise<TransitionOutcome[]> {
  const seen = new Set<string>();
  const out: TransitionOutcome[] = [];
  for (const item of items) {
    const bad = itemError(item, seen);
    if (bad) {
      out.push({ ok: false, error: bad });
      continue;
    }
    try {
      out.push(await apply(item));
    } catch (e) {
      out.push(failed(e));
    }
  }
  return out;
}
