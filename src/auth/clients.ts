/**
 * The client a login uses at one authorization server (A4), in the spec's order: a
 * pre-registered client for the issuer, the client this store registered there
 * before, a client ID metadata document when the server supports them, else a new
 * dynamic registration, kept in the store under `client <issuer>`. And the full
 * identity (secret, key) of a flow's client, for its token request. A client is
 * never used at another issuer.
 *
 * @module
 */
import { OAuthError } from "../errors.js";
import type { Logger } from "../log.js";
import type { ServerMetadata } from "./discovery.js";
import { preRegistered, toIdentity } from "./identity.js";
import type { OAuthClientOptions } from "./options.js";
import { checkReach, type AddressKind } from "./reach.js";
import { overwrite, readClient, type ClientRecord } from "./records.js";
import { registerClient } from "./registration.js";
import { isLoopbackHost, type OAuthFetch } from "./request.js";
import type { TokenStore } from "./store.js";
import type { ClientIdentity } from "./token.js";

/** The store key of the client registered at `issuer`. */
export const clientKey = (issuer: string): string => `client ${issuer}`;

/** What finding a client needs of the {@link OAuthClient}. */
export interface ClientDeps {
  options: OAuthClientOptions;
  store: TokenStore;
  fetch: OAuthFetch;
  log: Logger;
}

/**
 * The client for `issuer`: pre-registered, stored, a metadata document (checked
 * against `reach`, A8: the authorization server fetches it), or a new registration.
 *
 * @throws OAuthError (`oauth`): `registration`, `private_address`, `bad_response`, ...
 */
export async function clientFor(d: ClientDeps, issuer: string, meta: ServerMetadata, redirectUri: string, reach: AddressKind, signal: AbortSignal): Promise<{ clientId: string }> {
  const pre = preRegistered(d.options.clients, issuer);
  if (pre !== undefined) return pre;
  const stored = readClient(await d.store.get(clientKey(issuer)));
  if (stored !== undefined && stored.issuer === issuer && stored.redirectUri === redirectUri) return stored;
  const document = d.options.clientMetadataUrl;
  if (meta.clientIdMetadataDocumentSupported && document !== undefined) {
    checkReach(new URL(document), "client_id", "the client ID metadata document", reach);
    return { clientId: document };
  }
  const applicationType = d.options.applicationType ?? (isLoopbackHost(new URL(redirectUri).hostname) ? "native" : "web");
  const reg = await registerClient(d.fetch, meta, { clientName: d.options.clientName ?? "yada", redirectUri, applicationType }, signal);
  const record: ClientRecord = { issuer, ...reg, redirectUri };
  await overwrite(d.store, clientKey(issuer), record);
  d.log("info", `OAuth: registered a client at ${issuer}`);
  return record;
}

/**
 * The full identity (secret, key) of the client `clientId` at `issuer`, for a token request.
 *
 * @throws OAuthError (`oauth`, kind `wrong_issuer`) when it is not registered there.
 */
export async function identityOf(d: ClientDeps, issuer: string, clientId: string): Promise<ClientIdentity> {
  const pre = preRegistered(d.options.clients, issuer);
  if (pre !== undefined && pre.clientId === clientId) return toIdentity(pre, { tokenEndpointAuthMethodsSupported: undefined });
  const stored = readClient(await d.store.get(clientKey(issuer)));
  if (stored !== undefined && stored.clientId === clientId && stored.issuer === issuer) {
    return { clientId, ...(stored.clientSecret !== undefined && { clientSecret: stored.clientSecret }), authMethod: stored.authMethod };
  }
  if (clientId === d.options.clientMetadataUrl) return { clientId, authMethod: "none" };
  throw new OAuthError("wrong_issuer", `the flow's client is not registered at ${issuer}`);
}
