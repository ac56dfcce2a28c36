/**
 * MCP server configurations for connectMcp (T1, T14, W11): their types and the
 * validating parse every configuration goes through, whether a host literal or
 * JSON from the environment. Errors name the field, never a header or env value.
 *
 * @module
 */
import { ConfigError } from "../errors.js";
import { MAX_MCP_TIMEOUT_MS, MAX_QUOTED_CHARS, MAX_TOOL_NAME_CHARS } from "../limits.js";
import { isRecord } from "../mcp/types.js";
import type { HttpAuth } from "../transport/http-auth.js";
import { httpUrl, withCustomHeader, type HeaderList } from "../transport/http-headers.js";
import { quote } from "../util/text.js";
import { SERVER_NAME_PATTERN } from "./names.js";

/** What every server configuration has. */
export interface McpServerBase {
  /** Prefixes every tool name (`name__tool`, T2): letters, digits, `_` and `-`. */
  name: string;
  /** Bound in ms on setup, each discovery request and each call (T10). */
  timeoutMs?: number;
  /**
   * Read tools the host reviewed and selects (T3). Omitted: exactly the tools
   * annotated `readOnlyHint: true`. Each must exist; none may be annotated
   * `readOnlyHint: false`.
   */
  readTools?: readonly string[];
  /** Adds `<name>__list_resources` and `<name>__read_resource` (T11). */
  resources?: boolean;
}

/** A server reached over Streamable HTTP. */
export interface McpHttpServer extends McpServerBase {
  /** The MCP endpoint, `http:` or `https:`, without user:password. */
  url: string;
  /** Headers sent on every request, e.g. `Authorization: Bearer …` (A1, H10). Values never appear in errors. */
  headers?: Readonly<Record<string, string>>;
  /**
   * Authorization for every request (A5), e.g. an `OAuthClient`. Host code only:
   * a configuration from JSON (`mcpServersFromEnv`) cannot carry one.
   */
  auth?: HttpAuth;
  command?: undefined;
  args?: undefined;
  env?: undefined;
  stderr?: undefined;
}

/** A local server launched as a process speaking stdio (Node entry only). */
export interface McpStdioServer extends McpServerBase {
  /** The executable. Trusted configuration: it is run as given. */
  command: string;
  /** Its arguments. */
  args?: readonly string[];
  /** Variables added to the minimal inherited environment (S1). Values never appear in errors. */
  env?: Readonly<Record<string, string>>;
  /** `"inherit"` prints the server's stderr; by default it is read and kept, not printed. */
  stderr?: "pipe" | "inherit";
  url?: undefined;
  headers?: undefined;
  auth?: undefined;
}

/** One contract-bound write mapping (W1); executed by the action layer. */
export interface McpWriteMapping {
  /** The host's reviewed implementation version (W6). */
  version: string;
  /** The read-only helper that prepares the mutation. */
  prepareTool: string;
  /** The read-only helper that looks up a receipt by operation id. */
  receiptTool: string;
}

/** The write roles of a configuration (W1, W7). */
export interface McpWriteRoles {
  /** Mutations mapped to their helpers (W1). */
  writeTools?: Readonly<Record<string, McpWriteMapping>>;
  /** Mutations behind one approval each (W7); `"*"` for every tool with no other role. */
  confirmTools?: readonly string[] | "*";
}

/**
 * A configuration that cannot contain writes (W11): connectMcp returns
 * `McpConnection<ReadTool>` for it.
 */
export type McpReadConfig = (McpHttpServer | McpStdioServer) & { writeTools?: undefined; confirmTools?: undefined };

/** Any server configuration, possibly with write roles (W11): connectMcp returns `McpConnection<Tool>`. */
export type McpServerConfig = (McpHttpServer | McpStdioServer) & McpWriteRoles;

// The longest server name that still leaves room for "__" and a one-character tool.
const MAX_SERVER_NAME_CHARS = MAX_TOOL_NAME_CHARS - 3;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function fail(where: string, what: string): never {
  throw new ConfigError(`${where}: ${what}`);
}

/** A key from the configuration, safe to show: it is a name, bounded. */
const key = (k: string): string => quote(k);

function stringList(value: unknown, where: string, what: string): string[] {
  if (!Array.isArray(value)) fail(where, `${what} must be an array of strings`);
  // Array.from visits holes too (as undefined): a sparse array is refused, not copied with gaps.
  return Array.from(value, (v: unknown, i) => (typeof v === "string" ? v : fail(where, `${what}[${i}] must be a string`)));
}

/**
 * The entries of an object from the configuration. A `"__proto__"` key (as
 * JSON.parse makes it) is refused: assigned to the copy, it would replace the
 * copy's prototype instead of becoming an entry.
 */
function entriesOf(value: Record<string, unknown>, where: string, what: string): Array<[string, unknown]> {
  const entries = Object.entries(value);
  for (const [k] of entries) if (k === "__proto__") fail(where, `${what} may not have the key "__proto__"`);
  return entries;
}

function nameList(value: unknown, where: string, what: string): string[] {
  const names = stringList(value, where, what);
  const seen = new Set<string>();
  for (const n of names) {
    if (n === "") fail(where, `${what} contains an empty name`);
    if (seen.has(n)) fail(where, `${what} lists ${key(n)} twice`);
    seen.add(n);
  }
  return names;
}

/** A string-to-string record; values are never shown. */
function stringRecord(value: unknown, where: string, what: string): Record<string, string> {
  if (!isRecord(value)) fail(where, `${what} must be an object of strings`);
  const out: Record<string, string> = {};
  for (const [k, v] of entriesOf(value, where, what)) out[k] = typeof v === "string" ? v : fail(where, `${what}.${k.slice(0, MAX_QUOTED_CHARS)} must be a string`);
  return out;
}

function nonEmpty(value: unknown, where: string, what: string): string {
  return typeof value === "string" && value !== "" ? value : fail(where, `${what} must be a non-empty string`);
}

/**
 * Checks a `timeoutMs` (config field or connect option).
 *
 * @throws ConfigError (`config`) unless a positive integer of at most `MAX_MCP_TIMEOUT_MS`.
 *
 * @example
 * ```ts
 * checkTimeout(30_000, "connectMcp options"); // 30000
 * ```
 */
export function checkTimeout(value: unknown, where: string): number {
  return Number.isInteger(value) && (value as number) > 0 && (value as number) <= MAX_MCP_TIMEOUT_MS
    ? (value as number)
    : fail(where, `timeoutMs must be a positive integer of at most ${MAX_MCP_TIMEOUT_MS}`);
}

/** Checks one present field and returns the copy the configuration keeps. */
type FieldCheck = (value: unknown, where: string) => unknown;

// Each table lists a kind's fields in the order they are checked (and copied).
const COMMON_FIELDS: Record<string, FieldCheck> = {
  timeoutMs: checkTimeout,
  readTools: (v, at) => nameList(v, at, "readTools"),
  resources: (v, at) => (typeof v === "boolean" ? v : fail(at, "resources must be a boolean")),
};
const WRITE_FIELDS: Record<string, FieldCheck> = {
  writeTools(v, at) {
    if (!isRecord(v)) fail(at, "writeTools must be an object");
    const mappings: Record<string, McpWriteMapping> = {};
    for (const [tool, m] of entriesOf(v, at, "writeTools")) {
      const where = `writeTools.${tool.slice(0, MAX_QUOTED_CHARS)}`;
      if (!isRecord(m)) fail(at, `${where} must be an object`);
      const mapping: Record<string, string> = {};
      for (const f of ["version", "prepareTool", "receiptTool"]) mapping[f] = nonEmpty(m[f], at, `${where}.${f}`);
      mappings[tool] = mapping as unknown as McpWriteMapping;
    }
    return mappings;
  },
  confirmTools: (v, at) => (v === "*" ? v : nameList(v, at, "confirmTools")),
};
const HTTP_FIELDS: Record<string, FieldCheck> = {
  ...COMMON_FIELDS,
  url(v, at) {
    if (typeof v !== "string") fail(at, "url must be a string");
    httpUrl(v, `${at}: url`, "use headers");
    return v;
  },
  headers(v, at) {
    const headers = stringRecord(v, at, "headers");
    try {
      let list: HeaderList = [];
      for (const [n, value] of Object.entries(headers)) list = withCustomHeader(list, n, value);
    } catch (e) {
      // The H10 messages name the header, never its value.
      fail(at, e instanceof Error ? e.message : "invalid header");
    }
    return headers;
  },
  // A5: kept by reference (it holds the tokens' state); JSON can never produce one.
  auth(v, at) {
    const ok = isRecord(v) && typeof (v as { headers?: unknown }).headers === "function" && typeof (v as { challenge?: unknown }).challenge === "function";
    return ok ? v : fail(at, "auth must be an object with headers() and challenge(), e.g. an OAuthClient, given in host code");
  },
  ...WRITE_FIELDS,
};
const STDIO_FIELDS: Record<string, FieldCheck> = {
  ...COMMON_FIELDS,
  command: (v, at) => nonEmpty(v, at, "command"),
  args: (v, at) => stringList(v, at, "args"),
  env(v, at) {
    const env = stringRecord(v, at, "env");
    for (const n of Object.keys(env)) if (!ENV_NAME.test(n)) fail(at, `env name ${key(n)} is not a valid variable name`);
    return env;
  },
  stderr: (v, at) => (v === "pipe" || v === "inherit" ? v : fail(at, `stderr must be "pipe" or "inherit"`)),
  ...WRITE_FIELDS,
};

/**
 * Validates a server configuration and returns a fresh copy (so later changes to
 * the host's object change nothing): `name` matches `^[a-zA-Z0-9_-]+$`; exactly one
 * of `url` (with optional `headers`) or `command` (with optional `args`, `env`,
 * `stderr`); `timeoutMs` a positive integer; `readTools` distinct non-empty names;
 * `resources` a boolean; `writeTools` (mappings of three non-empty strings) and
 * `confirmTools` (names or `"*"`) when allowed; no other field, and no
 * `"__proto__"` key in `headers`, `env` or `writeTools`. Header names and values
 * follow the H10 rules.
 *
 * @param where Prefix of error messages, e.g. `YADA_MCP_SERVERS[0]`.
 * @param allowWrites Whether `writeTools` / `confirmTools` may appear.
 * @throws ConfigError (`config`) naming the field; never a header or env value.
 *
 * @example
 * ```ts
 * const server = parseServerConfig({ name: "catalog", url: "https://example.com/mcp" });
 * ```
 */
export function parseServerConfig(value: unknown, where = "MCP server config", allowWrites = true): McpServerConfig {
  if (!isRecord(value)) throw new ConfigError(`${where} must be an object`);
  const name = value.name;
  if (typeof name !== "string" || !SERVER_NAME_PATTERN.test(name) || name.length > MAX_SERVER_NAME_CHARS) {
    fail(where, `name must match ^[a-zA-Z0-9_-]{1,${MAX_SERVER_NAME_CHARS}}$`);
  }
  const at = `${where} (${name})`;
  const isHttp = value.url !== undefined;
  if (isHttp === (value.command !== undefined)) fail(at, "give exactly one of url or command");
  const fields = isHttp ? HTTP_FIELDS : STDIO_FIELDS;
  // Every field is known (and allowed) before any value is checked.
  for (const k of Object.keys(value)) {
    if (value[k] === undefined || k === "name") continue;
    if (!Object.hasOwn(fields, k)) fail(at, `unknown field ${key(k)} for ${isHttp ? "an HTTP" : "a stdio"} server`);
    if (!allowWrites && Object.hasOwn(WRITE_FIELDS, k)) fail(at, `${k} is not allowed here (read-only: write mappings go in host code or yada --config)`);
  }
  const config: Record<string, unknown> = { name };
  for (const [k, check] of Object.entries(fields)) if (value[k] !== undefined) config[k] = check(value[k], at);
  // Built field by field from the checks above: the shape McpServerConfig describes.
  return config as unknown as McpServerConfig;
}
