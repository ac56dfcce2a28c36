/**
 * The checks of an assertion before it is sent (A7): a workload JWT, an ID-JAG or
 * an ID token is a bearer credential, and whoever receives it can use it. So before
 * one leaves, its claims are read (not verified: that is the receiver's job) and
 * compared with where it is going: its `aud` must name the receiving authorization
 * server, it must not have expired, and an ID-JAG must name the MCP server's
 * resource and the client that presents it. A hostile MCP server that names another
 * authorization server than the one the assertion was made for gets nothing.
 *
 * @module
 */
import { OAuthError } from "../errors.js";
import { ASSERTION_CLOCK_SKEW_S, MAX_OAUTH_STRING_CHARS, MAX_TOKEN_CHARS } from "../limits.js";
import { isRec, type Rec } from "../util/record.js";

/** A decoded JWT: its header and claims, unverified. */
export interface DecodedJwt {
  header: Rec;
  claims: Rec;
}

const SEGMENT = /^[A-Za-z0-9_-]+$/;

function segment(s: string): Rec | undefined {
  if (!SEGMENT.test(s)) return undefined;
  try {
    const b = atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4));
    const o: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(b, (c) => c.charCodeAt(0))));
    return isRec(o) ? o : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The header and claims of a compact JWS `jwt` (RFC 7515 §7.1), bounded by
 * `MAX_TOKEN_CHARS`; the signature is not checked.
 *
 * @throws OAuthError (`oauth`, kind `assertion_mismatch`) when it is not one.
 */
export function decodeJwt(jwt: string, what: string): DecodedJwt {
  const parts = typeof jwt === "string" && jwt.length <= MAX_TOKEN_CHARS ? jwt.split(".") : [];
  const header = parts.length === 3 && SEGMENT.test(parts[2] ?? "") ? segment(parts[0] ?? "") : undefined;
  const claims = header === undefined ? undefined : segment(parts[1] ?? "");
  if (header === undefined || claims === undefined) throw new OAuthError("assertion_mismatch", `${what} is not a signed JWT of at most ${MAX_TOKEN_CHARS} characters`, { field: "jwt" });
  return { header, claims };
}

/** The `aud` of `claims` as a list (a string or an array of strings, RFC 7519 §4.1.3). */
function audiences(claims: Rec): string[] {
  const aud = claims.aud;
  if (typeof aud === "string") return [aud];
  if (Array.isArray(aud)) return (aud as unknown[]).filter((a): a is string => typeof a === "string" && a.length <= MAX_OAUTH_STRING_CHARS).slice(0, 16);
  return [];
}

const trimSlash = (s: string): string => s.replace(/\/+$/, "");

/** What {@link checkAssertion} compares an assertion with. */
export interface AssertionExpectation {
  /** Names the assertion in errors ("the workload token"). */
  what: string;
  /** Identifiers one of which its `aud` must be (a trailing slash aside). */
  audience: readonly string[];
  /** Its `iss` must be this, when given. */
  issuer?: string;
  /** Its `resource` claim must be this, when given. */
  resource?: string;
  /** Its `client_id` claim must be this, when given. */
  clientId?: string;
  /** Its `typ` header must be this (compared case-insensitively), when given. */
  typ?: string;
  /** Now, in epoch ms (tests). */
  now?: number;
}

/**
 * Checks an assertion before it is sent: a JWT whose `exp` has not passed (allowing
 * `ASSERTION_CLOCK_SKEW_S`), whose `aud` names the receiver, and whose `iss`,
 * `resource`, `client_id` and `typ` are the expected ones where asked.
 *
 * @throws OAuthError (`oauth`, kind `assertion_mismatch`, `field` the claim).
 *
 * @example
 * ```ts
 * checkAssertion(jwt, { what: "the workload token", audience: ["https://auth.example.com", "https://auth.example.com/token"] });
 * ```
 */
export function checkAssertion(jwt: string, expect: AssertionExpectation): DecodedJwt {
  const d = decodeJwt(jwt, expect.what);
  const { header, claims } = d;
  const fail = (field: string, why: string): never => {
    throw new OAuthError("assertion_mismatch", `${expect.what} ${why}; it is not sent`, { field });
  };
  if (expect.typ !== undefined && (typeof header.typ !== "string" || header.typ.toLowerCase() !== expect.typ)) fail("typ", `is not of type ${expect.typ}`);
  const exp = claims.exp;
  if (typeof exp !== "number" || !Number.isFinite(exp)) fail("exp", "carries no expiry (exp)");
  if ((exp as number) + ASSERTION_CLOCK_SKEW_S < Math.floor((expect.now ?? Date.now()) / 1000)) fail("exp", "has expired");
  const wanted = new Set(expect.audience.map(trimSlash));
  if (!audiences(claims).some((a) => wanted.has(trimSlash(a)))) fail("aud", "is meant for another audience than the authorization server it would go to");
  if (expect.issuer !== undefined && claims.iss !== expect.issuer) fail("iss", "names another issuer than the identity provider");
  if (expect.resource !== undefined && claims.resource !== expect.resource) fail("resource", "names another resource than the MCP server");
  if (expect.clientId !== undefined && claims.client_id !== expect.clientId) fail("client_id", "names another client than the one that would present it");
  return d;
}
