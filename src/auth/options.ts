/**
 * The options of {@link OAuthClient}: the grant, the interactive step, the
 * clients the host registered, the store, and the named loosenings of a default.
 *
 * @module
 */
import type { Logger } from "../log.js";
import type { TokenGrant } from "./grants.js";
import type { SigningAlg } from "./jwt.js";
import type { OAuthFetch } from "./request.js";
import type { TokenStore } from "./store.js";
import type { TokenAuthMethod } from "./token.js";

/** A client the host registered with an authorization server beforehand (A4). */
export interface PreRegisteredClient {
  /** The issuer it is registered with; omitted: any issuer the server names. */
  issuer?: string;
  clientId: string;
  clientSecret?: string;
  /** Default: `client_secret_basic` (or `_post` if only that is offered) with a secret, `none` without, `private_key_jwt` with a key. */
  authMethod?: TokenAuthMethod;
  /** PKCS #8 PEM private key, for `private_key_jwt`. */
  privateKeyPem?: string;
  /** Default `ES256`. */
  signingAlg?: SigningAlg;
}

/** What a host's assertion source is told about the request the assertion is for (A7). */
export interface AssertionRequest {
  /** The MCP server's authorization server (its issuer; for a server without metadata, its origin). */
  issuer: string;
  /** That authorization server's token endpoint, where the assertion is sent. */
  tokenEndpoint: string;
  /** The MCP server's resource identifier (RFC 8707). */
  resource: string;
  /** The scope requested, when there is one. */
  scope?: string;
  /** Aborted when the request that needs the token is. */
  signal: AbortSignal;
}

/**
 * Workload identity federation (A7), what `workloadIdentity` takes: returns the JWT the
 * workload's platform issued it (a Kubernetes projected service account token, a cloud provider's identity
 * token, a SPIFFE JWT-SVID), whose `aud` names the authorization server (its issuer, or
 * its token endpoint on the issuer's origin). Called each time a token is needed.
 */
export type WorkloadTokenSource = (request: AssertionRequest) => Promise<string>;

/** An identity assertion from the enterprise identity provider's single sign-on (A7). */
export interface IdentityAssertion {
  /** The assertion: an OpenID Connect ID token, or a base64url SAML 2.0 assertion. */
  token: string;
  /** Default `id_token`. */
  type?: "id_token" | "saml2";
}

/**
 * Enterprise-managed authorization (A7), the options of `enterpriseSignIn`: the
 * identity provider the user signed in to the host with, and how to get the user's
 * identity assertion from that sign-in.
 */
export interface EnterpriseOptions {
  /** The identity provider's issuer (https); its metadata gives the token endpoint. */
  issuer: string;
  /** Its token endpoint, when the host knows it (skips the metadata request). */
  tokenEndpoint?: string;
  /** This host's client at the identity provider (the one its single sign-on uses). */
  client: Omit<PreRegisteredClient, "issuer">;
  /**
   * The signed-in user's identity assertion. Called each time a token is needed; an ID
   * token's `iss` must be the identity provider, its `aud` the client above, and it
   * must not have expired (checked before it is sent).
   */
  identityAssertion: (request: AssertionRequest) => Promise<IdentityAssertion>;
}

/** The interactive step: send the user to `url`, resolve with the callback URL the browser came back to. */
export type AuthorizeStep = (step: { url: string; signal: AbortSignal }) => Promise<string>;

/** Options of {@link OAuthClient}. */
export interface OAuthClientOptions {
  /**
   * How tokens are obtained:
   * - `authorization_code` (default): a user logs in through the interactive step;
   * - `client_credentials`: a machine client (needs `clients`);
   * - a grant that needs no browser, an opt-in module: `workloadIdentity(source)` (a
   *   workload's platform JWT as a JWT bearer grant) or `enterpriseSignIn(options)`
   *   (the user's enterprise sign-in exchanged for an ID-JAG, then a JWT bearer grant).
   */
  grant?: "authorization_code" | "client_credentials" | TokenGrant;
  /** Where the authorization server sends the browser back (authorization code only). */
  redirectUri?: string;
  /** The interactive step. Omitted: a needed login fails with kind `interaction_required` carrying the URL. */
  authorize?: AuthorizeStep;
  /** Pre-registered clients, tried first (A4). */
  clients?: readonly PreRegisteredClient[];
  /** An https URL of this client's metadata document, used where the server supports them (A4). */
  clientMetadataUrl?: string;
  /** `client_name` for dynamic registration. Default `"yada"`. */
  clientName?: string;
  /** Default: `native` for a loopback redirect URI, else `web`. */
  applicationType?: "native" | "web";
  /** Where clients, tokens and open flows live. Default: a {@link MemoryTokenStore}. */
  store?: TokenStore;
  /** Bind tokens to a DPoP key (RFC 9449). */
  dpop?: boolean;
  /**
   * Keep the DPoP key in `store` (under the key `dpop`, as a private JWK), so that a
   * restarted client binds to the same key and its DPoP-bound refresh token stays
   * usable. Default false: the key lives in memory only, and a restart needs a new
   * login. The store then holds the key beside the tokens bound to it: protect it as
   * a credential (the Node entry's `FileTokenStore` writes mode 0600).
   */
  persistDpopKey?: boolean;
  /**
   * Issuers known to support PKCE S256 although their metadata does not say so.
   * Without its issuer here, a server that does not advertise S256 is refused (A3).
   */
  pkceWithoutMetadata?: readonly string[];
  /**
   * Bound on the interactive step, in ms. Default `OAUTH_INTERACTION_TIMEOUT_MS`. The
   * step's time is not counted against a handshake, setup or call bound (A2).
   */
  interactionTimeoutMs?: number;
  /** Bound on each OAuth HTTP request, in ms. Default `OAUTH_REQUEST_TIMEOUT_MS`. */
  requestTimeoutMs?: number;
  /**
   * The fetch for every OAuth request (discovery, registration, token, identity
   * provider). Default: `globalThis.fetch`. It is where host names are resolved: a host
   * that must not reach its own network pins DNS here (A8; see the OAuth guide).
   */
  fetch?: OAuthFetch;
  /** Receives diagnostics; never tokens, codes, secrets or state values. */
  logger?: Logger;
}
