/**
 * Token endpoint requests (OAuth 2.1 §3.2): client authentication none,
 * `client_secret_basic`, `client_secret_post` or `private_key_jwt` (RFC 7523),
 * the `resource` parameter (RFC 8707), an optional DPoP proof with one retry on
 * `use_dpop_nonce`, and a token response whose every field is checked (A5).
 *
 * @module
 */
import { OAuthError } from "../errors.js";
import { CLIENT_ASSERTION_TTL_S, MAX_OAUTH_STRING_CHARS, MAX_TOKEN_CHARS } from "../limits.js";
import type { Rec } from "../util/record.js";
import type { DpopKey } from "./dpop.js";
import { objectOf, optString, reqString } from "./fields.js";
import { signJwt, type SigningAlg, type SigningKey } from "./jwt.js";
import { oauthRequest, randomToken, type OAuthFetch } from "./request.js";

/** How the client authenticates at the token endpoint. */
export type TokenAuthMethod = "none" | "client_secret_basic" | "client_secret_post" | "private_key_jwt";

/** A client's identity at one authorization server. */
export interface ClientIdentity {
  clientId: string;
  clientSecret?: string;
  authMethod: TokenAuthMethod;
  /** For `private_key_jwt`. */
  privateKey?: SigningKey;
  signingAlg?: SigningAlg;
}

/** A checked token response. */
export interface TokenSet {
  accessToken: string;
  /** `bearer` or `dpop` (RFC 9449 §5). */
  tokenType: "bearer" | "dpop";
  /** Epoch ms when the access token expires, from `expires_in`. */
  expiresAt?: number;
  refreshToken?: string;
  /** The granted scope, when the server said. */
  scope?: string;
}

const VISIBLE = /^[\x21-\x7e]+$/;
const ERROR_CODE = /^[\x20\x21\x23-\x5b\x5d-\x7e]{1,64}$/; // RFC 6749 §5.2, bounded

/** The OAuth `error` code of an error answer, when it is a well-formed one. */
export function errorCode(json: unknown): string | undefined {
  const e = typeof json === "object" && json !== null ? (json as Rec).error : undefined;
  return typeof e === "string" && ERROR_CODE.test(e) ? e : undefined;
}

/**
 * Parses a token response (OAuth 2.1 §3.2.3). Unknown members are ignored;
 * `access_token` and `refresh_token` must be visible ASCII of at most
 * `MAX_TOKEN_CHARS`, `token_type` Bearer (or DPoP when `dpop`), `expires_in` a
 * non-negative integer.
 *
 * @throws OAuthError (`oauth`, kind `bad_response`).
 */
export function parseTokenResponse(json: unknown, what: string, dpop: boolean, now = Date.now()): TokenSet {
  const o = objectOf(json, what);
  const accessToken = reqString(o, "access_token", what, MAX_TOKEN_CHARS);
  if (!VISIBLE.test(accessToken)) throw new OAuthError("bad_response", `${what}: access_token has characters a header cannot carry`);
  const type = reqString(o, "token_type", what, 32).toLowerCase();
  if (type !== "bearer" && !(type === "dpop" && dpop)) throw new OAuthError("bad_response", `${what}: token_type is neither Bearer${dpop ? " nor DPoP" : ""}`);
  const set: TokenSet = { accessToken, tokenType: type };
  const exp = o.expires_in;
  if (exp !== undefined) {
    if (typeof exp !== "number" || !Number.isSafeInteger(exp) || exp < 0) throw new OAuthError("bad_response", `${what}: expires_in is not a non-negative integer`);
    set.expiresAt = now + exp * 1000;
  }
  const refresh = optString(o, "refresh_token", what, MAX_TOKEN_CHARS);
  if (refresh !== undefined) {
    if (!VISIBLE.test(refresh)) throw new OAuthError("bad_response", `${what}: refresh_token has characters outside visible ASCII`);
    set.refreshToken = refresh;
  }
  const scope = optString(o, "scope", what, MAX_OAUTH_STRING_CHARS);
  if (scope !== undefined) set.scope = scope;
  return set;
}

/** A grant type as a message names it: the last segment of a URN grant. */
function grantName(grant: string | undefined): string {
  return grant === undefined ? "token" : (grant.split(":").at(-1) ?? grant);
}

/** application/x-www-form-urlencoded as RFC 6749 Appendix B asks for client_secret_basic. */
const formEncode = (s: string): string => encodeURIComponent(s).replace(/%20/g, "+");

/** What a token request needs. */
export interface TokenContext {
  fetch: OAuthFetch;
  tokenEndpoint: string;
  /** The issuer, the `aud` of a client assertion; the token endpoint when unknown. */
  issuer: string | undefined;
  /** The client; undefined: no client authentication (a workload's JWT bearer grant, A7). */
  client: ClientIdentity | undefined;
  dpop?: DpopKey;
  signal?: AbortSignal;
}

async function clientAuth(ctx: TokenContext, body: URLSearchParams, headers: Record<string, string>): Promise<void> {
  const c = ctx.client;
  if (c === undefined) return;
  switch (c.authMethod) {
    case "none":
      body.set("client_id", c.clientId);
      return;
    case "client_secret_post":
      body.set("client_id", c.clientId);
      body.set("client_secret", c.clientSecret ?? "");
      return;
    case "client_secret_basic":
      headers.authorization = `Basic ${btoa(`${formEncode(c.clientId)}:${formEncode(c.clientSecret ?? "")}`)}`;
      return;
    case "private_key_jwt": {
      if (c.privateKey === undefined) throw new OAuthError("registration", "private_key_jwt needs a private key");
      const now = Math.floor(Date.now() / 1000);
      const claims = { iss: c.clientId, sub: c.clientId, aud: ctx.issuer ?? ctx.tokenEndpoint, jti: randomToken(16), iat: now, exp: now + CLIENT_ASSERTION_TTL_S };
      body.set("client_id", c.clientId);
      body.set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
      body.set("client_assertion", await signJwt({ typ: "JWT" }, claims, c.privateKey, c.signingAlg ?? "ES256"));
      return;
    }
  }
}

/**
 * Sends one token request with `params` (grant_type, code, resource, ...) and
 * returns the JSON of its 200 answer, for the caller's validating parse.
 *
 * @throws OAuthError (`oauth`): `token_error` with `oauthError` when the server
 * refused (e.g. `invalid_grant`); `bad_response`, `http_status`, `redirect`,
 * `timeout`, `insecure_url`.
 */
export async function tokenRequest(ctx: TokenContext, params: Record<string, string>): Promise<unknown> {
  const origin = new URL(ctx.tokenEndpoint).origin;
  const what = `the token endpoint of ${origin}`;
  for (let attempt = 0; ; attempt++) {
    const body = new URLSearchParams(params);
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
    await clientAuth(ctx, body, headers);
    if (ctx.dpop) headers.dpop = await ctx.dpop.proof("POST", ctx.tokenEndpoint);
    const a = await oauthRequest(ctx.fetch, ctx.tokenEndpoint, "the token endpoint", { method: "POST", headers, body: body.toString(), signal: ctx.signal });
    if (a.status === 200) return a.json;
    const code = errorCode(a.json);
    // RFC 9449 §8: one retry with the nonce the server just handed out.
    if (ctx.dpop && code === "use_dpop_nonce" && attempt === 0 && ctx.dpop.noteNonce(ctx.tokenEndpoint, a.headers)) continue;
    if (code !== undefined) throw new OAuthError("token_error", `${what} refused the ${grantName(params.grant_type)} request (${code})`, { oauthError: code, status: a.status });
    throw new OAuthError("http_status", `${what} answered HTTP ${a.status}`, { status: a.status });
  }
}

/**
 * Sends one token request with `params` and parses its answer as a token response.
 *
 * @throws OAuthError (`oauth`): as {@link tokenRequest}, and `bad_response`.
 */
export async function requestToken(ctx: TokenContext, params: Record<string, string>): Promise<TokenSet> {
  const json = await tokenRequest(ctx, params);
  return parseTokenResponse(json, `the token answer of ${new URL(ctx.tokenEndpoint).origin}`, ctx.dpop !== undefined);
}
