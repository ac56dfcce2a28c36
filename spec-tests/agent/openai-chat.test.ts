// R3: the OpenAI-compatible Chat Completions provider against streams recorded
// from OpenAI, Azure, xAI, Groq, Mistral, DeepSeek and Alibaba, replayed by a
// loopback server in small, odd-sized chunks.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Message } from "../../src/agent/messages.js";
import { openaiChat } from "../../src/agent/openai-chat.js";
import type { ModelDelta, ModelRequest } from "../../src/agent/provider.js";
import { ProviderError } from "../../src/errors.js";
import { ODD_CHUNKS, replayForFile, streamEvents } from "./support.js";

const DIR = "openai-chat";
const replay = replayForFile();

const provider = () => openaiChat({ apiKey: "sk-test", model: "gpt-test", baseUrl: `${replay.baseUrl}/v1`, retry: { maxAttempts: 1 } });
const hello: ModelRequest = { messages: [{ role: "user", content: [{ type: "text", text: "Hello" }] }], tools: [] };

/** The concatenated `delta[field]` strings of choice 0 in a recorded file. */
function recorded(file: string, field: string): string {
  let out = "";
  for (const e of streamEvents(`${DIR}/${file}`)) {
    for (const c of (e.choices as Array<Record<string, Record<string, unknown>>> | undefined) ?? []) {
      const v = c.delta?.[field];
      if (typeof v === "string") out += v;
    }
  }
  return out;
}

describe("R3: openaiChat provider", { timeout: 30_000 }, () => {
  test("R3: openaiChat assembles streamed text and usage from odd-sized chunks (OpenAI)", async () => {
    await replay.queue({ file: `${DIR}/openai-text.chunks.txt`, done: true, chunkSizes: ODD_CHUNKS });
    const deltas: ModelDelta[] = [];
    const message = await provider().generate(hello, { onDelta: (d) => deltas.push(d) });
    const expected = recorded("openai-text.chunks.txt", "content");
    assert.equal(expected.length, 1724);
    assert.deepEqual(message.content, [{ type: "text", text: expected }]);
    assert.equal(deltas.map((d) => d.text).join(""), expected);
    assert.equal(message.stopReason, "end");
    assert.equal(message.model, "gpt-4.1-nano-2025-04-14");
    assert.deepEqual(message.usage, { inputTokens: 16, outputTokens: 300, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  test("R3: openaiChat streams reasoning_content as thinking before the text (xAI)", async () => {
    await replay.queue({ file: `${DIR}/xai-text.chunks.txt`, done: true, chunkSizes: [3, 17] });
    const deltas: ModelDelta[] = [];
    const message = await provider().generate(hello, { onDelta: (d) => deltas.push(d) });
    const thinking = recorded("xai-text.chunks.txt", "reasoning_content");
    assert.equal(thinking.length, 1455);
    assert.deepEqual(message.content, [
      { type: "thinking", text: thinking },
      { type: "text", text: "Grok" },
    ]);
    assert.equal(deltas.filter((d) => d.kind === "thinking").map((d) => d.text).join(""), thinking);
    assert.deepEqual(message.usage, { inputTokens: 12, outputTokens: 2, cacheReadTokens: 11, cacheWriteTokens: 0 });
  });

  test("R3: openaiChat assembles incrementally streamed tool-call arguments (DeepSeek)", async () => {
    await replay.queue({ file: `${DIR}/deepseek-tool-call.chunks.txt`, done: true, chunkSizes: ODD_CHUNKS });
    const message = await provider().generate(hello);
    assert.deepEqual(message.content.at(-1), { type: "tool_call", id: "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", name: "weather", arguments: { location: "San Francisco" } });
    assert.equal(message.content[0]?.type, "thinking");
    assert.equal(message.stopReason, "tool_use");
    assert.deepEqual(message.usage, { inputTokens: 339, outputTokens: 83, cacheReadTokens: 320, cacheWriteTokens: 0 });
  });

  test("R3: openaiChat keeps the first id and name when later pieces repeat them empty (Alibaba, Mistral)", async () => {
    await replay.queue(
      { file: `${DIR}/alibaba-tool-call.chunks.txt`, done: true, chunkSizes: [5] },
      { file: `${DIR}/mistral-incremental-tool-call.chunks.txt`, done: true, chunkSizes: [11] },
    );
    const alibaba = await provider().generate(hello);
    assert.deepEqual(alibaba.content, [{ type: "tool_call", id: "call_eee11723464a4b9eb8cee71d", name: "weather", arguments: { location: "San Francisco" } }]);
    assert.deepEqual(alibaba.usage, { inputTokens: 295, outputTokens: 22, cacheReadTokens: 0, cacheWriteTokens: 0 });
    const mistral = await provider().generate(hello);
    assert.deepEqual(mistral.content, [{ type: "tool_call", id: "chatcmpl-tool-9f149c74c42f265b", name: "webSearchTool", arguments: { query: "current Berlin weather" } }]);
    assert.deepEqual(mistral.usage, { inputTokens: 171, outputTokens: 14, cacheReadTokens: 128, cacheWriteTokens: 0 });
  });

  test("R3: openaiChat reads Groq's usage and a stream that ends after finish_reason without [DONE]", async () => {
    await replay.queue({ file: `${DIR}/groq-tool-call.chunks.txt`, done: false, chunkSizes: [13] });
    const message = await provider().generate(hello);
    assert.deepEqual(message.content, [{ type: "tool_call", id: "tk85n1k4m", name: "weather", arguments: {} }]);
    assert.deepEqual(message.usage, { inputTokens: 210, outputTokens: 15, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  test("R3: openaiChat handles chunks without choices (Azure) and whole tool calls in one piece (xAI)", async () => {
    await replay.queue({ file: `${DIR}/azure-model-router.1.chunks.txt`, done: true, chunkSizes: [29] }, { file: `${DIR}/xai-tool-call.chunks.txt`, done: true, chunkSizes: ODD_CHUNKS });
    const azure = await provider().generate(hello);
    assert.deepEqual(azure.content, [{ type: "text", text: "Capital of Denmark." }]);
    assert.deepEqual(azure.usage, { inputTokens: 15, outputTokens: 78, cacheReadTokens: 0, cacheWriteTokens: 0 });
    const xai = await provider().generate(hello);
    assert.deepEqual(xai.content.at(-1), { type: "tool_call", id: "call_79382389", name: "weather", arguments: { location: "San Francisco" } });
    assert.deepEqual(xai.usage, { inputTokens: 307, outputTokens: 26, cacheReadTokens: 306, cacheWriteTokens: 0 });
  });

  test("R3: openaiChat turns malformed tool-call JSON into argumentsError", async () => {
    const chunk = (delta: unknown, finish: string | null = null) => JSON.stringify({ model: "m", choices: [{ index: 0, delta, finish_reason: finish }] });
    await replay.queue({
      lines: [
        chunk({ tool_calls: [{ index: 0, id: "c1", type: "function", function: { name: "lookup", arguments: '{"sku": ' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: "ABC}" } }] }),
        chunk({ tool_calls: [{ index: 1, id: "c2", type: "function", function: { name: "lookup", arguments: "[1]" } }] }),
        chunk({}, "tool_calls"),
      ],
      done: true,
      chunkSizes: [6],
    });
    const message = await provider().generate(hello);
    assert.equal(message.content.length, 2);
    for (const part of message.content) {
      assert.ok(part.type === "tool_call");
      assert.deepEqual(part.arguments, {});
      assert.ok(part.argumentsError);
    }
    assert.match((message.content[0] as { argumentsError: string }).argumentsError, /not valid JSON/);
    assert.match((message.content[1] as { argumentsError: string }).argumentsError, /JSON object/);
  });

  test("R3: openaiChat fails with bad_response for a stream that ends without finishing", async () => {
    await replay.queue({ lines: streamEvents(`${DIR}/openai-text.chunks.txt`).slice(0, 5).map((e) => JSON.stringify(e)) });
    await assert.rejects(provider().generate(hello), (e: unknown) => e instanceof ProviderError && e.kind === "bad_response");
  });

  test("R3: openaiChat sends the system prompt, tools, tool results (is_error), images and the bearer key", async () => {
    await replay.queue({ file: `${DIR}/azure-model-router.1.chunks.txt`, done: true });
    const png = "iVBORw0KGgo=";
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "Find product A" }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", text: "not sent back" },
          { type: "text", text: "Looking." },
          { type: "tool_call", id: "c1", name: "catalog__lookup", arguments: { sku: "ABC-123" } },
          { type: "tool_call", id: "c2", name: "catalog__image", arguments: {} },
        ],
      },
      { role: "tool", toolCallId: "c1", toolName: "catalog__lookup", content: [{ type: "text", text: "Unknown SKU" }], isError: true },
      { role: "tool", toolCallId: "c2", toolName: "catalog__image", content: [{ type: "image", mimeType: "image/png", data: png }], isError: false },
      { role: "user", content: [{ type: "text", text: "Thanks" }] },
    ];
    await provider().generate({
      system: "Use the catalog.",
      messages,
      tools: [{ name: "catalog__lookup", description: "Look up", inputSchema: { type: "object" } }],
    });
    const [record] = await replay.requests();
    assert.ok(record);
    assert.equal(record.url, "/v1/chat/completions");
    assert.equal(record.headers.authorization, "Bearer sk-test");
    assert.deepEqual(JSON.parse(record.body), {
      model: "gpt-test",
      stream: true,
      stream_options: { include_usage: true },
      tools: [{ type: "function", function: { name: "catalog__lookup", description: "Look up", parameters: { type: "object" } } }],
      messages: [
        { role: "system", content: "Use the catalog." },
        { role: "user", content: "Find product A" },
        {
          role: "assistant",
          content: "Looking.",
          tool_calls: [
            { id: "c1", type: "function", function: { name: "catalog__lookup", arguments: '{"sku":"ABC-123"}' } },
            { id: "c2", type: "function", function: { name: "catalog__image", arguments: "{}" } },
          ],
        },
        { role: "tool", tool_call_id: "c1", content: "Error: Unknown SKU" },
        { role: "tool", tool_call_id: "c2", content: "[1 image(s), shown below]" },
        {
          role: "user",
          content: [
            { type: "text", text: "Images returned by the tool calls above:" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } },
          ],
        },
        { role: "user", content: "Thanks" },
      ],
    });
  });

  test("R3: openaiChat sends no Authorization header without a key (local servers)", async () => {
    await replay.queue({ file: `${DIR}/azure-model-router.1.chunks.txt`, done: true });
    await openaiChat({ model: "llama3.2", baseUrl: `${replay.baseUrl}/v1/` }).generate(hello);
    const [record] = await replay.requests();
    assert.equal(record?.headers.authorization, undefined);
    assert.equal(record?.url, "/v1/chat/completions");
  });
});
