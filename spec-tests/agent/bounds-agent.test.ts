// Bounds and defaults of the agent loop (R1, R3, R4) and of the providers (R3),
// each crossed: the loop against a scripted model and host tools, the providers
// against the loopback replay server (a real child process). Waits too long for a
// test run on a mocked clock (spec-tests/helpers/clock.ts).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { run } from "../../src/agent/run.js";
import { scripted } from "../../src/agent/scripted.js";
import { anthropic } from "../../src/agent/anthropic.js";
import type { ModelRequest } from "../../src/agent/provider.js";
import { ProviderError, TimeoutError } from "../../src/errors.js";
import {
  DEFAULT_ANTHROPIC_MAX_TOKENS,
  DEFAULT_LOOP_THRESHOLD,
  DEFAULT_MAX_STEPS,
  DEFAULT_PROVIDER_IDLE_TIMEOUT_MS,
  DEFAULT_PROVIDER_MAX_ATTEMPTS,
  DEFAULT_TOOL_CONCURRENCY,
  MAX_AGENT_IMAGE_BASE64_CHARS,
  MAX_AGENT_TOOL_RESULT_BYTES,
  MAX_AGENT_TOOL_RESULT_IMAGES,
  MAX_PROVIDER_ERROR_BODY_BYTES,
  MAX_PROVIDER_ERROR_MESSAGE_CHARS,
  PROVIDER_MAX_RETRY_DELAY_MS,
  PROVIDER_RETRY_BASE_DELAY_MS,
} from "../../src/limits.js";
import type { ToolResult } from "../../src/tools/types.js";
import { mockClock, realDelay, realWaitFor } from "../helpers/clock.js";
import { alice, hostTool, replayForFile, text } from "./support.js";

const replay = replayForFile();
const hello: ModelRequest = { messages: [{ role: "user", content: [{ type: "text", text: "Hello" }] }], tools: [] };
const TEXT = { file: "anthropic-messages/anthropic-text.chunks.txt", chunkSizes: [9] };
const overloaded = { status: 503, body: "" };
const claude = (options: Record<string, unknown> = {}) => anthropic({ apiKey: "k", model: "m", baseUrl: replay.baseUrl, ...options });

/** Polls the replay server (real time) until `predicate` holds, for at most 20 s. */
async function until(predicate: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + 20_000;
  while (!(await predicate())) {
    if (Date.now() > end) throw new Error("condition not reached in time");
    await realDelay(20);
  }
}

/** What the model was given as the result of the first tool call. */
function firstToolResult(request: ModelRequest | undefined): ToolResult {
  const m = request?.messages.find((x) => x.role === "tool");
  assert.ok(m && m.role === "tool", "the model got a tool result");
  return m as unknown as ToolResult;
}

describe("R1, R4: the loop's defaults and result bounds", () => {
  test("R1: a run makes at most DEFAULT_MAX_STEPS model calls by default", async () => {
    const echo = hostTool("echo", async () => text("ok"));
    const steps = Array.from({ length: DEFAULT_MAX_STEPS + 3 }, (_, i) => ({ toolCalls: [{ name: "echo", arguments: { i } }] }));
    const provider = scripted(steps);
    const result = await run({ provider, tools: [echo], identity: alice, input: "go" });
    assert.equal(result.stopReason, "max_steps");
    assert.equal(provider.requests.length, DEFAULT_MAX_STEPS);
    // A run whose last allowed call answers ends normally.
    const fits = scripted([...steps.slice(0, DEFAULT_MAX_STEPS - 1), { text: "done" }]);
    assert.notEqual((await run({ provider: fits, tools: [echo], identity: alice, input: "go" })).stopReason, "max_steps");
  });

  test("R1: at most DEFAULT_TOOL_CONCURRENCY read calls of one turn run at once by default", async () => {
    let running = 0;
    let most = 0;
    const slow = hostTool("slow", async () => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 30));
      running--;
      return text("ok");
    });
    const calls = Array.from({ length: DEFAULT_TOOL_CONCURRENCY * 3 }, (_, i) => ({ name: "slow", arguments: { i } }));
    await run({ provider: scripted([{ toolCalls: calls }, { text: "done" }]), tools: [slow], identity: alice, input: "go" });
    assert.equal(most, DEFAULT_TOOL_CONCURRENCY);
  });

  test("R1: DEFAULT_LOOP_THRESHOLD identical calls in a row stop the run by default; one fewer does not", async () => {
    const same = { toolCalls: [{ name: "echo", arguments: { a: 1 } }] };
    const echo = hostTool("echo", async () => text("ok"));
    const under = scripted([...Array.from({ length: DEFAULT_LOOP_THRESHOLD - 1 }, () => same), { text: "done" }]);
    assert.notEqual((await run({ provider: under, tools: [echo], identity: alice, input: "go" })).stopReason, "loop_detected");
    const at = scripted([...Array.from({ length: DEFAULT_LOOP_THRESHOLD }, () => same), { text: "never" }]);
    const result = await run({ provider: at, tools: [echo], identity: alice, input: "go" });
    assert.equal(result.stopReason, "loop_detected");
    assert.equal(result.loop?.count, DEFAULT_LOOP_THRESHOLD);
  });

  test("R4: a tool's text of MAX_AGENT_TOOL_RESULT_BYTES reaches the model whole; one byte more is cut with a note", async () => {
    for (const [size, cut] of [[MAX_AGENT_TOOL_RESULT_BYTES, false], [MAX_AGENT_TOOL_RESULT_BYTES + 1, true]] as const) {
      const big = hostTool("big", async () => text("é".repeat(Math.floor(size / 2)) + "x".repeat(size % 2)));
      const provider = scripted([{ toolCalls: [{ name: "big" }] }, { text: "done" }]);
      await run({ provider, tools: [big], identity: alice, input: "go" });
      const seen = firstToolResult(provider.requests[1]).content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
      assert.ok(Buffer.byteLength(seen) <= MAX_AGENT_TOOL_RESULT_BYTES, `${Buffer.byteLength(seen)} bytes`);
      assert.equal(seen.includes(`[truncated: the result exceeds ${MAX_AGENT_TOOL_RESULT_BYTES} bytes]`), cut, `size ${size}`);
      if (!cut) assert.equal(Buffer.byteLength(seen), size);
    }
  });

  test("R3: MAX_AGENT_TOOL_RESULT_IMAGES images of MAX_AGENT_IMAGE_BASE64_CHARS reach the model; more, or larger, are placeholders", async () => {
    const image = (chars: number) => ({ type: "image" as const, mimeType: "image/png", data: "A".repeat(chars) });
    const pictures = hostTool("pictures", async () => ({
      content: [image(MAX_AGENT_IMAGE_BASE64_CHARS + 4), ...Array.from({ length: MAX_AGENT_TOOL_RESULT_IMAGES + 1 }, () => image(MAX_AGENT_IMAGE_BASE64_CHARS))],
      isError: false,
    }));
    const provider = scripted([{ toolCalls: [{ name: "pictures" }] }, { text: "done" }]);
    await run({ provider, tools: [pictures], identity: alice, input: "go" });
    const parts = firstToolResult(provider.requests[1]).content;
    assert.equal(parts.filter((p) => p.type === "image").length, MAX_AGENT_TOOL_RESULT_IMAGES);
    assert.deepEqual(
      parts.flatMap((p) => (p.type === "text" ? [p.text] : [])),
      ["[image: image/png]", "[image: image/png]"],
      "the oversized first image and the one past the count",
    );
  });
});

describe("R3: provider defaults against the replay server", { timeout: 60_000 }, () => {
  test("R3: DEFAULT_PROVIDER_MAX_ATTEMPTS attempts by default, waiting PROVIDER_RETRY_BASE_DELAY_MS then double", async (t) => {
    t.mock.method(Math, "random", () => 1); // the jittered half of each wait is then whole
    await replay.queue(...Array.from({ length: DEFAULT_PROVIDER_MAX_ATTEMPTS - 1 }, () => overloaded), TEXT);
    const clock = mockClock(t);
    try {
      const answer = claude().generate(hello);
      for (let n = 1; n < DEFAULT_PROVIDER_MAX_ATTEMPTS; n++) {
        const wait = PROVIDER_RETRY_BASE_DELAY_MS * 2 ** (n - 1);
        await realWaitFor(() => clock.armed(wait) === 1); // the client took the failure and waits
        clock.tick(wait - 1);
        await realDelay(100);
        assert.equal((await replay.requests()).length, n, `retry ${n} not before ${wait} ms`);
        clock.tick(1);
      }
      assert.equal((await answer).stopReason, "end");
      assert.equal((await replay.requests()).length, DEFAULT_PROVIDER_MAX_ATTEMPTS);
    } finally {
      clock.restore();
    }
    // One failure more than the attempts allow is the provider's error.
    await replay.reset();
    await replay.queue(...Array.from({ length: DEFAULT_PROVIDER_MAX_ATTEMPTS }, () => overloaded), TEXT);
    await assert.rejects(claude({ retry: { baseDelayMs: 1 } }).generate(hello), (e: unknown) => e instanceof ProviderError && e.kind === "overloaded");
    assert.equal((await replay.requests()).length, DEFAULT_PROVIDER_MAX_ATTEMPTS);
  });

  test("R3: backoff stops growing at PROVIDER_MAX_RETRY_DELAY_MS; a retry-after of it is waited, a longer one fails at once", async (t) => {
    t.mock.method(Math, "random", () => 1);
    // The 7th wait would be 64 x base without the cap.
    const waits = Array.from({ length: 7 }, (_, i) => Math.min(PROVIDER_RETRY_BASE_DELAY_MS * 2 ** i, PROVIDER_MAX_RETRY_DELAY_MS));
    assert.equal(waits.at(-1), PROVIDER_MAX_RETRY_DELAY_MS);
    const asked = { status: 429, headers: { "retry-after": String(PROVIDER_MAX_RETRY_DELAY_MS / 1000) }, body: "" };
    await replay.queue(...waits.map(() => overloaded), asked, TEXT);
    const clock = mockClock(t);
    try {
      const answer = claude({ retry: { maxAttempts: waits.length + 2 } }).generate(hello);
      const all = [...waits, PROVIDER_MAX_RETRY_DELAY_MS];
      for (const [i, wait] of all.entries()) {
        const times = all.slice(0, i + 1).filter((w) => w === wait).length;
        await realWaitFor(() => clock.armed(wait) === times); // the client took the failure and waits
        clock.tick(wait - 1);
        await realDelay(50);
        assert.equal((await replay.requests()).length, i + 1, `attempt ${i + 2} not before ${wait} ms`);
        clock.tick(1);
      }
      assert.equal((await answer).stopReason, "end");
    } finally {
      clock.restore();
    }
    await replay.reset();
    await replay.queue({ ...asked, headers: { "retry-after": String(PROVIDER_MAX_RETRY_DELAY_MS / 1000 + 1) } }, TEXT);
    await assert.rejects(claude().generate(hello), (e: unknown) => e instanceof ProviderError && e.kind === "rate_limited");
    assert.equal((await replay.requests()).length, 1);
  });

  test("R3: a stream that goes quiet fails after DEFAULT_PROVIDER_IDLE_TIMEOUT_MS by default, not before", async (t) => {
    await replay.queue({ ...TEXT, stallAfterEvents: 2 });
    const clock = mockClock(t);
    try {
      let settled: unknown;
      const answer = claude({ retry: { maxAttempts: 1 } })
        .generate(hello)
        .then((v) => (settled = v), (e: unknown) => (settled = e));
      await until(async () => (await replay.requests()).some((r) => r.stalled === true));
      // Every read re-arms the idle timer: wait until the last one was read.
      for (let n = -1; n !== clock.armed(DEFAULT_PROVIDER_IDLE_TIMEOUT_MS); ) {
        n = clock.armed(DEFAULT_PROVIDER_IDLE_TIMEOUT_MS);
        await realDelay(200);
      }
      clock.tick(DEFAULT_PROVIDER_IDLE_TIMEOUT_MS - 1);
      await realDelay(200);
      assert.equal(settled, undefined, "still waiting one millisecond before the bound");
      clock.tick(1);
      await answer;
      const got: unknown = settled; // assigned in a callback: TypeScript still sees undefined
      assert.ok(got instanceof TimeoutError && got.timeoutMs === DEFAULT_PROVIDER_IDLE_TIMEOUT_MS, String(got));
    } finally {
      clock.restore();
    }
  });

  test("R3: an error body is read to MAX_PROVIDER_ERROR_BODY_BYTES and no further", async () => {
    // The message comes last: readable at the bound, cut off one byte past it.
    const body = (size: number): string => {
      const head = '{"type":"error","error":{"type":"invalid_request_error","pad":"';
      const tail = '","message":"LATE"}}';
      return head + "p".repeat(size - head.length - tail.length) + tail;
    };
    await replay.queue({ status: 400, body: body(MAX_PROVIDER_ERROR_BODY_BYTES) }, { status: 400, body: body(MAX_PROVIDER_ERROR_BODY_BYTES + 1) });
    const at = await claude({ retry: { maxAttempts: 1 } }).generate(hello).catch((e: unknown) => e);
    assert.ok(at instanceof ProviderError && at.message.endsWith("LATE"), String(at));
    const past = await claude({ retry: { maxAttempts: 1 } }).generate(hello).catch((e: unknown) => e);
    assert.ok(past instanceof ProviderError && !past.message.includes("LATE"), String(past));
  });

  test("R3: a provider's error message is kept to MAX_PROVIDER_ERROR_MESSAGE_CHARS", async () => {
    const message = "m".repeat(MAX_PROVIDER_ERROR_MESSAGE_CHARS * 10);
    await replay.queue({ status: 400, body: JSON.stringify({ type: "error", error: { type: "invalid_request_error", message } }) });
    const e = await claude({ retry: { maxAttempts: 1 } }).generate(hello).catch((x: unknown) => x);
    assert.ok(e instanceof ProviderError, String(e));
    assert.ok(e.message.includes("m".repeat(MAX_PROVIDER_ERROR_MESSAGE_CHARS)));
    assert.ok(!e.message.includes("m".repeat(MAX_PROVIDER_ERROR_MESSAGE_CHARS + 1)));
  });

  test("R3: an Anthropic request asks for DEFAULT_ANTHROPIC_MAX_TOKENS unless maxTokens says otherwise", async () => {
    await replay.queue(TEXT, TEXT);
    await claude().generate(hello);
    await claude({ maxTokens: 77 }).generate(hello);
    const [first, second] = await replay.bodies();
    assert.equal(first?.max_tokens, DEFAULT_ANTHROPIC_MAX_TOKENS);
    assert.equal(second?.max_tokens, 77);
  });
});
