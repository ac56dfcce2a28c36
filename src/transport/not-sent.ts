/**
 * "Not sent" (W5, W8; see {@link YadaError.notSent}): the failures of which a
 * transport can prove that no byte of a request reached the server, and the
 * copy of an error for a later step of an operation whose first request did leave.
 *
 * @module
 */
import { ConnectionClosedError, HttpError, SessionExpiredError, StaleContractError, TransportError, YadaError } from "../errors.js";

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
 * `e` for a step of an operation that already sent a request (an `input_required`
 * round, a task poll, a stream resumed): a copy that no longer says not sent, of
 * the same class and code, with `e` as its cause. Any other value is returned as it is.
 */
export function sentBefore(e: unknown): unknown {
  if (!(e instanceof YadaError) || !e.notSent) return e;
  const cause = { cause: e };
  if (e instanceof ConnectionClosedError) return new ConnectionClosedError(e.message, e.info, cause);
  if (e instanceof HttpError) return new HttpError(e.status, e.message, cause);
  if (e instanceof SessionExpiredError) return new SessionExpiredError(e.message, cause);
  if (e instanceof StaleContractError) return new StaleContractError(e.message, cause);
  return new TransportError(e.message, cause);
}

/**
 * The same failure for a new request that was refused before it was handed over
 * (a connection already unusable): a fresh error of the same class and code that
 * says `notSent`, with `e` as its cause. `e` itself (which may concern a request
 * that did leave) is left as it is.
 */
export function refusedBefore(e: YadaError, message: string): YadaError {
  const options = { cause: e, notSent: true };
  if (e instanceof ConnectionClosedError) {
    // How the connection ended, not whether the earlier request was delivered: this one was not.
    const { maybeDelivered: _, ...info } = e.info;
    return new ConnectionClosedError(message, info, options);
  }
  if (e instanceof SessionExpiredError) return new SessionExpiredError(message, options);
  if (e instanceof StaleContractError) return new StaleContractError(message, options);
  if (e instanceof TransportError) return new TransportError(message, options);
  return new ConnectionClosedError(message, {}, options);
}
