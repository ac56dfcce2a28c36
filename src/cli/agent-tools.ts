/**
 * The tools `run` and the demo give the model, all through connectMcp
 * (identity-bound, authorized on every call, validated, bounded: T1–T11): the
 * server's read tools, plus its other tools as confirmed tools behind approval (W7).
 *
 * The listing and server info shown to the user are taken from connectMcp's own
 * `tools/list` and handshake answers (seen through a {@link RecordingTransport}),
 * so there is one connection and one listing.
 *
 * @module
 */
import type { Logger } from "../log.js";
import { isRecord, parseTool, type McpTool } from "../mcp/types.js";
import { connectMcp, nodeTransportFactory, stdioTransportFactory } from "../node/tools.js";
import type { McpConnection } from "../tools/connect.js";
import type { McpServerConfig } from "../tools/config.js";
import type { Authorize, ConfirmTool, Identity, ReadTool, Tool, WriteTool } from "../tools/types.js";
import type { HttpAuth } from "../transport/http-auth.js";
import { RecordingTransport, type TranscriptEntry } from "../transport/recording.js";
import { printServerStderr, serverConfig, type ServerChoice } from "./server.js";

/** Options of {@link connectAgentTools}. */
export interface AgentToolsOptions {
  identity: Identity;
  /** Awaited on every read call with the remote tool name (T4). */
  authorize: Authorize;
  /** Reviewed read tools (T3); default: the tools annotated `readOnlyHint: true`. */
  readTools?: string[];
  /** Tools offered behind approval: names, or `["*"]` (default) for every other tool not annotated read-only. */
  confirmTools?: string[];
  /** Adds `<name>__list_resources` and `<name>__read_resource` (T11). */
  resources?: boolean;
  logger?: Logger;
  signal?: AbortSignal;
  /** OAuth of an HTTP server (A6: the stored login of `yada login`). */
  auth?: HttpAuth;
}

/**
 * The connectMcp configuration `run` and `worker` use for a choice: its read
 * selection and resources (the flags first), and its write roles: `--confirm-tools`
 * when given (with a `--config` entry's `writeTools` kept), else a `--config`
 * entry's reviewed `writeTools` / `confirmTools` as written, else every tool that
 * is not a read behind approval (`confirmTools: "*"`).
 *
 * @throws ConfigError (`config`) as connectMcp would, for a name it refuses.
 */
export function actionConfig(choice: ServerChoice, options: Pick<AgentToolsOptions, "readTools" | "confirmTools" | "resources" | "auth"> = {}): McpServerConfig {
  const read = serverConfig(choice, { ...(options.readTools ? { readTools: options.readTools } : {}), ...(options.resources ? { resources: true } : {}) });
  const base = options.auth !== undefined && read.url !== undefined ? { ...read, auth: options.auth } : read;
  const wanted = options.confirmTools;
  const confirmTools = wanted === undefined ? undefined : wanted.length === 1 && wanted[0] === "*" ? ("*" as const) : wanted;
  if (choice.roles) {
    const roles = confirmTools !== undefined ? { ...choice.roles, confirmTools } : choice.roles;
    return { ...base, ...roles } as McpServerConfig;
  }
  return { ...base, confirmTools: confirmTools ?? "*" } as McpServerConfig;
}

/** A connected server's tools for the model. */
export interface AgentTools {
  connection: McpConnection<Tool>;
  /** Every tool the server listed. */
  listed: McpTool[];
  /** The server's `serverInfo` from the handshake, when it sent one (untrusted). */
  serverInfo: { name: string; version: string } | undefined;
  /** What runs directly (connectMcp's read tools). */
  reads: ReadTool[];
  /** What stops for approval. */
  confirms: Array<ConfirmTool | WriteTool>;
  /** `reads` then `confirms`: what `run` gets. */
  tools: Tool[];
}

/**
 * Connects the chosen server for the agent: read tools and confirmed tools
 * (`confirmTools`, default `"*"`) through connectMcp. Closing `connection` ends the session.
 *
 * @throws the errors of connectMcp (`config`, `tool_not_found`, `limit`,
 * `schema`, `timeout`, connection errors), among them ConfigError (`config`) for a
 * `confirmTools` name that is also a read tool and ToolNotFoundError
 * (`tool_not_found`) for one that is not listed.
 */
export async function connectAgentTools(choice: ServerChoice, options: AgentToolsOptions): Promise<AgentTools> {
  const listRequests = new Set<unknown>();
  const listed: McpTool[] = [];
  let serverInfo: AgentTools["serverInfo"];
  let watching = true;
  const watch = ({ dir, msg }: TranscriptEntry): void => {
    if (!watching || !isRecord(msg)) return;
    if (dir === "c2s" && msg.method === "tools/list") listRequests.add(msg.id);
    if (dir !== "s2c" || !("id" in msg) || !isRecord(msg.result)) return;
    const result = msg.result;
    if (isRecord(result.serverInfo) && typeof result.serverInfo.name === "string" && typeof result.serverInfo.version === "string") {
      serverInfo = { name: result.serverInfo.name, version: result.serverInfo.version };
    }
    if (listRequests.has(msg.id) && Array.isArray(result.tools)) {
      for (const [i, t] of result.tools.entries()) {
        try {
          listed.push(parseTool(t, `tools/list tools[${i}]`));
        } catch {
          // The client parses the same answer: a tool it refuses fails connectMcp, not this watcher.
        }
      }
    }
  };
  const config = actionConfig(choice, options);
  const connection = await connectMcp(
    config,
    { identity: options.identity, authorize: options.authorize },
    {
      transportFactory: (server, context) =>
        new RecordingTransport(choice.kind === "stdio" && choice.inheritStderr ? stdioTransportFactory(server, context, printServerStderr) : nodeTransportFactory(server, context), watch),
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
  watching = false;
  const reads = connection.tools.filter((t): t is ReadTool => t.effect === "read");
  const confirms = connection.tools.filter((t): t is ConfirmTool | WriteTool => t.effect !== "read");
  return { connection, listed, serverInfo, reads, confirms, tools: [...reads, ...confirms] };
}
