/**
 * The header rules of the Streamable HTTP transport: which custom headers a host
 * may add (H10), and how the modern revision mirrors body fields into headers
 * (`Mcp-Method`, `Mcp-Name`, spec 2026-07-28 "Request Metadata").
 *
 * @module
 */
import { ConfigError } from "../errors.js";
import { MAX_CUSTOM_HEADERS, MAX_HEADER_VALUE_CHARS } from "../limits.js";

/**
 * Header names a host may not set (H10): the ones the transport or the HTTP client
 * sets itself. H10 lists the first seven; the rest are the MCP headers this
 * transport writes, by the same rule.
 */
export const RESERVED_HEADER_NAMES: readonly string[] = [
  "accept",
  "content-type",
  "mcp-session-id",
  "content-length",
  "transfer-encoding",
  "connection",
  "host",
  "mcp-protocol-version",
  "last-event-id",
  "mcp-method",
  "mcp-name",
];

// RFC 9110 §5.6.2: token = 1*tchar; tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*"
// / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Visible ASCII (0x21-0x7E) with inner spaces or tabs ("Bearer abc"); leading or
// trailing whitespace is refused rather than silently trimmed by fetch.
const VISIBLE_VALUE = /^(?:[\x21-\x7e](?:[\x20\x09\x21-\x7e]*[\x21-\x7e])?)?$/;

/** A validated list of custom headers; names kept as given, compared lowercased. */
export type HeaderList = ReadonlyArray<readonly [name: string, value: string]>;

/**
 * Checks one custom header against the H10 rules and returns the list with it
 * added, replacing an earlier header of the same name (case-insensitive).
 *
 * @throws ConfigError (`config`) for a name that is not an RFC 9110 token, a
 * reserved name, a value that is not visible ASCII or too long, or too many
 * headers. The message never contains the value.
 */
export function withCustomHeader(list: HeaderList, name: string, value: string): HeaderList {
  if (typeof name !== "string" || !TOKEN.test(name)) {
    throw new ConfigError("HTTP header name is not an RFC 9110 token");
  }
  const lower = name.toLowerCase();
  if (RESERVED_HEADER_NAMES.includes(lower)) {
    throw new ConfigError(`HTTP header ${name} is set by the transport and cannot be overridden`);
  }
  if (typeof value !== "string" || value.length > MAX_HEADER_VALUE_CHARS || !VISIBLE_VALUE.test(value)) {
    throw new ConfigError(`value of HTTP header ${name} must be visible ASCII (inner spaces allowed), at most ${MAX_HEADER_VALUE_CHARS} characters`);
  }
  const next = list.filter(([n]) => n.toLowerCase() !== lower);
  if (next.length >= MAX_CUSTOM_HEADERS) {
    throw new ConfigError(`at most ${MAX_CUSTOM_HEADERS} custom HTTP headers`);
  }
  next.push([name, value]);
  return next;
}

/**
 * The host's custom headers (a record or `[name, value]` pairs), each checked as
 * {@link withCustomHeader} checks it; a later name replaces an earlier one.
 *
 * @throws ConfigError (`config`) as {@link withCustomHeader}.
 */
export function customHeaders(given: Record<string, string> | Iterable<readonly [string, string]> = []): HeaderList {
  let list: HeaderList = [];
  const pairs = Symbol.iterator in given ? (given as Iterable<readonly [string, string]>) : Object.entries(given);
  for (const [name, value] of pairs) list = withCustomHeader(list, name, value);
  return list;
}

/**
 * Parses an MCP endpoint URL: absolute, `http:` or `https:`, without a
 * user:password part (credentials go in headers).
 *
 * @param what Starts every message, e.g. `HTTP server URL`.
 * @param hint Ends the credentials message: where credentials go instead.
 * @throws ConfigError (`config`); the message never contains the URL.
 */
export function httpUrl(url: string | URL, what: string, hint: string): URL {
  let u: URL | undefined;
  try {
    u = new URL(url);
  } catch {
    // reported below
  }
  const why = !u
    ? "is not a valid absolute URL"
    : u.protocol !== "http:" && u.protocol !== "https:"
      ? "must use http: or https:"
      : u.username !== "" || u.password !== ""
        ? `must not carry credentials; ${hint}`
        : undefined;
  if (why || !u) throw new ConfigError(`${what} ${why}`);
  return u;
}

/**
 * Is `version` a protocol revision of the modern era (2026-07-28 or later), which
 * has no sessions, no GET stream, no resumption, and wants `Mcp-Method` /
 * `Mcp-Name` headers?
 */
export function isModernRevision(version: string | undefined): boolean {
  return version !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= "2026-07-28";
}

// Spec 2026-07-28 "Value Encoding": a value that is not plain visible ASCII (or that
// looks like the sentinel) is sent as =?base64?<base64 of UTF-8>?=.
const PLAIN_VALUE = /^[\x21-\x7e](?:[\x20\x21-\x7e]*[\x21-\x7e])?$/;
const SENTINEL = /^=\?base64\?.*\?=$/s;

/** Encodes a body value for an `Mcp-Name` / `Mcp-Param-*` header (spec 2026-07-28 "Value Encoding"). */
export function encodeHeaderValue(value: string): string {
  if (value === "" || (PLAIN_VALUE.test(value) && !SENTINEL.test(value))) return value;
  const bytes = new TextEncoder().encode(value);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return `=?base64?${btoa(binary)}?=`;
}

/**
 * The `Mcp-Name` source of a request (spec 2026-07-28: `params.name` of tools/call
 * and prompts/get, `params.uri` of resources/read, `params.taskId` of tasks/*), or undefined.
 */
export function mcpNameOf(method: string, params: Record<string, unknown> | undefined): string | undefined {
  if (params === undefined) return undefined;
  // The tasks extension (2026-07-28) routes tasks/get, tasks/update and tasks/cancel by their task id.
  const v =
    method === "resources/read" ? params.uri : method === "tools/call" || method === "prompts/get" ? params.name : method.startsWith("tasks/") ? params.taskId : undefined;
  return typeof v === "string" ? v : undefined;
}

/** Is `v` usable as a header value as it is (visible ASCII, no edges of whitespace)? */
export function isPlainHeaderValue(v: string): boolean {
  return PLAIN_VALUE.test(v);
}
