/**
 * The hook through which an authorization layer (yada's {@link OAuthClient}, or
 * the host's own) takes part in every HTTP request of the Streamable HTTP
 * transport (A5): it adds its headers before each request and is handed each 401
 * or 403 answer to decide whether the request is sent again.
 *
 * @module
 */
import { MAX_AUTH_RETRIES } from "../limits.js";
import { cancelBody, REDIRECT_MODE, type Exchange } from "./http-exchange.js";
import type { FetchFunction } from "./http.js";

/** One logical request; the same object is passed for each of its attempts. */
export interface AuthRequest {
  /** The MCP endpoint. */
  readonly url: string;
  /**
   * The URL this request goes to when it is not `url`: an HTTP+SSE server's
   * message endpoint (H14). DPoP proofs name it; tokens stay those of `url`.
   */
  readonly target?: string;
  /** `POST`, `GET` or `DELETE`. */
  readonly method: string;
  /** 0 for the first send, then 1, 2, ... for each re-send. */
  attempt: number;
  /** Aborts with the request (the caller's signal, the transport's close). */
  readonly signal: AbortSignal;
  /**
   * Starts waiting on the user for this request (the host's interactive login
   * step): until the returned function is called, the request's time bound and a
   * connect's deadline stop (A2, S5, S6). Call it for that wait only; discovery and
   * token requests count against the bounds as usual.
   */
  readonly hold?: () => () => void;
}

/**
 * What {@link HttpTransportOptions.auth} implements. Header values it returns are
 * never logged or shown in errors.
 */
export interface HttpAuth {
  /** Headers for this attempt (e.g. `authorization`, `dpop`). Throwing fails the request with that error. */
  headers(request: AuthRequest): Promise<Record<string, string>>;
  /**
   * Called with each 401 / 403 answer (body unread). Resolves true to send the
   * request again (after a refresh, a login or a step-up), false to let the status
   * fail the request. Throwing fails the request with that error.
   */
  challenge(response: Response, request: AuthRequest): Promise<boolean>;
}

/**
 * Sends one request through `auth` (A5): its headers on each attempt, each 401 /
 * 403 to its `challenge`, and the request sent again while it says so, at most
 * `MAX_AUTH_RETRIES` times. The exchange's idle clock stops while the auth layer
 * works (a refresh or a login is the client's own wait). Redirects are refused
 * (`redirect: "error"`, H11).
 *
 * @throws whatever `auth.headers` / `auth.challenge` or the fetch throw.
 */
export async function fetchAuthorized(
  fetch: FetchFunction,
  init: { readonly method: string; readonly headers: Record<string, string>; readonly body?: string },
  ex: Exchange,
  auth: HttpAuth,
  request: AuthRequest,
): Promise<Response> {
  for (;;) {
    ex.suspend();
    const extra = await auth.headers(request);
    ex.touch();
    const res = await fetch(request.target ?? request.url, { method: init.method, headers: { ...init.headers, ...extra }, body: init.body, redirect: REDIRECT_MODE, signal: ex.signal });
    if ((res.status !== 401 && res.status !== 403) || request.attempt >= MAX_AUTH_RETRIES) return res;
    ex.suspend();
    const again = await auth.challenge(res, request);
    ex.touch();
    if (!again) return res;
    cancelBody(res);
    request.attempt++;
  }
}
