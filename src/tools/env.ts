/**
 * `mcpServersFromEnv` (T14): MCP server configurations from `YADA_MCP_SERVERS`.
 * It only parses and validates; it never launches a process or connects.
 *
 * @module
 */
import { ConfigError } from "../errors.js";
import { MAX_MCP_SERVERS, MAX_MCP_SERVERS_ENV_CHARS } from "../limits.js";
import { parseServerConfig, type McpReadConfig } from "./config.js";

/** The variable {@link mcpServersFromEnv} reads. */
export const MCP_SERVERS_ENV = "YADA_MCP_SERVERS";

/**
 * Reads `YADA_MCP_SERVERS` from `env`: unset, empty or blank means no servers;
 * otherwise a JSON array of server configurations, each validated like a
 * connectMcp configuration (name, `url` with `headers` or `command` with `args`,
 * `env` and `stderr`, `timeoutMs`, `readTools`, `resources`; no write roles), with
 * unique names. Returns fresh read configurations for {@link connectMcp}.
 * OAuth stays out of the JSON (A5): an `auth` field is refused there; host code
 * adds one to a returned configuration (`{ ...server, auth }`).
 *
 * Errors say which entry and field is wrong and never contain a header or env
 * value, nor the JSON text (a parse error does not quote the input).
 *
 * @throws ConfigError (`config`) for a value over `MAX_MCP_SERVERS_ENV_CHARS`
 * characters, invalid JSON, a non-array, more than `MAX_MCP_SERVERS` entries, an
 * invalid entry, or a duplicate name.
 *
 * @example
 * ```ts
 * // env: the process environment (Node), holding
 * // YADA_MCP_SERVERS=[{"name":"catalog","url":"https://catalog.example/mcp","headers":{"x-api-key":"..."}}]
 * const connections = await Promise.all(
 *   mcpServersFromEnv(env).map((server) => connectMcp(server, { identity, authorize })),
 * );
 * const tools = connections.flatMap((c) => c.tools);
 * ```
 */
export function mcpServersFromEnv(env: Readonly<Record<string, string | undefined>>): McpReadConfig[] {
  const raw = env[MCP_SERVERS_ENV];
  if (raw === undefined || raw.trim() === "") return [];
  if (raw.length > MAX_MCP_SERVERS_ENV_CHARS) {
    throw new ConfigError(`${MCP_SERVERS_ENV} is longer than ${MAX_MCP_SERVERS_ENV_CHARS} characters`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // The engine's message quotes the input, which may hold secrets: say only where.
    throw new ConfigError(`${MCP_SERVERS_ENV} is not valid JSON`);
  }
  if (!Array.isArray(parsed)) throw new ConfigError(`${MCP_SERVERS_ENV} must be a JSON array of servers`);
  if (parsed.length > MAX_MCP_SERVERS) throw new ConfigError(`${MCP_SERVERS_ENV} lists more than ${MAX_MCP_SERVERS} servers`);
  const names = new Set<string>();
  return parsed.map((entry, i) => {
    // With allowWrites false the parse refuses writeTools / confirmTools: a read configuration.
    const config = parseServerConfig(entry, `${MCP_SERVERS_ENV}[${i}]`, false) as McpReadConfig;
    if (names.has(config.name)) throw new ConfigError(`${MCP_SERVERS_ENV}[${i}]: the name ${JSON.stringify(config.name)} is used twice`);
    names.add(config.name);
    return config;
  });
}
