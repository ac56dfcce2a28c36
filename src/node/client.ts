/**
 * The Node flavour of {@link McpClient}: adds `connectStdio` (T15).
 *
 * @module
 */
import { McpClient as WebMcpClient, type ClientOptions } from "../mcp/client.js";
import { complete, type Completion, type CompletionRequest } from "../mcp/completions.js";
import { withClientModules } from "../mcp/modules.js";
import type { Transport } from "../transport/types.js";
import { StdioTransport, type StdioServerParams } from "./stdio.js";

/** Options of {@link McpClient.connectStdio}: client options plus process options. */
export type StdioConnectOptions = ClientOptions & Pick<StdioServerParams, "cwd" | "stderr" | "maxLineBytes">;

/**
 * {@link WebMcpClient} plus the stdio transport, with every client module on:
 * task-augmented calls (`tasks: taskCalls`, V8), form elicitation answers checked
 * by `compileSchema` (V6), and the {@link McpClient.complete} method (V9).
 *
 * @example
 * ```ts
 * import { McpClient } from "yada-mcp/node";
 * const client = await McpClient.connectStdio("npx", ["-y", "@modelcontextprotocol/server-everything"]);
 * console.log((await client.listTools()).map((t) => t.name));
 * await client.close();
 * ```
 */
export class McpClient extends WebMcpClient {
  /**
   * {@link WebMcpClient.connect} with `tasks: taskCalls` and, for a form elicitation
   * handler, `compileSchema`, unless `options` gives its own.
   *
   * @throws the errors of {@link WebMcpClient.connect}.
   */
  static override async connect(transport: Transport, options: ClientOptions = {}): Promise<McpClient> {
    return (await super.connect(transport, withClientModules(options))) as McpClient;
  }

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

  /**
   * Completion suggestions for a prompt argument or a resource-template variable
   * (`completion/complete`, V9); see {@link complete} for the bounds and errors.
   *
   * @example
   * ```ts
   * const { values } = await client.complete({ ref: { type: "ref/prompt", name: "greet" }, argument: { name: "lang", value: "fr" } });
   * ```
   */
  complete(request: CompletionRequest, options: { signal?: AbortSignal } = {}): Promise<Completion> {
    return complete(this, request, options);
  }
}
