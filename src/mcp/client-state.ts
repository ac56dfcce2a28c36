/**
 * What one connection of {@link McpClient} keeps, shared by the client and the
 * views `withCallTimeout` makes of it, and how the session's server requests and
 * notifications reach it (V5, V6, V7).
 *
 * @module
 */
import type { JsonRpcSession } from "../jsonrpc/session.js";
import type { Logger } from "../log.js";
import { LOGGING_LEVELS, type ClientOptions, type ListKind, type LoggingLevel, type ServerLogEntry } from "./client-options.js";
import type { HostAnswer } from "./host-module.js";
import type { ClientIdentity, Established } from "./handshake.js";
import type { Subscriptions } from "./listen.js";
import type { ParamHeader } from "./param-headers.js";
import type { TaskSupport } from "./task-call.js";
import type { TaskCalls } from "./task-module.js";
import { isRecord, type JsonRecord } from "./types.js";

/** State shared by a client and the views {@link McpClient.withCallTimeout} makes of it. */
export interface Shared extends Established {
  session: JsonRpcSession;
  name: string;
  requestTimeoutMs: number | null;
  who: ClientIdentity;
  /** Answers what the server asks through the host handlers (V6), when the host gave them with `hosting`. */
  answer: HostAnswer | undefined;
  /** The level asked for; in the modern era it rides on every request's `_meta` (V7). */
  logLevel: LoggingLevel | undefined;
  /** `x-mcp-header` declarations of listed tools (modern HTTP only, V2). */
  paramHeaders: Map<string, ParamHeader[]> | undefined;
  /** Fresh list results by method, from `ttlMs` (modern, V2). */
  listCache: Map<string, { items: unknown[]; until: number }>;
  subscriptions?: Subscriptions;
  listListeners: number;
  /** Modern-era list listeners, told of every list a new listen acknowledges (a possible unannounced change). */
  resyncListeners: Set<(kind: ListKind) => void>;
  /** `execution.taskSupport` of listed tools (V8). */
  taskSupport: Map<string, TaskSupport>;
  /** The identity sent with tools/call and tasks/* when the server takes modern tasks (V8), else undefined. */
  taskWho: ClientIdentity | undefined;
  /** The task module, when the host passed it (V8). */
  tasks: TaskCalls | undefined;
  log: Logger | undefined;
}

/** Does a tools/call answer ask for input_required rounds (V2)? A complete or task answer does not. */
export function needsInput(answer: JsonRecord): boolean {
  const type = answer.resultType;
  return type !== undefined && type !== "complete" && type !== "task";
}

/** `params` with `meta` merged into its `_meta`. */
export function withMeta(params: JsonRecord, meta: JsonRecord | undefined): JsonRecord {
  return meta ? { ...params, _meta: { ...(isRecord(params._meta) ? params._meta : {}), ...meta } } : params;
}

/** The list_changed notifications of the three lists (V5). */
export const LIST_CHANGED = /^notifications\/(tools|resources|prompts)\/list_changed$/;

// A change makes cached lists stale at once (spec 2026-07-28 "Caching"); the
// cache is keyed by method, and each list method starts with its kind.
export function dropCachedLists(s: Shared, kind: string): void {
  for (const method of s.listCache.keys()) if (method.startsWith(kind)) s.listCache.delete(method);
}

/** Routes the server's requests to the host handlers and its notifications to the log, the list cache and the subscriptions. */
export function wireSession(s: Shared, options: ClientOptions): void {
  const { session, answer } = s;
  // Legacy servers ask with requests; modern ones with input_required results.
  if (s.era === "legacy" && answer && options.handlers) options.hosting?.serve(session, answer, options.handlers);
  for (const [method, handler] of Object.entries(options.requestHandlers ?? {})) session.onRequest(method, handler);
  const onLog = options.onServerLog;
  session.onNotification((method, params) => {
    if (method === "notifications/message") {
      if (!onLog || !params || !LOGGING_LEVELS.includes(params.level as string)) return;
      const entry: ServerLogEntry = { level: params.level as LoggingLevel, data: params.data };
      if (typeof params.logger === "string") entry.logger = params.logger;
      onLog(entry);
      return;
    }
    const kind = LIST_CHANGED.exec(method)?.[1];
    if (kind) dropCachedLists(s, kind);
    s.subscriptions?.onNotification(method, params);
  });
}
