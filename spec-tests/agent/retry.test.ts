// R3: bounded retries (429 / 5xx / network, before any output, honouring
// retry-after) and typed provider errors, against the loopback replay server.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { anthropic } from "../../src/agent/anthropic.js";
import { openaiChat } from "../../src/agent/openai-chat.js";
import type { ModelRequest } from "../../src/agent/provider.js";
import { retryAfterMs } from "../../src/agent/retry.js";
import { ProviderError, TimeoutError, TransportError } from "../../src/errors.js";
import { replayForFile, streamEvents, streamLines } from "./support.js";

const replay = replayForFile();

const hello: ModelRequest = { messages: [{ role: "user", content: [{ type: "text", text: "Hello" }] }], tools: [] };
const TEXT = { file: "anthropic-messages/anthropic-text.chunks.txt", chunkSizes: [9] };
const claude = (retry = {}, fetchFn?: typeof fetch) =>
  anthropic({ apiKey: "k", model: "m", baseUrl: replay.baseUrl, retry: { baseDelayMs: 10, ...retry }, ...(fetchFn ? { fetch: fetchFn } : {}) });
const errorBody = (type: string, message: string) => JSON.stringify({ type: "error", error: { type, message } });
const isKind = (kind: string, status?: number) => (e: unknown) => e instanceof ProviderError && e.code === "provider" && e.kind === kind && (status === undefined || e.status === status);

describe("R3: retries and typed provider errors", { timeout: 30_000 }, () => {
  test("R3: a 429 with retry-after is retried after the asked wait, then succeeds", async () => {
    await replay.queue({ status: 429, headers: { "retry-after": "1" }, body: errorBody("rate_limit_error", "slow down") }, TEXT);
    const started = Date.now();
    const message = await claude().generate(hello);
    const waited = Date.now() - started;
    assert.equal(message.content[0]?.type, "text");
    const records = await replay.requests();
    assert.equal(records.length, 2);
    assert.equal(records[0]?.body, records[1]?.body, "the same request is sent again");
    assert.ok(waited >= 950, `waited ${waited} ms, retry-after asked 1000`);
  });

  test("R3: a 401 is an auth error and is not retried", async () => {
    await replay.queue({ status: 401, body: errorBody("authentication_error", "invalid x-api-key") }, TEXT);
    await assert.rejects(claude().generate(hello), (e: unknown) => isKind("auth", 401)(e) && /invalid x-api-key/.test((e as Error).message) && !/"k"/.test((e as Error).message));
    assert.equal((await replay.requests()).length, 1);
  });

  test("R3: 5xx / 529 are retried at most maxAttempts times, then overloaded", async () => {
    const overloaded = { status: 529, body: errorBody("overloaded_error", "Overloaded") };
    await replay.queue(overloaded, { status: 503, body: "" }, overloaded, TEXT);
    await assert.rejects(claude({ maxAttempts: 3 }).generate(hello), isKind("overloaded", 529));
    assert.equal((await replay.requests()).length, 3);
  });

  test("R3: a 500 then success is one retry", async () => {
    await replay.queue({ status: 500, body: "{}" }, TEXT);
    const message = await claude().generate(hello);
    assert.equal(message.stopReason, "end");
    assert.equal((await replay.requests()).length, 2);
  });

  test("R3: a retry-after longer than the retry bound fails at once as rate_limited", async () => {
    await replay.queue({ status: 429, headers: { "retry-after": "120" }, body: errorBody("rate_limit_error", "later") }, TEXT);
    await assert.rejects(claude({ maxDelayMs: 5_000 }).generate(hello), (e: unknown) => isKind("rate_limited", 429)(e) && (e as ProviderError).retryAfterMs === 120_000);
    assert.equal((await replay.requests()).length, 1);
  });

  test("R3: context overflow is recognised from 413 and from a 400 that says so", async () => {
    await replay.queue(
      { status: 400, body: errorBody("invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum") },
      { status: 413, body: errorBody("request_too_large", "Request exceeds the maximum size") },
      { status: 400, body: JSON.stringify({ error: { message: "This model's maximum context length is 8192 tokens.", code: "context_length_exceeded" } }) },
      { status: 400, body: JSON.stringify({ error: { message: "Unknown parameter: 'foo'." } }) },
    );
    await assert.rejects(claude().generate(hello), isKind("context_overflow", 400));
    await assert.rejects(claude().generate(hello), isKind("context_overflow", 413));
    const gpt = openaiChat({ model: "m", baseUrl: replay.baseUrl });
    await assert.rejects(gpt.generate(hello), isKind("context_overflow", 400));
    await assert.rejects(gpt.generate(hello), isKind("invalid_request", 400));
    assert.equal((await replay.requests()).length, 4, "none of them retried");
  });

  test("R3: a network failure before any output is retried", async () => {
    await replay.queue(TEXT);
    let calls = 0;
    const flaky: typeof fetch = async (input, init) => {
      calls++;
      if (calls === 1) throw new TypeError("fetch failed");
      return fetch(input, init);
    };
    const message = await claude({}, flaky).generate(hello);
    assert.equal(message.stopReason, "end");
    assert.equal(calls, 2);
  });

  test("R3: an unreachable server is a transport error after the bounded attempts", async () => {
    let calls = 0;
    const counting: typeof fetch = (input, init) => {
      calls++;
      return fetch(input, init);
    };
    const closed = anthropic({ apiKey: "k", model: "m", baseUrl: "http://127.0.0.1:9", fetch: counting, retry: { maxAttempts: 2, baseDelayMs: 5 } });
    await assert.rejects(closed.generate(hello), (e: unknown) => e instanceof TransportError && e.code === "transport");
    assert.equal(calls, 2);
  });

  test("R3: an in-stream overload before any output is retried; after output it is not", async () => {
    const start = '{"type":"message_start","message":{"id":"m","model":"m","usage":{"input_tokens":1,"output_tokens":1}}}';
    const overload = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
    await replay.queue({ lines: [start, overload] }, TEXT);
    const ok = await claude().generate(hello);
    assert.equal(ok.stopReason, "end");
    assert.equal((await replay.requests()).length, 2);

    await replay.reset();
    const partial = streamEvents("anthropic-messages/anthropic-text.chunks.txt").slice(0, 5).map((e) => JSON.stringify(e));
    await replay.queue({ lines: [...partial, overload] }, TEXT);
    const deltas: string[] = [];
    await assert.rejects(claude().generate(hello, { onDelta: (d) => deltas.push(d.text) }), isKind("overloaded"));
    assert.deepEqual(deltas, ["Hello", "! I"]);
    assert.equal((await replay.requests()).length, 1, "no retry once text was shown");
  });

  test("R3: a stop reason or error type named like an Object.prototype member is not looked up on the prototype", async () => {
    const events = streamEvents("anthropic-messages/anthropic-text.chunks.txt");
    const withStop = (reason: string) =>
      events.map((e) => JSON.stringify(e.type === "message_delta" ? { ...e, delta: { ...(e.delta as object), stop_reason: reason } } : e));
    for (const reason of ["constructor", "__proto__", "toString"]) {
      await replay.reset();
      await replay.queue({ lines: withStop(reason) });
      assert.equal((await claude({ maxAttempts: 1 }).generate(hello)).stopReason, "other", reason);
    }
    await replay.reset();
    const start = '{"type":"message_start","message":{"id":"m","model":"m","usage":{"input_tokens":1,"output_tokens":1}}}';
    await replay.queue({ lines: [start, '{"type":"error","error":{"type":"constructor","message":"odd"}}'] });
    await assert.rejects(claude({ maxAttempts: 1 }).generate(hello), (e: unknown) => isKind("bad_response")(e) && /odd/.test((e as Error).message));

    await replay.reset();
    const chat = streamEvents("openai-chat/openai-text.chunks.txt").map((e) => {
      const choices = (e.choices as Array<Record<string, unknown>>).map((c) => (c.finish_reason ? { ...c, finish_reason: "toString" } : c));
      return JSON.stringify({ ...e, choices });
    });
    await replay.queue({ lines: chat });
    const gpt = openaiChat({ apiKey: "sk-test", model: "gpt-test", baseUrl: `${replay.baseUrl}/v1`, retry: { maxAttempts: 1 } });
    assert.equal((await gpt.generate(hello)).stopReason, "other");
  });

  test("R3: a request that cannot be serialized as JSON is a typed transport error, neither sent nor retried", async () => {
    let calls = 0;
    const counting = ((...args: Parameters<typeof fetch>) => {
      calls++;
      return fetch(...args);
    }) as typeof fetch;
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const requests: ModelRequest[] = [
      { ...hello, tools: [{ name: "t", description: "", inputSchema: { type: "object", default: 1n } }] },
      { messages: [...hello.messages, { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "t", arguments: cyclic }] }], tools: [] },
    ];
    for (const request of requests) {
      for (const provider of [
        claude({ maxAttempts: 3 }, counting),
        openaiChat({ apiKey: "k", model: "m", baseUrl: replay.baseUrl, fetch: counting, retry: { maxAttempts: 3, baseDelayMs: 10 } }),
      ]) {
        await assert.rejects(provider.generate(request), (e: unknown) => e instanceof TransportError && e.code === "transport" && /request failed/.test(e.message));
      }
    }
    assert.equal(calls, 0);
    assert.equal((await replay.requests()).length, 0);
  });

  test("R3: a redirect is refused, never followed", async () => {
    await replay.queue({ status: 307, headers: { location: `${replay.baseUrl}/elsewhere` } }, TEXT);
    await assert.rejects(claude({ maxAttempts: 1 }).generate(hello), isKind("bad_response", 307));
    const records = await replay.requests();
    assert.deepEqual(records.map((r) => r.url), ["/v1/messages"]);
  });

  test("R3: a stream idle longer than its bound fails with timeout, and the request is dropped", async () => {
    await replay.queue({ ...TEXT, stallAfterEvents: 3 });
    const idle = anthropic({ apiKey: "k", model: "m", baseUrl: replay.baseUrl, idleTimeoutMs: 300, retry: { maxAttempts: 1 } });
    const started = Date.now();
    await assert.rejects(idle.generate(hello), (e: unknown) => e instanceof TimeoutError && e.code === "timeout" && e.timeoutMs === 300);
    assert.ok(Date.now() - started < 2_000);
  });

  test("R3: an event larger than MAX_PROVIDER_EVENT_BYTES is a bad_response", async () => {
    const start = '{"type":"message_start","message":{"id":"m","model":"m","usage":{"input_tokens":1,"output_tokens":1}}}';
    const huge = JSON.stringify({ type: "content_block_start", index: 0, content_block: { type: "text", text: "x".repeat(1024 * 1024 + 10) } });
    await replay.queue({ lines: [start, huge], chunkSizes: [65_536] });
    await assert.rejects(claude({ maxAttempts: 1 }).generate(hello), (e: unknown) => isKind("bad_response")(e) && /exceeds 1048576 bytes/.test((e as Error).message));
  });

  // An in-process answer: `chunks` as its body, `cancelled()` tells whether the body was released.
  const answerWith = (chunks: Iterable<string>, init: ResponseInit & { type?: ResponseType } = {}) => {
    let released = false;
    const source = chunks[Symbol.iterator]();
    const fetchFn = (async () => {
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = source.next();
          if (next.done) controller.close();
          else controller.enqueue(new TextEncoder().encode(next.value));
        },
        cancel() {
          released = true;
        },
      });
      const response = new Response(body, { headers: { "content-type": "text/event-stream" }, ...init });
      if (init.type) Object.defineProperty(response, "type", { value: init.type });
      return response;
    }) as unknown as typeof fetch;
    return { fetchFn, released: () => released };
  };

  test("R3: an answer that is not an event stream is a bad_response, and its body is released", async () => {
    const json = answerWith(['{"type":"message"}'], { headers: { "content-type": "application/json" } });
    await assert.rejects(claude({ maxAttempts: 1 }, json.fetchFn).generate(hello), (e: unknown) => isKind("bad_response", 200)(e) && /application\/json/.test((e as Error).message));
    assert.ok(json.released());
  });

  test("R3: a browser's opaque redirect answer is refused as bad_response", async () => {
    const opaque = answerWith(streamLines("anthropic-messages/anthropic-text.chunks.txt").map((l) => `data: ${l}\n\n`), { type: "opaqueredirect" });
    await assert.rejects(claude({ maxAttempts: 1 }, opaque.fetchFn).generate(hello), (e: unknown) => isKind("bad_response", 302)(e) && /redirect/.test((e as Error).message));
  });

  test("R3: an answer longer than MAX_PROVIDER_RESPONSE_BYTES is a bad_response, and its body is released", async () => {
    const comment = `:${"x".repeat(65_534)}\n`; // SSE comments: bytes that carry no event
    const long = answerWith(Array.from({ length: 520 }, () => comment)); // 520 × 64 KiB > 32 MiB
    await assert.rejects(claude({ maxAttempts: 1 }, long.fetchFn).generate(hello), (e: unknown) => isKind("bad_response")(e) && /exceeds 33554432 bytes/.test((e as Error).message));
    assert.ok(long.released(), "the rest of the body is not read");
  });

  test("R3: tool-call arguments longer than MAX_TOOL_CALL_ARGUMENT_BYTES become an argumentsError", async () => {
    const events = [
      { type: "message_start", message: { id: "m", model: "m", usage: { input_tokens: 1, output_tokens: 1 } } },
      { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "t1", name: "f", input: {} } },
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: `{"a":"${"é".repeat(32_000)}` } },
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '"}' } },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 2 } },
      { type: "message_stop" },
    ];
    const big = answerWith(events.map((e) => `data: ${JSON.stringify(e)}\n\n`));
    const message = await claude({ maxAttempts: 1 }, big.fetchFn).generate(hello);
    const call = message.content[0];
    assert.ok(call?.type === "tool_call");
    assert.deepEqual(call.arguments, {});
    assert.match(call.argumentsError ?? "", /exceed 64000 bytes/);
  });

  test("R3: retry-after is read as milliseconds, seconds or an HTTP date", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    assert.equal(retryAfterMs(new Headers({ "retry-after-ms": "250" }), now), 250);
    assert.equal(retryAfterMs(new Headers({ "retry-after": "2" }), now), 2000);
    assert.equal(retryAfterMs(new Headers({ "retry-after": "Wed, 01 Jan 2025 00:00:05 GMT" }), now), 5000);
    assert.equal(retryAfterMs(new Headers({ "retry-after": "soon" }), now), undefined);
    assert.equal(retryAfterMs(new Headers(), now), undefined);
  });
});
