/**
 * The hook through which an authorization layer (yada's {@link OAuthClient}, or
 * the host's own) takes part in every HTTP request of the Streamable HTTP
 * transport (A5): it adds its headers before each request and is handed each 401
 * or 403 answer to decide whether the request is sent again.
 *
 * @module
 */

/** One logical request; the same object is passed for each of its attempts. */
export interface AuthRequest {
  /** The MCP endpoint. */
  readonly url: string;
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
