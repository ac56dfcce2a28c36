/**
 * DPoP (RFC 9449), an option of {@link OAuthClient}: one ES256 key pair per
 * client (generated with `crypto.subtle`, private key not extractable), a fresh
 * proof per request carrying `htm`, `htu`, `iat`, a random `jti`, the server's
 * latest nonce for that origin, and `ath` on resource requests.
 *
 * @module
 */
import { OAuthError } from "../errors.js";
import { MAX_OAUTH_STRING_CHARS } from "../limits.js";
import { randomToken } from "./request.js";
import { sha256, signJwt } from "./jwt.js";

const NONCE = /^[\x21\x23-\x5b\x5d-\x7e]+$/; // RFC 9449 §8.1: NQCHAR

/** A DPoP key and the nonces servers handed out, per origin. */
export class DpopKey {
  readonly #pair: CryptoKeyPair;
  readonly #jwk: Record<string, unknown>;
  readonly #nonces = new Map<string, string>();

  private constructor(pair: CryptoKeyPair, jwk: Record<string, unknown>) {
    this.#pair = pair;
    this.#jwk = jwk;
  }

  /**
   * A new ES256 key.
   *
   * @throws OAuthError (`oauth`, kind `dpop`) when the runtime cannot make one.
   */
  static async generate(): Promise<DpopKey> {
    try {
      const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"])) as CryptoKeyPair;
      const full = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as Record<string, unknown>;
      return new DpopKey(pair, { kty: full.kty, crv: full.crv, x: full.x, y: full.y });
    } catch (e) {
      throw new OAuthError("dpop", "no DPoP key could be generated", { cause: e });
    }
  }

  /** Keeps the `DPoP-Nonce` a server sent (RFC 9449 §8, §9). Returns true when it is new. */
  noteNonce(url: string, headers: Headers): boolean {
    const n = headers.get("dpop-nonce");
    if (n === null || n.length > MAX_OAUTH_STRING_CHARS || !NONCE.test(n)) return false;
    const origin = new URL(url).origin;
    if (this.#nonces.get(origin) === n) return false;
    this.#nonces.set(origin, n);
    return true;
  }

  /** A proof for one request (RFC 9449 §4.2); `accessToken` adds `ath`. */
  async proof(method: string, url: string, accessToken?: string): Promise<string> {
    const u = new URL(url);
    const payload: Record<string, unknown> = { jti: randomToken(16), htm: method, htu: u.origin + u.pathname, iat: Math.floor(Date.now() / 1000) };
    const nonce = this.#nonces.get(u.origin);
    if (nonce !== undefined) payload.nonce = nonce;
    if (accessToken !== undefined) payload.ath = await sha256(accessToken);
    return signJwt({ typ: "dpop+jwt", jwk: this.#jwk }, payload, this.#pair.privateKey, "ES256");
  }
}
