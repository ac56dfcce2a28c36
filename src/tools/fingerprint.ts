/**
 * What an approval covers (W6, W7): the versions of write and confirmed tools,
 * SHA-256 (crypto.subtle) over canonical JSON (keys sorted). An approval is only
 * executed while the tool's version is still the approved one, so a changed
 * endpoint, mapping or schema never carries an old approval across.
 *
 * @module
 */
import type { McpTool } from "../mcp/types.js";
import { canonicalKey } from "../schema/equal.js";
import type { McpServerConfig } from "./config.js";
import { CONTRACT_VERSION } from "./envelope.js";

/**
 * Lower-case hex SHA-256 of the UTF-8 of `text`.
 *
 * @example
 * ```ts
 * await sha256Hex("abc"); // "ba7816bf…"
 * ```
 */
export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  let hex = "";
  for (const b of digest) hex += b.toString(16).padStart(2, "0");
  return hex;
}

/**
 * Where a configuration sends its requests: the URL, or the stdio command and
 * arguments. Headers and env values (tokens) are left out (W6): rotating a bearer
 * token does not change a tool's version.
 */
export function endpointOf(server: McpServerConfig): unknown {
  return server.url !== undefined ? { url: server.url } : { command: server.command, args: server.args ?? [] };
}

/** The three tools of one write mapping, as listed. */
export interface WriteTrio {
  mutation: McpTool;
  prepare: McpTool;
  receipt: McpTool;
}

const schemas = (t: McpTool): unknown => ({ name: t.name, inputSchema: t.inputSchema, outputSchema: t.outputSchema ?? null });

/**
 * `WriteTool.version` (W6): `<reviewed version>+sha256:<hex>`, the hash over the
 * contract version, the endpoint ({@link endpointOf}), the helper mapping, and the
 * input and output schemas of the mutation and both helpers.
 *
 * @throws LimitError (`limit`) for a schema nested deeper than `MAX_INSTANCE_DEPTH`.
 *
 * @example
 * ```ts
 * const version = await writeVersion("reviewed-implementation-1", config, { mutation, prepare, receipt });
 * ```
 */
export async function writeVersion(reviewed: string, server: McpServerConfig, trio: WriteTrio): Promise<string> {
  const key = canonicalKey({
    contractVersion: CONTRACT_VERSION,
    endpoint: endpointOf(server),
    mapping: { tool: trio.mutation.name, prepareTool: trio.prepare.name, receiptTool: trio.receipt.name },
    mutation: schemas(trio.mutation),
    prepare: schemas(trio.prepare),
    receipt: schemas(trio.receipt),
  });
  return `${reviewed}+sha256:${await sha256Hex(key)}`;
}

/**
 * `ConfirmTool.version` (W7): `confirm:<hex>`, SHA-256 over the remote name and
 * input schema as canonical JSON.
 *
 * @throws LimitError (`limit`) for a schema nested deeper than `MAX_INSTANCE_DEPTH`.
 *
 * @example
 * ```ts
 * await confirmVersion(tool); // "confirm:3f1c…"
 * ```
 */
export async function confirmVersion(remote: McpTool): Promise<string> {
  return `confirm:${await sha256Hex(canonicalKey({ tool: remote.name, inputSchema: remote.inputSchema }))}`;
}
