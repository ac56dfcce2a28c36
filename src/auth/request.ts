/**
 * Every HTTP request of the OAuth layer goes through {@link oauthRequest}: the URL
 * must be https (http only on loopback, A3), redirects are never followed
 * (`redirect: "manual"`, A3), the answer is bounded in time and size (A2), and a
 * JSON body is decoded into `unknown` for the caller's validating parse.
 *
 * @module
 */
import { OAuthError } from "../errors.js";
import { MAX_OAUTH_RESPONSE_BYTES, MAX_OAUTH_STRING_CHARS, OAUTH_REQUEST_TIMEOUT_MS } from "../limits.js";
import { concatBytes } from "../util/bytes.js";
import { addressKind, checkReach, type AddressKind } from "./reach.js";

/** The `fetch` the OAuth layer calls. */
export type OAuthFetch = (input: string, init: RequestInit) => Promise<Response>;

const TIMEOUT = Symbol("oauth request timeout");

/** `fetcher` whose OAuth requests are bounded by `ms` instead of `OAUTH_REQUEST_TIMEOUT_MS`. */
export function withTimeout(fetcher: OAuthFetch, ms: number): OAuthFetch {
  const f: OAuthFetch & { [TIMEOUT]?: number } = (input, init) => fetcher(input, init);
  f[TIMEOUT] = ms;
  return f;
}

/** Is `host` (as URL.hostname gives it) a loopback address? */
export function isLoopbackHost(host: string): boolean {
  return addressKind(host) === "loopback";
}

/**
 * Parses `value` as an absolute URL an OAuth client may talk to: https, or http on a
 * loopback host (A3; OAuth 2.1 §1.5 "Communication Security"), no user:password part,
 * no fragment. `field` names the metadata field it came from, for the error.
 *
 * @throws OAuthError (`oauth`, kind `insecure_url` or `bad_response`).
 */
export function secureUrl(value: unknown, what: string, field?: string): URL {
  const f = field === undefined ? {} : { field };
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_OAUTH_STRING_CHARS) {
    throw new OAuthError("bad_response", `${what} is not a URL of 1 to ${MAX_OAUTH_STRING_CHARS} characters`, f);
  }
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new OAuthError("bad_response", `${what} is not an absolute URL`, f);
  }
  if (u.protocol !== "https:" && !(u.protocol === "http:" && isLoopbackHost(u.hostname))) {
    throw new OAuthError("insecure_url", `${what} (${u.origin}) is not https; http is allowed on loopback only`, f);
  }
  if (u.username !== "" || u.password !== "") throw new OAuthError("bad_response", `${what} carries a user:password part`, f);
  if (u.hash !== "") throw new OAuthError("bad_response", `${what} carries a fragment`, f);
  return u;
}

/**
 * A URL taken from the field `field` of a server's document or challenge (A8):
 * {@link secureUrl}, then {@link checkReach} against the kind of the MCP server's
 * host (`reach`).
 *
 * @throws OAuthError (`oauth`): `insecure_url`, `private_address`, `bad_response`, each with `field`.
 */
export function endpointUrl(value: unknown, what: string, field: string, reach: AddressKind): URL {
  const u = secureUrl(value, `${what}: ${field}`, field);
  checkReach(u, field, what, reach);
  return u;
}

/** What {@link oauthRequest} returns. */
export interface OAuthAnswer {
  status: number;
  headers: Headers;
  /** The decoded JSON body; undefined when the body was empty or not JSON. */
  json: unknown;
  /** Whether the media type was application/json (or a +json type). */
  isJson: boolean;
}

/** Options of one request. */
export interface OAuthRequestOptions {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** Aborts the request (the caller's signal); the time bound applies regardless. */
  signal?: AbortSignal;
  timeoutMs?: number;
  maxBytes?: number;
}

/**
 * One OAuth HTTP request: URL checked by {@link secureUrl}, `redirect: "manual"`,
 * answer read within `timeoutMs` (default `OAUTH_REQUEST_TIMEOUT_MS`) and
 * `maxBytes` (default `MAX_OAUTH_RESPONSE_BYTES`).
 *
 * @throws OAuthError (`oauth`): `insecure_url`, `redirect` (any 3xx or opaque
 * redirect), `timeout`, `bad_response` (oversized body), `http_status` (the
 * request itself failed).
 */
export async function oauthRequest(fetcher: OAuthFetch, url: string, what: string, options: OAuthRequestOptions = {}): Promise<OAuthAnswer> {
  const u = secureUrl(url, what);
  const timeoutMs = options.timeoutMs ?? (fetcher as { [TIMEOUT]?: number })[TIMEOUT] ?? OAUTH_REQUEST_TIMEOUT_MS;
  const max = options.maxBytes ?? MAX_OAUTH_RESPONSE_BYTES;
  const controller = new AbortController();
  let timedOut = false;
  // A2: the bound holds whatever the fetch does with the signal (a host's fetch may drop it):
  // the request and each read of its answer race this promise, which rejects at the deadline or on abort.
  let stop: (e: unknown) => void = () => {};
  const stopped = new Promise<never>((_, reject) => (stop = reject));
  stopped.catch(() => {});
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
    stop(new Error("deadline"));
  }, timeoutMs);
  const onAbort = (): void => {
    controller.abort();
    stop(new Error("aborted"));
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  const where = `${what} at ${u.origin}${u.pathname}`;
  const ended = (e: unknown, what: string): OAuthError | undefined => {
    if (timedOut) return new OAuthError("timeout", `${where} did not ${what} within ${timeoutMs} ms`);
    if (options.signal?.aborted) return new OAuthError("timeout", `${where} was cancelled`, { cause: e });
    return undefined;
  };
  try {
    let res: Response;
    const init: RequestInit = { method: options.method ?? "GET", headers: { accept: "application/json", ...options.headers }, body: options.body, redirect: "manual", signal: controller.signal };
    // A fetch that throws instead of rejecting fails the same way.
    const sent = new Promise<Response>((resolve) => resolve(fetcher(u.href, init)));
    try {
      res = await Promise.race([sent, stopped]);
    } catch (e) {
      // An answer that comes after the deadline is not read.
      sent.then((late) => late.body?.cancel().catch(() => {}), () => {});
      throw ended(e, "answer") ?? new OAuthError("http_status", `${where} failed: ${e instanceof Error ? e.message.slice(0, 200) : "unknown error"}`, { cause: e });
    }
    if (res.type === "opaqueredirect" || res.status === 0 || (res.status >= 300 && res.status < 400)) {
      await res.body?.cancel().catch(() => {});
      throw new OAuthError("redirect", `${where} answered with a redirect (HTTP ${res.status}), which is never followed`, { status: res.status });
    }
    const bytes = await readBounded(res, max, where, stopped, (e) => ended(e, "finish its answer"));
    const type = (res.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
    const isJson = type === "application/json" || type.endsWith("+json");
    let json: unknown;
    if (bytes.length > 0) {
      try {
        json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
      } catch {
        json = undefined;
      }
    }
    return { status: res.status, headers: res.headers, json, isJson };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}

async function readBounded(res: Response, max: number, where: string, stopped: Promise<never>, ended: (e: unknown) => OAuthError | undefined): Promise<Uint8Array> {
  if (res.body === null) return new Uint8Array(0);
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        const read = reader.read();
        read.catch(() => {});
        r = await Promise.race([read, stopped]);
      } catch (e) {
        throw ended(e) ?? new OAuthError("http_status", `${where}: the answer broke off`, { cause: e });
      }
      if (r.done) return concatBytes(parts);
      total += r.value.length;
      if (total > max) throw new OAuthError("bad_response", `${where} answered more than ${max} bytes`);
      parts.push(r.value);
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** Base64url without padding (RFC 7515 §2). */
export function base64url(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i] as number);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** `n` random bytes, base64url: a PKCE verifier, a state, a jti (crypto.getRandomValues). */
export function randomToken(n = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(n)));
}
