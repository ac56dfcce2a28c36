/**
 * The options of {@link OAuthClient}: the grant, the interactive step, the
 * clients the host registered, the store, and the named loosenings of a default.
 *
 * @module
 */
import type { Logger } from "../log.js";
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

/** The interactive step: send the user to `url`, resolve with the callback URL the browser came back to. */
export type AuthorizeStep = (step: { url: string; signal: AbortSignal }) => Promise<string>;

/** Options of {@link OAuthClient}. */
export interface OAuthClientOptions {
  /** `authorization_code` (a user, default) or `client_credentials` (a machine client; needs `clients`). */
  grant?: "authorization_code" | "client_credentials";
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
  /** The fetch for OAuth requests. Default: `globalThis.fetch`. */
  fetch?: OAuthFetch;
  /** Receives diagnostics; never tokens, codes, secrets or state values. */
  logger?: Logger;
}
