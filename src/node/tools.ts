/**
 * The Node flavour of connectMcp and reconnectingMcp: the same functions with
 * stdio server configurations launched through {@link StdioTransport} (T1).
 *
 * @module
 */
import type { McpReadConfig, McpServerConfig } from "../tools/config.js";
import {
  connectMcp as webConnectMcp,
  httpTransportFactory,
  type ConnectOptions,
  type McpConnection,
  type TransportContext,
  type TransportFactory,
} from "../tools/connect.js";
import type { Transport } from "../transport/types.js";
import { legacySse } from "../transport/legacy-fallback.js";
import { taskCalls } from "../mcp/task-module.js";
import { mcpWrites } from "../tools/action-tools.js";
import { mcpResources } from "../tools/resources.js";
import type { McpAccess } from "../tools/gate.js";
import { reconnectingMcp as webReconnectingMcp, type ReconnectOptions } from "../tools/reconnect.js";
import type { ReadTool, Tool } from "../tools/types.js";
import { StdioTransport, type StdioServerParams } from "./stdio.js";
import { mcpTracing } from "../trace/mcp.js";

/**
 * Builds a {@link StdioTransport} for a stdio configuration (its `command`,
 * `args`, `env` added to the minimal inherited environment, and `stderr`), and an
 * HTTP transport otherwise. The transport owns the process: closing the
 * connection ends it.
 *
 * @throws ConfigError (`config`) as {@link httpTransportFactory} for HTTP configurations.
 *
 * @example
 * ```ts
 * import { connectMcp } from "yada-mcp"; // the web function, given stdio by hand
 * await connectMcp(server, access, { transportFactory: nodeTransportFactory });
 * ```
 */
export const nodeTransportFactory: TransportFactory = (server, context) => stdioTransportFactory(server, context);

/** {@link nodeTransportFactory} with a receiver of each stdio server's stderr (the CLI's `--verbose`), which then is piped, never inherited. */
export function stdioTransportFactory(server: McpServerConfig, context: TransportContext, onStderr?: (text: string) => void): Transport {
  if (server.command === undefined) return httpTransportFactory(server, context);
  const params: StdioServerParams = { command: server.command, name: server.name, logger: context.logger };
  if (server.args) params.args = server.args;
  if (server.env) params.env = server.env;
  if (onStderr) params.onStderr = onStderr;
  else if (server.stderr) params.stderr = server.stderr;
  return new StdioTransport(params);
}

// Stdio, and every module of connectMcp on (writes, resource tools, tasks, the HTTP+SSE fallback, traces)
// unless the host gave its own: the Node entry's connectMcp carries everything.
function withStdio<O extends ConnectOptions>(options: O | undefined): O {
  return { transportFactory: nodeTransportFactory, writes: mcpWrites, resourceTools: mcpResources, tasks: taskCalls, fallback: legacySse, tracing: mcpTracing, ...options } as O;
}

/**
 * {@link webConnectMcp | connectMcp} for Node: stdio and HTTP configurations, with
 * every module on: write and confirmed tools (`writes: mcpWrites`), resource tools
 * (`resourceTools: mcpResources`), task-augmented
 * tools (`tasks: taskCalls`) and the HTTP+SSE fallback (`fallback: legacySse`),
 * unless `options` gives its own.
 *
 * @throws as the web connectMcp; TransportError (`transport`) when the process
 * cannot start; ConnectionClosedError (`connection_closed`) when it exits during
 * setup, with its exit status and stderr tail.
 *
 * @example
 * ```ts
 * import { connectMcp } from "yada-mcp/node";
 * const connection = await connectMcp(
 *   { name: "catalog", command: "node", args: ["/srv/catalog.js"], readTools: ["lookup"] },
 *   { identity, authorize },
 * );
 * ```
 */
export function connectMcp(server: McpReadConfig, access: McpAccess, options?: ConnectOptions): Promise<McpConnection<ReadTool>>;
export function connectMcp(server: McpServerConfig, access: McpAccess, options?: ConnectOptions): Promise<McpConnection<Tool>>;
export function connectMcp(server: McpServerConfig, access: McpAccess, options?: ConnectOptions): Promise<McpConnection<Tool>> {
  return webConnectMcp(server, access, withStdio(options));
}

/**
 * {@link webReconnectingMcp | reconnectingMcp} for Node: stdio and HTTP
 * configurations. A stdio reconnect launches a new process.
 *
 * @throws as {@link connectMcp}.
 *
 * @example
 * ```ts
 * import { reconnectingMcp } from "yada-mcp/node";
 * const connection = await reconnectingMcp({ name: "catalog", command: "node", args: ["/srv/catalog.js"] }, { identity, authorize });
 * ```
 */
export function reconnectingMcp(server: McpReadConfig, access: McpAccess, options?: ReconnectOptions): Promise<McpConnection<ReadTool>>;
export function reconnectingMcp(server: McpServerConfig, access: McpAccess, options?: ReconnectOptions): Promise<McpConnection<Tool>>;
export function reconnectingMcp(server: McpServerConfig, access: McpAccess, options?: ReconnectOptions): Promise<McpConnection<Tool>> {
  return webReconnectingMcp(server, access, withStdio(options));
}
