/**
 * The grants that need no browser (A5, A7). `client_credentials` is built in; the
 * others are opt-in modules, passed as the `grant` of {@link OAuthClient} and left
 * out of a bundle that does not import them: {@link workloadIdentity} (a workload's
 * platform JWT as a JWT bearer grant) and {@link enterpriseSignIn} (an enterprise
 * sign-in exchanged for an ID-JAG, then a JWT bearer grant).
 *
 * @module
 */
import { OAuthError } from "../errors.js";
import type { ServerMetadata } from "./discovery.js";
import type { DpopKey } from "./dpop.js";
import { preRegistered, toIdentity } from "./identity.js";
import type { AssertionRequest, PreRegisteredClient } from "./options.js";
import type { OAuthFetch } from "./request.js";
import { requestToken, type TokenSet } from "./token.js";

/** RFC 7523 §2.1. */
export const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/** What a grant is given: one token request's worth at the MCP server's authorization server. */
export interface GrantContext {
  fetch: OAuthFetch;
  meta: ServerMetadata;
  /** The authorization server's identity: its issuer, or for default endpoints the server's origin (A4). */
  identity: string;
  resource: string;
  scope: string | undefined;
  dpop: DpopKey | undefined;
  /** The host's pre-registered clients (`clients` of the options). */
  clients: readonly PreRegisteredClient[] | undefined;
  signal: AbortSignal;
}

/** What a grant obtained: the tokens, and the client they were issued to ("" for none). */
export interface Granted {
  set: TokenSet;
  clientId: string;
}

/**
 * A grant that needs no browser, made by {@link workloadIdentity} or
 * {@link enterpriseSignIn}; pass it as the `grant` of {@link OAuthClient}.
 */
export interface TokenGrant {
  /** `workload_identity` or `enterprise`. */
  readonly kind: "workload_identity" | "enterprise";
  /** Obtains tokens at the MCP server's authorization server. */
  obtain(ctx: GrantContext): Promise<Granted>;
}

export const withScope = (params: Record<string, string>, scope: string | undefined): Record<string, string> => (scope === undefined || scope === "" ? params : { ...params, scope });

/**
 * Refuses a grant the authorization server's metadata leaves out (RFC 8414 §2: when
 * listed, the list is the server's; a grant outside it would only be refused).
 *
 * @throws OAuthError (`oauth`, kind `grant_unsupported`).
 */
export function requireGrant(meta: ServerMetadata, identity: string, grant: string): void {
  if (meta.grantTypesSupported !== undefined && !meta.grantTypesSupported.includes(grant)) {
    throw new OAuthError("grant_unsupported", `the authorization server ${identity} does not list the ${grant.split(":").at(-1)} grant`, { field: "grant_types_supported" });
  }
}

/** What an assertion source is told. */
export function assertionRequest(ctx: GrantContext): AssertionRequest {
  return { issuer: ctx.identity, tokenEndpoint: ctx.meta.tokenEndpoint, resource: ctx.resource, ...(ctx.scope !== undefined && ctx.scope !== "" && { scope: ctx.scope }), signal: ctx.signal };
}

/**
 * A credential the host handed over, as a bounded string of visible ASCII.
 *
 * @throws OAuthError (`oauth`, kind `assertion_mismatch`).
 */
export function bounded(value: unknown, what: string, max: number): string {
  if (typeof value !== "string" || value.length === 0 || value.length > max || !/^[\x21-\x7e]+$/.test(value)) {
    throw new OAuthError("assertion_mismatch", `${what} is not a string of 1 to ${max} visible ASCII characters`, { field: "jwt" });
  }
  return value;
}

/** `client_credentials` with the pre-registered client for the server's authorization server. */
export async function clientCredentialsGrant(ctx: GrantContext): Promise<Granted> {
  const pre = preRegistered(ctx.clients, ctx.identity);
  if (pre === undefined) throw new OAuthError("registration", `client_credentials needs a pre-registered client for ${ctx.identity}`);
  const client = await toIdentity(pre, ctx.meta);
  const set = await requestToken({ fetch: ctx.fetch, tokenEndpoint: ctx.meta.tokenEndpoint, issuer: ctx.meta.issuer, client, dpop: ctx.dpop, signal: ctx.signal }, withScope({ grant_type: "client_credentials", resource: ctx.resource }, ctx.scope));
  return { set, clientId: client.clientId };
}
