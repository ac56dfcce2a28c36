/**
 * A client's identity at one authorization server (A4): the pre-registered client
 * for an issuer, and the credentials a token request authenticates with.
 *
 * @module
 */
import type { ServerMetadata } from "./discovery.js";
import { importPrivateKey } from "./jwt.js";
import type { PreRegisteredClient } from "./options.js";
import { pickAuthMethod } from "./registration.js";
import type { ClientIdentity } from "./token.js";

/** The client the host registered at `issuer`: one named for it, else one named for no issuer. */
export function preRegistered(list: readonly PreRegisteredClient[] | undefined, issuer: string): PreRegisteredClient | undefined {
  return list?.find((c) => c.issuer === issuer) ?? list?.find((c) => c.issuer === undefined);
}

/**
 * The credentials of a pre-registered client: its key for `private_key_jwt`, else its
 * secret with the method the server's metadata allows (or the one it names).
 *
 * @throws OAuthError (`oauth`, kind `registration`) when its key cannot be imported.
 */
export async function toIdentity(pre: Omit<PreRegisteredClient, "issuer">, meta: Pick<ServerMetadata, "tokenEndpointAuthMethodsSupported">): Promise<ClientIdentity> {
  const alg = pre.signingAlg ?? "ES256";
  if (pre.privateKeyPem !== undefined) {
    return { clientId: pre.clientId, authMethod: "private_key_jwt", privateKey: await importPrivateKey(pre.privateKeyPem, alg), signingAlg: alg };
  }
  const authMethod = pre.authMethod ?? pickAuthMethod(meta, pre.clientSecret !== undefined);
  return { clientId: pre.clientId, ...(pre.clientSecret !== undefined && { clientSecret: pre.clientSecret }), authMethod };
}
