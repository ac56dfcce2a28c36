// R1 and R4: the run loop with the scripted provider and host-defined tools.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { run } from "../../src/agent/run.js";
import { scripted } from "../../src/agent/scripted.js";
import { parseMessages, userMessage, type Message, type ToolResultMessage } from "../../src/agent/messages.js";
import { ConfigError, ProviderError, ValidationError } from "../../src/errors.js";
import type { ConfirmTool, Tool, WriteTool } from "../../src/tools/types.js";
import { alice, hostTool, text } from "./support.js";

const echo = hostTool("echo", async (args) => text(`echo ${JSON.stringify(args)}`));
const toolMessages = (messages: readonly Message[]) => messages.filter((m): m is ToolResultMessage => m.role === "tool");
const never = async (): Promise<never> => {
  throw new Error("a non-read tool must not be called by run");
};

describe("R1: run loop", { timeout: 20_000 }, () => {
  test("R1: model → tool → model until a final answer, with usage summed and serializable messages", async () => {
    const provider = scripted([
      { text: "Checking.", toolCalls: [{ name: "echo", arguments: { q: 1 } }], usage: { inputTokens: 10, outputTokens: 3 } },
      { text: "The answer is 1.", usage: { inputTokens: 20, outputTokens: 5, cacheReadTokens: 4 } },
    ]);
    const result = await run({ provider, tools: [echo], identity: alice, input: "What is q?", system: "Be brief." });
    assert.equal(result.stopReason, "end");
    assert.equal(result.text, "The answer is 1.");
    assert.equal(result.steps, 2);
    assert.deepEqual(result.usage, { inputTokens: 30, outputTokens: 8, cacheReadTokens: 4, cacheWriteTokens: 0 });
    assert.deepEqual(result.proposedCalls, []);
    assert.deepEqual(
      result.messages.map((m) => m.role),
      ["user", "assistant", "tool", "assistant"],
    );
    assert.deepEqual(toolMessages(result.messages)[0], {
      role: "tool",
      toolCallId: "call_1_1",
      toolName: "echo",
      content: [{ type: "text", text: 'echo {"q":1}' }],
      isError: false,
    });
    // The second model call saw the tool result, the system prompt and the tool spec.
    const second = provider.requests[1];
    assert.equal(second?.system, "Be brief.");
    assert.equal(second?.messages.length, 3);
    assert.deepEqual(second?.tools, [{ name: "echo", description: "The echo tool.", inputSchema: { type: "object" } }]);
    // JSON round trip, then resume with a new user message.
    const stored = JSON.parse(JSON.stringify(result.messages)) as unknown;
    assert.deepEqual(stored, result.messages);
    const next = scripted([{ text: "Still 1." }]);
    const resumed = await run({ provider: next, identity: alice, input: [...parseMessages(stored), userMessage("Sure?")] });
    assert.equal(resumed.text, "Still 1.");
    assert.equal(next.requests[0]?.messages.length, 5);
  });

  test("R1: duplicate tool names are rejected before the first model call", async () => {
    const provider = scripted([{ text: "never" }]);
    const events: string[] = [];
    await assert.rejects(
      run({ provider, tools: [echo, hostTool("echo", async () => text("other"))], identity: alice, input: "hi", onEvent: (e) => events.push(e.type) }),
      (e: unknown) => e instanceof ConfigError && /echo/.test(e.message),
    );
    assert.equal(provider.requests.length, 0);
    assert.deepEqual(events, []);
  });

  test("R1: invalid identity, tool names and bounds are configuration errors", async () => {
    const provider = scripted([]);
    await assert.rejects(run({ provider, identity: { actorId: "", tenantId: "t" }, input: "hi" }), ConfigError);
    await assert.rejects(run({ provider, tools: [hostTool("has space", echo.execute)], identity: alice, input: "hi" }), ConfigError);
    await assert.rejects(run({ provider, identity: alice, input: "hi", maxSteps: 0 }), ConfigError);
    await assert.rejects(run({ provider, identity: alice, input: "hi", loopThreshold: 1 }), ConfigError);
    assert.equal(provider.requests.length, 0);
  });

  test("R1: a tools array with a hole is a configuration error before the first model call", async () => {
    const provider = scripted([{ text: "unused" }]);
    const tools = [, echo] as unknown as Tool[];
    await assert.rejects(run({ provider, tools, identity: alice, input: "go" }), (e: unknown) => e instanceof ConfigError && /tools\[0\]: not a tool object/.test(e.message));
    assert.equal(provider.requests.length, 0);
  });

  test("R1: input that leaves tool calls unanswered is rejected", async () => {
    const input: Message[] = [
      userMessage("hi"),
      { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "echo", arguments: {} }] },
      { role: "user", content: [{ type: "text", text: "and?" }] },
    ];
    await assert.rejects(run({ provider: scripted([]), identity: alice, input }), ValidationError);
  });

  test("R1: a stored conversation with holes (a sparse messages or content array) is refused, not copied with the holes", async () => {
    const hello = userMessage("hi");
    const holeyMessages = [, hello] as unknown as Message[];
    const holeyContent = [{ role: "user", content: new Array(2) }] as unknown as Message[];
    assert.throws(() => parseMessages(holeyMessages), (e: unknown) => e instanceof ValidationError && /^\/0: must be an object/.test(e.message));
    assert.throws(() => parseMessages(holeyContent), (e: unknown) => e instanceof ValidationError && /^\/0\/content\/0: must be an object/.test(e.message));
    const provider = scripted([{ text: "unused" }]);
    await assert.rejects(run({ provider, identity: alice, input: holeyMessages }), ValidationError);
    assert.equal(provider.requests.length, 0);
  });

  test("R1: an answer with more than MAX_TOOL_CALLS_PER_TURN calls, or duplicate call ids, is a bad_response", async () => {
    const many = Array.from({ length: 65 }, (_, i) => ({ name: "echo", arguments: { i } }));
    await assert.rejects(run({ provider: scripted([{ toolCalls: many }]), tools: [echo], identity: alice, input: "go" }), (e: unknown) => e instanceof ProviderError && /65 tool calls/.test(e.message));
    const twins = [{ name: "echo", id: "same" }, { name: "echo", id: "same" }];
    await assert.rejects(run({ provider: scripted([{ toolCalls: twins }]), tools: [echo], identity: alice, input: "go" }), (e: unknown) => e instanceof ProviderError && e.kind === "bad_response");
  });

  test("R1: the run stops at maxSteps", async () => {
    const provider = scripted(Array.from({ length: 10 }, (_, i) => ({ toolCalls: [{ name: "echo", arguments: { step: i } }] })));
    const result = await run({ provider, tools: [echo], identity: alice, input: "go", maxSteps: 3 });
    assert.equal(result.stopReason, "max_steps");
    assert.equal(result.steps, 3);
    assert.equal(provider.requests.length, 3);
    assert.equal(result.messages.at(-1)?.role, "tool", "the last turn's results are kept, so the run can be resumed");
  });

  test("R1: the same tool with identical arguments N times in a row stops with loop_detected", async () => {
    let executed = 0;
    const counter = hostTool("count", async () => {
      executed++;
      return text("same");
    });
    const provider = scripted([
      { toolCalls: [{ name: "count", arguments: { a: 1, b: [1, 2] } }] },
      { toolCalls: [{ name: "count", arguments: { b: [1, 2], a: 1 } }] },
      { toolCalls: [{ name: "count", arguments: { a: 1, b: [1, 2] } }] },
      { text: "never reached" },
    ]);
    const result = await run({ provider, tools: [counter], identity: alice, input: "go", loopThreshold: 3 });
    assert.equal(result.stopReason, "loop_detected");
    assert.deepEqual(result.loop, { toolName: "count", arguments: { a: 1, b: [1, 2] }, count: 3 });
    assert.equal(executed, 2, "the repeated call is not executed");
    assert.equal(provider.requests.length, 3);
    const last = result.messages.at(-1);
    assert.ok(last?.role === "tool" && last.isError);
    assert.match(JSON.stringify(last.content), /loop_detected/);
  });

  test("R1: different arguments in between reset the loop count", async () => {
    const provider = scripted([
      { toolCalls: [{ name: "echo", arguments: { a: 1 } }] },
      { toolCalls: [{ name: "echo", arguments: { a: 1 } }] },
      { toolCalls: [{ name: "echo", arguments: { a: 2 } }] },
      { toolCalls: [{ name: "echo", arguments: { a: 1 } }] },
      { text: "done" },
    ]);
    const result = await run({ provider, tools: [echo], identity: alice, input: "go", loopThreshold: 3 });
    assert.equal(result.stopReason, "end");
  });

  test("R1: read calls of one turn run in parallel within the concurrency bound; results keep call order", async () => {
    let active = 0;
    let peak = 0;
    const slow = hostTool("slow", async (args) => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, Number((args as { ms: number }).ms)));
      active--;
      return text(`slept ${(args as { ms: number }).ms}`);
    });
    const calls = [60, 10, 40, 20, 30].map((ms) => ({ name: "slow", arguments: { ms } }));
    const provider = scripted([{ toolCalls: calls }, { text: "done" }]);
    const started = Date.now();
    const result = await run({ provider, tools: [slow], identity: alice, input: "go", toolConcurrency: 2 });
    assert.equal(peak, 2);
    assert.ok(Date.now() - started < 160 + 500, "calls overlapped");
    assert.deepEqual(
      toolMessages(result.messages).map((m) => m.content[0]),
      [60, 10, 40, 20, 30].map((ms) => ({ type: "text", text: `slept ${ms}` })),
    );
  });

  test("R1: a call to a confirm or write tool stops with approval_required and the proposed calls; reads of that turn run", async () => {
    const rename: ConfirmTool = {
      name: "rename",
      description: "Renames a product.",
      inputSchema: { type: "object" },
      effect: "confirm",
      version: "v1",
      prepare: never,
      execute: never,
    };
    const publish: WriteTool = { ...rename, name: "publish", effect: "write", reconcile: never };
    let lookups = 0;
    const lookup = hostTool("lookup", async () => {
      lookups++;
      return text("Widget");
    });
    const provider = scripted([
      {
        text: "Renaming.",
        toolCalls: [
          { name: "lookup", arguments: { sku: "ABC-123" } },
          { name: "rename", arguments: { sku: "ABC-123", name: "Gear" } },
          { name: "publish", arguments: { sku: "ABC-123" } },
        ],
      },
      { text: "Renamed and published." },
    ]);
    const tools: Tool[] = [lookup, rename, publish];
    const result = await run({ provider, tools, identity: alice, input: "Rename ABC-123 to Gear" });
    assert.equal(result.stopReason, "approval_required");
    assert.deepEqual(result.proposedCalls, [
      { callId: "call_1_2", toolName: "rename", effect: "confirm", arguments: { sku: "ABC-123", name: "Gear" } },
      { callId: "call_1_3", toolName: "publish", effect: "write", arguments: { sku: "ABC-123" } },
    ]);
    assert.equal(lookups, 1);
    assert.equal(provider.requests.length, 1);
    assert.deepEqual(
      toolMessages(result.messages).map((m) => m.toolCallId),
      ["call_1_1"],
    );
    // The approval flow answers the proposed calls and the run resumes from exactly there.
    const answered: Message[] = [
      ...result.messages,
      { role: "tool", toolCallId: "call_1_2", toolName: "rename", content: [{ type: "text", text: "Renamed" }], isError: false },
      { role: "tool", toolCallId: "call_1_3", toolName: "publish", content: [{ type: "text", text: "Published" }], isError: false },
    ];
    const resumed = await run({ provider, tools, identity: alice, input: answered });
    assert.equal(resumed.stopReason, "end");
    assert.equal(provider.requests[1]?.messages.length, 5);
  });
});

describe("R4: tool errors go back to the model", { timeout: 20_000 }, () => {
  test("R4: a tool that throws yields a tool_failed error result and the run continues", async () => {
    const broken = hostTool("broken", async () => {
      throw new Error("database unreachable");
    });
    const provider = scripted([{ toolCalls: [{ name: "broken" }] }, { text: "Sorry, the database is down." }]);
    const result = await run({ provider, tools: [broken], identity: alice, input: "go" });
    assert.equal(result.stopReason, "end");
    const seen = provider.requests[1]?.messages.at(-1);
    assert.deepEqual(seen, {
      role: "tool",
      toolCallId: "call_1_1",
      toolName: "broken",
      content: [{ type: "text", text: '{"error":"tool_failed","message":"database unreachable"}' }],
      isError: true,
    });
  });

  test("R4: an isError result, an unknown tool and malformed arguments all reach the model as errors", async () => {
    let executed = 0;
    const failing = hostTool("failing", async () => {
      executed++;
      return text("Unknown SKU: XYZ-000", true);
    });
    const provider = scripted([
      {
        toolCalls: [
          { name: "failing", arguments: { sku: "XYZ-000" } },
          { name: "nope" },
          { name: "failing", argumentsJson: '{"sku": "XY' },
        ],
      },
      { text: "Let me fix that." },
    ]);
    const result = await run({ provider, tools: [failing], identity: alice, input: "go" });
    assert.equal(result.stopReason, "end");
    assert.equal(executed, 1, "malformed arguments are not passed to the tool");
    const results = toolMessages(provider.requests[1]?.messages ?? []);
    assert.deepEqual(
      results.map((m) => m.isError),
      [true, true, true],
    );
    assert.deepEqual(results[0]?.content, [{ type: "text", text: "Unknown SKU: XYZ-000" }]);
    assert.match(JSON.stringify(results[1]?.content), /unknown_tool.*available: failing/);
    assert.match(JSON.stringify(results[2]?.content), /invalid_arguments.*not valid JSON/);
  });

  test("R4: a tool result that is not a ToolResult, or too large, is checked and bounded", async () => {
    const garbage = hostTool("garbage", async () => ({ nope: true }) as never);
    const huge = hostTool("huge", async () => text("x".repeat(100_000)));
    const provider = scripted([{ toolCalls: [{ name: "garbage" }, { name: "huge" }] }, { text: "ok" }]);
    const result = await run({ provider, tools: [garbage, huge], identity: alice, input: "go" });
    const [g, h] = toolMessages(result.messages);
    assert.ok(g?.isError);
    assert.match(JSON.stringify(g?.content), /not a tool result/);
    assert.equal(h?.isError, false);
    const bytes = (h?.content ?? []).reduce((n, p) => n + (p.type === "text" ? Buffer.byteLength(p.text) : 0), 0);
    assert.ok(bytes <= 32_000, `result bounded, the cut note included (${bytes} bytes)`);
    assert.match(JSON.stringify(h?.content.at(-1)), /truncated/);
  });

  test("R4: a provider failure ends the run with its typed error", async () => {
    await assert.rejects(run({ provider: scripted([]), identity: alice, input: "go" }), (e: unknown) => e instanceof ProviderError && e.kind === "bad_response");
  });
});
