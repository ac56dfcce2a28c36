/**
 * Workload identity federation (A7), an opt-in grant of {@link OAuthClient}: the JWT
 * a workload's platform issued it (a Kubernetes projected service account token, a
 * cloud identity token, a SPIFFE JWT-SVID) sent as a JWT bearer grant (RFC 7523
 * §2.1) to the MCP server's authorization server. No browser, no registration, no
 * client secret. The JWT is checked before it is sent: its `aud` must name that
 * authorization server, its `exp` must not have passed.
 *
 * @module
 */
import { ConfigError } from "../errors.js";
import { MAX_TOKEN_CHARS } from "../limits.js";
import { checkAssertion } from "./assertion.js";
import { assertionRequest, bounded, JWT_BEARER, requireGrant, withScope, type TokenGrant } from "./grants.js";
import { preRegistered, toIdentity } from "./identity.js";
import type { WorkloadTokenSource } from "./options.js";
import { requestToken } from "./token.js";

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/**
 * The grant of a workload: `workloadToken` returns its platform JWT, and is called
 * each time a token is needed (platforms rotate it). No client authentication, unless
 * the host pre-registered a client (`clients`) for that authorization server.
 *
 * @throws ConfigError (`config`) when `workloadToken` is not a function. Its logins
 * throw OAuthError (`oauth`): `assertion_mismatch` (`field`: `aud`, `exp`, `jwt`)
 * before anything is sent, `grant_unsupported`, `token_error` (not retried).
 *
 * @example
 * ```ts
 * // readPlatformToken: the host's reader of the token its platform mounted (and rotates).
 * const auth = new OAuthClient({ grant: workloadIdentity(async () => readPlatformToken()) });
 * ```
 */
export function workloadIdentity(workloadToken: WorkloadTokenSource): TokenGrant {
  if (typeof workloadToken !== "function") throw new ConfigError("workloadIdentity needs a function returning the workload's JWT");
  return {
    kind: "workload_identity",
    async obtain(ctx) {
      requireGrant(ctx.meta, ctx.identity, JWT_BEARER);
      const raw = await workloadToken(assertionRequest(ctx));
      const jwt = bounded(typeof raw === "string" ? raw.trim() : raw, "the workload token", MAX_TOKEN_CHARS);
      // Only to the authorization server it was made for: a hostile MCP server may name another. Its token
      // endpoint counts as its name only on its issuer's origin: a hostile issuer's metadata may name
      // another server's token endpoint, which would then mint a token for the hostile server.
      checkAssertion(jwt, { what: "the workload token", audience: [ctx.identity, ...(sameOrigin(ctx.meta.tokenEndpoint, ctx.identity) ? [ctx.meta.tokenEndpoint] : [])] });
      const pre = preRegistered(ctx.clients, ctx.identity);
      const client = pre === undefined ? undefined : await toIdentity(pre, ctx.meta);
      const set = await requestToken(
        { fetch: ctx.fetch, tokenEndpoint: ctx.meta.tokenEndpoint, issuer: ctx.meta.issuer, client, dpop: ctx.dpop, signal: ctx.signal },
        withScope({ grant_type: JWT_BEARER, assertion: jwt, resource: ctx.resource }, ctx.scope),
      );
      return { set, clientId: client?.clientId ?? "" };
    },
  };
}
