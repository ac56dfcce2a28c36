/**
 * The authorization code flow's two ends (A3): the authorization URL (PKCE S256,
 * `state`, `resource`, scope) and the callback check, which reads `state` first,
 * then RFC 9207 `iss`, and only then `error` or `code`.
 *
 * @module
 */
import { OAuthError } from "../errors.js";
import { OAUTH_FLOW_TTL_MS } from "../limits.js";
import { sha256 } from "./jwt.js";
import type { AuthorizeStep } from "./options.js";
import type { FlowRecord } from "./records.js";

/** The authorization request URL of `flow` (OAuth 2.1 §4.1.1, RFC 7636, RFC 8707). */
export async function authorizationUrl(endpoint: string, flow: FlowRecord): Promise<string> {
  const u = new URL(endpoint);
  const q = u.searchParams;
  q.set("response_type", "code");
  q.set("client_id", flow.clientId);
  q.set("redirect_uri", flow.redirectUri);
  q.set("state", flow.state);
  q.set("code_challenge", await sha256(flow.verifier));
  q.set("code_challenge_method", "S256");
  q.set("resource", flow.resource);
  if (flow.scope !== undefined && flow.scope !== "") q.set("scope", flow.scope);
  if (flow.prompt !== undefined) q.set("prompt", flow.prompt);
  return u.href;
}

/** The one value of `name`, undefined when absent; a repeated parameter is refused (RFC 6749 §3.1). */
function single(q: URLSearchParams, name: string, kind: "state_mismatch" | "iss_mismatch" | "bad_response"): string | undefined {
  const all = q.getAll(name);
  if (all.length > 1) throw new OAuthError(kind, `the authorization callback repeats ${name}`);
  return all[0];
}

/** The `state` of a callback URL, checked for presence and uniqueness only. */
export function callbackState(callback: URL): string {
  const state = single(callback.searchParams, "state", "state_mismatch");
  if (state === undefined || state === "") throw new OAuthError("state_mismatch", "the authorization callback carries no state");
  return state;
}

/** Is `callback` at `redirectUri` (same origin and path)? */
export function atRedirectUri(callback: URL, redirectUri: string): boolean {
  const r = new URL(redirectUri);
  return callback.origin === r.origin && callback.pathname === r.pathname;
}

/**
 * Checks a callback against its flow record (found by its `state`) and returns the
 * code: the flow's age, then `iss` (RFC 9207 §2.4 and the spec's table: compared
 * when present, required when the server advertised it), then `error`, then `code`.
 *
 * @throws OAuthError (`oauth`): `timeout`, `iss_mismatch`, `authorization_denied`
 * (with `oauthError`), `bad_response` (no code).
 */
export function callbackCode(callback: URL, flow: FlowRecord, now = Date.now()): string {
  if (now - flow.createdAt > OAUTH_FLOW_TTL_MS) throw new OAuthError("timeout", "the authorization flow expired before its callback arrived");
  const q = callback.searchParams;
  const iss = single(q, "iss", "iss_mismatch");
  if (iss !== undefined) {
    // Simple string comparison (RFC 3986 §6.2.1), as the spec's table says.
    if (iss !== flow.issuer) throw new OAuthError("iss_mismatch", "the authorization callback names another issuer than the one the flow started with (mix-up)");
  } else if (flow.issRequired) {
    throw new OAuthError("iss_mismatch", "the authorization callback lacks iss, which its authorization server advertises");
  }
  const error = single(q, "error", "bad_response");
  if (error !== undefined) {
    const code = /^[\x20\x21\x23-\x5b\x5d-\x7e]{1,64}$/.test(error) ? error : "invalid";
    throw new OAuthError("authorization_denied", `the authorization server refused the authorization (${code})`, { oauthError: code });
  }
  const code = single(q, "code", "bad_response");
  if (code === undefined || code === "") throw new OAuthError("bad_response", "the authorization callback carries no code");
  return code;
}

/**
 * Runs the host's interactive step for `url` within `ms` (A2): resolves with the
 * callback URL it returns; the step's signal aborts with `signal` or at the bound.
 *
 * @throws OAuthError (`oauth`): `timeout` past `ms` (before the step's own rejection
 * on abort can mask it), `bad_response` when the step returns no string; whatever the step throws.
 */
export async function interact(step: AuthorizeStep, url: string, signal: AbortSignal, ms: number): Promise<string> {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort();
  signal.addEventListener("abort", onAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Rejected before the abort: a step that rejects on abort must not mask the timeout.
      reject(new OAuthError("timeout", `the login did not complete within ${ms} ms`));
      controller.abort();
    }, ms);
  });
  try {
    const cb = await Promise.race([step({ url, signal: controller.signal }), expired]);
    if (typeof cb !== "string") throw new OAuthError("bad_response", "the interactive step did not return a callback URL");
    return cb;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  }
}
