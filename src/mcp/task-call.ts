/**
 * Where a tool call meets tasks (V8): whether to ask for a task (2025-11-25),
 * the identity that declares the extension (2026-07-28), and turning a task
 * answer into the call's final result.
 *
 * @module
 */
import { ProtocolError } from "../errors.js";
import type { JsonRpcSession, Progress, RequestOptions } from "../jsonrpc/session.js";
import type { RequestId } from "../jsonrpc/messages.js";
import { DEFAULT_TASK_TIMEOUT_MS } from "../limits.js";
import { isRecord, type JsonRecord } from "./fields.js";
import type { ClientHandlers } from "./handlers.js";
import type { ClientIdentity, Established } from "./handshake.js";
import { followTask, parseTask, serverCancelsTasks, serverTakesToolTasks, TASKS_EXTENSION, type TaskSupport } from "./tasks.js";
import { parseCallToolResult, type CallToolResult } from "./types.js";
import type { Era } from "./versions.js";

export type { TaskSupport } from "./tasks.js";

/** What the client knows that decides task augmentation. */
interface TaskView {
  era: Era;
  capabilities: JsonRecord;
  taskSupport: ReadonlyMap<string, TaskSupport>;
}

/**
 * The `task` params of a 2025-11-25 `tools/call`, or undefined for a plain call:
 * only on a server that declares `tasks.requests.tools.call`, for a tool listed
 * as `required`, or `optional` / unlisted when the host asks (`task: true`).
 */
export function taskCallParams(s: TaskView, name: string, options: { task?: boolean; taskTtlMs?: number }): JsonRecord | undefined {
  if (s.era !== "legacy" || options.task === false || !serverTakesToolTasks("legacy", s.capabilities)) return undefined;
  const support = s.taskSupport.get(name);
  if (support !== "required" && !(options.task === true && support !== "forbidden")) return undefined;
  const ttl = options.taskTtlMs;
  return typeof ttl === "number" && Number.isInteger(ttl) && ttl > 0 ? { ttl } : {};
}

/** The identity for tools/call and tasks/* when the server takes 2026-07-28 tasks: the extension declared. */
export function taskIdentity(established: Established, who: ClientIdentity): ClientIdentity | undefined {
  if (!serverTakesToolTasks(established.era, established.capabilities) || established.era !== "modern") return undefined;
  const extensions = isRecord(who.capabilities.extensions) ? who.capabilities.extensions : {};
  return { ...who, capabilities: { ...who.capabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } } };
}

/** What following a task of one call needs. */
export interface TaskCallContext {
  era: Era;
  capabilities: JsonRecord;
  session: JsonRpcSession;
  handlers: ClientHandlers | undefined;
  requestTimeoutMs: number | null;
  rpc(method: string, params: JsonRecord, options: RequestOptions): Promise<JsonRecord>;
  /** The call's bound; `null` = `DEFAULT_TASK_TIMEOUT_MS`. */
  callTimeoutMs: number | null;
  /** When the call was sent (the bound counts from there). */
  sentAt: number;
  progressToken: RequestId | undefined;
  signal: AbortSignal | undefined;
  onProgress: ((progress: Progress) => void) | undefined;
}

/**
 * The final result of a `tools/call` answer: parsed at once when it is one, or,
 * when it created a task, after following the task to its end.
 *
 * @throws ProtocolError (`protocol`) for a task answer the client did not ask for, and as {@link followTask}.
 */
export function toolCallOutcome(raw: JsonRecord, where: string, askedForTask: boolean, c: TaskCallContext): CallToolResult | Promise<CallToolResult> {
  let created: unknown;
  if (c.era === "modern") {
    if (raw.resultType !== "task") return parseCallToolResult(raw, where);
    // A task answer to a request that did not declare the extension is invalid (2026-07-28 tasks).
    if (!serverTakesToolTasks("modern", c.capabilities)) throw new ProtocolError(`${where}: the server answered with a task this client did not declare`);
    created = raw;
  } else {
    if (!askedForTask || !isRecord(raw.task) || "content" in raw) return parseCallToolResult(raw, where);
    created = raw.task;
  }
  const task = parseTask(created, where);
  const bound = c.callTimeoutMs ?? DEFAULT_TASK_TIMEOUT_MS;
  const host = {
    era: c.era,
    where,
    rpc: c.rpc,
    onNotification: (listener: Parameters<JsonRpcSession["onNotification"]>[0]) => c.session.onNotification(listener),
    handlers: c.handlers,
    requestTimeoutMs: c.requestTimeoutMs,
    canCancel: serverCancelsTasks(c.era, c.capabilities),
  };
  return followTask(host, task, {
    signal: c.signal,
    onProgress: c.onProgress,
    progressToken: c.progressToken,
    timeoutMs: Math.max(1, bound - (Date.now() - c.sentAt)),
  }).then((result) => parseCallToolResult(result, where));
}
