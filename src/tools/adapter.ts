/**
 * `mcpTools` (T15, T16): the low-level adapter from a connected {@link McpClient}
 * to plain read tools, for hosts that manage the client themselves.
 *
 * These tools execute directly: no identity binding, no `authorize` callback, no
 * read selection and no schema check. The host takes responsibility for which
 * tools it passes to a model. Arguments and results keep their bounds (T6), and
 * rendering is the same as connectMcp's (T7, T16).
 *
 * @module
 */
import { CancelledError, YadaError } from "../errors.js";
import { MAX_TOOL_RESULT_BYTES } from "../limits.js";
import type { McpClient } from "../mcp/client.js";
import type { JsonRecord } from "../mcp/types.js";
import { cutUtf8 } from "./bound.js";
import { assertUniqueToolNames, checkToolName, prefixedToolName } from "./names.js";
import { callRemote, checkArguments, readTool } from "./read-tool.js";
import { errorResult, renderContent, renderToolResult, type RenderStyle } from "./render.js";
import type { ReadTool } from "./types.js";

/** Options of {@link mcpTools}. */
export interface McpToolsOptions {
  /** Names tools `prefix__tool` instead of the server's names. */
  prefix?: string;
  /** Bound on each call, from when it is sent; `null` = none. Default: the client's call timeout (S6). */
  timeoutMs?: number | null;
  /** How non-text content becomes text; default `"inline"` (T16: a text resource as its text, others as JSON). */
  style?: RenderStyle;
  /** Aborts the tools/list requests. */
  signal?: AbortSignal;
}

/**
 * Lists the client's tools and wraps every one as a {@link ReadTool} with the
 * server's name (or `prefix__name`), description and input schema. `execute`
 * sends `tools/call` directly and renders the result; a result with `isError: true`
 * comes back as an `isError` tool result with its text, so the model can react (R4).
 * Call failures (timeout, server error) are error results too; only cancellation throws.
 *
 * @throws LimitError (`limit`) for a name over 64 characters; ConfigError (`config`)
 * for a name with characters providers refuse or two tools with one name; the
 * errors of {@link McpClient.listTools}.
 *
 * @example
 * ```ts
 * const client = await McpClient.connectStdio("node", ["server.js"]);
 * const tools = await mcpTools(client); // the host decides these are safe to run
 * await run({ provider, tools, identity, input });
 * await client.close();
 * ```
 */
export async function mcpTools(client: McpClient, options: McpToolsOptions = {}): Promise<ReadTool[]> {
  const listed = await client.listTools(options.signal ? { signal: options.signal } : {});
  const style = options.style ?? "inline";
  const tools = listed.map((remote): ReadTool => {
    const name = options.prefix === undefined ? checkToolName(remote.name) : prefixedToolName(options.prefix, remote.name);
    return readTool(name, remote.description ?? remote.title ?? "", remote.inputSchema, async (args, context) => {
      const problem = checkArguments(name, args);
      if (problem) return problem;
      try {
        const result = await callRemote(client, remote.name, args as JsonRecord, context, options.timeoutMs);
        if (result.isError) {
          const text = cutUtf8(renderContent(result.content, { style, images: false }).text, MAX_TOOL_RESULT_BYTES);
          return { content: [{ type: "text", text }], isError: true };
        }
        return renderToolResult(result, { style });
      } catch (e) {
        if (e instanceof CancelledError || !(e instanceof YadaError)) throw e;
        return errorResult(e.code, e.message);
      }
    });
  });
  assertUniqueToolNames(tools);
  return tools;
}
