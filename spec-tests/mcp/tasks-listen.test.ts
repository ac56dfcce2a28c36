// V8: in the 2026-07-28 era a task's status arrives on the `subscriptions/listen`
// stream (the tasks extension's `notifications.taskIds`), against a fixture server
// over real loopback HTTP that announces status only there and suggests a poll
// interval far beyond the task's life. Polling stays the fallback (a task the
// server does not agree to announce) and the call's bound still holds.
import assert from "node:assert/strict";
import { test } from "node:test";
import { McpClient } from "../../src/mcp/client.js";
import { HttpTransport } from "../../src/transport/http.js";
import { taskCalls } from "../../src/mcp/task-module.js";
import { MAX_LISTENED_TASKS } from "../../src/limits.js";
import type { Progress } from "../../src/jsonrpc/session.js";
import { fixtureServer } from "../helpers/paths.js";

type FixtureModule = typeof import("../../fixtures/servers/modern-tasks-http.mjs");
const { startModernTasksHttp } = (await import(fixtureServer("modern-tasks-http.mjs"))) as FixtureModule;

const T = { timeout: 30_000 };
const textOf = (r: { content: Array<{ type: string; text?: string }> }): string => r.content.map((b) => b.text ?? "").join("");

async function withServer(body: (client: McpClient, server: Awaited<ReturnType<typeof startModernTasksHttp>>) => Promise<void>): Promise<void> {
  const server = await startModernTasksHttp();
  try {
    const client = await McpClient.connect(new HttpTransport(server.url), { tasks: taskCalls });
    try {
      assert.equal(client.era, "modern");
      await body(client, server);
    } finally {
      await client.close();
    }
  } finally {
    await server.close();
  }
}

test("V8: a 2026-07-28 task's status and outcome arrive on the subscriptions/listen stream, as progress, without waiting for the poll interval", T, async () => {
  await withServer(async (client, server) => {
    const progress: Progress[] = [];
    // The server suggests 60 s between polls (held to MAX_TASK_POLL_MS, 30 s): only the stream can finish this in time.
    const r = await client.callTool("research", { steps: 3, stepMs: 300 }, { onProgress: (p) => progress.push(p), timeoutMs: 15_000 });
    assert.equal(textOf(r), "researched in 3 steps", "the outcome is the one the stream carried, not the hostile one of another task");
    assert.deepEqual(
      progress.map((p) => p.message),
      ["working: step 1 of 3", "working: step 2 of 3", "completed"],
      "each announced status is one progress update; the notification with an unknown status is ignored",
    );
    assert.deepEqual(server.listens, [{ taskIds: ["task-1"] }], "one listen for the task's id");
    const polls = server.log.filter((l) => l.startsWith("tasks/get"));
    assert.ok(polls.length <= 1, `at most the one poll after the acknowledgement: ${JSON.stringify(server.log)}`);
    assert.ok(polls.every((l) => l === "tasks/get task-1 task-1"), "a poll is routed by its task id (Mcp-Name)");
  });
});

test("V8: the listen request for task status declares the tasks extension, and the subscription ends with the task", T, async () => {
  await withServer(async (client, server) => {
    // The fixture refuses a listen with taskIds that does not declare the extension (-32003): then
    // the task could only be polled, once per 30 s, and would outlive this call's bound.
    const r = await client.callTool("research", { steps: 2, stepMs: 50 }, { timeoutMs: 15_000 });
    assert.equal(textOf(r), "researched in 2 steps");
    const r2 = await client.callTool("research", { steps: 2, stepMs: 50 }, { timeoutMs: 15_000 });
    assert.equal(textOf(r2), "researched in 2 steps");
    assert.deepEqual(server.listens, [{ taskIds: ["task-1"] }, { taskIds: ["task-2"] }], "the ended task's id is not asked for again");
  });
});

test("V8: a task the server does not agree to announce is finished by polling at its interval", T, async () => {
  await withServer(async (client, server) => {
    const progress: Progress[] = [];
    const r = await client.callTool("quiet", { steps: 3, stepMs: 60 }, { onProgress: (p) => progress.push(p), timeoutMs: 15_000 });
    assert.equal(textOf(r), "researched in 3 steps");
    assert.ok(server.log.filter((l) => l.startsWith("tasks/get")).length >= 2, "polled");
    assert.equal(progress.at(-1)?.message, "completed");
    assert.deepEqual(server.listens[0], { taskIds: ["task-1"] }, "its status was asked for; the acknowledgement agreed to none");
  });
});

test("V8: status notifications on the stream do not extend a task's bound: past it the call is a timeout and the task is cancelled", T, async () => {
  await withServer(async (client, server) => {
    const progress: Progress[] = [];
    await assert.rejects(client.callTool("forever", { stepMs: 50 }, { onProgress: (p) => progress.push(p), timeoutMs: 1_000 }), (e: Error & { code?: string }) => e.code === "timeout");
    assert.ok(progress.some((p) => p.message === "working: still working"), "the stream was delivering status");
    for (let i = 0; i < 100 && !server.log.some((l) => l.startsWith("tasks/cancel")); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(server.log.includes("tasks/cancel task-1 task-1"), `tasks/cancel sent: ${JSON.stringify(server.log)}`);
  });
});

test("V8: past MAX_LISTENED_TASKS tasks at once, a further task is only polled: no listen request is opened for it", { timeout: 60_000 }, async () => {
  await withServer(async (client, server) => {
    const stop = new AbortController();
    const running = Array.from({ length: MAX_LISTENED_TASKS }, () =>
      client.callTool("forever", { stepMs: 200 }, { timeoutMs: 30_000, signal: stop.signal }).catch((e: unknown) => e),
    );
    try {
      for (let i = 0; i < 400 && server.listens.length < MAX_LISTENED_TASKS; i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(server.listens.length, MAX_LISTENED_TASKS, "each of the first tasks is listened for");
      const extra = client.callTool("forever", { stepMs: 200 }, { timeoutMs: 30_000, signal: stop.signal }).catch((e: unknown) => e);
      const id = `task-${MAX_LISTENED_TASKS + 1}`;
      await new Promise((r) => setTimeout(r, 1_500));
      assert.equal(server.listens.length, MAX_LISTENED_TASKS, "no listen request for the task past the bound");
      assert.ok(!server.listens.some((f) => JSON.stringify(f).includes(`"${id}"`)));
      stop.abort();
      await extra;
      for (let i = 0; i < 200 && !server.log.some((l) => l.startsWith(`tasks/cancel ${id}`)); i++) await new Promise((r) => setTimeout(r, 50));
      assert.ok(server.log.some((l) => l.startsWith(`tasks/cancel ${id}`)), "the task past the bound existed and was waited on (cancelled on abort)");
    } finally {
      stop.abort();
      await Promise.all(running);
    }
  });
});
