/**
 * Task-augmented tool calls (V8), in both eras, followed to their end so a caller
 * sees one ordinary call with progress:
 *
 * - 2025-11-25 (`basic/utilities/tasks`): the client adds `task` to a `tools/call`
 *   of a tool whose `execution.taskSupport` asks for it, on a server that declares
 *   `tasks.requests.tools.call`; the answer is a `CreateTaskResult`; the client polls
 *   `tasks/get` and fetches the result with `tasks/result` (at once on
 *   `input_required`, whose questions arrive on that request's stream).
 * - 2026-07-28 (the `io.modelcontextprotocol/tasks` extension): the server decides;
 *   a `tools/call` answered `resultType: "task"` is polled with `tasks/get`, whose
 *   answer carries the result, the error or the `inputRequests` (answered with
 *   `tasks/update`).
 *
 * Both: the poll honours the server's interval within `MIN_TASK_POLL_MS`…
 * `MAX_TASK_POLL_MS`, the whole task is bounded, status notifications become
 * progress, and an abort or timeout sends `tasks/cancel`. 2025-11-25 status
 * notifications wake the poll; 2026-07-28 ones are asked for on the
 * `subscriptions/listen` stream and carry the whole task (its outcome included), so
 * the poll stays the fallback at the server's interval, and one poll follows the
 * server's acknowledgement (changes before it were not announced).
 *
 * @module
 */
import { CancelledError, JsonRpcError, LimitError, ProtocolError, TimeoutError } from "../errors.js";
import type { NotificationListener, Progress, RequestOptions } from "../jsonrpc/session.js";
import type { RequestId } from "../jsonrpc/messages.js";
import {
  DEFAULT_TASK_POLL_MS,
  MAX_QUOTED_CHARS,
  MAX_QUOTED_TEXT_CHARS,
  MAX_RPC_ERROR_MESSAGE_CHARS,
  MAX_TASK_ID_CHARS,
  MAX_TASK_INPUT_KEYS,
  MAX_TASK_POLL_MS,
  MAX_TASK_POLLS,
  MIN_TASK_POLL_MS,
  TASK_CANCEL_TIMEOUT_MS,
} from "../limits.js";
import { startTimer } from "../util/sleep.js";
import { isRecord, type JsonRecord } from "./fields.js";
import type { HostAnswer } from "./host-module.js";
import { answerAll } from "./input-rounds.js";
import type { Era } from "./versions.js";

/** The extension identifier of tasks in revision 2026-07-28. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** A tool's `execution.taskSupport` (2025-11-25): absent means `forbidden`. */
export type TaskSupport = "required" | "optional" | "forbidden";

/** The states of a task; the last three are terminal. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** A task as the server describes it (untrusted; checked by {@link parseTask}). */
export interface TaskInfo {
  taskId: string;
  status: TaskStatus;
  /** Cut at `MAX_QUOTED_TEXT_CHARS`. */
  statusMessage?: string;
  /** Suggested poll interval in ms (`pollInterval` in 2025-11-25, `pollIntervalMs` in 2026-07-28). */
  pollIntervalMs?: number;
  /** `lastUpdatedAt` (2025-11-25), in ms since the epoch, when it is a valid ISO 8601 time. */
  updatedAt?: number;
}

const STATUSES: ReadonlySet<string> = new Set(["working", "input_required", "completed", "failed", "cancelled"]);

/** Is `status` terminal (completed, failed, cancelled)? */
export function isTerminal(status: TaskStatus): boolean {
  return status === "completed" || status === "failed" || status === "cancelled";
}

/** A tool's declared task support, or undefined when absent or not one of the three values. */
export function readTaskSupport(tool: JsonRecord): TaskSupport | undefined {
  const execution = tool.execution;
  const v = isRecord(execution) ? execution.taskSupport : undefined;
  return v === "required" || v === "optional" || v === "forbidden" ? v : undefined;
}

/**
 * Does the server take task-augmented `tools/call`? 2025-11-25: it declares
 * `tasks.requests.tools.call` (the tool-level value matters only then);
 * 2026-07-28: it declares the tasks extension.
 */
export function serverTakesToolTasks(era: Era, capabilities: JsonRecord): boolean {
  if (era === "modern") return isRecord(capabilities.extensions) && isRecord(capabilities.extensions[TASKS_EXTENSION]);
  const tasks = capabilities.tasks;
  const requests = isRecord(tasks) ? tasks.requests : undefined;
  const tools = isRecord(requests) ? requests.tools : undefined;
  return isRecord(tools) && isRecord(tools.call);
}

/** Does a 2025-11-25 server declare `tasks/cancel`? (2026-07-28 servers always take it.) */
export function serverCancelsTasks(era: Era, capabilities: JsonRecord): boolean {
  return era === "modern" || (isRecord(capabilities.tasks) && isRecord(capabilities.tasks.cancel));
}

/**
 * Parses a task object: a `CreateTaskResult`'s `task` (2025-11-25), a
 * `CreateTaskResult` itself (2026-07-28), a `tasks/get` result or a status
 * notification's params.
 *
 * @throws ProtocolError (`protocol`) for a missing or empty `taskId` or an unknown `status`; LimitError
 * (`limit`) for a `taskId` longer than `MAX_TASK_ID_CHARS`.
 */
export function parseTask(v: unknown, where: string): TaskInfo {
  if (!isRecord(v)) throw new ProtocolError(`${where}: a task is not an object`);
  const { taskId, status, statusMessage } = v;
  if (typeof taskId !== "string" || taskId.length === 0) throw new ProtocolError(`${where}: a task needs a non-empty string "taskId"`);
  if (taskId.length > MAX_TASK_ID_CHARS) throw new LimitError("MAX_TASK_ID_CHARS", MAX_TASK_ID_CHARS, `${where}: a task id is longer than ${MAX_TASK_ID_CHARS} characters`);
  if (typeof status !== "string" || !STATUSES.has(status)) {
    // Not String(status): a JSON object whose "toString" member is not a function makes it throw a TypeError.
    const shown = typeof status === "string" ? `'${status.slice(0, MAX_QUOTED_CHARS)}'` : `of type ${status === null ? "null" : typeof status}`;
    throw new ProtocolError(`${where}: task status ${shown} is not one of working, input_required, completed, failed, cancelled`);
  }
  const task: TaskInfo = { taskId, status: status as TaskStatus };
  if (typeof statusMessage === "string") task.statusMessage = statusMessage.slice(0, MAX_QUOTED_TEXT_CHARS);
  // Advisory: a wrong type is dropped, not an error.
  const interval = v.pollIntervalMs ?? v.pollInterval;
  if (typeof interval === "number" && Number.isFinite(interval)) task.pollIntervalMs = interval;
  const updated = v.lastUpdatedAt;
  if (typeof updated === "string" && updated.length <= 64) {
    const ms = Date.parse(updated);
    if (Number.isFinite(ms)) task.updatedAt = ms;
  }
  return task;
}

/** What following a task needs from the client. */
export interface TaskHost {
  era: Era;
  /** "server: tools/call name", for messages. */
  where: string;
  /** One request in the client's era (modern `_meta` included). */
  rpc(method: string, params: JsonRecord, options: RequestOptions): Promise<JsonRecord>;
  onNotification(listener: NotificationListener): () => void;
  answer: HostAnswer | undefined;
  /** Bound on each `tasks/get` / `tasks/update`; `null` = only the task's own bound. */
  requestTimeoutMs: number | null;
  /** Whether `tasks/cancel` may be sent. */
  canCancel: boolean;
  /**
   * Asks for the task's `notifications/tasks` on the `subscriptions/listen` stream
   * (2026-07-28); `acknowledged` runs when the server agrees. Returns the unsubscribe.
   */
  listen?(taskId: string, acknowledged: () => void): () => void;
  /**
   * The transport's `Transport.onHold`: while a request waits on the user (an
   * interactive login), the task's whole bound stops too (A2).
   */
  onHold?(listener: (held: boolean) => void): () => void;
}

/** How one task is followed. */
export interface FollowOptions {
  signal?: AbortSignal;
  onProgress?: (progress: Progress) => void;
  /** The `tools/call` request's progress token: it stays valid for the task's lifetime (2025-11-25). */
  progressToken?: RequestId;
  /** Bound on the whole task, from its creation, in ms. */
  timeoutMs: number;
}

/** The poll interval to honour for `task`. */
function intervalOf(task: TaskInfo): number {
  const ms = task.pollIntervalMs ?? DEFAULT_TASK_POLL_MS;
  return Math.min(MAX_TASK_POLL_MS, Math.max(MIN_TASK_POLL_MS, ms));
}

/**
 * Follows a created task to its end and returns the raw result of the original
 * request (for `tools/call`, a `CallToolResult` to parse).
 *
 * @throws TimeoutError (`timeout`) past `timeoutMs`; CancelledError (`cancelled`) on abort or when the
 * server cancelled the task (2026-07-28); JsonRpcError (`jsonrpc`) for a failed task (2026-07-28) or a
 * `tasks/*` error; LimitError (`limit`) past `MAX_TASK_POLLS` or `MAX_TASK_INPUT_KEYS`; ProtocolError (`protocol`).
 * `tasks/cancel` is sent (best effort) whenever the task is abandoned before its end.
 */
export async function followTask(host: TaskHost, created: TaskInfo, options: FollowOptions): Promise<JsonRecord> {
  const { where, era } = host;
  const { signal, onProgress } = options;
  const taskId = created.taskId;
  const deadline = Date.now() + options.timeoutMs;
  let task = created;
  let latest: JsonRecord | undefined; // the last modern tasks/get answer (it carries the outcome)
  let lastProgress = 0;
  let wake: (() => void) | undefined;

  const report = (p: Progress): void => {
    try {
      onProgress?.(p);
    } catch {
      // A throwing progress callback is the host's bug; the call goes on.
    }
  };
  let shown = `${task.status}\u0000${task.statusMessage ?? ""}`;
  const observe = (next: TaskInfo, raw: JsonRecord): void => {
    if (isTerminal(task.status)) return; // terminal states never change
    // A poll answer older than a status notification that arrived first is old news
    // (never a terminal state: that one ends the task whatever its time says).
    if (!isTerminal(next.status) && next.updatedAt !== undefined && task.updatedAt !== undefined && next.updatedAt < task.updatedAt) return;
    task = next;
    latest = raw;
    const key = `${next.status}\u0000${next.statusMessage ?? ""}`;
    if (key === shown) return;
    shown = key;
    report({ progress: lastProgress, message: next.statusMessage ? `${next.status}: ${next.statusMessage}` : next.status });
  };
  if (created.statusMessage) report({ progress: 0, message: `${created.status}: ${created.statusMessage}` });

  const off = host.onNotification((method, params) => {
    if (!params) return;
    const token = options.progressToken;
    if (method === "notifications/progress" && token !== undefined && params.progressToken === token && typeof params.progress === "number") {
      lastProgress = params.progress;
      const p: Progress = { progress: params.progress };
      if (typeof params.total === "number") p.total = params.total;
      if (typeof params.message === "string") p.message = params.message.slice(0, MAX_QUOTED_TEXT_CHARS);
      report(p);
      return;
    }
    // 2025-11-25 names it notifications/tasks/status; 2026-07-28 notifications/tasks.
    if ((method === "notifications/tasks/status" || method === "notifications/tasks") && params.taskId === taskId) {
      try {
        const next = parseTask(params, where);
        observe(next, params);
        // A 2026-07-28 notification is the whole task: only an outcome or a question needs the loop.
        if (era === "legacy" || next.status !== "working") wake?.();
      } catch {
        // Polling is the source of truth; a malformed notification is ignored.
      }
    }
  });
  const unlisten = era === "modern" && host.listen ? host.listen(taskId, () => wake?.()) : undefined;

  // A2: time spent waiting on the user (a login during a poll) does not count.
  let heldMs = 0;
  let heldSince: number | undefined;
  const offHold = host.onHold?.((held) => {
    if (held) heldSince ??= Date.now();
    else if (heldSince !== undefined) {
      heldMs += Date.now() - heldSince;
      heldSince = undefined;
    }
  });
  const remaining = (): number => deadline + heldMs + (heldSince === undefined ? 0 : Date.now() - heldSince) - Date.now();
  const timedOut = (): TimeoutError => new TimeoutError(`${where}: the task did not finish within ${options.timeoutMs} ms`, options.timeoutMs);
  const requestOptions = (): RequestOptions => {
    const left = Math.max(1, remaining());
    return { signal, timeoutMs: host.requestTimeoutMs === null ? left : Math.min(host.requestTimeoutMs, left) };
  };
  // Waits `ms`, or less when a notification or the result arrives, or the call aborts.
  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        wake = undefined;
        resolve();
      };
      const timer = startTimer(done, ms);
      wake = done;
      signal?.addEventListener("abort", done, { once: true });
    });

  // 2025-11-25: tasks/result blocks until the task ends; input requests arrive on it.
  let result: Promise<JsonRecord> | undefined;
  let settled: { value?: JsonRecord; error?: unknown } | undefined;
  const fetchResult = (): Promise<JsonRecord> => {
    result ??= host.rpc("tasks/result", { taskId }, { signal, timeoutMs: Math.max(1, remaining()) }).then(
      (value) => {
        settled = { value };
        wake?.();
        return value;
      },
      (error: unknown) => {
        settled = { error };
        wake?.();
        throw error;
      },
    );
    return result;
  };
  const answered = new Set<string>();

  try {
    for (let polls = 0; ; ) {
      if (signal?.aborted) throw new CancelledError(`${where}: cancelled while its task ran`);
      if (settled) {
        if (settled.error !== undefined) throw settled.error;
        return settled.value ?? {};
      }
      if (era === "legacy") {
        if (isTerminal(task.status)) return await fetchResult();
        if (task.status === "input_required") void fetchResult().catch(() => {});
      } else if (latest && (isTerminal(task.status) || task.status === "input_required")) {
        if (task.status !== "input_required") return modernOutcome(where, task.status, latest);
        await answerInputs(host, taskId, latest, answered, signal, requestOptions());
      }
      if (remaining() <= 0) throw timedOut();
      await pause(Math.min(intervalOf(task), remaining()));
      if (signal?.aborted || settled || (era === "modern" && latest && isTerminal(task.status))) continue;
      if (remaining() <= 0) throw timedOut();
      if (++polls > MAX_TASK_POLLS) throw new LimitError("MAX_TASK_POLLS", MAX_TASK_POLLS, `${where}: the task was polled ${MAX_TASK_POLLS} times without ending`);
      const raw = await host.rpc("tasks/get", { taskId }, requestOptions());
      const next = parseTask(raw, `${where}: tasks/get`);
      if (next.taskId !== taskId) throw new ProtocolError(`${where}: tasks/get answered for another task`);
      observe(next, raw);
    }
  } catch (e) {
    // An abandoned task is cancelled, best effort; its answer is not awaited by the caller.
    if (!isTerminal(task.status) && host.canCancel && !settled) {
      void host.rpc("tasks/cancel", { taskId }, { timeoutMs: TASK_CANCEL_TIMEOUT_MS }).catch(() => {});
    }
    if (e instanceof TimeoutError || (e instanceof CancelledError && !signal?.aborted)) throw e;
    throw signal?.aborted ? new CancelledError(`${where}: cancelled while its task ran`) : e;
  } finally {
    off();
    unlisten?.();
    offHold?.();
    wake = undefined;
  }
}

// 2026-07-28: the terminal tasks/get answer carries the outcome.
function modernOutcome(where: string, status: TaskStatus, raw: JsonRecord): JsonRecord {
  if (status === "completed") {
    if (!isRecord(raw.result)) throw new ProtocolError(`${where}: a completed task has no "result" object`);
    return raw.result;
  }
  if (status === "cancelled") throw new CancelledError(`${where}: the server cancelled the task`);
  const error = raw.error;
  if (!isRecord(error) || typeof error.code !== "number" || typeof error.message !== "string") {
    throw new ProtocolError(`${where}: a failed task has no JSON-RPC "error"`);
  }
  throw new JsonRpcError(where, error.code, error.message.slice(0, MAX_RPC_ERROR_MESSAGE_CHARS), error.data);
}

// 2026-07-28: input requests not answered yet go to the host handlers, their
// answers back with tasks/update; keys are unique over a task's life.
async function answerInputs(
  host: TaskHost,
  taskId: string,
  raw: JsonRecord,
  answered: Set<string>,
  signal: AbortSignal | undefined,
  options: RequestOptions,
): Promise<void> {
  const requests = raw.inputRequests;
  if (!isRecord(requests)) throw new ProtocolError(`${host.where}: an input_required task has no "inputRequests" object`);
  const fresh: [string, unknown][] = [];
  for (const key of Object.keys(requests)) if (!answered.has(key)) fresh.push([key, requests[key]]);
  if (fresh.length === 0) return;
  if (answered.size + fresh.length > MAX_TASK_INPUT_KEYS) {
    throw new LimitError("MAX_TASK_INPUT_KEYS", MAX_TASK_INPUT_KEYS, `${host.where}: the task asked for more than ${MAX_TASK_INPUT_KEYS} inputs`);
  }
  const inputResponses = await answerAll(host.where, Object.fromEntries(fresh), host.answer, signal);
  for (const [key] of fresh) answered.add(key);
  await host.rpc("tasks/update", { taskId, inputResponses }, options);
}
