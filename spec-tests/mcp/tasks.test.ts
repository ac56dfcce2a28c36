// V8: task-augmented tool calls in both eras. 2025-11-25 against server-everything
// (its simulate-research-query tool requires a task) over stdio and HTTP; the
// 2026-07-28 io.modelcontextprotocol/tasks extension against a fixture server.
// The wire is read from the transcript recorder.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { McpClient } from "../../src/node/client.js";
import { StdioTransport } from "../../src/node/stdio.js";
import { RecordingTransport, type TranscriptEntry } from "../../src/transport/recording.js";
import { McpClient as WebMcpClient } from "../../src/mcp/client.js";
import { HttpTransport } from "../../src/transport/http.js";
import { connectMcp } from "../../src/node/tools.js";
import type { Progress } from "../../src/jsonrpc/session.js";
import { MIN_TASK_POLL_MS } from "../../src/limits.js";
import { mcpNameOf } from "../../src/transport/http-headers.js";
import { taskCallParams } from "../../src/mcp/task-call.js";
import { taskCalls } from "../../src/mcp/task-module.js";
import { hostHandlers } from "../../src/mcp/host-module.js";
import { compileSchema } from "../../src/schema/index.js";
import { startEverything } from "../helpers/everything.js";
import { fixtureServer, repoPath } from "../helpers/paths.js";
import { connectRecorded, readWire, requestsOf, sent, type Message } from "../modern/support.js";
import { alice, allowAll, textOf, tool } from "../tools/helpers.js";
import { run } from "../../src/agent/run.js";
import { scripted } from "../../src/agent/scripted.js";
import type { AgentEvent } from "../../src/agent/events.js";

const T = { timeout: 60_000 };
const everything = repoPath("node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const modernTasks = fixtureServer("modern-tasks.mjs");
const EXT = "io.modelcontextprotocol/tasks";
const snake = { elicitation: { form: async () => ({ action: "accept" as const, content: { interpretation: "snake" } }), compileSchema } };

function textOfResult(r: { content: Array<{ type: string; text?: string }> }): string {
  return r.content.map((b) => b.text ?? "").join("");
}

describe("V8: tasks, 2025-11-25 (server-everything)", () => {
  // One server process for the stdio tests (its start-up is the costly part), every
  // message recorded as it passes; each test reads the messages of its own calls.
  const wire: TranscriptEntry[] = [];
  let client: WebMcpClient;
  before(async () => {
    const transport = new RecordingTransport(new StdioTransport({ command: "node", args: [everything, "stdio"] }), (e) => wire.push(structuredClone(e)));
    client = await WebMcpClient.connect(transport, { era: "legacy", handlers: snake, hosting: hostHandlers, handshakeTimeoutMs: 30_000, tasks: taskCalls });
    await client.listTools();
  });
  after(() => client?.close());
  const sentSince = (from: number): Message[] => wire.slice(from).filter((e) => e.dir === "c2s").map((e) => e.msg as Message);

  test("V8: a tool whose taskSupport is required runs as one call over stdio: tools/call with task, tasks/get polls, tasks/result; status as progress", T, async () => {
    const from = wire.length;
    const progress: Progress[] = [];
    const r = await client.callTool("simulate-research-query", { topic: "rust" }, { onProgress: (p) => progress.push(p) });
    assert.equal(r.isError, false);
    assert.match(textOfResult(r), /# Research Report: rust/);
    const messages = sentSince(from);
    const [call] = requestsOf(messages, "tools/call");
    assert.deepEqual((call?.params as { task?: unknown }).task, {}, "the call asks for a task");
    assert.ok(requestsOf(messages, "tasks/get").length >= 2, "the task is polled");
    assert.equal(requestsOf(messages, "tasks/result").length, 1, "the result is fetched once");
    const texts = progress.map((p) => p.message ?? "");
    assert.ok(texts.some((m) => /Analyzing content/.test(m)), `status messages arrive as progress: ${JSON.stringify(texts)}`);
    assert.ok(texts.some((m) => m.startsWith("completed")), "the terminal status is reported");
  });

  test("V8: input_required: the elicitation the task raises on tasks/result is answered by the host handler", T, async () => {
    const r = await client.callTool("simulate-research-query", { topic: "python", ambiguous: true });
    assert.match(textOfResult(r), /Research Report: python \(snake\)/);
  });

  test("V8: aborting a task call rejects with cancelled and sends tasks/cancel for the task", T, async () => {
    const from = wire.length;
    const ac = new AbortController();
    const call = client.callTool("simulate-research-query", { topic: "go" }, { signal: ac.signal, onProgress: () => ac.abort() });
    await assert.rejects(call, (e: Error & { code?: string }) => e.code === "cancelled");
    await client.ping(); // stdio is ordered: the cancel went out before this
    const [cancel] = requestsOf(sentSince(from), "tasks/cancel");
    assert.ok(cancel, "tasks/cancel was sent");
    const created = wire.slice(from).find((l) => l.dir === "s2c" && ((l.msg as Message).result as { task?: unknown } | undefined)?.task);
    assert.equal((cancel.params as { taskId?: string }).taskId, ((created?.msg as Message).result as { task: { taskId: string } }).task.taskId);
  });

  test("V8: with task: false a required tool is called plainly and the server's refusal comes back", T, async () => {
    const r = await client.callTool("simulate-research-query", { topic: "x" }, { task: false });
    assert.equal(r.isError, true);
    assert.match(textOfResult(r), /requires task augmentation/);
  });
});

describe("V8: tasks, 2025-11-25 over HTTP (server-everything)", () => {
  test("V8: over Streamable HTTP the task call completes as one call", T, async () => {
    const server = await startEverything();
    try {
      const client = await WebMcpClient.connect(new HttpTransport(server.url), { era: "legacy", tasks: taskCalls });
      try {
        await client.listTools();
        const progress: Progress[] = [];
        const r = await client.callTool("simulate-research-query", { topic: "zig" }, { onProgress: (p) => progress.push(p) });
        assert.match(textOfResult(r), /# Research Report: zig/);
        assert.ok(progress.some((p) => /Generating report/.test(p.message ?? "")));
      } finally {
        await client.close();
      }
    } finally {
      await server.stop();
    }
  });
});

describe("V8, X3: a bare McpClient without the task module", () => {
  test("V8, X3: 2025-11-25: a task-required tool fails with a config error naming taskCalls before tools/call is sent", T, async () => {
    const server = await startEverything();
    const wire: TranscriptEntry[] = [];
    try {
      const client = await WebMcpClient.connect(new RecordingTransport(new HttpTransport(server.url), (e) => wire.push(structuredClone(e))), { era: "legacy" });
      try {
        await client.listTools();
        await assert.rejects(client.callTool("simulate-research-query", { topic: "zig" }), (e: Error & { code?: string }) => e.code === "config" && /simulate-research-query runs as a task: pass \{ tasks: taskCalls \}/.test(e.message));
        const sentMethods = wire.filter((e) => e.dir === "c2s").map((e) => (e.msg as Message).method);
        assert.ok(!sentMethods.includes("tools/call"), "nothing was called");
        // An ordinary tool still works, and a task is never asked for.
        const r = await client.callTool("echo", { message: "plain" }, { task: false });
        assert.deepEqual(r.content, [{ type: "text", text: "Echo: plain" }]);
      } finally {
        await client.close();
      }
    } finally {
      await server.stop();
    }
  });

  test("V8, X3: 2026-07-28: the extension is not declared, and the server's -32021 for it becomes a config error naming taskCalls", T, async () => {
    const wire: TranscriptEntry[] = [];
    const transport = new RecordingTransport(new StdioTransport({ command: "node", args: [modernTasks] }), (e) => wire.push(structuredClone(e)));
    const client = await WebMcpClient.connect(transport, { era: "modern", handshakeTimeoutMs: 30_000 });
    try {
      await assert.rejects(client.callTool("research", { steps: 1 }), (e: Error & { code?: string }) => e.code === "config" && /research runs as a task: pass \{ tasks: taskCalls \}/.test(e.message));
    } finally {
      await client.close();
    }
    const [call] = wire.filter((e) => e.dir === "c2s" && (e.msg as Message).method === "tools/call").map((e) => e.msg as Message);
    const caps = ((call?.params as { _meta: Record<string, unknown> })._meta["io.modelcontextprotocol/clientCapabilities"] ?? {}) as { extensions?: Record<string, unknown> };
    assert.equal(caps.extensions?.[EXT], undefined, "a client without the module does not declare the extension");
  });
});

describe("V8: tasks, 2026-07-28 extension (fixture server)", { concurrency: true }, () => {
  test("V8: tools/call declares the extension; a task answer is polled with tasks/get until its inline result", T, async () => {
    const { client, out } = await connectRecorded(["node", modernTasks]);
    const progress: Progress[] = [];
    try {
      assert.equal(client.era, "modern");
      const r = await client.callTool("research", { steps: 3 }, { onProgress: (p) => progress.push(p) });
      assert.equal(textOfResult(r), "researched in 3 steps");
    } finally {
      await client.close();
    }
    const messages = sent(readWire(out));
    const [call] = requestsOf(messages, "tools/call");
    const caps = ((call?.params as { _meta: Record<string, unknown> })._meta["io.modelcontextprotocol/clientCapabilities"] ?? {}) as { extensions?: Record<string, unknown> };
    assert.deepEqual(caps.extensions?.[EXT], {}, "the extension rides on the call's capabilities");
    const polls = requestsOf(messages, "tasks/get");
    assert.ok(polls.length >= 3);
    assert.ok(polls.every((m: Message) => (m.params as { taskId?: string }).taskId === "task-1"));
    const [list] = requestsOf(messages, "tools/list").concat(requestsOf(messages, "server/discover"));
    const listCaps = ((list?.params as { _meta?: Record<string, unknown> })?._meta?.["io.modelcontextprotocol/clientCapabilities"] ?? {}) as { extensions?: unknown };
    assert.equal(listCaps.extensions, undefined, "other requests do not carry it");
    assert.deepEqual(
      progress.map((p) => p.message),
      ["working: step 1 of 3", "working: step 2 of 3", "completed: step 3 of 3"],
    );
  });

  test("V8: an input_required task's inputRequests are answered once each with tasks/update", T, async () => {
    const { client, out } = await connectRecorded(["node", modernTasks], { handlers: { elicitation: { form: async () => ({ action: "accept", content: { name: "Ada" } }) } } });
    try {
      const r = await client.callTool("ask", {});
      assert.equal(textOfResult(r), "hello Ada");
    } finally {
      await client.close();
    }
    const updates = requestsOf(sent(readWire(out)), "tasks/update");
    assert.equal(updates.length, 1);
    assert.deepEqual((updates[0]?.params as { inputResponses?: unknown }).inputResponses, { name: { action: "accept", content: { name: "Ada" } } });
  });

  test("V8: a failed task is the JSON-RPC error it carries", T, async () => {
    const client = await McpClient.connectStdio("node", [modernTasks]);
    try {
      await assert.rejects(client.callTool("fail", {}), (e: Error & { code?: string; rpcCode?: number }) => e.code === "jsonrpc" && e.rpcCode === -32603 && /upstream broke/.test(e.message));
    } finally {
      await client.close();
    }
  });

  test("V8: a task status outside the five is a protocol error, and the task is cancelled", T, async () => {
    const { client, out } = await connectRecorded(["node", modernTasks]);
    try {
      await assert.rejects(client.callTool("bad", {}), (e: Error & { code?: string }) => e.code === "protocol" && /is not one of working/.test(e.message));
      await client.listTools({ timeoutMs: 10_000 });
    } finally {
      await client.close();
    }
    assert.equal(requestsOf(sent(readWire(out)), "tasks/cancel").length, 1);
  });

  test("V8: a poll interval of 0 is held to MIN_TASK_POLL_MS between polls", T, async () => {
    const { client, out } = await connectRecorded(["node", modernTasks]);
    const started = Date.now();
    try {
      const r = await client.callTool("eager", {});
      assert.match(textOfResult(r), /done after 5 polls/);
    } finally {
      await client.close();
    }
    assert.ok(Date.now() - started >= 5 * MIN_TASK_POLL_MS, "five polls took at least five minimum intervals");
    assert.equal(requestsOf(sent(readWire(out)), "tasks/get").length, 6);
  });

  test("V8: a task that outlives the call's bound is a timeout, and is cancelled", T, async () => {
    const { client, out } = await connectRecorded(["node", modernTasks]);
    try {
      await assert.rejects(client.callTool("research", { steps: 100_000 }, { timeoutMs: 1_500 }), (e: Error & { code?: string }) => e.code === "timeout");
      await client.listTools({ timeoutMs: 10_000 });
    } finally {
      await client.close();
    }
    assert.equal(requestsOf(sent(readWire(out)), "tasks/cancel").length, 1);
  });

  test("V8: connectMcp sees a task tool as one ordinary call with progress updates", T, async () => {
    const connection = await connectMcp({ name: "jobs", command: "node", args: [modernTasks] }, { identity: alice, authorize: allowAll });
    try {
      const updates: string[] = [];
      const result = await tool(connection, "jobs__research").execute({ steps: 2 }, { identity: alice, onUpdate: (u) => updates.push(u.message ?? "") });
      assert.equal(result.isError, false);
      assert.equal(textOf(result), "researched in 2 steps");
      assert.deepEqual(updates, ["working: step 1 of 2", "completed: step 2 of 2"]);
    } finally {
      await connection.close();
    }
  });

  test("V8: run sees a task tool as one tool call: start, status updates, end with the final result", T, async () => {
    const connection = await connectMcp({ name: "jobs", command: "node", args: [modernTasks] }, { identity: alice, authorize: allowAll });
    try {
      const events: AgentEvent[] = [];
      const result = await run({
        provider: scripted([{ toolCalls: [{ name: "jobs__research", arguments: { steps: 3 } }] }, { text: "done" }]),
        tools: connection.tools,
        identity: alice,
        input: "research it",
        onEvent: (e) => events.push(e),
      });
      const tools = events.filter((e) => e.type.startsWith("tool_execution"));
      assert.deepEqual(
        tools.map((e) => e.type),
        ["tool_execution_start", "tool_execution_update", "tool_execution_update", "tool_execution_update", "tool_execution_end"],
      );
      const end = tools.at(-1) as Extract<AgentEvent, { type: "tool_execution_end" }>;
      assert.equal(end.isError, false);
      assert.deepEqual(end.content, [{ type: "text", text: "researched in 3 steps" }]);
      assert.equal(result.text, "done");
    } finally {
      await connection.close();
    }
  });
});

test("V8: over Streamable HTTP, tasks/get, tasks/update and tasks/cancel are routed by their task id (Mcp-Name)", () => {
  for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) assert.equal(mcpNameOf(method, { taskId: "task-7" }), "task-7");
  assert.equal(mcpNameOf("tools/call", { name: "research" }), "research");
});

test("V8: task augmentation (2025-11-25) follows the server capability and each tool's taskSupport", () => {
  const takes = { tasks: { requests: { tools: { call: {} } } } };
  const support = new Map([["must", "required"], ["may", "optional"], ["never", "forbidden"]] as const);
  const view = (capabilities: Record<string, unknown>) => ({ era: "legacy" as const, capabilities, taskSupport: support });
  assert.deepEqual(taskCallParams(view(takes), "must", {}), {});
  assert.equal(taskCallParams(view(takes), "may", {}), undefined, "optional: only when the host asks");
  assert.deepEqual(taskCallParams(view(takes), "may", { task: true, taskTtlMs: 60_000 }), { ttl: 60_000 });
  assert.deepEqual(taskCallParams(view(takes), "unlisted", { task: true }), {});
  assert.equal(taskCallParams(view(takes), "never", { task: true }), undefined, "forbidden is never a task");
  assert.equal(taskCallParams(view(takes), "must", { task: false }), undefined);
  assert.equal(taskCallParams(view({ tasks: {} }), "must", {}), undefined, "MUST NOT without tasks.requests.tools.call");
  assert.equal(taskCallParams({ ...view(takes), era: "modern" }, "must", {}), undefined, "2026-07-28: the server decides");
});
