/**
 * The inbox's CSRF tokens (U3): an HMAC-SHA-256 (crypto.subtle) over the approver's
 * tenant and actor, the action the form decides and when the page was served. A
 * token is honoured for `INBOX_CSRF_TTL_MS`, only for the approver it was served to
 * and only for that action: a token taken from one page decides nothing else, and
 * nobody without the key can make one.
 *
 * @module
 */
import type { SigningKey } from "../auth/jwt.js";
import { ValidationError } from "../errors.js";
import { INBOX_CSRF_CLOCK_SKEW_MS, INBOX_CSRF_TTL_MS, MAX_INBOX_CSRF_TOKEN_CHARS, MIN_INBOX_CSRF_SECRET_BYTES } from "../limits.js";
import type { Identity } from "../tools/types.js";

/** Issues and checks the tokens of one inbox. */
export interface CsrfTokens {
  issue(who: Identity, actionId: string, now: number): Promise<string>;
  /** Is `token` one this inbox issued for `who` and `actionId`, within its lifetime? Never throws. */
  verify(token: unknown, who: Identity, actionId: string, now: number): Promise<boolean>;
}

const PURPOSE = "yada-inbox-csrf/1";
const HMAC = { name: "HMAC", hash: "SHA-256" } as const;

function base64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]{43}$/.test(text)) return undefined; // 32 bytes
  const s = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=");
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

const message = (who: Identity, actionId: string, issuedAt: number): Uint8Array<ArrayBuffer> =>
  new TextEncoder().encode(JSON.stringify([PURPOSE, who.tenantId, who.actorId, actionId, issuedAt]));

/** The HMAC key of a secret: raw bytes, a string (its UTF-8 bytes) or an HMAC CryptoKey. @throws ValidationError (`validation`). */
async function importSecret(secret: string | Uint8Array | SigningKey | undefined): Promise<CryptoKey> {
  if (secret === undefined) return crypto.subtle.generateKey(HMAC, false, ["sign", "verify"]) as Promise<CryptoKey>;
  if (typeof secret === "object" && secret !== null && "algorithm" in secret && "usages" in secret) {
    const key = secret as unknown as CryptoKey;
    if (key.algorithm.name !== "HMAC" || !key.usages.includes("sign") || !key.usages.includes("verify")) {
      throw new ValidationError("inbox: csrfSecret as a CryptoKey must be an HMAC key usable to sign and verify");
    }
    return key;
  }
  const bytes = typeof secret === "string" ? new TextEncoder().encode(secret) : secret;
  if (!(bytes instanceof Uint8Array) || bytes.length < MIN_INBOX_CSRF_SECRET_BYTES) {
    throw new ValidationError(`inbox: csrfSecret must be at least ${MIN_INBOX_CSRF_SECRET_BYTES} bytes (MIN_INBOX_CSRF_SECRET_BYTES)`);
  }
  return crypto.subtle.importKey("raw", new Uint8Array(bytes), HMAC, false, ["sign", "verify"]);
}

/** Checks a secret's shape at once (the key itself is made on first use). @throws ValidationError (`validation`). */
export function checkSecret(secret: unknown): void {
  if (secret === undefined) return;
  if (typeof secret === "string") {
    if (new TextEncoder().encode(secret).length < MIN_INBOX_CSRF_SECRET_BYTES) throw new ValidationError(`inbox: csrfSecret must be at least ${MIN_INBOX_CSRF_SECRET_BYTES} bytes (MIN_INBOX_CSRF_SECRET_BYTES)`);
    return;
  }
  if (secret instanceof Uint8Array) {
    if (secret.length < MIN_INBOX_CSRF_SECRET_BYTES) throw new ValidationError(`inbox: csrfSecret must be at least ${MIN_INBOX_CSRF_SECRET_BYTES} bytes (MIN_INBOX_CSRF_SECRET_BYTES)`);
    return;
  }
  if (typeof secret !== "object" || secret === null || !("algorithm" in secret)) throw new ValidationError("inbox: csrfSecret is a string, bytes or an HMAC CryptoKey");
}

/**
 * The tokens of one inbox under `secret`. Without a secret a random key is made for
 * this inbox: tokens then hold only within this instance (a restart, or another
 * instance behind a load balancer, answers an older form as expired).
 */
export function csrfTokens(secret: string | Uint8Array | SigningKey | undefined): CsrfTokens {
  checkSecret(secret);
  let key: Promise<CryptoKey> | undefined;
  const getKey = (): Promise<CryptoKey> => (key ??= importSecret(secret));
  return {
    async issue(who, actionId, now) {
      const at = Math.floor(now);
      const sig = new Uint8Array(await crypto.subtle.sign("HMAC", await getKey(), message(who, actionId, at)));
      return `${at.toString(36)}.${base64url(sig)}`;
    },
    async verify(token, who, actionId, now) {
      if (typeof token !== "string" || token.length > MAX_INBOX_CSRF_TOKEN_CHARS) return false;
      const dot = token.indexOf(".");
      if (dot < 1 || !/^[0-9a-z]{1,11}$/.test(token.slice(0, dot))) return false;
      const at = Number.parseInt(token.slice(0, dot), 36);
      if (!Number.isSafeInteger(at) || now - at > INBOX_CSRF_TTL_MS || at - now > INBOX_CSRF_CLOCK_SKEW_MS) return false;
      const sig = fromBase64url(token.slice(dot + 1));
      if (!sig) return false;
      try {
        // crypto.subtle.verify compares in constant time.
        return await crypto.subtle.verify("HMAC", await getKey(), sig, message(who, actionId, at));
      } catch {
        return false;
      }
    },
  };
}
