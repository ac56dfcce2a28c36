/**
 * Discovery (A2): protected resource metadata (RFC 9728: the challenge's URL, then
 * the path-inserted well-known URL, then the root) with the `resource` match check,
 * and authorization server metadata (RFC 8414 / OpenID Connect Discovery, in the
 * spec's order) with the issuer echo check. A server of revision 2025-03-26 that
 * has no resource metadata is served by its own origin (that revision's rule).
 *
 * @module
 */
import { OAuthError } from "../errors.js";
import { MAX_OAUTH_STRING_CHARS } from "../limits.js";
import type { Rec } from "../util/record.js";
import { objectOf, optBool, optString, optStrings, reqString } from "./fields.js";
import { endpointUrl, oauthRequest, type OAuthFetch } from "./request.js";
import { reachOf, type AddressKind } from "./reach.js";

/** Validated protected resource metadata (RFC 9728 §2). */
export interface ResourceMetadata {
  /** The resource identifier, verbatim: sent as `resource` on every request (RFC 8707). */
  resource: string;
  authorizationServers: string[];
  scopesSupported?: string[];
  /** Where it was found. */
  url: string;
}

/** Validated authorization server metadata (RFC 8414 §2). */
export interface ServerMetadata {
  /** The issuer identifier; undefined only for the 2025-03-26 default endpoints. */
  issuer: string | undefined;
  authorizationEndpoint?: string;
  tokenEndpoint: string;
  registrationEndpoint?: string;
  revocationEndpoint?: string;
  /** Checked like the endpoints (A8), though yada fetches no key set. */
  jwksUri?: string;
  scopesSupported?: string[];
  /** OpenID Connect Discovery `prompt_values_supported`. */
  promptValuesSupported?: string[];
  codeChallengeMethodsSupported?: string[];
  tokenEndpointAuthMethodsSupported?: string[];
  grantTypesSupported?: string[];
  /** RFC 9207 §3. */
  issParameterSupported: boolean;
  clientIdMetadataDocumentSupported: boolean;
  dpopSigningAlgValuesSupported?: string[];
}

/** The resource identifier of an MCP endpoint: scheme, host, port and path; no query or fragment (RFC 8707 §2). */
export function resourceOf(url: string | URL): string {
  const u = new URL(url);
  return u.origin + (u.pathname === "/" ? "" : u.pathname);
}

/**
 * Does the metadata's `resource` name this MCP endpoint? Same origin, and its path
 * is the endpoint's path or a parent of it at a segment boundary (a root document
 * may name the origin, the spec's extension of RFC 9728 §3).
 */
export function resourceMatches(resource: string, endpoint: string): boolean {
  let r: URL;
  try {
    r = new URL(resource);
  } catch {
    return false;
  }
  const e = new URL(endpoint);
  if (r.origin !== e.origin || r.search !== "" || r.hash !== "") return false;
  const rp = r.pathname.replace(/\/$/, "");
  const ep = e.pathname.replace(/\/$/, "");
  return rp === "" || rp === ep || ep.startsWith(`${rp}/`);
}

function parseResourceMetadata(json: unknown, url: string, endpoint: string): ResourceMetadata {
  const what = `the protected resource metadata at ${new URL(url).origin}`;
  const o = objectOf(json, what);
  const resource = reqString(o, "resource", what);
  // A3 / RFC 9728 §3.3: metadata for another resource is never used.
  if (!resourceMatches(resource, endpoint)) {
    throw new OAuthError("resource_mismatch", `${what} names another resource than the MCP server ${resourceOf(endpoint)}`);
  }
  const servers = optStrings(o, "authorization_servers", what) ?? [];
  if (servers.length === 0) throw new OAuthError("bad_response", `${what} lists no authorization server`);
  // A8: each authorization server is requested next; it may not aim at the client's network.
  for (const s of servers) endpointUrl(s, what, "authorization_servers", reachOf(endpoint));
  return { resource, authorizationServers: servers, scopesSupported: optStrings(o, "scopes_supported", what), url };
}

/**
 * Finds the protected resource metadata of `endpoint`: `fromHeader` (the
 * challenge's `resource_metadata`), then the path-inserted, then the root
 * well-known URL. Undefined when none answers 200.
 *
 * @throws OAuthError (`oauth`): `resource_mismatch`, `bad_response`,
 * `insecure_url`, `redirect`, `timeout`.
 */
export async function discoverResource(fetcher: OAuthFetch, endpoint: string, fromHeader: string | undefined, signal?: AbortSignal): Promise<ResourceMetadata | undefined> {
  const e = new URL(endpoint);
  const urls: string[] = [];
  if (fromHeader !== undefined) urls.push(endpointUrl(fromHeader, "the MCP server's challenge", "resource_metadata", reachOf(endpoint)).href);
  if (e.pathname !== "/" && e.pathname !== "") urls.push(`${e.origin}/.well-known/oauth-protected-resource${e.pathname.replace(/\/$/, "")}`);
  urls.push(`${e.origin}/.well-known/oauth-protected-resource`);
  for (const url of [...new Set(urls)]) {
    const a = await oauthRequest(fetcher, url, "protected resource metadata", { signal });
    if (a.status === 200) return parseResourceMetadata(a.json, url, endpoint);
  }
  return undefined;
}

/** The metadata URLs of `issuer`, in the spec's priority order ("Authorization Server Metadata Discovery"). */
export function metadataUrls(issuer: string): string[] {
  const u = new URL(issuer);
  const path = u.pathname.replace(/\/$/, "");
  if (path === "") return [`${u.origin}/.well-known/oauth-authorization-server`, `${u.origin}/.well-known/openid-configuration`];
  return [
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
    `${u.origin}/.well-known/openid-configuration${path}`,
    `${u.origin}${path}/.well-known/openid-configuration`,
  ];
}

function endpoint(o: Rec, name: string, what: string, reach: AddressKind): string | undefined {
  const v = optString(o, name, what, MAX_OAUTH_STRING_CHARS);
  return v === undefined ? undefined : endpointUrl(v, what, name, reach).href;
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/**
 * Reads validated metadata; `issuer` is what the echo must equal (`legacy`: only its
 * origin, the 2025-03-26 rule). Every URL in it is checked against `reach`, the kind
 * of the MCP server's host (A8; default: the issuer's).
 */
export function parseServerMetadata(json: unknown, issuer: string, what: string, legacy = false, reach: AddressKind = reachOf(issuer)): ServerMetadata {
  const o = objectOf(json, what);
  const echoed = reqString(o, "issuer", what);
  // RFC 8414 §3.3: identical to the issuer the URL was built from; else the metadata is not used (mix-up defence).
  // Revision 2025-03-26 fetched it from the server's origin, whatever its issuer's path: the origin must match.
  const same = legacy ? sameOrigin(echoed, issuer) : echoed === issuer;
  if (!same) throw new OAuthError("issuer_mismatch", `${what} names another issuer than the one it was fetched for`);
  endpointUrl(echoed, what, "issuer", reach);
  const token = endpoint(o, "token_endpoint", what, reach);
  if (token === undefined) throw new OAuthError("bad_response", `${what}: token_endpoint is missing`, { field: "token_endpoint" });
  return {
    issuer: echoed,
    authorizationEndpoint: endpoint(o, "authorization_endpoint", what, reach),
    tokenEndpoint: token,
    registrationEndpoint: endpoint(o, "registration_endpoint", what, reach),
    revocationEndpoint: endpoint(o, "revocation_endpoint", what, reach),
    jwksUri: endpoint(o, "jwks_uri", what, reach),
    scopesSupported: optStrings(o, "scopes_supported", what),
    promptValuesSupported: optStrings(o, "prompt_values_supported", what),
    codeChallengeMethodsSupported: optStrings(o, "code_challenge_methods_supported", what),
    tokenEndpointAuthMethodsSupported: optStrings(o, "token_endpoint_auth_methods_supported", what),
    grantTypesSupported: optStrings(o, "grant_types_supported", what),
    issParameterSupported: optBool(o, "authorization_response_iss_parameter_supported", what) ?? false,
    clientIdMetadataDocumentSupported: optBool(o, "client_id_metadata_document_supported", what) ?? false,
    dpopSigningAlgValuesSupported: optStrings(o, "dpop_signing_alg_values_supported", what),
  };
}

/**
 * Fetches and validates the metadata of `issuer`, trying each URL of
 * {@link metadataUrls} until one answers 200. `reach` is the kind of the MCP
 * server's host (A8; default: the issuer's, for an issuer the host configured).
 *
 * @throws OAuthError (`oauth`): `discovery` when none does; `issuer_mismatch`,
 * `bad_response`, `insecure_url`, `private_address`, `redirect`, `timeout`.
 */
export async function discoverServer(fetcher: OAuthFetch, issuer: string, signal?: AbortSignal, reach: AddressKind = reachOf(issuer)): Promise<ServerMetadata> {
  endpointUrl(issuer, "the authorization server", "issuer", reach);
  for (const url of metadataUrls(issuer)) {
    const a = await oauthRequest(fetcher, url, "authorization server metadata", { signal });
    if (a.status === 200) return parseServerMetadata(a.json, issuer, `the authorization server metadata of ${new URL(issuer).origin}`, false, reach);
  }
  throw new OAuthError("discovery", `the authorization server ${new URL(issuer).origin} publishes no metadata at any well-known URL`);
}

/**
 * Revision 2025-03-26, for a server without resource metadata: its origin is the
 * authorization server; metadata at the origin's well-known URL, else the default
 * endpoints `/authorize`, `/token` and `/register` at the origin.
 */
export async function discoverLegacy(fetcher: OAuthFetch, endpoint: string, signal?: AbortSignal): Promise<ServerMetadata> {
  const origin = new URL(endpoint).origin;
  const a = await oauthRequest(fetcher, `${origin}/.well-known/oauth-authorization-server`, "authorization server metadata", { signal });
  if (a.status === 200) return parseServerMetadata(a.json, origin, `the authorization server metadata of ${origin}`, true, reachOf(endpoint));
  return {
    issuer: undefined,
    authorizationEndpoint: `${origin}/authorize`,
    tokenEndpoint: `${origin}/token`,
    registrationEndpoint: `${origin}/register`,
    issParameterSupported: false,
    clientIdMetadataDocumentSupported: false,
    // That revision makes PKCE S256 mandatory for every server.
    codeChallengeMethodsSupported: ["S256"],
  };
}
