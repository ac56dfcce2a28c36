/**
 * The write and confirmed tools of a connection (W1, W6, W7): their schemas
 * compiled and their versions computed once, at connect.
 *
 * @module
 */
import type { McpClient } from "../mcp/client.js";
import { quote } from "../util/text.js";
import type { McpServerConfig } from "./config.js";
import { mcpConfirmTool } from "./confirm-tool.js";
import { confirmVersion, writeVersion } from "./fingerprint.js";
import type { ConnectionGate } from "./gate.js";
import { compile } from "./read-tool.js";
import type { SelectedRoles } from "./roles.js";
import type { ConfirmTool, Identity, WriteTool } from "./types.js";
import { mcpWriteTool } from "./write-tool.js";
import { checkRoleNames, selectWriteRoles } from "./write-roles.js";

/** What {@link ConnectOptions} `writes` takes: {@link mcpWrites}. */
export interface McpWrites {
  /** Builds the write and confirmed tools of a connection (internal). */
  readonly tools: typeof actionTools;
  /** Checks the configuration's roles against each other, before anything starts (internal). */
  readonly checkRoles: typeof checkRoleNames;
  /** Selects every role of a listing: reads, writes and confirmed tools (internal). */
  readonly roles: typeof selectWriteRoles;
}

/** What {@link actionTools} needs from connectMcp. */
export interface ActionToolsParts {
  config: McpServerConfig;
  roles: SelectedRoles;
  gate: ConnectionGate;
  client: McpClient;
  identity: Identity;
  timeoutMs: number | undefined;
}

/**
 * The {@link WriteTool}s of `roles.writes`, then the {@link ConfirmTool}s of
 * `roles.confirms`, in catalog order.
 *
 * @throws SchemaError (`schema`) for a schema that does not compile, naming the tool;
 * LimitError (`limit`) for a name over 64 characters or a schema nested too deep;
 * ConfigError (`config`) for a name providers refuse.
 *
 * @example
 * ```ts
 * tools.push(...(await actionTools({ config, roles, gate, client, identity, timeoutMs })));
 * ```
 */
export async function actionTools({ config, roles, gate, client, identity, timeoutMs }: ActionToolsParts): Promise<Array<WriteTool | ConfirmTool>> {
  const server = config.name;
  const where = (tool: string): string => `${server}: tool ${quote(tool)} input schema`;
  const tools: Array<WriteTool | ConfirmTool> = [];
  for (const { mapping, trio } of roles.writes) {
    const inputs = { mutation: compile(trio.mutation.inputSchema, where(trio.mutation.name)), prepare: compile(trio.prepare.inputSchema, where(trio.prepare.name)) };
    compile(trio.receipt.inputSchema, where(trio.receipt.name));
    const version = await writeVersion(mapping.version, config, trio);
    tools.push(mcpWriteTool({ gate, client, server, identity, trio, inputs, version, timeoutMs }));
  }
  for (const remote of roles.confirms) {
    const input = compile(remote.inputSchema, where(remote.name));
    tools.push(mcpConfirmTool({ gate, client, server, remote, input, version: await confirmVersion(remote), timeoutMs }));
  }
  return tools;
}

/**
 * connectMcp's write and confirmed tools (W1, W6, W7) as a module the host passes
 * in, for `connectMcp(server, access, { writes: mcpWrites })`: a read-only
 * connection does not carry the envelopes, fingerprints and write tools, so a
 * bundler drops them when unused. Without it a configuration with `writeTools` or
 * `confirmTools` fails before anything starts, with a ConfigError (`config`) naming
 * this export. `yada-mcp/node`'s `connectMcp`, `reconnectingMcp` and the CLI pass
 * it themselves.
 *
 * @example
 * ```ts
 * import { connectMcp, mcpWrites } from "yada-mcp";
 * const connection = await connectMcp(
 *   { name: "files", url: "https://files.example/mcp", writeTools: { rename: { version: "1", prepareTool: "prepare_rename", receiptTool: "rename_receipt" } } },
 *   { identity, authorize },
 *   { writes: mcpWrites },
 * );
 * ```
 */
export const mcpWrites: McpWrites = Object.freeze({ tools: actionTools, checkRoles: checkRoleNames, roles: selectWriteRoles });
