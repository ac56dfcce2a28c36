/**
 * The inbox's answers (U2): every response, HTML, JSON, redirect or error, carries
 * the same strict headers. The Content-Security-Policy allows nothing but the one
 * inline style sheet, by its hash: no script (none is needed to approve), no
 * image, no frame, no `<base>`; forms may post only to the inbox's own origin;
 * no other site may frame the page. Nothing is cached, no referrer leaves.
 *
 * @module
 */
import { STYLE } from "./style.js";

/** An error an inbox route answers with: an HTTP status and a stable code for JSON clients. */
export class InboxError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string>;
  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

let styleHash: Promise<string> | undefined;

/** The CSP source of the style sheet: `'sha256-<base64>'`, computed once. */
export function styleSource(): Promise<string> {
  return (styleHash ??= crypto.subtle.digest("SHA-256", new TextEncoder().encode(STYLE)).then((d) => {
    let s = "";
    for (const b of new Uint8Array(d)) s += String.fromCharCode(b);
    return `'sha256-${btoa(s)}'`;
  }));
}

/** The headers of every answer. */
export async function securityHeaders(): Promise<Record<string, string>> {
  return {
    "content-security-policy": `default-src 'none'; style-src ${await styleSource()}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    vary: "Accept",
  };
}

/** An answer with the security headers, `body` text of `type`. */
export async function answer(status: number, type: string | undefined, body: string | null, extra: Record<string, string> = {}): Promise<Response> {
  const headers = { ...(await securityHeaders()), ...extra };
  if (type) headers["content-type"] = type;
  return new Response(body, { status, headers });
}

export const html = (status: number, body: string, extra?: Record<string, string>): Promise<Response> => answer(status, "text/html; charset=utf-8", body, extra);

/** JSON with the security headers. `\u2028`, `\u2029` and `<` are escaped, so the text is safe in any context it is pasted into. */
export const json = (status: number, value: unknown, extra?: Record<string, string>): Promise<Response> =>
  answer(status, "application/json; charset=utf-8", JSON.stringify(value).replace(/[<\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`), extra);

/** A 303 to `location` (after a decision: the action's page shows what it became). */
export const seeOther = (location: string): Promise<Response> => answer(303, undefined, null, { location });
