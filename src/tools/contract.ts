/**
 * The tool contract of a connection (T13, W10): what the model can call and how,
 * as one canonical string. Two connections with equal contracts expose the same
 * tools with the same names, effects, descriptions, schemas and annotations.
 *
 * @module
 */
import type { McpTool } from "../mcp/types.js";
import { canonicalKey } from "../schema/equal.js";
import type { ToolEffect } from "./types.js";

/** One exposed tool in a contract. */
export interface ContractEntry {
  /** The remote tool name (or a built-in name such as `list_resources`). */
  remote: string;
  /** What the tool does to the world. */
  effect: ToolEffect;
  /** Everything the model and the host rely on: description, schemas, annotations. */
  spec: unknown;
}

/**
 * The parts of a listed tool a contract pins (T13: names, descriptions, schemas, annotations).
 *
 * @example
 * ```ts
 * const entry = { remote: tool.name, effect: "read", spec: toolSpec(tool) };
 * ```
 */
export function toolSpec(tool: McpTool): unknown {
  return {
    title: tool.title ?? null,
    description: tool.description ?? null,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema ?? null,
    annotations: tool.annotations ?? null,
  };
}

/**
 * The canonical contract string of a server's exposed tools: keys sorted, entries
 * ordered by remote name, so equal contracts give equal strings whatever order a
 * server lists its tools in.
 *
 * @throws LimitError (`limit`) for a spec nested deeper than `MAX_INSTANCE_DEPTH`.
 *
 * @example
 * ```ts
 * contractOf("catalog", [{ remote: "lookup", effect: "read", spec: toolSpec(tool) }]) === connection.contract;
 * ```
 */
export function contractOf(server: string, entries: readonly ContractEntry[]): string {
  const tools = [...entries].sort((a, b) => (a.remote < b.remote ? -1 : a.remote > b.remote ? 1 : 0));
  return canonicalKey({ server, tools });
}
