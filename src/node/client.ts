/**
 * The Node flavour of {@link McpClient}: adds `connectStdio` (T15).
 *
 * @module
 */
import { McpClient as WebMcpClient, type ClientOptions } from "../mcp/client.js";
import { StdioTransport, type StdioServerParams } from "./stdio.js";

/** Options of {@link McpClient.connectStdio}: client options plus process options. */
export type StdioConnectOptions = ClientOptions & Pick<StdioServerParams, "cwd" | "stderr" | "maxLineBytes">;

/**
 * {@link WebMcpClient} plus the stdio transport.
 *
 * @example
 * ```ts
 * import { McpClient } from "yada/node";
 * const client = await McpClient.connectStdio("npx", ["-y", "@modelcontextprotocol/server-everything"]);
 * console.log((await client.listTools()).map((t) => t.name));
 * await client.close();
 * ```
 */
export class McpClient extends WebMcpClient {
  /**
   * Spawns `command args` (with `env` added to a minimal inherited set, S1) and
   * connects to it over stdio.
   *
   * @throws TransportError (`transport`) when the process cannot start;
   * ConnectionClosedError (`connection_closed`) when it exits during the handshake
   * (with its exit status and stderr tail); the errors of {@link WebMcpClient.connect}.
   */
  static async connectStdio(
    command: string,
    args: readonly string[] = [],
    env?: Readonly<Record<string, string>>,
    options: StdioConnectOptions = {},
  ): Promise<McpClient> {
    const params: StdioServerParams = { command, args };
    if (env) params.env = env;
    if (options.cwd !== undefined) params.cwd = options.cwd;
    if (options.stderr !== undefined) params.stderr = options.stderr;
    if (options.maxLineBytes !== undefined) params.maxLineBytes = options.maxLineBytes;
    if (options.name !== undefined) params.name = options.name;
    if (options.logger !== undefined) params.logger = options.logger;
    return (await McpClient.connect(new StdioTransport(params), options)) as McpClient;
  }
}
