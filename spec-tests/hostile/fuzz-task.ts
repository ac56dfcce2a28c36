// Y6 (V8): fuzzing what a server says about a task: CreateTaskResult / tasks/get
// answers and status notifications (parseTask), and the loop that follows a task
// (followTask) against a scripted host whose answers are valid, near-valid and
// hostile task objects, in both eras. Timers fire at once while an input runs, so
// a poll interval costs no wall time; the script ends each task by itself.
import { YadaError } from "../../src/errors.js";
import { MAX_QUOTED_TEXT_CHARS, MAX_TASK_ID_CHARS, MAX_TASK_POLLS } from "../../src/limits.js";
import { followTask, parseTask, type TaskHost, type TaskInfo } from "../../src/mcp/tasks.js";
import type { NotificationListener } from "../../src/jsonrpc/session.js";
import { hostHandlers } from "../../src/mcp/host-module.js";
import { check, int, jsonValue, pick, rngFor, type FuzzTarget, type Rng } from "./fuzz-gen.js";

const STATUSES = ["working", "input_required", "completed", "failed", "cancelled"];
const TERMINAL = ["completed", "failed", "cancelled"];
const record = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A task object: mostly valid, often with one member off, sometimes hostile values. */
function taskValue(r: Rng, taskId: string): unknown {
  if (r() < 0.03) return jsonValue(r);
  const t: Record<string, unknown> = { taskId, status: r() < 0.6 ? "working" : pick(r, STATUSES) };
  if (r() < 0.3) t.statusMessage = pick<unknown>(r, ["step", "x".repeat(MAX_QUOTED_TEXT_CHARS + int(r, 3)), 5, null]);
  if (r() < 0.3) t[r() < 0.5 ? "pollIntervalMs" : "pollInterval"] = pick<unknown>(r, [0, -1, 1e308, Infinity, NaN, "10", 20]);
  if (t.status === "completed" && r() < 0.9) t.result = r() < 0.9 ? { content: [{ type: "text", text: "done" }] } : jsonValue(r);
  if (t.status === "failed" && r() < 0.9) t.error = r() < 0.8 ? { code: -32603, message: "broke" } : jsonValue(r);
  if (t.status === "input_required" && r() < 0.8) t.inputRequests = r() < 0.7 ? { [pick(r, ["a", "__proto__", "b"])]: { method: pick(r, ["roots/list", "elicitation/create", "x"]), params: {} } } : jsonValue(r);
  for (let i = r() < 0.8 ? 0 : 1 + int(r, 2); i > 0; i--) {
    const k = pick(r, ["taskId", "status", "statusMessage", "extra"]);
    t[k] = pick<unknown>(r, [undefined, "", null, 7, { toString: 1 }, { valueOf: "x", toString: "y" }, [], "x".repeat(MAX_TASK_ID_CHARS + int(r, 2)), "Completed", jsonValue(r)]);
  }
  return t;
}

/** parseTask's promise, restated: a non-empty bounded id, one of the five statuses, a cut message, a finite interval. */
function taskOk(v: unknown): boolean {
  return record(v) && typeof v.taskId === "string" && v.taskId.length >= 1 && v.taskId.length <= MAX_TASK_ID_CHARS && typeof v.status === "string" && STATUSES.includes(v.status);
}

function parsed(v: unknown): TaskInfo | undefined {
  let t: TaskInfo;
  try {
    t = parseTask(v, "fuzz: tasks/get");
  } catch (e) {
    if (!(e instanceof YadaError)) throw e;
    check(!taskOk(v), `a valid task was refused: ${e.message}`);
    check(e.message.length < 400, "a task error message is unbounded");
    return undefined;
  }
  check(taskOk(v), `a task the rules refuse was accepted: ${JSON.stringify(v).slice(0, 200)}`);
  check(t.statusMessage === undefined || t.statusMessage.length <= MAX_QUOTED_TEXT_CHARS, "a status message is over its bound");
  check(t.pollIntervalMs === undefined || Number.isFinite(t.pollIntervalMs), "a poll interval is not finite");
  return t;
}

/** Runs `fn` with timers that fire on the next macrotask turn: a poll interval costs no wall time. */
async function instantTimers<T>(fn: () => Promise<T>): Promise<T> {
  const real = globalThis.setTimeout;
  globalThis.setTimeout = ((cb: () => void) => real(cb, 0)) as unknown as typeof setTimeout;
  try {
    return await fn();
  } finally {
    globalThis.setTimeout = real;
  }
}

async function follow(r: Rng): Promise<void> {
  const taskId = r() < 0.9 ? "task-1" : "t".repeat(MAX_TASK_ID_CHARS);
  const created = parsed(taskValue(r, taskId));
  if (created === undefined) return;
  const era = r() < 0.5 ? "legacy" : "modern";
  const script = Array.from({ length: int(r, 12) }, () => taskValue(r, r() < 0.95 ? created.taskId : "task-2"));
  const listeners = new Set<NotificationListener>();
  const calls: string[] = [];
  // What the loop has seen so far, as the reference follows it: the last task object that counts.
  let lastGet: unknown;
  let resultAnswer: Record<string, unknown> | undefined;
  // Every result object of a completed task for this id that the host handed over.
  const completed = new Set<unknown>();
  const handed = <T>(v: T): T => {
    if (record(v) && v.taskId === created.taskId && v.status === "completed" && taskOk(v)) completed.add(v.result);
    return v;
  };
  const host: TaskHost = {
    era,
    where: "fuzz: tools/call t",
    answer: r() < 0.5 ? hostHandlers.answerer({ roots: () => [] }) : undefined,
    requestTimeoutMs: null,
    canCancel: r() < 0.8,
    onNotification(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    rpc(method) {
      calls.push(method);
      // Sometimes a status notification arrives first, as on a real session.
      if (r() < 0.3) for (const l of [...listeners]) l(pick(r, ["notifications/tasks/status", "notifications/tasks", "notifications/progress"]), handed(record(lastGet) && r() < 0.5 ? lastGet : (taskValue(r, created.taskId) as Record<string, unknown>)));
      if (method === "tasks/get") {
        const next = script.shift();
        if (next === undefined) return Promise.reject(new YadaError("protocol", "fuzz: the script ended"));
        lastGet = handed(next);
        return record(next) ? Promise.resolve(next) : Promise.reject(new YadaError("protocol", "fuzz: not an object"));
      }
      if (method === "tasks/result") {
        resultAnswer = r() < 0.9 ? { content: [{ type: "text", text: "r" }] } : {};
        return Promise.resolve(resultAnswer);
      }
      return Promise.resolve({});
    },
  };
  let value: Record<string, unknown>;
  try {
    value = await instantTimers(() => followTask(host, created, { timeoutMs: 60_000 }));
  } catch (e) {
    check(e instanceof YadaError, `followTask threw an untyped error: ${String(e).slice(0, 200)}`);
    check(listeners.size === 0, "a notification listener was left behind");
    return;
  }
  check(listeners.size === 0, "a notification listener was left behind");
  check(calls.filter((c) => c === "tasks/get").length <= MAX_TASK_POLLS, "more polls than the bound");
  if (era === "legacy") {
    check(value === resultAnswer && calls.includes("tasks/result"), "a legacy task ended with something other than its tasks/result answer");
  } else {
    // 2026-07-28: only a completed task's own result object is an outcome.
    check(!calls.includes("tasks/result"), "a modern task asked tasks/result");
    check(completed.has(value), `a modern task ended with something other than a completed task's result: ${JSON.stringify(value).slice(0, 200)}`);
  }
}

export const task: FuzzTarget = {
  name: "task",
  async run(seed, index) {
    const r = rngFor(seed, index);
    if (r() < 0.5) {
      parsed(taskValue(r, pick(r, ["task-1", "", "t".repeat(MAX_TASK_ID_CHARS), "t".repeat(MAX_TASK_ID_CHARS + 1)])));
      return;
    }
    await follow(r);
  },
};
