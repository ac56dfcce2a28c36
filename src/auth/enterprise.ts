/**
 * Enterprise-managed authorization (A7), an opt-in grant of {@link OAuthClient}: the
 * user signed in to the host through the enterprise identity provider (IdP); that
 * sign-in's identity assertion is exchanged (RFC 8693) at the IdP for an Identity
 * Assertion JWT Authorization Grant (ID-JAG) naming the MCP server's authorization
 * server and the MCP server, and the ID-JAG is a JWT bearer grant (RFC 7523) there.
 * Where the assertion comes from is host code; each credential is checked before it
 * is sent, and every IdP request follows the rules of every OAuth request (https, no
 * redirects, bounded answers).
 *
 * @module
 */
import { ConfigError, OAuthError } from "../errors.js";
import { MAX_OAUTH_STRING_CHARS, MAX_SUBJECT_TOKEN_CHARS, MAX_TOKEN_CHARS } from "../limits.js";
import { checkAssertion } from "./assertion.js";
import { discoverServer } from "./discovery.js";
import { objectOf, optString, reqString } from "./fields.js";
import { assertionRequest, bounded, JWT_BEARER, requireGrant, withScope, type TokenGrant } from "./grants.js";
import { preRegistered, toIdentity } from "./identity.js";
import type { EnterpriseOptions } from "./options.js";
import { secureUrl, type OAuthFetch } from "./request.js";
import { requestToken, tokenRequest } from "./token.js";

/** RFC 8693 §2.1. */
const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
/** The ID-JAG token type (draft-ietf-oauth-identity-assertion-authz-grant). */
const ID_JAG = "urn:ietf:params:oauth:token-type:id-jag";

/**
 * RFC 8693 §2.2.1 as the ID-JAG profile answers it: `issued_token_type` the ID-JAG
 * type, `token_type` `N_A`, the grant in `access_token`.
 *
 * @throws OAuthError (`oauth`, kind `bad_response`, `field` set).
 */
export function parseExchangeResponse(json: unknown, what: string): string {
  const o = objectOf(json, what);
  const jag = reqString(o, "access_token", what, MAX_TOKEN_CHARS);
  if (reqString(o, "issued_token_type", what) !== ID_JAG) throw new OAuthError("bad_response", `${what}: issued_token_type is not the ID-JAG type`, { field: "issued_token_type" });
  if (reqString(o, "token_type", what, 32).toLowerCase() !== "n_a") throw new OAuthError("bad_response", `${what}: token_type is not N_A`, { field: "token_type" });
  optString(o, "scope", what, MAX_OAUTH_STRING_CHARS);
  if (!/^[\x21-\x7e]+$/.test(jag)) throw new OAuthError("bad_response", `${what}: the ID-JAG has characters a form cannot carry`, { field: "access_token" });
  return jag;
}

/** The identity provider's token endpoint and auth methods: as the host gave it, or from its metadata. */
async function idpEndpoint(fetch: OAuthFetch, e: EnterpriseOptions, signal: AbortSignal): Promise<{ tokenEndpoint: string; methods: string[] | undefined }> {
  if (e.tokenEndpoint !== undefined) return { tokenEndpoint: secureUrl(e.tokenEndpoint, "the identity provider's token endpoint").href, methods: undefined };
  // The host named this issuer: its metadata's URLs are measured against it (A8).
  const meta = await discoverServer(fetch, e.issuer, signal);
  return { tokenEndpoint: meta.tokenEndpoint, methods: meta.tokenEndpointAuthMethodsSupported };
}

/**
 * The grant of an enterprise sign-in. `options.identityAssertion` returns the user's
 * identity assertion (an ID token or a SAML assertion) and is called each time a
 * token is needed; the MCP server's authorization server needs a pre-registered
 * client in `clients` (the IdP names it in the ID-JAG).
 *
 * @throws ConfigError (`config`) for missing options; OAuthError (`oauth`, kind
 * `insecure_url`) for an IdP URL that is not https. Its logins throw OAuthError
 * (`oauth`): `assertion_mismatch` (an ID token or ID-JAG for another party, expired;
 * `field` names the claim) before it is sent, `registration`, `grant_unsupported`,
 * `token_error`, `bad_response`, `redirect`, `timeout`.
 *
 * @example
 * ```ts
 * const auth = new OAuthClient({
 *   grant: enterpriseSignIn({
 *     issuer: "https://acme.idp.example",
 *     client: { clientId: "chat-app", clientSecret: secrets.idp },
 *     identityAssertion: async () => ({ token: session.idToken }),
 *   }),
 *   clients: [{ issuer: "https://auth.mcp.example", clientId: "chat-app-at-mcp", clientSecret: secrets.mcp }],
 * });
 * ```
 */
export function enterpriseSignIn(options: EnterpriseOptions): TokenGrant {
  const e = options;
  if (e === undefined || typeof e.identityAssertion !== "function" || typeof e.client?.clientId !== "string") {
    throw new ConfigError("enterpriseSignIn needs { issuer, client: { clientId }, identityAssertion }");
  }
  secureUrl(e.issuer, "the identity provider's issuer");
  if (e.tokenEndpoint !== undefined) secureUrl(e.tokenEndpoint, "the identity provider's token endpoint");
  return {
    kind: "enterprise",
    async obtain(ctx) {
      requireGrant(ctx.meta, ctx.identity, JWT_BEARER);
      // The client the ID-JAG is issued to: the one the host registered at this authorization server.
      const pre = preRegistered(ctx.clients, ctx.identity);
      if (pre === undefined) throw new OAuthError("registration", `enterprise sign-in needs a pre-registered client for ${ctx.identity}`);
      const client = await toIdentity(pre, ctx.meta);
      const idp = await idpEndpoint(ctx.fetch, e, ctx.signal);
      const assertion = await e.identityAssertion(assertionRequest(ctx));
      const type = assertion?.type ?? "id_token";
      if (type !== "id_token" && type !== "saml2") throw new OAuthError("assertion_mismatch", "the identity assertion's type is neither id_token nor saml2", { field: "type" });
      const subject = bounded(assertion?.token, "the identity assertion", MAX_SUBJECT_TOKEN_CHARS);
      // An ID token goes only back to the provider that issued it, for this client.
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
      // Sent only where it belongs: this authorization server, this MCP server, this client.
      checkAssertion(jag, { what: "the ID-JAG", typ: "oauth-id-jag+jwt", audience: [ctx.identity], issuer: e.issuer, resource: ctx.resource, clientId: client.clientId });
      const set = await requestToken(
        { fetch: ctx.fetch, tokenEndpoint: ctx.meta.tokenEndpoint, issuer: ctx.meta.issuer, client, dpop: ctx.dpop, signal: ctx.signal },
        withScope({ grant_type: JWT_BEARER, assertion: jag, resource: ctx.resource }, ctx.scope),
      );
      return { set, clientId: client.clientId };
    },
  };
}
