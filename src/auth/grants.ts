/**
 * The grants that need no browser (A5, A7): `client_credentials` for a machine
 * client; workload identity federation, where the workload's platform JWT is a JWT
 * bearer grant (RFC 7523 §2.1); and enterprise-managed authorization, where the
 * user's enterprise sign-in is exchanged (RFC 8693) at the identity provider for an
 * Identity Assertion JWT Authorization Grant (ID-JAG), itself then a JWT bearer grant
 * at the MCP server's authorization server. Where an assertion comes from is host
 * code; every assertion is checked before it is sent ({@link checkAssertion}).
 *
 * @module
 */
import { ConfigError, OAuthError } from "../errors.js";
import { MAX_OAUTH_STRING_CHARS, MAX_SUBJECT_TOKEN_CHARS, MAX_TOKEN_CHARS } from "../limits.js";
import { checkAssertion } from "./assertion.js";
import { discoverServer, type ServerMetadata } from "./discovery.js";
import type { DpopKey } from "./dpop.js";
import { objectOf, optString, reqString } from "./fields.js";
import { preRegistered, toIdentity } from "./identity.js";
import type { AssertionRequest, EnterpriseOptions, OAuthClientOptions } from "./options.js";
import { secureUrl, type OAuthFetch } from "./request.js";
import { requestToken, tokenRequest, type TokenSet } from "./token.js";

/** RFC 7523 §2.1. */
export const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/** RFC 8693 §2.1. */
export const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
/** The ID-JAG token type (draft-ietf-oauth-identity-assertion-authz-grant). */
export const ID_JAG = "urn:ietf:params:oauth:token-type:id-jag";

/** One grant at the MCP server's authorization server. */
export interface GrantContext {
  fetch: OAuthFetch;
  meta: ServerMetadata;
  /** The authorization server's identity: its issuer, or for default endpoints the server's origin (A4). */
  identity: string;
  resource: string;
  scope: string | undefined;
  dpop: DpopKey | undefined;
  signal: AbortSignal;
}

/** Checks the options of the grant at construction. @throws ConfigError */
export function checkGrantOptions(o: OAuthClientOptions): void {
  if (o.grant === "workload_identity" && typeof o.workloadToken !== "function") throw new ConfigError("grant workload_identity needs a workloadToken function");
  if (o.grant === "enterprise") {
    const e = o.enterprise;
    if (e === undefined || typeof e.identityAssertion !== "function" || typeof e.client?.clientId !== "string") {
      throw new ConfigError("grant enterprise needs enterprise: { issuer, client: { clientId }, identityAssertion }");
    }
    secureUrl(e.issuer, "the identity provider's issuer");
    if (e.tokenEndpoint !== undefined) secureUrl(e.tokenEndpoint, "the identity provider's token endpoint");
  }
}

const withScope = (params: Record<string, string>, scope: string | undefined): Record<string, string> => (scope === undefined || scope === "" ? params : { ...params, scope });

function requireGrant(meta: ServerMetadata, identity: string, grant: string): void {
  // RFC 8414 §2: when listed, the list is the server's; a grant outside it would only be refused.
  if (meta.grantTypesSupported !== undefined && !meta.grantTypesSupported.includes(grant)) {
    throw new OAuthError("grant_unsupported", `the authorization server ${identity} does not list the ${grant.split(":").at(-1)} grant`, { field: "grant_types_supported" });
  }
}

function assertionRequest(ctx: GrantContext): AssertionRequest {
  return { issuer: ctx.identity, tokenEndpoint: ctx.meta.tokenEndpoint, resource: ctx.resource, ...(ctx.scope !== undefined && ctx.scope !== "" && { scope: ctx.scope }), signal: ctx.signal };
}

function bounded(value: unknown, what: string, max: number): string {
  if (typeof value !== "string" || value.length === 0 || value.length > max || !/^[\x21-\x7e]+$/.test(value)) {
    throw new OAuthError("assertion_mismatch", `${what} is not a string of 1 to ${max} visible ASCII characters`, { field: "jwt" });
  }
  return value;
}

/** `client_credentials` with the pre-registered client for the server's authorization server. */
export async function clientCredentialsGrant(ctx: GrantContext, o: OAuthClientOptions): Promise<{ set: TokenSet; clientId: string }> {
  const pre = preRegistered(o.clients, ctx.identity);
  if (pre === undefined) throw new OAuthError("registration", `client_credentials needs a pre-registered client for ${ctx.identity}`);
  const client = await toIdentity(pre, ctx.meta);
  const set = await requestToken({ fetch: ctx.fetch, tokenEndpoint: ctx.meta.tokenEndpoint, issuer: ctx.meta.issuer, client, dpop: ctx.dpop, signal: ctx.signal }, withScope({ grant_type: "client_credentials", resource: ctx.resource }, ctx.scope));
  return { set, clientId: client.clientId };
}

/**
 * Workload identity federation: the host's workload JWT, checked (its `aud` names this
 * authorization server, its `exp` has not passed), as a JWT bearer grant. No client
 * authentication unless the host pre-registered a client for this server.
 */
export async function workloadGrant(ctx: GrantContext, o: OAuthClientOptions): Promise<{ set: TokenSet; clientId: string }> {
  requireGrant(ctx.meta, ctx.identity, JWT_BEARER);
  const source = o.workloadToken;
  if (source === undefined) throw new ConfigError("grant workload_identity needs a workloadToken function");
  const jwt = bounded(await source(assertionRequest(ctx)), "the workload token", MAX_TOKEN_CHARS);
  checkAssertion(jwt, { what: "the workload token", audience: [ctx.identity, ctx.meta.tokenEndpoint] });
  const pre = preRegistered(o.clients, ctx.identity);
  const client = pre === undefined ? undefined : await toIdentity(pre, ctx.meta);
  const set = await requestToken(
    { fetch: ctx.fetch, tokenEndpoint: ctx.meta.tokenEndpoint, issuer: ctx.meta.issuer, client, dpop: ctx.dpop, signal: ctx.signal },
    withScope({ grant_type: JWT_BEARER, assertion: jwt, resource: ctx.resource }, ctx.scope),
  );
  return { set, clientId: client?.clientId ?? "" };
}

/** The identity provider's token endpoint and metadata: as the host gave it, or from its metadata. */
async function idpEndpoint(fetch: OAuthFetch, e: EnterpriseOptions, signal: AbortSignal): Promise<{ tokenEndpoint: string; methods: string[] | undefined }> {
  if (e.tokenEndpoint !== undefined) return { tokenEndpoint: secureUrl(e.tokenEndpoint, "the identity provider's token endpoint").href, methods: undefined };
  // The host named this issuer: its metadata's URLs are measured against it (A8).
  const meta = await discoverServer(fetch, e.issuer, signal);
  return { tokenEndpoint: meta.tokenEndpoint, methods: meta.tokenEndpointAuthMethodsSupported };
}

/**
 * RFC 8693 §2.2.1 as the ID-JAG profile answers it: `issued_token_type` the ID-JAG
 * type, `token_type` `N_A`, the grant in `access_token`.
 *
 * @throws OAuthError (`oauth`, kind `bad_response`).
 */
export function parseExchangeResponse(json: unknown, what: string): string {
  const o = objectOf(json, what);
  const jag = reqString(o, "access_token", what, MAX_TOKEN_CHARS);
  if (reqString(o, "issued_token_type", what) !== ID_JAG) throw new OAuthError("bad_response", `${what}: issued_token_type is not the ID-JAG type`, { field: "issued_token_type" });
  if (reqString(o, "token_type", what, 32).toLowerCase() !== "n_a") throw new OAuthError("bad_response", `${what}: token_type is not N_A`, { field: "token_type" });
  optString(o, "scope", what, MAX_OAUTH_STRING_CHARS);
  return jag;
}

/**
 * Enterprise-managed authorization: the user's identity assertion exchanged at the
 * identity provider for an ID-JAG naming this authorization server and this MCP
 * server; the ID-JAG checked (type, audience, resource, client, issuer, expiry) and
 * sent as a JWT bearer grant with the pre-registered client it names.
 */
export async function enterpriseGrant(ctx: GrantContext, o: OAuthClientOptions): Promise<{ set: TokenSet; clientId: string }> {
  const e = o.enterprise;
  if (e === undefined) throw new ConfigError("grant enterprise needs the enterprise option");
  requireGrant(ctx.meta, ctx.identity, JWT_BEARER);
  // The client the ID-JAG is issued to: the one the host registered at this authorization server.
  const pre = preRegistered(o.clients, ctx.identity);
  if (pre === undefined) throw new OAuthError("registration", `enterprise sign-in needs a pre-registered client for ${ctx.identity}`);
  const client = await toIdentity(pre, ctx.meta);

  const idp = await idpEndpoint(ctx.fetch, e, ctx.signal);
  const assertion = await e.identityAssertion(assertionRequest(ctx));
  const type = assertion?.type ?? "id_token";
  if (type !== "id_token" && type !== "saml2") throw new OAuthError("assertion_mismatch", "the identity assertion's type is neither id_token nor saml2", { field: "type" });
  const subject = bounded(assertion?.token, "the identity assertion", MAX_SUBJECT_TOKEN_CHARS);
  // An ID token goes only back to the provider that issued it for this client.
  if (type === "id_token") checkAssertion(subject, { what: "the identity assertion", audience: [e.client.clientId], issuer: e.issuer });
  const idpClient = await toIdentity(e.client, { tokenEndpointAuthMethodsSupported: idp.methods });
  const exchange = await tokenRequest(
    { fetch: ctx.fetch, tokenEndpoint: idp.tokenEndpoint, issuer: e.issuer, client: idpClient, signal: ctx.signal },
    withScope(
      {
        grant_type: TOKEN_EXCHANGE,
        requested_token_type: ID_JAG,
        audience: ctx.identity,
        resource: ctx.resource,
        subject_token: subject,
        subject_token_type: `urn:ietf:params:oauth:token-type:${type}`,
      },
      ctx.scope,
    ),
  );
  const jag = parseExchangeResponse(exchange, `the token exchange answer of ${new URL(idp.tokenEndpoint).origin}`);
  if (!/^[\x21-\x7e]+$/.test(jag)) throw new OAuthError("bad_response", "the ID-JAG has characters a form cannot carry", { field: "access_token" });
  checkAssertion(jag, { what: "the ID-JAG", typ: "oauth-id-jag+jwt", audience: [ctx.identity], issuer: e.issuer, resource: ctx.resource, clientId: client.clientId });
  const set = await requestToken(
    { fetch: ctx.fetch, tokenEndpoint: ctx.meta.tokenEndpoint, issuer: ctx.meta.issuer, client, dpop: ctx.dpop, signal: ctx.signal },
    withScope({ grant_type: JWT_BEARER, assertion: jag, resource: ctx.resource }, ctx.scope),
  );
  return { set, clientId: client.clientId };
}
