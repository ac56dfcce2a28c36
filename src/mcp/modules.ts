/**
 * The opt-in client modules turned on (pay for what you use): the entries and
 * layers that carry everything — `yada-mcp/node`'s `McpClient`, `connectMcp`, the CLI —
 * pass the task module (V8), the MCP tracing module (O1), the host handlers' module (V6) and the elicitation
 * validator (V6) unless the host gave its own.
 *
 * @module
 */
import { compileSchema } from "../schema/index.js";
import type { ClientOptions } from "./client.js";
import { taskCalls } from "./task-module.js";
import { mcpTracing } from "../trace/mcp.js";
import { hostHandlers } from "./host-module.js";

/** `options` with `tasks`, `tracing`, `hosting` and a form handler's `compileSchema` filled in where absent. */
export function withClientModules<T extends ClientOptions>(options: T): T {
  // Not an object: left to McpClient.connect, which names the mistake (config).
  if (typeof options !== "object" || options === null) return options;
  const out: T = { ...options, tasks: options.tasks ?? taskCalls, tracing: options.tracing ?? mcpTracing, hosting: options.hosting ?? hostHandlers };
  const e = options.handlers?.elicitation;
  if (e?.form && e.compileSchema === undefined) out.handlers = { ...options.handlers, elicitation: { ...e, compileSchema } };
  return out;
}
