/**
 * What the durable worker (./worker.ts) decides about one call, kept apart from
 * the loop that claims and moves actions (W5, W8, W13): the tool result a failure
 * without an answer shows the model, a result cut to the record bound, which
 * failures provably sent nothing, the back-offs, and a well-formed outcome.
 *
 * @module
 */
import { isYadaError, YadaError } from "../errors.js";
import { MAX_ACTION_REASON_CHARS, MAX_ACTION_RECORD_BYTES, NOT_SENT_RETRY_DELAY_MS, RECONCILE_BASE_DELAY_MS, RECONCILE_MAX_DELAY_MS } from "../limits.js";
import type { ActionOutcome, ToolResult } from "../tools/types.js";
import { neverConnected } from "../transport/not-sent.js";
import { isStorableResult, utf8Length } from "./record.js";

/** The tool result a failure without a server answer shows the model. */
export function errorResult(error: string, message: string): ToolResult {
  return { content: [{ type: "text", text: JSON.stringify({ error, message }) }], isError: true };
}

/** Keeps an outcome's result inside the record bound: images go first, then text is cut. */
export function boundResult(result: ToolResult): ToolResult {
  const budget = MAX_ACTION_RECORD_BYTES / 2;
  if (utf8Length(JSON.stringify(result)) <= budget) return result;
  const content = result.content.map((p) => (p.type === "image" ? { type: "text" as const, text: `[image ${p.mimeType.slice(0, 40)} omitted]` } : p));
  const text = JSON.stringify(content);
  if (utf8Length(text) <= budget) return { content, isError: result.isError };
  return { content: [{ type: "text", text: "[result cut to fit the action record] " + content.map((p) => p.text).join("\n").slice(0, budget / 4) }], isError: result.isError };
}

/**
 * "Not sent" (ACTIONS.md) for an error a tool's `execute` threw: a yada error that
 * says so ({@link YadaError.notSent}: the connection was closed or refused before
 * the send, or an HTTP 401 / 403), or another error (a host tool's own fetch) whose
 * cause chain shows a connection that was never made (`ECONNREFUSED`, a name that
 * did not resolve). Such a send may be tried again under the same operation id; a
 * tool says the same of an outcome with `notSent: true`. Anything else is not proof.
 */
export function wasNotSent(error: unknown): boolean {
  if (error instanceof YadaError) return error.notSent;
  return neverConnected(error);
}

/** Back-off before receipt lookup number `attempts` + 1: doubling from the base, capped, jittered to [½, 1]. */
export function reconcileDelay(attempts: number, random: () => number = Math.random): number {
  const full = Math.min(RECONCILE_MAX_DELAY_MS, RECONCILE_BASE_DELAY_MS * 2 ** Math.min(attempts, 30));
  return Math.round(full * (0.5 + 0.5 * Math.min(Math.max(random(), 0), 1)));
}

/** Pause before send attempt `attempt` + 1 of a call that provably never left: doubling from `NOT_SENT_RETRY_DELAY_MS`, jittered to [½, 1]. */
export function notSentDelay(attempt: number, random: () => number): number {
  return Math.round(NOT_SENT_RETRY_DELAY_MS * 2 ** Math.min(attempt - 1, 10) * (0.5 + 0.5 * Math.min(Math.max(random(), 0), 1)));
}

/** A short reason for a failure: its code and message, bounded. */
export const reasonOf = (e: unknown): string => {
  const code = isYadaError(e) ? e.code : "error";
  const msg = e instanceof Error ? e.message : String(e);
  return `${code}: ${msg}`.slice(0, MAX_ACTION_REASON_CHARS);
};

/** A well-formed outcome, or an unknown one naming what was wrong. */
export function checkedOutcome(o: unknown): ActionOutcome {
  const x = o as Partial<Record<string, unknown>> | null;
  if (x && (x.status === "succeeded" || x.status === "failed")) {
    // Only a result the record can hold: else the store refuses the move and the action is left executing.
    if (isStorableResult(x.result)) return o as ActionOutcome;
  }
  if (x && x.status === "unknown" && typeof x.reason === "string") return { status: "unknown", reason: x.reason, ...(x.notSent === true ? { notSent: true } : {}) };
  return { status: "unknown", reason: "the tool returned a malformed outcome" };
}

/**
 * One lane through which a worker's sends start (W13): {@link Lane.enter} resolves
 * when the lane is free, with the function that frees it again (once; later calls
 * do nothing). A worker records `executing` for an action only inside the lane and
 * frees it when that action's request was handed over, so a worker that dies
 * strands at most one action recorded `executing` whose request never left.
 */
export interface Lane {
  /** Waits for the lane; `onGrant` is called the moment it is granted, before the promise settles. */
  enter(onGrant?: () => void): Promise<() => void>;
}

/** A fresh {@link Lane}, free. */
export function createLane(): Lane {
  let busy = false;
  const waiting: Array<() => void> = [];
  const grant = (resolve: (leave: () => void) => void, onGrant?: () => void): void => {
    busy = true;
    onGrant?.();
    let left = false;
    resolve(() => {
      if (left) return;
      left = true;
      const next = waiting.shift();
      if (next) next();
      else busy = false;
    });
  };
  return {
    enter: (onGrant) =>
      new Promise((resolve) => {
        if (busy) waiting.push(() => grant(resolve, onGrant));
        else grant(resolve, onGrant);
      }),
  };
}
