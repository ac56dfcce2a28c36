// R2: the event stream of a run: its order (part of the contract), its data, the
// callback and the async iterable, errors and cancellation.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { AgentEvent } from "../../src/agent/events.js";
import { run, runStream } from "../../src/agent/run.js";
import { scripted } from "../../src/agent/scripted.js";
import { ProviderError } from "../../src/errors.js";
import type { ConfirmTool } from "../../src/tools/types.js";
import { alice, hostTool, shape, text, within } from "./support.js";

const lookup = hostTool("lookup", async (_args, ctx) => {
  ctx.onUpdate?.({ progress: 1, total: 2, message: "first half" });
  ctx.onUpdate?.({ progress: 2, total: 2 });
  return text("Widget, 12.50 EUR");
});
const twoTurns = () =>
  scripted([
    { thinking: "Need the price.", text: "Let me check.", toolCalls: [{ name: "lookup", arguments: { sku: "ABC-123" } }], usage: { inputTokens: 7, outputTokens: 2 } },
    { text: "It costs 12.50 EUR.", usage: { inputTokens: 9, outputTokens: 4 } },
  ]);

describe("R2: events", { timeout: 20_000 }, () => {
  test("R2: events come in the contract's order with their data", async () => {
    const events: AgentEvent[] = [];
    const result = await run({ provider: twoTurns(), tools: [lookup], identity: alice, input: "Price of ABC-123?", onEvent: (e) => events.push(e) });
    assert.deepEqual(shape(events), [
      "agent_start",
      "turn_start",
      "message_start",
      "message_delta:thinking",
      "message_delta:thinking",
      "message_delta:thinking",
      "message_delta:text",
      "message_delta:text",
      "message_delta:text",
      "message_end",
      "tool_execution_start:lookup",
      "tool_execution_update:lookup",
      "tool_execution_update:lookup",
      "tool_execution_end:lookup",
      "turn_end",
      "turn_start",
      "message_start",
      "message_delta:text",
      "message_delta:text",
      "message_delta:text",
      "message_delta:text",
      "message_end",
      "turn_end",
      "agent_end:end",
    ]);
    assert.deepEqual(events[0], { type: "agent_start", provider: "scripted", tools: ["lookup"] });
    const deltas = events.filter((e) => e.type === "message_delta" && e.turn === 1 && e.kind === "text");
    assert.equal(deltas.map((e) => (e.type === "message_delta" ? e.text : "")).join(""), "Let me check.");
    assert.deepEqual(events[11], { type: "tool_execution_update", turn: 1, callId: "call_1_1", toolName: "lookup", update: { progress: 1, total: 2, message: "first half" } });
    assert.deepEqual(events[13], { type: "tool_execution_end", turn: 1, callId: "call_1_1", toolName: "lookup", content: [{ type: "text", text: "Widget, 12.50 EUR" }], isError: false });
    const end = events.at(-1);
    assert.deepEqual(end, { type: "agent_end", stopReason: "end", usage: result.usage, steps: 2 });
    const turnEnd = events[14];
    assert.ok(turnEnd?.type === "turn_end");
    assert.deepEqual(turnEnd.message, result.messages[1]);
    assert.deepEqual(turnEnd.toolResults, [result.messages[2]]);
    // Every event is plain JSON data.
    assert.deepEqual(JSON.parse(JSON.stringify(events)), events);
  });

  test("R2: runStream's async iterable yields the same events as onEvent, then ends", async () => {
    const viaCallback: AgentEvent[] = [];
    const { events, result } = runStream({ provider: twoTurns(), tools: [lookup], identity: alice, input: "Price?", onEvent: (e) => viaCallback.push(e) });
    const viaIterator: AgentEvent[] = [];
    for await (const e of events) viaIterator.push(e);
    assert.equal((await result).stopReason, "end");
    assert.ok(viaIterator.length > 10);
    assert.deepEqual(viaIterator, viaCallback);
  });

  test("R2: a provider failure emits error then agent_end, and rejects the result", async () => {
    const { events, result } = runStream({ provider: scripted([{ toolCalls: [{ name: "lookup" }] }]), tools: [lookup], identity: alice, input: "go" });
    const seen: AgentEvent[] = [];
    for await (const e of events) seen.push(e);
    assert.deepEqual(shape(seen).slice(-5), ["turn_end", "turn_start", "message_start", "error", "agent_end:error"]);
    const error = seen.at(-2);
    assert.ok(error?.type === "error");
    assert.equal(error.turn, 2);
    assert.equal(error.error.code, "provider");
    assert.equal(error.error.kind, "bad_response");
    await assert.rejects(result, ProviderError);
  });

  test("R2: approval_required comes after the last turn_end, before agent_end", async () => {
    const rename: ConfirmTool = {
      name: "rename",
      description: "Renames.",
      inputSchema: { type: "object" },
      effect: "confirm",
      version: "v1",
      prepare: async () => assert.fail("not called"),
      execute: async () => assert.fail("not called"),
    };
    const events: AgentEvent[] = [];
    await run({
      provider: scripted([{ toolCalls: [{ name: "rename", arguments: { name: "Gear" } }] }]),
      tools: [rename],
      identity: alice,
      input: "go",
      onEvent: (e) => events.push(e),
    });
    assert.deepEqual(shape(events).slice(-4), ["message_end", "turn_end", "approval_required", "agent_end:approval_required"]);
    assert.deepEqual(events.at(-2), { type: "approval_required", turn: 1, calls: [{ callId: "call_1_1", toolName: "rename", effect: "confirm", arguments: { name: "Gear" } }] });
  });

  test("R2: a listener that throws does not break the run", async () => {
    const result = await run({
      provider: twoTurns(),
      tools: [lookup],
      identity: alice,
      input: "go",
      onEvent: () => {
        throw new Error("listener bug");
      },
    });
    assert.equal(result.stopReason, "end");
  });

  test("R2: cancelling during a tool call ends the call with a cancelled result and the run with cancelled", async () => {
    const controller = new AbortController();
    let toolSawAbort = false;
    const waiting = hostTool("wait", (_args, ctx) => {
      return new Promise((resolve) => {
        ctx.signal?.addEventListener("abort", () => {
          toolSawAbort = true;
          resolve(text("too late"));
        });
      });
    });
    const events: AgentEvent[] = [];
    const result = await within(
      run({
        provider: scripted([{ toolCalls: [{ name: "wait" }] }, { text: "never" }]),
        tools: [waiting],
        identity: alice,
        input: "go",
        signal: controller.signal,
        onEvent: (e) => {
          events.push(e);
          if (e.type === "tool_execution_start") setTimeout(() => controller.abort(), 20);
        },
      }),
      5_000,
      "the cancelled run",
    );
    assert.equal(result.stopReason, "cancelled");
    assert.ok(toolSawAbort);
    assert.deepEqual(shape(events).slice(-4), ["tool_execution_start:wait", "tool_execution_end:wait", "turn_end", "agent_end:cancelled"]);
    const last = result.messages.at(-1);
    assert.ok(last?.role === "tool" && last.isError);
    assert.match(JSON.stringify(last.content), /cancelled/);
  });

  /** Runs one call of `deaf` (a tool that never settles), aborting when `abortOn` says so for an event; bounded by `ms`. */
  function cancelledRun(deaf: ReturnType<typeof hostTool>, abortOn: (e: AgentEvent, abort: () => void) => void, ms: number) {
    const controller = new AbortController();
    return within(
      run({
        provider: scripted([{ toolCalls: [{ name: "deaf" }] }]),
        tools: [deaf],
        identity: alice,
        input: "go",
        signal: controller.signal,
        onEvent: (e) => abortOn(e, () => controller.abort()),
      }),
      ms,
      "the cancelled run",
    );
  }

  test("R2: a tool that ignores the signal does not hold a cancelled run", async () => {
    const deaf = hostTool("deaf", () => new Promise(() => {}));
    const started = Date.now();
    const result = await cancelledRun(deaf, (e, abort) => e.type === "tool_execution_start" && void setTimeout(abort, 20), 5_000);
    assert.equal(result.stopReason, "cancelled");
    assert.ok(Date.now() - started < 2_000);
  });

  test("R2: a run cancelled while a tool starts (before the tool's first await) does not wait for the tool", async () => {
    // The update listener aborts synchronously, inside the tool's execute.
    const deaf = hostTool("deaf", (_args, ctx) => {
      ctx.onUpdate?.({ message: "starting" });
      return new Promise(() => {});
    });
    const result = await cancelledRun(deaf, (e, abort) => e.type === "tool_execution_update" && abort(), 2_000);
    assert.equal(result.stopReason, "cancelled");
    const last = result.messages.at(-1);
    assert.ok(last?.role === "tool" && last.isError && /cancelled/.test(JSON.stringify(last.content)));
  });
});
