/**
 * DPoP (RFC 9449), an option of {@link OAuthClient}: one ES256 key pair per
 * client (generated with `crypto.subtle`, private key not extractable; with
 * `persistDpopKey` exported once as a JWK for the token store, then re-imported
 * not extractable, and read back from the store by a restarted client), a fresh
 * proof per request carrying `htm`, `htu`, `iat`, a random `jti`, the server's
 * latest nonce for that origin, and `ath` on resource requests.
 *
 * @module
 */
import { OAuthError } from "../errors.js";
import { MAX_OAUTH_STRING_CHARS } from "../limits.js";
import type { Logger } from "../log.js";
import { randomToken } from "./request.js";
import type { TokenStore } from "./store.js";
import { sha256, signJwt } from "./jwt.js";

const NONCE = /^[\x21\x23-\x5b\x5d-\x7e]+$/; // RFC 9449 §8.1: NQCHAR
/** One P-256 coordinate or private scalar, base64url of 32 bytes (RFC 7518 §6.2). */
const COORD = /^[A-Za-z0-9_-]{43}$/;

/** A P-256 private key as a JWK, the form kept in a token store. */
export interface DpopPrivateJwk {
  kty: "EC";
  crv: "P-256";
  x: string;
  y: string;
  d: string;
}

/** `value` read back from a store as a P-256 private JWK, or undefined when it is not one. */
export function readDpopJwk(value: string | undefined): DpopPrivateJwk | undefined {
  if (value === undefined || value.length > 1_024) return undefined;
  let o: unknown;
  try {
    o = JSON.parse(value);
  } catch {
    return undefined;
  }
  if (typeof o !== "object" || o === null) return undefined;
  const j = o as Record<string, unknown>;
  if (j.kty !== "EC" || j.crv !== "P-256") return undefined;
  for (const k of ["x", "y", "d"]) if (typeof j[k] !== "string" || !COORD.test(j[k] as string)) return undefined;
  return { kty: "EC", crv: "P-256", x: j.x as string, y: j.y as string, d: j.d as string };
}

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

  /**
   * A new ES256 key and its private JWK, for a host that keeps the key in its token
   * store; the key in memory is not extractable.
   *
   * @throws OAuthError (`oauth`, kind `dpop`) when the runtime cannot make one.
   */
  static async generateExportable(): Promise<{ key: DpopKey; jwk: DpopPrivateJwk }> {
    let jwk: DpopPrivateJwk | undefined;
    try {
      const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
      jwk = readDpopJwk(JSON.stringify(await crypto.subtle.exportKey("jwk", pair.privateKey)));
    } catch (e) {
      throw new OAuthError("dpop", "no DPoP key could be generated", { cause: e });
    }
    if (jwk === undefined) throw new OAuthError("dpop", "the runtime exported a DPoP key that is not a P-256 JWK");
    return { key: await DpopKey.fromJwk(jwk), jwk };
  }

  /**
   * The key of a stored private JWK, imported not extractable.
   *
   * @throws OAuthError (`oauth`, kind `dpop`) when the runtime refuses the key.
   */
  static async fromJwk(jwk: DpopPrivateJwk): Promise<DpopKey> {
    try {
      const alg = { name: "ECDSA", namedCurve: "P-256" };
      const privateKey = await crypto.subtle.importKey("jwk", { ...jwk, ext: false }, alg, false, ["sign"]);
      const publicKey = await crypto.subtle.importKey("jwk", { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y }, alg, true, ["verify"]);
      return new DpopKey({ privateKey, publicKey }, { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y });
    } catch (e) {
      throw new OAuthError("dpop", "the stored DPoP key could not be imported", { cause: e });
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

/** The store key of a persisted DPoP key. */
export const DPOP_STORE_KEY = "dpop";

/**
 * The DPoP key kept in `store` (`persistDpopKey`): read back and validated, or made
 * and written once with a compare-and-swap (two processes starting at once end with
 * one key). An unusable stored value is replaced. At most 4 tries.
 *
 * @throws OAuthError (`oauth`, kind `dpop`) when the store keeps refusing the write.
 */
export async function storedDpopKey(store: TokenStore, log: Logger): Promise<DpopKey> {
  for (let i = 0; i < 4; i++) {
    const cur = await store.get(DPOP_STORE_KEY);
    const jwk = readDpopJwk(cur?.value);
    if (jwk !== undefined) {
      const key = await DpopKey.fromJwk(jwk).catch(() => undefined);
      if (key !== undefined) return key;
    }
    if (cur !== undefined) log("warn", "OAuth: the stored DPoP key is unusable; a new one replaces it");
    const made = await DpopKey.generateExportable();
    if (await store.set(DPOP_STORE_KEY, JSON.stringify(made.jwk), cur?.version)) return made.key;
  }
  throw new OAuthError("dpop", "the token store kept refusing the DPoP key");
}
