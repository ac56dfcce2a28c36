/**
 * What the OAuth layer keeps in a {@link TokenStore}, and the validating reads of
 * it: a stored value is parsed like any other outside input, and one that does not
 * parse is treated as absent.
 *
 * @module
 */
import { MAX_OAUTH_STRING_CHARS, MAX_TOKEN_CHARS } from "../limits.js";
import { isRec, type Rec } from "../util/record.js";
import type { StoredValue, TokenStore } from "./store.js";
import type { TokenAuthMethod } from "./token.js";

/** A client registered at one issuer (A4). */
export interface ClientRecord {
  issuer: string;
  clientId: string;
  clientSecret?: string;
  authMethod: TokenAuthMethod;
  /** The redirect URI it was registered with. */
  redirectUri?: string;
}

/** The tokens for one MCP server, bound to the issuer that issued them (A4, A5). */
export interface TokensRecord {
  issuer: string;
  /** The `resource` they were requested for (RFC 8707), verbatim. */
  resource: string;
  clientId: string;
  accessToken: string;
  tokenType: "bearer" | "dpop";
  expiresAt?: number;
  refreshToken?: string;
  scope?: string;
  /** The scope set last requested (the base of a step-up union). */
  requestedScope?: string;
  tokenEndpoint: string;
  /** `offline_access` was requested and the answer carried no refresh token: a new login is needed when the access token expires. */
  refreshTokenMissing?: boolean;
  /** The authorization server is a 2025-03-26 server's default endpoints (no metadata); `issuer` is then the server's origin. */
  defaultEndpoints?: boolean;
  /** Where the server's resource metadata was found (a challenge may name a URL no well-known one reaches): where a later session confirms the issuer (A4). */
  resourceMetadata?: string;
}

/** A started authorization (A3): verifier, state and issuer kept in one record. */
export interface FlowRecord {
  state: string;
  verifier: string;
  /** The recorded issuer (the server's origin for the 2025-03-26 default endpoints, A4). */
  issuer: string;
  issRequired: boolean;
  key: string;
  resource: string;
  scope?: string;
  redirectUri: string;
  clientId: string;
  tokenEndpoint: string;
  createdAt: number;
  /** The 2025-03-26 default endpoints (no metadata). */
  defaultEndpoints?: boolean;
  /** The authorization request's `prompt` (`consent` for a refresh token, OpenID Connect Core §11). */
  prompt?: string;
  /** Where the server's resource metadata was found, kept with the tokens. */
  resourceMetadata?: string;
}

const str = (o: Rec, k: string, max = MAX_OAUTH_STRING_CHARS): boolean => typeof o[k] === "string" && (o[k] as string).length <= max;
const optStr = (o: Rec, k: string, max = MAX_OAUTH_STRING_CHARS): boolean => o[k] === undefined || str(o, k, max);
const optBool = (o: Rec, k: string): boolean => o[k] === undefined || typeof o[k] === "boolean";
const METHODS = new Set(["none", "client_secret_basic", "client_secret_post", "private_key_jwt"]);

function decode(v: StoredValue | undefined): Rec | undefined {
  if (v === undefined) return undefined;
  try {
    const o: unknown = JSON.parse(v.value);
    return isRec(o) ? o : undefined;
  } catch {
    return undefined;
  }
}

export function readClient(v: StoredValue | undefined): ClientRecord | undefined {
  const o = decode(v);
  if (!o || !str(o, "issuer") || !str(o, "clientId") || !optStr(o, "clientSecret") || !METHODS.has(o.authMethod as string) || !optStr(o, "redirectUri")) return undefined;
  return o as unknown as ClientRecord;
}

export function readTokens(v: StoredValue | undefined): TokensRecord | undefined {
  const o = decode(v);
  if (!o) return undefined;
  const ok =
    str(o, "issuer") && str(o, "resource") && str(o, "clientId") && str(o, "accessToken", MAX_TOKEN_CHARS) && (o.tokenType === "bearer" || o.tokenType === "dpop") &&
    (o.expiresAt === undefined || Number.isFinite(o.expiresAt)) && optStr(o, "refreshToken", MAX_TOKEN_CHARS) && optStr(o, "scope") && optStr(o, "requestedScope") && str(o, "tokenEndpoint") &&
    optBool(o, "refreshTokenMissing") && optBool(o, "defaultEndpoints") && optStr(o, "resourceMetadata");
  return ok ? (o as unknown as TokensRecord) : undefined;
}

export function readFlow(v: StoredValue | undefined): FlowRecord | undefined {
  const o = decode(v);
  if (!o) return undefined;
  const ok =
    str(o, "state") && str(o, "verifier") && str(o, "issuer") && typeof o.issRequired === "boolean" && str(o, "key") && str(o, "resource") && optStr(o, "scope") &&
    str(o, "redirectUri") && str(o, "clientId") && str(o, "tokenEndpoint") && Number.isFinite(o.createdAt) &&
    optBool(o, "defaultEndpoints") && (o.prompt === undefined || o.prompt === "consent") && optStr(o, "resourceMetadata");
  return ok ? (o as unknown as FlowRecord) : undefined;
}

/** Writes `value` under `key` over whatever is there (read, then compare-and-swap, a few times). */
export async function overwrite(store: TokenStore, key: string, value: unknown): Promise<void> {
  const text = value === undefined ? undefined : JSON.stringify(value);
  for (let i = 0; i < 8; i++) {
    const cur = await store.get(key);
    if (await store.set(key, text, cur?.version)) return;
  }
}
