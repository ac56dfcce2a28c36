// R3: the Anthropic Messages provider against recorded streams replayed by a
// loopback server in small, odd-sized chunks.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { anthropic } from "../../src/agent/anthropic.js";
import type { Message } from "../../src/agent/messages.js";
import type { ModelDelta, ModelRequest } from "../../src/agent/provider.js";
import { ProviderError } from "../../src/errors.js";
import { ODD_CHUNKS, replayForFile, streamEvents } from "./support.js";

const DIR = "anthropic-messages";
const replay = replayForFile();

const provider = (maxTokens?: number) =>
  anthropic({ apiKey: "test-key", model: "claude-test", baseUrl: replay.baseUrl, retry: { maxAttempts: 1 }, ...(maxTokens ? { maxTokens } : {}) });
const hello: ModelRequest = { messages: [{ role: "user", content: [{ type: "text", text: "Hello" }] }], tools: [] };

/** The concatenated deltas of one kind from the recorded file. */
function recorded(file: string, deltaType: string, field: string): string {
  return streamEvents(`${DIR}/${file}`)
    .filter((e) => e.type === "content_block_delta" && (e.delta as Record<string, unknown>).type === deltaType)
    .map((e) => (e.delta as Record<string, string>)[field])
    .join("");
}

describe("R3: anthropic provider", { timeout: 30_000 }, () => {
  test("R3: anthropic assembles streamed text and usage from odd-sized chunks", async () => {
    await replay.queue({ file: `${DIR}/anthropic-text.chunks.txt`, chunkSizes: ODD_CHUNKS });
    const deltas: ModelDelta[] = [];
    const message = await provider().generate(hello, { onDelta: (d) => deltas.push(d) });
    const expected = recorded("anthropic-text.chunks.txt", "text_delta", "text");
    assert.equal(expected, "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?");
    assert.deepEqual(message.content, [{ type: "text", text: expected }]);
    assert.equal(deltas.map((d) => d.text).join(""), expected);
    assert.ok(deltas.length >= 6 && deltas.every((d) => d.kind === "text"));
    assert.equal(message.stopReason, "end");
    assert.equal(message.model, "claude-sonnet-4-5-20250929");
    assert.deepEqual(message.usage, { inputTokens: 12, outputTokens: 30, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  test("R3: anthropic assembles streamed tool-call arguments", async () => {
    await replay.queue({ file: `${DIR}/anthropic-json-tool.2.chunks.txt`, chunkSizes: [3, 11] });
    const message = await provider().generate(hello);
    assert.deepEqual(message.content, [
      { type: "text", text: "I'll invoke the JSON response tool." },
      {
        type: "tool_call",
        id: "toolu_01KFbKqPYSuAKujiL6mTfzYA",
        name: "json",
        arguments: { elements: [{ location: "San Francisco", temperature: 58, condition: "sunny" }] },
      },
    ]);
    assert.equal(message.stopReason, "tool_use");
    assert.deepEqual(message.usage, { inputTokens: 849, outputTokens: 47, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  test("R3: anthropic reads a tool call split across deltas and one without arguments", async () => {
    await replay.queue(
      { file: `${DIR}/anthropic-json-other-tool.1.chunks.txt`, chunkSizes: [5] },
      { file: `${DIR}/anthropic-tool-no-args.chunks.txt`, chunkSizes: [17, 4] },
    );
    const weather = await provider().generate(hello);
    assert.deepEqual(weather.content, [{ type: "tool_call", id: "toolu_019Zvehfe1XQWweT1pm7okyt", name: "weather", arguments: { location: "San Francisco" } }]);
    const noArgs = await provider().generate(hello);
    assert.deepEqual(noArgs.content[1], { type: "tool_call", id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", name: "updateIssueList", arguments: {} });
  });

  test("R3: anthropic streams thinking with its signature, then text", async () => {
    await replay.queue({ file: `${DIR}/anthropic-clear-thinking.1.chunks.txt`, chunkSizes: ODD_CHUNKS, eventLines: true });
    const deltas: ModelDelta[] = [];
    const message = await provider().generate(hello, { onDelta: (d) => deltas.push(d) });
    const thinking = recorded("anthropic-clear-thinking.1.chunks.txt", "thinking_delta", "thinking");
    const signature = recorded("anthropic-clear-thinking.1.chunks.txt", "signature_delta", "signature");
    assert.ok(signature.length > 20);
    assert.deepEqual(message.content, [
      { type: "thinking", text: thinking, signature },
      { type: "text", text: "925 ÷ 5 = 185" },
    ]);
    const kinds = deltas.map((d) => d.kind);
    assert.equal(kinds.indexOf("text"), kinds.lastIndexOf("thinking") + 1, "thinking deltas come before text deltas");
    assert.equal(deltas.filter((d) => d.kind === "thinking").map((d) => d.text).join(""), thinking);
  });

  test("R3: anthropic takes input tokens from message_delta when it sends them", async () => {
    await replay.queue({ file: `${DIR}/anthropic-message-delta-input-tokens.chunks.txt`, chunkSizes: [2] });
    const message = await provider().generate(hello);
    assert.deepEqual(message.content, [{ type: "text", text: "pong" }]);
    assert.deepEqual(message.usage, { inputTokens: 61, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  test("R3: anthropic ignores a duplicated message_start and unknown block kinds", async () => {
    await replay.queue({ file: `${DIR}/duplicate-message-start.chunks.txt`, chunkSizes: [9] }, { file: `${DIR}/anthropic-fallback.chunks.txt`, chunkSizes: [7] });
    const dup = await provider().generate(hello);
    assert.deepEqual(dup.content, [{ type: "text", text: "Hello, World!" }]);
    assert.equal(dup.usage?.outputTokens, 227);
    const fallback = await provider().generate(hello);
    assert.deepEqual(fallback.content, [{ type: "text", text: "The printing press was invented by Johannes Gutenberg around 1440." }]);
  });

  test("R3: anthropic refuses a spliced stream (a second message inside the first) as bad_response", async () => {
    await replay.queue({ file: `${DIR}/spliced-message-start.chunks.txt`, chunkSizes: ODD_CHUNKS });
    await assert.rejects(provider().generate(hello), (e: unknown) => e instanceof ProviderError && e.kind === "bad_response" && /spliced/.test(e.message));
  });

  test("R3: anthropic reports a refusal as stop reason refusal with no content", async () => {
    await replay.queue({ file: `${DIR}/anthropic-refusal.chunks.txt` });
    const message = await provider().generate(hello);
    assert.equal(message.stopReason, "refusal");
    assert.deepEqual(message.content, []);
  });

  test("R3: anthropic turns malformed streamed tool-call JSON into argumentsError", async () => {
    const lines = [
      '{"type":"message_start","message":{"id":"m1","model":"claude-test","usage":{"input_tokens":5,"output_tokens":1}}}',
      '{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"lookup","input":{}}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"sku\\": \\"ABC"}}',
      '{"type":"content_block_stop","index":0}',
      '{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":3}}',
      '{"type":"message_stop"}',
    ];
    await replay.queue({ lines, chunkSizes: [4] });
    const message = await provider().generate(hello);
    const call = message.content[0];
    assert.ok(call?.type === "tool_call");
    assert.deepEqual(call.arguments, {});
    assert.match(call.argumentsError ?? "", /not valid JSON/);
    assert.equal(message.stopReason, "max_tokens");
  });

  test("R3: anthropic fails with bad_response when the stream ends before message_stop", async () => {
    await replay.queue({ lines: streamEvents(`${DIR}/anthropic-text.chunks.txt`).slice(0, 4).map((e) => JSON.stringify(e)) });
    await assert.rejects(provider().generate(hello), (e: unknown) => e instanceof ProviderError && e.kind === "bad_response" && /ended/.test(e.message));
  });

  test("R3: anthropic sends the system prompt, tools, tool results with is_error, images and headers", async () => {
    await replay.queue({ file: `${DIR}/anthropic-text.chunks.txt` });
    const png = "iVBORw0KGgo=";
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "Find product A" }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", text: "unsigned, from another provider" },
          { type: "thinking", text: "signed", signature: "sig-1" },
          { type: "text", text: "Looking." },
          { type: "tool_call", id: "toolu_a", name: "catalog__lookup", arguments: { sku: "ABC-123" } },
          { type: "tool_call", id: "toolu_b", name: "catalog__image", arguments: {} },
        ],
      },
      { role: "tool", toolCallId: "toolu_a", toolName: "catalog__lookup", content: [{ type: "text", text: '{"error":"tool_failed","message":"no"}' }], isError: true },
      { role: "tool", toolCallId: "toolu_b", toolName: "catalog__image", content: [{ type: "image", mimeType: "image/png", data: png }, { type: "text", text: "one image" }], isError: false },
    ];
    const request: ModelRequest = {
      system: "Use the catalog.",
      messages,
      tools: [{ name: "catalog__lookup", description: "Look up a product", inputSchema: { type: "object", properties: { sku: { type: "string" } } } }],
    };
    await provider(1234).generate(request);
    const [record] = await replay.requests();
    assert.ok(record);
    assert.equal(record.url, "/v1/messages");
    assert.equal(record.headers["x-api-key"], "test-key");
    assert.equal(record.headers["anthropic-version"], "2023-06-01");
    assert.match(record.headers["content-type"] ?? "", /application\/json/);
    assert.deepEqual(JSON.parse(record.body), {
      model: "claude-test",
      max_tokens: 1234,
      stream: true,
      system: "Use the catalog.",
      tools: [{ name: "catalog__lookup", description: "Look up a product", input_schema: { type: "object", properties: { sku: { type: "string" } } } }],
      messages: [
        { role: "user", content: [{ type: "text", text: "Find product A" }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "signed", signature: "sig-1" },
            { type: "text", text: "Looking." },
            { type: "tool_use", id: "toolu_a", name: "catalog__lookup", input: { sku: "ABC-123" } },
            { type: "tool_use", id: "toolu_b", name: "catalog__image", input: {} },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_a", is_error: true, content: [{ type: "text", text: '{"error":"tool_failed","message":"no"}' }] },
            {
              type: "tool_result",
              tool_use_id: "toolu_b",
              is_error: false,
              content: [
                { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
                { type: "text", text: "one image" },
              ],
            },
          ],
        },
      ],
    });
  });
});
