/**
 * What the inbox reads of a request (U3, U4), each part bounded: the URL's length,
 * the body's size and the time it takes to arrive, the form's fields (each once),
 * and where a state-changing request comes from (`Origin`, `Sec-Fetch-Site`).
 *
 * @module
 */
import { MAX_INBOX_ACCEPT_CHARS, MAX_INBOX_BODY_BYTES, MAX_INBOX_URL_CHARS } from "../limits.js";
import { InboxError } from "./respond.js";

/** The fields of a decision's body, each given once, as text. */
export type Fields = ReadonlyMap<string, string>;

/** Does the client ask for JSON (`Accept: application/json` before, or without, `text/html`)? */
export function wantsJson(request: Request): boolean {
  const accept = (request.headers.get("accept") ?? "").slice(0, MAX_INBOX_ACCEPT_CHARS).toLowerCase();
  const j = accept.indexOf("application/json");
  if (j < 0) return false;
  const h = accept.indexOf("text/html");
  return h < 0 || j < h;
}

/** The request's URL, checked. @throws InboxError 414 past `MAX_INBOX_URL_CHARS`, 400 when it does not parse. */
export function requestUrl(request: Request): URL {
  if (request.url.length > MAX_INBOX_URL_CHARS) throw new InboxError(414, "too_large", `the URL is longer than ${MAX_INBOX_URL_CHARS} characters`);
  try {
    return new URL(request.url);
  } catch {
    throw new InboxError(400, "bad_request", "the URL does not parse");
  }
}

/**
 * Refuses a state-changing request another site may have made.
 *
 * - A browser that sends `Sec-Fetch-Site` (every current one does, and no page can set
 *   it) must say `same-origin`; an `Origin` it sends must then be one of `origins`, or
 *   `null`: the inbox's own `Referrer-Policy: no-referrer` makes a browser send
 *   `Origin: null` with the inbox's own forms.
 * - Without `Sec-Fetch-Site`, an `Origin` must be one of `origins` (`null`, the origin
 *   of a sandboxed frame or a `data:` page, is refused).
 * - A client that sends neither (not a browser) still needs the CSRF token.
 *
 * @throws InboxError 403 (`cross_origin`).
 */
export function checkOrigin(request: Request, origins: ReadonlySet<string>): void {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin") throw new InboxError(403, "cross_origin", "the request came from another site; nothing was changed");
  const origin = request.headers.get("origin");
  if (origin !== null && !origins.has(origin) && !(site === "same-origin" && origin === "null")) {
    throw new InboxError(403, "cross_origin", "the request came from another origin; nothing was changed");
  }
}

/** The body as text: at most `MAX_INBOX_BODY_BYTES`, arriving within `timeoutMs`. */
async function readBody(request: Request, timeoutMs: number): Promise<string> {
  const declared = request.headers.get("content-length");
  if (declared !== null && !(Number(declared) <= MAX_INBOX_BODY_BYTES)) throw new InboxError(413, "too_large", `the body is larger than ${MAX_INBOX_BODY_BYTES} bytes`);
  if (!request.body) return "";
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new InboxError(408, "timeout", `the body did not arrive within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), late]);
      if (done) break;
      size += value.byteLength;
      if (size > MAX_INBOX_BODY_BYTES) throw new InboxError(413, "too_large", `the body is larger than ${MAX_INBOX_BODY_BYTES} bytes`);
      parts.push(value);
    }
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => undefined);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(all);
  } catch {
    throw new InboxError(400, "bad_request", "the body is not UTF-8");
  }
}

/**
 * The fields of a decision: a form (`application/x-www-form-urlencoded`, what the
 * pages post) or a JSON object of strings (what a JSON client posts). A field given
 * twice is refused, so no part of the request can say two things.
 *
 * @throws InboxError 415 for another type, 413 / 408 for the body's bounds (`MAX_INBOX_BODY_BYTES`,
 * `timeoutMs`), 400 for a malformed body.
 */
export async function readFields(request: Request, timeoutMs: number): Promise<Fields> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded" && type !== "application/json") {
    throw new InboxError(415, "unsupported_media_type", "a decision is a form (application/x-www-form-urlencoded) or JSON");
  }
  const text = await readBody(request, timeoutMs);
  const out = new Map<string, string>();
  if (type === "application/json") {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new InboxError(400, "bad_request", "the body is not JSON");
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw new InboxError(400, "bad_request", "the body is not a JSON object");
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== "string") throw new InboxError(400, "bad_request", "every field of a decision is a string");
      out.set(k, v);
    }
    return out;
  }
  for (const [k, v] of new URLSearchParams(text)) {
    if (out.has(k)) throw new InboxError(400, "bad_request", "a field of the form is given twice");
    out.set(k, v);
  }
  return out;
}
