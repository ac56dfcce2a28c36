/**
 * Model-facing tool names (T2): `server__tool`, provider-compatible characters,
 * at most 64 characters, unique across every tool a run gets.
 *
 * @module
 */
import { ConfigError, LimitError } from "../errors.js";
import { MAX_TOOL_NAME_CHARS } from "../limits.js";
import { quote } from "../util/text.js";

// The characters every provider accepts in a tool name (Anthropic and OpenAI both
// use ^[a-zA-Z0-9_-]{1,64}$).
const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]+$/;

/** What a server name may contain (T14 config rule; also keeps `server__tool` provider-compatible). */
export const SERVER_NAME_PATTERN = TOOL_NAME_PATTERN;

/** Whether a remote tool name uses only characters model providers accept (letters, digits, `_`, `-`). */
export function hasProviderSafeChars(name: string): boolean {
  return TOOL_NAME_PATTERN.test(name);
}


/**
 * Checks a model-facing tool name (T2): at most 64 characters, only letters,
 * digits, `_` and `-`. Returns it unchanged.
 *
 * @throws LimitError (`limit`, limit `MAX_TOOL_NAME_CHARS`) when longer than 64
 * characters; the message states the limit.
 * @throws ConfigError (`config`) for an empty name or a character providers refuse.
 *
 * @example
 * ```ts
 * checkToolName("lookup"); // "lookup"
 * ```
 */
export function checkToolName(name: string): string {
  if (name.length > MAX_TOOL_NAME_CHARS) {
    throw new LimitError(
      "MAX_TOOL_NAME_CHARS",
      MAX_TOOL_NAME_CHARS,
      `tool name ${quote(name)} is ${name.length} characters; the limit is ${MAX_TOOL_NAME_CHARS}`,
    );
  }
  if (!TOOL_NAME_PATTERN.test(name)) {
    throw new ConfigError(`tool name ${quote(name)} must match ^[a-zA-Z0-9_-]+$ (what model providers accept)`);
  }
  return name;
}

/**
 * The model-facing name of `tool` on `server`: `server__tool` (T2), checked by
 * {@link checkToolName}.
 *
 * @throws LimitError (`limit`) when the combined name is longer than 64 characters
 * (the message states the limit); ConfigError (`config`) for refused characters.
 *
 * @example
 * ```ts
 * prefixedToolName("catalog", "lookup"); // "catalog__lookup"
 * ```
 */
export function prefixedToolName(server: string, tool: string): string {
  return checkToolName(`${server}__${tool}`);
}

/**
 * Checks that no two tools share a name (T2). The agent loop calls it on the
 * tools it is given, so tools of two connections with the same server name fail
 * loudly instead of one shadowing the other.
 *
 * @throws ConfigError (`config`) naming the first duplicate.
 *
 * @example
 * ```ts
 * assertUniqueToolNames([...catalog.tools, ...crm.tools]);
 * ```
 */
export function assertUniqueToolNames(tools: Iterable<{ readonly name: string }>): void {
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name)) {
      throw new ConfigError(`two tools are named ${quote(tool.name)}; give each MCP server its own name`);
    }
    seen.add(tool.name);
  }
}
