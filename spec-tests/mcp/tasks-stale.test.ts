// V8: a tasks/get answer older than a status notification that arrived while the poll
// was under way does not turn the shown status back (2025-11-25 `lastUpdatedAt`); a
// terminal answer ends the task whatever its time; a login during a poll holds the
// task's bound (A2). Driven through followTask with a
// scripted host: the interleaving is a race with a real server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { followTask, parseTask, type TaskHost } from "../../src/mcp/tasks.js";
import type { JsonRecord } from "../../src/mcp/types.js";

const at = (s: number): string => new Date(Date.UTC(2026, 11, 1, 12, 0, s)).toISOString();

function host(script: (method: string, notify: (params: JsonRecord) => void) => JsonRecord): TaskHost {
  const listeners = new Set<(method: string, params: JsonRecord | undefined) => void>();
  const notify = (params: JsonRecord): void => {
    for (const l of listeners) l("notifications/tasks/status", params);
  };
  return {
    era: "legacy",
    where: "s: tools/call t",
    rpc: async (method) => script(method, notify),
    onNotification: (l) => {
      listeners.add(l as never);
      return () => listeners.delete(l as never);
    },
    answer: undefined,
    requestTimeoutMs: null,
    canCancel: true,
  };
}

test("V8: a tasks/get answer older than a status notification that came first does not show the older status again", async () => {
  let polls = 0;
  const shown: string[] = [];
  const h = host((method, notify) => {
    if (method === "tasks/result") return { content: [{ type: "text", text: "done" }] };
    polls++;
    if (polls === 1) {
      // While the poll is under way the server moves on and says so; the poll's answer was taken before.
      notify({ taskId: "t", status: "working", statusMessage: "step 2", lastUpdatedAt: at(2) });
      return { taskId: "t", status: "working", statusMessage: "step 1", lastUpdatedAt: at(1), pollInterval: 1 };
    }
    return { taskId: "t", status: "completed", statusMessage: "step 3", lastUpdatedAt: at(0), pollInterval: 1 };
  });
  const created = parseTask({ taskId: "t", status: "working", statusMessage: "step 0", lastUpdatedAt: at(0), pollInterval: 1 }, "s");
  const result = await followTask(h, created, { timeoutMs: 10_000, onProgress: (p) => shown.push(p.message ?? "") });
  assert.deepEqual(result, { content: [{ type: "text", text: "done" }] });
  assert.deepEqual(shown, ["working: step 0", "working: step 2", "completed: step 3"], "the stale 'step 1' is not shown; the terminal answer ends it though its time is older");
});

test("V8: lastUpdatedAt is read as a time only when it is a valid ISO 8601 string of bounded length", () => {
  assert.equal(parseTask({ taskId: "t", status: "working", lastUpdatedAt: at(5) }, "s").updatedAt, Date.UTC(2026, 11, 1, 12, 0, 5));
  for (const bad of ["yesterday", 5, "2".repeat(65), null]) assert.equal(parseTask({ taskId: "t", status: "working", lastUpdatedAt: bad }, "s").updatedAt, undefined);
});

test("A2, V8: a login during a poll does not count against the task's whole bound", async () => {
  let polls = 0;
  let tell: ((held: boolean) => void) | undefined;
  const h: TaskHost = {
    ...host(() => ({})),
    rpc: async (method) => {
      if (method === "tasks/result") return { content: [{ type: "text", text: "done" }] };
      if (++polls === 1) {
        // The poll meets a 401 and the user logs in: 1.5 s of a 1 s bound, held.
        tell?.(true);
        await new Promise((r) => setTimeout(r, 1_500));
        tell?.(false);
        return { taskId: "t", status: "working", pollInterval: 1 };
      }
      return { taskId: "t", status: "completed", pollInterval: 1 };
    },
    onHold: (listener) => {
      tell = listener;
      return () => (tell = undefined);
    },
  };
  const created = parseTask({ taskId: "t", status: "working", pollInterval: 1 }, "s");
  const result = await followTask(h, created, { timeoutMs: 1_000 });
  assert.deepEqual(result, { content: [{ type: "text", text: "done" }] });
  assert.equal(tell, undefined, "the hold listener is removed when the task ends");
});
