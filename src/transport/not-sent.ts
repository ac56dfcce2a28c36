/**
 * "Not sent" (W5, W8; see {@link YadaError.notSent}): the failures of which a
 * transport can prove that no byte of a request reached the server, and the
 * copy of an error for a later step of an operation whose first request did leave.
 *
 * @module
 */
import { ConnectionClosedError, YadaError } from "../errors.js";

// Operating-system codes of a connection that was never made: refused, or a name that did not resolve.
const NO_CONNECTION = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EAI_NONAME"]);

/**
 * Did `e` (a runtime's fetch or socket error) fail before any connection was made?
 * Looks for `ECONNREFUSED`, `ENOTFOUND`, `EAI_AGAIN` or `EAI_NONAME` as `code` on
 * `e` or its causes (at most 5 deep; Node's fetch puts it on its `cause`). A
 * runtime that reports no code (a browser's "failed to fetch") proves nothing.
 */
export function neverConnected(e: unknown): boolean {
  let cause = e;
  for (let depth = 0; depth < 5 && typeof cause === "object" && cause !== null; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string" && NO_CONNECTION.has(code)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * A copy of `e` (same class, code, message and fields; `e` as its cause) whose
 * `notSent` is `notSent`: the errors that say so are made per request, and a copy
 * leaves the original to the request it concerns.
 */
function copyOf(e: YadaError, notSent: boolean, message: string): YadaError {
  const copy = Object.assign(Object.create(Object.getPrototypeOf(e) as object) as YadaError, e, { message, cause: e, stack: e.stack, notSent });
  // How a connection ended, not whether an earlier request was delivered: a refused one was not.
  if (e instanceof ConnectionClosedError && notSent) {
    const { maybeDelivered: _, ...info } = e.info;
    (copy as unknown as { info: object }).info = info;
  }
  return copy;
}

/**
 * `e` for a step of an operation that already sent a request (an `input_required`
 * round, a task poll, a stream resumed): a copy that no longer says not sent, of
 * the same class and code, with `e` as its cause. Any other value is returned as it is.
 */
export function sentBefore(e: unknown): unknown {
  return e instanceof YadaError && e.notSent ? copyOf(e, false, e.message) : e;
}

/**
 * The same failure for a new request that was refused before it was handed over
 * (a connection already unusable): a copy of the same class and code that says
 * `notSent`, with `e` as its cause. `e` itself (which may concern a request that
 * did leave) is left as it is.
 */
export function refusedBefore(e: YadaError, message: string): YadaError {
  return copyOf(e, true, message);
}
