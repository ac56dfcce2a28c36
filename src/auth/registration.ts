/**
 * Client registration (A4) in the spec's order: a pre-registered client for the
 * issuer, then a client ID metadata document when the server supports them, then
 * dynamic registration (RFC 7591) with `application_type`. Registered clients are
 * stored per issuer and never used at another one.
 *
 * @module
 */
import { OAuthError } from "../errors.js";
import { objectOf, optString, reqString } from "./fields.js";
import type { ServerMetadata } from "./discovery.js";
import { oauthRequest, secureUrl, type OAuthFetch } from "./request.js";
import type { TokenAuthMethod } from "./token.js";

/** The auth method for a client with (or without) a secret, as the server's metadata allows (RFC 8414 §2 default: client_secret_basic). */
export function pickAuthMethod(meta: Pick<ServerMetadata, "tokenEndpointAuthMethodsSupported">, hasSecret: boolean): TokenAuthMethod {
  const supported = meta.tokenEndpointAuthMethodsSupported;
  if (!hasSecret) return "none";
  if (supported === undefined || supported.includes("client_secret_basic")) return "client_secret_basic";
  if (supported.includes("client_secret_post")) return "client_secret_post";
  return "client_secret_basic";
}

/** What dynamic registration sends. */
export interface RegistrationRequest {
  clientName: string;
  redirectUri: string;
  applicationType: "native" | "web";
  scope?: string;
}

/** The result of a registration. */
export interface Registered {
  clientId: string;
  clientSecret?: string;
  authMethod: TokenAuthMethod;
}

/**
 * Registers a client at `meta.registrationEndpoint` (RFC 7591 §3): a public
 * client (`none`) when the server allows it, else one with a secret.
 *
 * @throws OAuthError (`oauth`): `registration` when the server has no
 * registration endpoint or refused; `bad_response` for a malformed answer.
 */
export async function registerClient(fetcher: OAuthFetch, meta: ServerMetadata, req: RegistrationRequest, signal?: AbortSignal): Promise<Registered> {
  const endpoint = meta.registrationEndpoint;
  if (endpoint === undefined) throw new OAuthError("registration", `the authorization server ${meta.issuer ?? ""} offers no way to register a client: configure a pre-registered client`);
  const supported = meta.tokenEndpointAuthMethodsSupported;
  const requested: TokenAuthMethod = supported === undefined || supported.includes("none") ? "none" : supported.includes("client_secret_basic") ? "client_secret_basic" : "client_secret_post";
  const body = {
    client_name: req.clientName,
    redirect_uris: [req.redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: requested,
    // Spec "Application Type and Redirect URI Constraints": always sent.
    application_type: req.applicationType,
    ...(req.scope !== undefined && { scope: req.scope }),
  };
  const origin = new URL(endpoint).origin;
  const a = await oauthRequest(fetcher, endpoint, "the registration endpoint", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal });
  if (a.status !== 201 && a.status !== 200) throw new OAuthError("registration", `the registration endpoint of ${origin} refused the client (HTTP ${a.status})`, { status: a.status });
  const what = `the registration answer of ${origin}`;
  const o = objectOf(a.json, what);
  const clientId = reqString(o, "client_id", what);
  const clientSecret = optString(o, "client_secret", what);
  const method = optString(o, "token_endpoint_auth_method", what);
  const authMethod: TokenAuthMethod =
    method === "none" || method === "client_secret_basic" || method === "client_secret_post" ? method : clientSecret === undefined ? "none" : pickAuthMethod(meta, true);
  if (authMethod !== "none" && clientSecret === undefined) throw new OAuthError("bad_response", `${what}: ${authMethod} without a client_secret`);
  return { clientId, ...(clientSecret !== undefined && { clientSecret }), authMethod };
}

/** Checks a client ID metadata document URL: https with a path (spec "Client ID Metadata Documents"). */
export function checkMetadataDocumentUrl(url: string): string {
  const u = secureUrl(url, "the client ID metadata document URL");
  if (u.protocol !== "https:" || u.pathname === "/" || u.pathname === "") throw new OAuthError("insecure_url", "the client ID metadata document URL must be https with a path");
  return u.href;
}
