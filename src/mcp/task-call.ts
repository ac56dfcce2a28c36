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
import type { HostAnswer } from "./host-module.js";
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
  answer: HostAnswer | undefined;
  requestTimeoutMs: number | null;
  rpc(method: string, params: JsonRecord, options: RequestOptions): Promise<JsonRecord>;
  /** The call's bound; `null` = `DEFAULT_TASK_TIMEOUT_MS`. */
  callTimeoutMs: number | null;
  /** When the call was sent (the bound counts from there). */
  sentAt: number;
  progressToken: RequestId | undefined;
  signal: AbortSignal | undefined;
  onProgress: ((progress: Progress) => void) | undefined;
  /** Subscribes to a task's status on the listen stream (2026-07-28); absent = polling only. */
  listen?: (taskId: string, acknowledged: () => void) => () => void;
}

/**
 * Is this `tools/call` answer a created task? 2026-07-28: `resultType: "task"`;
 * 2025-11-25: a `task` object and no `content`, to a call that asked for a task.
 */
export function isTaskAnswer(raw: JsonRecord, era: Era, askedForTask: boolean): boolean {
  return era === "modern" ? raw.resultType === "task" : askedForTask && isRecord(raw.task) && !("content" in raw);
}

/**
 * Follows the task a `tools/call` created to its end and returns the call's final result.
 *
 * @throws ProtocolError (`protocol`) for a task answer to a call that did not declare the
 * extension (2026-07-28), and as {@link followTask}.
 */
export async function followToolTask(raw: JsonRecord, where: string, c: TaskCallContext): Promise<CallToolResult> {
  // A task answer to a request that did not declare the extension is invalid (2026-07-28 tasks).
  if (c.era === "modern" && !serverTakesToolTasks("modern", c.capabilities)) throw new ProtocolError(`${where}: the server answered with a task this client did not declare`);
  const task = parseTask(c.era === "modern" ? raw : raw.task, where);
  const bound = c.callTimeoutMs ?? DEFAULT_TASK_TIMEOUT_MS;
  const host = {
    era: c.era,
    where,
    rpc: c.rpc,
    onNotification: (listener: Parameters<JsonRpcSession["onNotification"]>[0]) => c.session.onNotification(listener),
    answer: c.answer,
    requestTimeoutMs: c.requestTimeoutMs,
    canCancel: serverCancelsTasks(c.era, c.capabilities),
    listen: c.listen,
    onHold: c.session.transport.onHold?.bind(c.session.transport),
  };
  const result = await followTask(host, task, {
    signal: c.signal,
    onProgress: c.onProgress,
    progressToken: c.progressToken,
    timeoutMs: Math.max(1, bound - (Date.now() - c.sentAt)),
  });
  return parseCallToolResult(result, where);
}
