// V6 bounds of the CLI's --elicit and --sampling handlers, crossed by a real
// stdio server that sends the elicitation or sampling request and reports the
// answer it got; the terminal is typed lines fed in, the model a test provider.
import assert from "node:assert/strict";
import { describe, test, type TestContext } from "node:test";
import { McpClient } from "../../src/node/client.js";
import { elicitationHandlers, samplingHandler, type AskLine } from "../../src/cli/host-handlers.js";
import type { Io } from "../../src/cli/terminal.js";
import type { Provider } from "../../src/agent/provider.js";
import type { ClientHandlers } from "../../src/mcp/handlers.js";
import {
  CLI_SAMPLING_TIMEOUT_MS,
  MAX_CLI_ELICIT_ANSWER_CHARS,
  MAX_CLI_ELICIT_FIELDS,
  MAX_CLI_ELICIT_TEXT_CHARS,
  MAX_CLI_ELICIT_TRIES,
  MAX_CLI_SAMPLING_INPUT_CHARS,
  MAX_CLI_SAMPLING_OUTPUT_CHARS,
} from "../../src/limits.js";
import type { TextContent } from "../../src/mcp/types.js";
import { stdioServer } from "./support.js";

const T = { timeout: 60_000 };

// tools/call {method, params}: the server sends that request to the client and
// answers the call with the JSON-RPC response it got back.
const server = stdioServer(
  `(m, send) => {
  if (m.method === "tools/call") {
    globalThis.waiting = (r) => send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: JSON.stringify(r) }] } });
    send({ jsonrpc: "2.0", id: "ask", method: m.params.arguments.method, params: m.params.arguments.params });
    return undefined;
  }
}`,
  { tools: {} },
);
// Responses to the server's own request arrive as messages without a method: the
// shared server loop skips those, so this one takes them from stdin itself.
server[1] = `${server[1] as string}
rl.on("line", (l) => { const r = JSON.parse(l); if (r.id === "ask" && r.method === undefined) globalThis.waiting?.(r); });`;

interface Response {
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}
async function roundTrip(handlers: ClientHandlers, method: string, params: Record<string, unknown>): Promise<Response> {
  const client = await McpClient.connectStdio(process.execPath, server, undefined, { name: "asker", handlers, era: "legacy" });
  try {
    const r = await client.callTool("ask", { method, params }, { timeoutMs: 50_000 });
    return JSON.parse((r.content[0] as TextContent).text) as Response;
  } finally {
    await client.close();
  }
}

/** An Io keeping stderr, and typed lines answered in order (recording the questions). */
function terminal(lines: string[]): { io: Io; ask: AskLine; err: () => string; questions: string[] } {
  let err = "";
  const questions: string[] = [];
  const io: Io = { out: () => {}, err: (t) => void (err += t), color: false, errIsTTY: true, outIsTTY: true, columns: 100, env: {} };
  const ask: AskLine = async (q) => {
    questions.push(q);
    return lines.shift() ?? "";
  };
  return { io, ask, err: () => err, questions };
}
const form = (message: string, properties: Record<string, unknown>, required: string[] = []) => ({ mode: "form", message, requestedSchema: { type: "object", properties, required } });
const elicit = (t: ReturnType<typeof terminal>, params: Record<string, unknown>) => roundTrip({ elicitation: elicitationHandlers(t.io, t.ask) }, "elicitation/create", params);

describe("V6: --elicit at its bounds (stdio server)", { concurrency: true }, () => {
  test("V6: a form of MAX_CLI_ELICIT_FIELDS fields is asked; one field more is cancelled unasked", T, async () => {
    const fields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, { type: "string" }]));
    const at = terminal(["a"]);
    assert.equal((await elicit(at, form("Fill in", fields(MAX_CLI_ELICIT_FIELDS)))).result?.action, "accept");
    assert.equal(at.questions.length, 1 + MAX_CLI_ELICIT_FIELDS);
    const over = terminal(["a"]);
    assert.equal((await elicit(over, form("Fill in", fields(MAX_CLI_ELICIT_FIELDS + 1)))).result?.action, "cancel");
    assert.equal(over.questions.length, 0);
    assert.match(over.err(), new RegExp(`more than ${MAX_CLI_ELICIT_FIELDS}\\); cancelled`));
  });

  test("V6: a field answered right on try MAX_CLI_ELICIT_TRIES is taken; that many wrong tries cancel the form", T, async () => {
    const params = form("How many?", { n: { type: "integer" } }, ["n"]);
    const wrong = Array.from({ length: MAX_CLI_ELICIT_TRIES - 1 }, () => "many");
    const late = await elicit(terminal(["a", ...wrong, "7"]), params);
    assert.deepEqual(late.result, { action: "accept", content: { n: 7 } });
    const never = terminal(["a", ...wrong, "many", "7"]);
    assert.equal((await elicit(never, params)).result?.action, "cancel");
    assert.equal(never.questions.length, 1 + MAX_CLI_ELICIT_TRIES);
  });

  test("V6: a message of MAX_CLI_ELICIT_TEXT_CHARS characters is shown whole; a longer one is cut", T, async () => {
    const at = terminal(["d"]);
    await elicit(at, form("m".repeat(MAX_CLI_ELICIT_TEXT_CHARS), {}));
    assert.ok(at.err().includes("m".repeat(MAX_CLI_ELICIT_TEXT_CHARS)) && !at.err().includes("more characters"));
    const over = terminal(["d"]);
    await elicit(over, form("m".repeat(MAX_CLI_ELICIT_TEXT_CHARS + 7), {}));
    assert.ok(!over.err().includes("m".repeat(MAX_CLI_ELICIT_TEXT_CHARS + 1)));
    assert.match(over.err(), /… \(7 more characters\)/);
  });

  test("V6: a typed answer of MAX_CLI_ELICIT_ANSWER_CHARS characters reaches the server; a longer one is refused and asked again", T, async () => {
    const params = form("Your text", { s: { type: "string" } }, ["s"]);
    const at = await elicit(terminal(["a", "x".repeat(MAX_CLI_ELICIT_ANSWER_CHARS)]), params);
    assert.deepEqual(at.result, { action: "accept", content: { s: "x".repeat(MAX_CLI_ELICIT_ANSWER_CHARS) } });
    const t = terminal(["a", "y".repeat(MAX_CLI_ELICIT_ANSWER_CHARS + 1), "short"]);
    assert.deepEqual((await elicit(t, params)).result, { action: "accept", content: { s: "short" } });
    assert.match(t.err(), new RegExp(`longer than ${MAX_CLI_ELICIT_ANSWER_CHARS} characters`));
  });
});

/** A provider answering `text`, recording what it was asked; or never answering until its signal aborts. */
function model(text?: string): Provider & { asked: string[]; abortedAt?: number } {
  const p: Provider & { asked: string[]; abortedAt?: number } = {
    name: "test-model",
    asked: [],
    generate: (request, options) => {
      p.asked.push(request.messages.map((m) => m.content.map((c) => (c.type === "text" ? c.text : "")).join("")).join(""));
      if (text !== undefined) return Promise.resolve({ role: "assistant", content: [{ type: "text", text }], stopReason: "end" });
      return new Promise((_, reject) =>
        options?.signal?.addEventListener("abort", () => {
          p.abortedAt = Date.now();
          reject(options.signal?.reason);
        }),
      );
    },
  };
  return p;
}
const sample = (provider: Provider, text: string) =>
  roundTrip({ sampling: samplingHandler(terminal([]).io, { provider, label: "test", offline: true }) }, "sampling/createMessage", {
    messages: [{ role: "user", content: { type: "text", text } }],
    maxTokens: 10,
  });

describe("V6: --sampling at its bounds (stdio server)", { concurrency: true }, () => {
  test("V6: a request of MAX_CLI_SAMPLING_INPUT_CHARS characters reaches the model; one more is refused before it", T, async () => {
    const m = model("ok");
    assert.equal(((await sample(m, "i".repeat(MAX_CLI_SAMPLING_INPUT_CHARS))).result?.content as { text?: string }).text, "ok");
    const over = await sample(m, "i".repeat(MAX_CLI_SAMPLING_INPUT_CHARS + 1));
    assert.ok(over.error, "the server gets an error");
    assert.equal(m.asked.length, 1, "the model was not asked");
  });

  test("V6: a model answer of MAX_CLI_SAMPLING_OUTPUT_CHARS characters goes back whole; a longer one is cut, stopReason maxTokens", T, async () => {
    const whole = (await sample(model("o".repeat(MAX_CLI_SAMPLING_OUTPUT_CHARS)), "hi")).result;
    assert.equal((whole?.content as { text: string }).text.length, MAX_CLI_SAMPLING_OUTPUT_CHARS);
    assert.equal(whole?.stopReason, "endTurn");
    const cut = (await sample(model("o".repeat(MAX_CLI_SAMPLING_OUTPUT_CHARS + 1)), "hi")).result;
    assert.equal((cut?.content as { text: string }).text.length, MAX_CLI_SAMPLING_OUTPUT_CHARS);
    assert.equal(cut?.stopReason, "maxTokens");
  });
});

test("V6: a model that does not answer a sampling request is given up after CLI_SAMPLING_TIMEOUT_MS (mocked timers)", T, async (t: TestContext) => {
  const m = model();
  const handlers = { sampling: samplingHandler(terminal([]).io, { provider: m, label: "test", offline: true }) };
  const client = await McpClient.connectStdio(process.execPath, server, undefined, { name: "asker", handlers, era: "legacy" });
  try {
    t.mock.timers.enable({ apis: ["setTimeout"] });
    const call = client.callTool("ask", { method: "sampling/createMessage", params: { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 10 } }, { timeoutMs: null });
    const end = performance.now() + 10_000;
    while (m.asked.length === 0 && performance.now() < end) await new Promise((r) => setImmediate(r));
    t.mock.timers.tick(CLI_SAMPLING_TIMEOUT_MS - 1);
    for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
    assert.equal(m.abortedAt, undefined, "gave up before CLI_SAMPLING_TIMEOUT_MS");
    t.mock.timers.tick(1);
    t.mock.timers.reset();
    const answer = JSON.parse(((await call).content[0] as TextContent).text) as Response;
    assert.ok(m.abortedAt !== undefined);
    assert.match(answer.error?.message ?? "", /did not answer|timed out|timeout/i);
  } finally {
    t.mock.timers.reset();
    await client.close();
  }
});
