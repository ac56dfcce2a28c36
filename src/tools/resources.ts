/**
 * Resources as two read tools (T11): `<server>__list_resources` (one page, by
 * cursor) and `<server>__read_resource` (by URI), authorized as `list_resources`
 * and `read_resource`. Text only: a binary resource reads as `[blob: mime]`;
 * output is cut to `MAX_RESOURCE_TEXT_CHARS` characters.
 *
 * @module
 */
import { MAX_CURSOR_CHARS, MAX_QUOTED_TEXT_CHARS, MAX_RESOURCE_TEXT_CHARS, MAX_TOOL_RESULT_BYTES } from "../limits.js";
import type { McpClient } from "../mcp/client.js";
import type { JsonRecord, ResourceContents } from "../mcp/types.js";
import { compileWith } from "../schema/compile.js";
import { cutChars, cutUtf8 } from "./bound.js";
import type { ConnectionGate } from "./gate.js";
import { prefixedToolName } from "./names.js";
import { guardedTool } from "./read-tool.js";
import { field } from "./render.js";
import type { JsonSchemaObject, ReadTool } from "./types.js";

const LIST_SCHEMA: JsonSchemaObject = {
  type: "object",
  properties: { cursor: { type: "string", maxLength: MAX_CURSOR_CHARS, description: "nextCursor of the previous page" } },
  additionalProperties: false,
};
const READ_SCHEMA: JsonSchemaObject = {
  type: "object",
  properties: { uri: { type: "string", minLength: 1, description: "URI of the resource, as listed" } },
  required: ["uri"],
  additionalProperties: false,
};

/**
 * One resource's contents as text: its text, or `[blob: mime]` for binary contents (T11).
 *
 * @example
 * ```ts
 * resourceText([{ uri: "x://logo", mimeType: "image/png", blob: "iVBOR..." }]); // "[blob: image/png]"
 * ```
 */
export function resourceText(contents: readonly ResourceContents[]): string {
  return contents
    .map((c) => ("text" in c ? c.text : `[blob: ${field(c.mimeType ?? "application/octet-stream", MAX_QUOTED_TEXT_CHARS)}]`))
    .join("\n");
}

/**
 * The two resource tools of a connection made with `resources: true` (T11).
 *
 * @throws LimitError (`limit`) when `<server>__list_resources` would exceed 64 characters.
 *
 * @example
 * ```ts
 * // the model calls catalog__list_resources {} then catalog__read_resource {"uri": "catalog://readme"}
 * ```
 */
export function resourceTools(gate: ConnectionGate, client: McpClient, server: string): ReadTool[] {
  // Both are authorized as `remote`; their text is cut to the T11 character bound,
  // then to the T6 byte bound. Each request is bounded by the client's request
  // timeout, which connectMcp sets to timeoutMs (T10).
  const tool = (remote: string, description: string, schema: JsonSchemaObject, read: (args: JsonRecord, signal?: AbortSignal) => Promise<string>): ReadTool =>
    guardedTool(gate, remote, { name: prefixedToolName(server, remote), description, inputSchema: schema }, compileWith(schema, {}, null), async (args, { signal }) => ({
      content: [{ type: "text", text: cutUtf8(cutChars(await read(args, signal), MAX_RESOURCE_TEXT_CHARS), MAX_TOOL_RESULT_BYTES) }],
      isError: false,
    }));
  return [
    tool("list_resources", `Lists ${server} resources, one page per call; pass nextCursor as cursor for the next page.`, LIST_SCHEMA, async (args, signal) => {
      const page = await client.listResourcesPage(typeof args.cursor === "string" ? args.cursor : undefined, { signal });
      // JSON.stringify leaves out the members that are undefined.
      const resources = page.resources.map((r) => ({ uri: r.uri, name: r.name, title: r.title, description: r.description, mimeType: r.mimeType }));
      return JSON.stringify({ resources, nextCursor: page.nextCursor });
    }),
    tool("read_resource", `Reads a ${server} resource by URI: its text, or [blob: mime] if binary.`, READ_SCHEMA, async (args, signal) =>
      resourceText(await client.readResource(String(args.uri), { signal })),
    ),
  ];
}

/** What {@link ConnectOptions} `resourceTools` takes: {@link mcpResources}. */
export interface McpResources {
  /** Builds the two resource tools of a connection (internal). */
  readonly tools: typeof resourceTools;
}

/**
 * connectMcp's resource tools (T11) as a module the host passes in, for
 * `connectMcp({ ..., resources: true }, access, { resourceTools: mcpResources })`: a
 * connection without `resources: true` does not carry them, so a bundler drops them
 * when unused (X3). Without it a configuration with `resources: true` fails before
 * anything starts, with a ConfigError (`config`) naming this export.
 * `yada-mcp/node`'s `connectMcp`, `reconnectingMcp` and the CLI pass it themselves.
 *
 * @example
 * ```ts
 * import { connectMcp, mcpResources } from "yada-mcp";
 * const connection = await connectMcp({ name: "docs", url: "https://docs.example/mcp", resources: true }, { identity, authorize }, { resourceTools: mcpResources });
 * ```
 */
export const mcpResources: McpResources = Object.freeze({ tools: resourceTools });
