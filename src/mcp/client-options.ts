/**
 * The options of {@link McpClient.connect} and of one tool call, and the types
 * they name (V1–V8, S5, S6).
 *
 * @module
 */
import type { Progress, RequestHandler } from "../jsonrpc/session.js";
import type { Logger } from "../log.js";
import type { McpTracing, TraceOptions } from "../trace/types.js";
import type { ClientHandlers } from "./handlers.js";
import type { HostHandling } from "./host-module.js";
import type { TaskCalls } from "./task-module.js";
import type { JsonRecord } from "./types.js";
import type { Era } from "./versions.js";

/** The name and version yada reports to servers unless the host sets its own. */
export const DEFAULT_CLIENT_INFO = { name: "yada", version: "0.1.0" } as const;

/** The kinds of {@link ClientOptions}, checked where they enter (see checkOptions). */
export const CLIENT_OPTIONS =
  "logger handshakeTimeoutMs:n discoverTimeoutMs:n callTimeoutMs:n? requestTimeoutMs:n? signal:a handlers:o hosting:o onServerLog requestHandlers:o tasks:o tracer:o tracing:o";

/** Options of {@link McpClient.connect}. */
export interface ClientOptions extends TraceOptions {
  /** Names the server in errors and logs; defaults to the transport's description. */
  name?: string;
  /** `clientInfo` sent in the handshake. */
  clientInfo?: { name: string; version: string; title?: string };
  /** Diagnostics sink; silent by default. */
  logger?: Logger;
  /**
   * Bound on the whole handshake (S5); default `DEFAULT_HANDSHAKE_TIMEOUT_MS`. Time
   * the user spends in an interactive OAuth login during the handshake (the
   * `OAuthClient` `authorize` step, bounded by its `interactionTimeoutMs`) does
   * not count; discovery, token requests and the server's answers do (A2).
   */
  handshakeTimeoutMs?: number;
  /**
   * Which protocol era to speak (V2). `"auto"` (default) probes with
   * `server/discover` and falls back to `initialize`; the outcome is remembered per
   * server. `"legacy"` and `"modern"` skip the probe.
   */
  era?: "auto" | Era;
  /** Bound on the `server/discover` probe (V2); default `DEFAULT_DISCOVER_TIMEOUT_MS`. */
  discoverTimeoutMs?: number;
  /**
   * Bound on each tool call from when it is sent (S6); `null` = none. Default
   * `DEFAULT_CALL_TIMEOUT_MS` over stdio; none over HTTP, where the idle read bound
   * ends a stalled call and a call that keeps streaming is never cut off (H5).
   */
  callTimeoutMs?: number | null;
  /** Bound on list, read, prompt and ping requests; `null` = none. Default `DEFAULT_REQUEST_TIMEOUT_MS`. */
  requestTimeoutMs?: number | null;
  /** Aborts the handshake. */
  signal?: AbortSignal;
  /**
   * Host handlers for roots, sampling and elicitation (V6). Each declares its
   * capability; without a handler the capability is not declared and the server's
   * request is declined with -32601. Needs `hosting: hostHandlers`; `yada-mcp/node`'s
   * client passes it.
   */
  handlers?: ClientHandlers;
  /**
   * The host handlers' module (V6): pass {@link hostHandlers} with `handlers`.
   * `handlers` without it is a ConfigError (`config`) naming it.
   */
  hosting?: HostHandling;
  /** Receives the server's `notifications/message` log entries (V7). */
  onServerLog?: (entry: ServerLogEntry) => void;
  /** The server log level to ask for once connected (V7). */
  logLevel?: LoggingLevel;
  /** Raw handlers for other server-initiated requests, keyed by method (J3, H13). */
  requestHandlers?: Record<string, RequestHandler>;
  /** Extra capabilities declared in the handshake, merged over those of `handlers`. */
  capabilities?: JsonRecord;
  /**
   * Task-augmented tool calls (V8): pass {@link taskCalls}. Without it no call asks
   * for a task, and a call that needs one fails with a ConfigError (`config`).
   */
  tasks?: TaskCalls;
  /**
   * The MCP tracing module (O1): pass {@link mcpTracing} with `tracer`. A `tracer`
   * without it is a ConfigError (`config`); `yada-mcp/node`'s client passes it.
   */
  tracing?: McpTracing;
}

/** Server log severities (RFC 5424 names, as MCP uses them). */
export type LoggingLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";
export const LOGGING_LEVELS: readonly string[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/** One `notifications/message` entry from the server (V7); `data` is untrusted. */
export interface ServerLogEntry {
  level: LoggingLevel;
  logger?: string;
  data: unknown;
}

/** Which list a `list_changed` notification is about (V5). */
export type ListKind = "tools" | "resources" | "prompts";

/** Per-call options. */
export interface CallOptions {
  /** Aborts the call; `notifications/cancelled` is sent (J5). */
  signal?: AbortSignal;
  /** Overrides the client's bound for this call; `null` = none. */
  timeoutMs?: number | null;
  /** Receives `notifications/progress` for this call (J6). */
  onProgress?: (progress: Progress) => void;
  /** Restart the timeout on each progress update, up to `maxTotalTimeoutMs` (J6). */
  resetTimeoutOnProgress?: boolean;
  /** Hard bound on the total time when the timeout is reset by progress. */
  maxTotalTimeoutMs?: number;
  /** `_meta` added to the request params. */
  meta?: JsonRecord;
  /**
   * Task augmentation (V8, 2025-11-25): a tool whose `execution.taskSupport` is
   * `required` always runs as a task on a server that takes tasks; `true` also runs
   * an `optional` (or never listed) tool as one, `false` never asks for a task. Either
   * way the call returns the final result, with task status as progress.
   */
  task?: boolean;
  /** The task lifetime to ask for, in ms (2025-11-25 `task.ttl`); the server may choose another. */
  taskTtlMs?: number;
  /**
   * Send the request at most once (W5, W7: a mutation): a -32022 or -32020 error is
   * returned as it is, never answered by sending the request again. `input_required`
   * rounds, which the server asks for, still run.
   */
  once?: boolean;
  /**
   * Called when the call's request was handed to the transport, from when it may
   * reach the server (W13; see `RequestOptions.onSent`); again for each later
   * request of the call (an `input_required` round).
   */
  onSent?: () => void;
}
