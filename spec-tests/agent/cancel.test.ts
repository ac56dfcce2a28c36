// R1, R2: cancellation over real sockets and processes: mid-stream it aborts the
// provider's HTTP request; during tool calls it sends notifications/cancelled to
// the MCP server. MCP progress arrives as tool_execution_update events.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { anthropic } from "../../src/agent/anthropic.js";
import type { AgentEvent } from "../../src/agent/events.js";
import { run } from "../../src/agent/run.js";
import { scripted } from "../../src/agent/scripted.js";
import { connectMcp } from "../../src/node/tools.js";
import type { ReadTool } from "../../src/tools/types.js";
import { connectFixture, waitFor } from "../helpers/clients.js";
import { fixtureServer } from "../helpers/paths.js";
import { alice, replayForFile, shape, within } from "./support.js";

const replay = replayForFile();

describe("R2: cancellation and progress", { timeout: 30_000 }, () => {
  test("R2: cancelling mid-stream aborts the provider request and ends the run as cancelled", async () => {
    // message_start, content_block_start, ping, one text delta, then the server holds the stream open.
    await replay.queue({ file: "anthropic-messages/anthropic-text.chunks.txt", stallAfterEvents: 4, chunkSizes: [5] });
    const controller = new AbortController();
    const events: AgentEvent[] = [];
    const result = await within(
      run({
        provider: anthropic({ apiKey: "k", model: "m", baseUrl: replay.baseUrl }),
        identity: alice,
        input: "Hello",
        signal: controller.signal,
        onEvent: (e) => {
          events.push(e);
          if (e.type === "message_delta") controller.abort();
        },
      }),
      5_000,
      "the cancelled run",
    );
    assert.equal(result.stopReason, "cancelled");
    assert.deepEqual(shape(events), ["agent_start", "turn_start", "message_start", "message_delta:text", "agent_end:cancelled"]);
    assert.deepEqual(result.messages.map((m) => m.role), ["user"], "the cut answer is not kept");
    let records = await replay.requests();
    const deadline = Date.now() + 3_000;
    while (!records[0]?.aborted && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      records = await replay.requests();
    }
    assert.equal(records.length, 1);
    assert.equal(records[0]?.stalled, true);
    assert.equal(records[0]?.aborted, true, "the server saw the client go away");
  });

  test("R2: cancelling during an MCP tool call sends notifications/cancelled to the server", async () => {
    const { client, logs } = await connectFixture("silent.mjs", [], { era: "legacy" });
    try {
      const hang: ReadTool = {
        name: "silent__hang",
        description: "Never answers.",
        inputSchema: { type: "object" },
        effect: "read",
        execute: async (args, ctx) => {
          const r = await client.callTool("hang", args as Record<string, unknown>, ctx.signal ? { signal: ctx.signal } : {});
          return { content: [], isError: r.isError };
        },
      };
      const controller = new AbortController();
      const result = await within(
        run({
          provider: scripted([{ toolCalls: [{ name: "silent__hang" }] }]),
          tools: [hang],
          identity: alice,
          input: "go",
          signal: controller.signal,
          onEvent: (e) => {
            if (e.type === "tool_execution_start") setTimeout(() => controller.abort(), 50);
          },
        }),
        5_000,
        "the cancelled run",
      );
      assert.equal(result.stopReason, "cancelled");
      const stderr = () => logs.filter((l) => l.message === "server stderr").map((l) => String(l.data?.text)).join("");
      const cancelledCall = /received tools\/call\n[\s\S]*cancelled \S+ cancelled by the caller/;
      await waitFor(() => cancelledCall.test(stderr()), 3_000);
      assert.match(stderr(), cancelledCall);
    } finally {
      await client.close();
    }
  });

  test("R2: cancelling a run during a slow catalog call returns promptly", async () => {
    const catalog = await connectMcp(
      { name: "catalog", command: process.execPath, args: [fixtureServer("catalog/stdio.mjs")] },
      { identity: alice, authorize: () => true },
      { timeoutMs: 10_000 },
    );
    try {
      const controller = new AbortController();
      const started = Date.now();
      const result = await within(
        run({
          provider: scripted([{ toolCalls: [{ name: "catalog__slow", arguments: { ms: 60_000 } }] }]),
          tools: catalog.tools,
          identity: alice,
          input: "go",
          signal: controller.signal,
          onEvent: (e) => {
            if (e.type === "tool_execution_start") setTimeout(() => controller.abort(), 50);
          },
        }),
        5_000,
        "the cancelled run",
      );
      assert.equal(result.stopReason, "cancelled");
      assert.ok(Date.now() - started < 3_000);
      // The connection is still usable after the cancelled call.
      const lookup = catalog.tools.find((t) => t.name === "catalog__lookup");
      const answer = await lookup?.execute({ sku: "ABC-123" }, { identity: alice });
      assert.equal(answer?.isError, false);
    } finally {
      await catalog.close();
    }
  });

  test("R2: MCP progress notifications arrive as tool_execution_update events", async () => {
    const progress = await connectMcp(
      { name: "progress", command: process.execPath, args: [fixtureServer("progress.mjs")] },
      { identity: alice, authorize: () => true },
      { timeoutMs: 10_000 },
    );
    try {
      const events: AgentEvent[] = [];
      await run({
        provider: scripted([{ toolCalls: [{ name: "progress__work", arguments: { steps: 3, delayMs: 5 } }] }, { text: "done" }]),
        tools: progress.tools,
        identity: alice,
        input: "go",
        onEvent: (e) => events.push(e),
      });
      const updates = events.flatMap((e) => (e.type === "tool_execution_update" ? [e.update] : []));
      assert.deepEqual(updates, [
        { progress: 1, total: 3, message: "step 1 of 3" },
        { progress: 2, total: 3, message: "step 2 of 3" },
        { progress: 3, total: 3, message: "step 3 of 3" },
      ]);
      assert.deepEqual(shape(events).filter((s) => s.startsWith("tool_")), [
        "tool_execution_start:progress__work",
        "tool_execution_update:progress__work",
        "tool_execution_update:progress__work",
        "tool_execution_update:progress__work",
        "tool_execution_end:progress__work",
      ]);
    } finally {
      await progress.close();
    }
  });
});
