/**
 * Read selection (T3): which discovered tools become read tools.
 *
 * @module
 */
import { ConfigError, ToolNotFoundError } from "../errors.js";
import type { McpTool } from "../mcp/types.js";
import { quote } from "../util/text.js";
import type { McpServerBase } from "./config.js";
import { hasProviderSafeChars } from "./names.js";

/**
 * The read tools of a server (T3). Without `readTools`: exactly the tools
 * annotated `readOnlyHint: true`, leaving out (and reporting to `onSkip`) those whose
 * names providers refuse. With `readTools`: the listed ones, in that order.
 *
 * @throws ToolNotFoundError (`tool_not_found`) naming a `readTools` entry the server does not list.
 * @throws ConfigError (`config`) naming a `readTools` entry annotated `readOnlyHint: false`,
 * or a selected tool with a reserved name (`list_resources`, `read_resource`,
 * `list_prompts`, `get_prompt`).
 *
 * @example
 * ```ts
 * selectReadTools({ name: "catalog", readTools: ["lookup"] }, await client.listTools());
 * ```
 */
export function selectReadTools(
  server: Pick<McpServerBase, "name" | "readTools">,
  listed: readonly McpTool[],
  onSkip?: (tool: string, reason: string) => void,
): McpTool[] {
  let selected: McpTool[];
  if (server.readTools === undefined) {
    // Chosen by annotation, not by the host: a tool whose name providers refuse
    // (such as "admin.list") is left out rather than failing the connection. A
    // name the host lists in readTools still fails loudly.
    selected = listed.filter((t) => {
      if (t.annotations?.readOnlyHint !== true) return false;
      if (hasProviderSafeChars(t.name)) return true;
      onSkip?.(t.name, "its name does not match ^[a-zA-Z0-9_-]+$");
      return false;
    });
  } else {
    const byName = new Map(listed.map((t) => [t.name, t]));
    selected = server.readTools.map((name) => {
      const tool = byName.get(name);
      if (!tool) throw new ToolNotFoundError(`${server.name}: readTools names ${quote(name)}, which the server does not list`);
      if (tool.annotations?.readOnlyHint === false) {
        throw new ConfigError(`${server.name}: readTools names ${quote(name)}, which the server marks readOnlyHint: false`);
      }
      return tool;
    });
  }
  // The names `authorize` receives for resources and prompts are reserved: a remote
  // tool called `get_prompt` must not ride on the permission granted for prompts.
  for (const t of selected) {
    if (RESERVED_NAMES.includes(t.name)) {
      throw new ConfigError(`${server.name}: tool ${quote(t.name)} has a name reserved for resource and prompt permissions`);
    }
  }
  return selected;
}

/** The names `authorize` receives for host calls and resource tools (T11, T12); no remote tool may use them. */
export const RESERVED_NAMES: readonly string[] = ["list_resources", "read_resource", "list_prompts", "get_prompt"];
