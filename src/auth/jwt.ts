/**
 * Compact JWS signing on `crypto.subtle` (RFC 7515): client assertions for
 * `private_key_jwt` (RFC 7523) and DPoP proofs (RFC 9449). ES256 and RS256 only.
 *
 * @module
 */
import { OAuthError } from "../errors.js";
import { base64url } from "./request.js";

/** The JWS algorithms yada signs with. */
export type SigningAlg = "ES256" | "RS256";

const encoder = new TextEncoder();

/**
 * A WebCrypto key as yada holds it: what `crypto.subtle.importKey` returns on every
 * runtime, declared by its shape so the shipped types need no DOM lib (P7).
 */
export interface SigningKey {
  readonly type: string;
  readonly extractable: boolean;
  readonly algorithm: { readonly name: string };
  readonly usages: readonly string[];
}

/** WebCrypto algorithm parameters (an ECDSA or RSASSA import or sign), by their shape (P7). */
export interface WebCryptoParams {
  name: string;
  namedCurve?: string;
  hash?: string;
}

/** WebCrypto parameters of `alg`, for import and for sign. */
export function algParams(alg: SigningAlg): { importAs: WebCryptoParams; sign: WebCryptoParams } {
  return alg === "ES256"
    ? { importAs: { name: "ECDSA", namedCurve: "P-256" }, sign: { name: "ECDSA", hash: "SHA-256" } }
    : { importAs: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, sign: { name: "RSASSA-PKCS1-v1_5" } };
}

/**
 * Imports a PKCS #8 PEM private key (`-----BEGIN PRIVATE KEY-----`) for signing
 * with `alg`. The key is not extractable.
 *
 * @throws OAuthError (`oauth`, kind `registration`) when the PEM or the key is invalid.
 */
export async function importPrivateKey(pem: string, alg: SigningAlg): Promise<SigningKey> {
  const m = /-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\s]+)-----END PRIVATE KEY-----/.exec(pem);
  if (!m || m[1] === undefined) throw new OAuthError("registration", "the client's private key is not a PKCS #8 PEM block");
  try {
    const der = Uint8Array.from(atob(m[1].replace(/\s+/g, "")), (c) => c.charCodeAt(0));
    return await crypto.subtle.importKey("pkcs8", der, algParams(alg).importAs, false, ["sign"]);
  } catch (e) {
    throw new OAuthError("registration", `the client's private key cannot be imported for ${alg}`, { cause: e });
  }
}

/** Signs `payload` with `header` as a compact JWS. */
export async function signJwt(header: Record<string, unknown>, payload: Record<string, unknown>, key: SigningKey, alg: SigningAlg): Promise<string> {
  const input = `${base64url(encoder.encode(JSON.stringify({ ...header, alg })))}.${base64url(encoder.encode(JSON.stringify(payload)))}`;
  const sig = new Uint8Array(await crypto.subtle.sign(algParams(alg).sign, key as CryptoKey, encoder.encode(input)));
  return `${input}.${base64url(sig)}`;
}

/** base64url(SHA-256(text)): PKCE S256 challenges (RFC 7636 §4.2) and DPoP `ath` (RFC 9449 §4.2). */
export async function sha256(text: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text))));
}
