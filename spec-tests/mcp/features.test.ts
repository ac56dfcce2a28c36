import { test } from "node:test";
import assert from "node:assert/strict";
import { McpClient } from "../../src/node/client.js";
import { compileSchema } from "../../src/schema/index.js";
import { capabilitiesFor, type ClientHandlers, type FormElicitation, type UrlElicitation, type SamplingRequest } from "../../src/mcp/handlers.js";
import { hostHandlers } from "../../src/mcp/host-module.js";
import type { ListKind, ServerLogEntry } from "../../src/mcp/client.js";
import type { TextContent } from "../../src/mcp/types.js";
import { fixtureServer, repoPath } from "../helpers/paths.js";
import { waitFor } from "../helpers/clients.js";

const everything = repoPath("node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const catalog = fixtureServer("catalog/stdio.mjs");
const text = (r: { content: unknown[] }): string => (r.content as TextContent[]).map((c) => c.text ?? "").join("");

async function everythingWith(handlers: ClientHandlers | undefined): Promise<McpClient> {
  return McpClient.connectStdio("node", [everything, "stdio"], undefined, handlers ? { handlers } : {});
}

async function toolNames(client: McpClient): Promise<string[]> {
  // server-everything registers capability-dependent tools shortly after the handshake.
  await new Promise((r) => setTimeout(r, 200));
  return (await client.listTools()).map((t) => t.name);
}

test("V5: tools/list_changed reaches onListChanged listeners", async () => {
  const client = await McpClient.connectStdio("node", [catalog]);
  try {
    const kinds: ListKind[] = [];
    client.onListChanged((k) => kinds.push(k));
    await client.callTool("touch", { mode: "same" });
    await waitFor(() => kinds.includes("tools"));
  } finally {
    await client.close();
  }
});

test("V6: without handlers no capability is declared and the server's features stay off", async () => {
  const client = await everythingWith(undefined);
  try {
    const names = await toolNames(client);
    assert.ok(!names.includes("trigger-sampling-request"));
    assert.ok(!names.includes("trigger-elicitation-request"));
    assert.ok(!names.includes("get-roots-list"));
  } finally {
    await client.close();
  }
});

test("V6: a sampling handler answers sampling/createMessage", async () => {
  const seen: SamplingRequest[] = [];
  const client = await everythingWith({
    sampling: {
      handle: async (request) => {
        seen.push(request);
        return { role: "assistant", model: "test-model", content: { type: "text", text: "sampled answer" }, stopReason: "endTurn" };
      },
    },
  });
  try {
    assert.ok((await toolNames(client)).includes("trigger-sampling-request"));
    const r = await client.callTool("trigger-sampling-request", { prompt: "say hi", maxTokens: 50 });
    assert.match(text(r), /sampled answer/);
    assert.equal(seen.length, 1);
    assert.equal(seen[0]?.maxTokens, 50);
  } finally {
    await client.close();
  }
});

test("V6: a form elicitation handler's answer is completed with schema defaults and validated", async () => {
  const seen: FormElicitation[] = [];
  const client = await everythingWith({
    elicitation: {
      form: async (request) => {
        seen.push(request);
        return { action: "accept", content: { name: "Ada", check: true, email: "ada@example.com", integer: 42 } };
      },
    },
  });
  try {
    assert.ok((await toolNames(client)).includes("trigger-elicitation-request"));
    const r = await client.callTool("trigger-elicitation-request", {});
    assert.equal(seen.length, 1);
    assert.equal(seen[0]?.mode, "form");
    // The server echoes what it received: the default of firstLine was filled in.
    assert.match(text(r), /It was a dark and stormy night/);
    assert.match(text(r), /Ada/);
  } finally {
    await client.close();
  }
});

test("V6: URL elicitation reaches only a URL handler, with the domain to show", async () => {
  const seen: UrlElicitation[] = [];
  const client = await everythingWith({
    elicitation: {
      url: async (request) => {
        seen.push(request);
        return { action: "decline" };
      },
    },
  });
  try {
    const names = await toolNames(client);
    assert.ok(names.includes("trigger-url-elicitation"));
    await client.callTool("trigger-url-elicitation", { url: "https://auth.example.com/start?x=1" });
    assert.equal(seen.length, 1);
    assert.equal(seen[0]?.domain, "auth.example.com");
    assert.equal(seen[0]?.url, "https://auth.example.com/start?x=1");
  } finally {
    await client.close();
  }
});

test("V6: a roots handler answers roots/list", async () => {
  const client = await McpClient.connectStdio("node", [catalog], undefined, {
    handlers: { roots: () => [{ uri: "file:///srv/catalog", name: "catalog" }] },
  });
  try {
    const r = await client.callTool("list_roots", {});
    assert.deepEqual(JSON.parse(text(r)), { result: { roots: [{ uri: "file:///srv/catalog", name: "catalog" }] } });
    await client.notifyRootsChanged();
  } finally {
    await client.close();
  }
});

test("V6: capabilities are declared exactly for the handlers given", () => {
  const noop = async () => ({ action: "cancel" as const });
  assert.deepEqual(capabilitiesFor(undefined), {});
  assert.deepEqual(capabilitiesFor({ roots: () => [] }), { roots: { listChanged: true } });
  assert.deepEqual(capabilitiesFor({ elicitation: { url: noop } }), { elicitation: { url: {} } });
  assert.deepEqual(capabilitiesFor({ elicitation: { form: noop, url: noop, compileSchema } }), { elicitation: { form: {}, url: {} } });
  // A form handler without the validator would send unchecked answers: refused at once, naming the export.
  assert.throws(() => capabilitiesFor({ elicitation: { form: noop } }), (e: Error & { code?: string }) => e.code === "config" && /compileSchema/.test(e.message));
  const handle = async () => ({ role: "assistant" as const, model: "m", content: { type: "text", text: "" } });
  assert.deepEqual(capabilitiesFor({ sampling: { handle } }), { sampling: {} });
  assert.deepEqual(capabilitiesFor({ sampling: { handle, tools: true } }), { sampling: { tools: {} } });
});

test("V7: server log messages reach the host logger, and the level filters them", async () => {
  const entries: ServerLogEntry[] = [];
  const client = await McpClient.connectStdio("node", [catalog], undefined, { onServerLog: (e) => entries.push(e), logLevel: "debug" });
  try {
    await client.callTool("lookup", { sku: "ABC-123" });
    await waitFor(() => entries.some((e) => e.level === "info"));
    const before = entries.length;
    await client.setLogLevel("warning");
    await client.callTool("lookup", { sku: "ABC-123" });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(entries.length, before);
  } finally {
    await client.close();
  }
});

test("V6: malformed sampling params never reach the host handler", async () => {
  const { answerSampling } = await import("../../src/mcp/handlers.js");
  let called = 0;
  const handlers: ClientHandlers = {
    sampling: { handle: async () => (called++, { role: "assistant", model: "m", content: { type: "text", text: "x" } }) },
  };
  const signal = new AbortController().signal;
  const good = { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 10 };
  for (const bad of [
    { ...good, maxTokens: -1 },
    { ...good, maxTokens: 1.5 },
    { ...good, messages: [] },
    { ...good, messages: [{ role: "system", content: {} }] },
    { ...good, systemPrompt: 5 },
    { ...good, stopSequences: [1] },
    { ...good, includeContext: "everything" },
  ]) {
    await assert.rejects(answerSampling(handlers, bad as Record<string, unknown>, { signal }), (e: unknown) => (e as { rpcCode?: number }).rpcCode === -32602);
  }
  assert.equal(called, 0);
  await answerSampling(handlers, good, { signal });
  assert.equal(called, 1);
});

test("V2, V6: more than MAX_INPUT_REQUESTS input requests in one round is a limit error, no handler runs", async () => {
  const { completeWithInput } = await import("../../src/mcp/input-rounds.js");
  const { MAX_INPUT_REQUESTS } = await import("../../src/limits.js");
  let handled = 0;
  const handlers: ClientHandlers = { roots: () => (handled++, []) };
  const inputRequests = Object.fromEntries(Array.from({ length: MAX_INPUT_REQUESTS + 1 }, (_, i) => [`r${i}`, { method: "roots/list" }]));
  await assert.rejects(
    completeWithInput("s: tools/call", "tools/call", { name: "t" }, async () => ({ resultType: "input_required", inputRequests }), hostHandlers.answerer(handlers), undefined),
    (e: unknown) => (e as { code?: string; limit?: string }).code === "limit" && (e as { limit?: string }).limit === "MAX_INPUT_REQUESTS",
  );
  assert.equal(handled, 0);
});

test("V2, V6: an input request keyed __proto__ is answered under that key, as an own field of inputResponses", async () => {
  const { completeWithInput } = await import("../../src/mcp/input-rounds.js");
  const handlers: ClientHandlers = { roots: async () => [{ uri: "file:///w" }] };
  const sent: string[] = [];
  // JSON.parse makes "__proto__" an own key, as a server's message would.
  const inputRequests = JSON.parse('{"__proto__": {"method": "roots/list"}, "b": {"method": "roots/list"}}') as Record<string, unknown>;
  const result = await completeWithInput(
    "s: tools/call",
    "tools/call",
    { name: "t" },
    async (params) => {
      sent.push(JSON.stringify(params));
      return sent.length === 1 ? { resultType: "input_required", inputRequests } : { content: [] };
    },
    hostHandlers.answerer(handlers),
    undefined,
  );
  assert.deepEqual(result, { content: [] });
  const retry = JSON.parse(sent[1] ?? "{}") as { inputResponses?: Record<string, unknown> };
  const responses = retry.inputResponses ?? {};
  assert.deepEqual(Object.keys(responses), ["__proto__", "b"]);
  assert.ok(Object.hasOwn(responses, "__proto__"));
  assert.deepEqual(responses.b, { roots: [{ uri: "file:///w" }] });
});

test("V6: a form default for a property named __proto__ is filled in as an own field, never as the answer's prototype", async () => {
  const { answerServerRequest } = await import("../../src/mcp/handlers.js");
  const handlers: ClientHandlers = { elicitation: { form: async () => ({ action: "accept", content: { name: "x" } }), compileSchema } };
  const requestedSchema = JSON.parse(
    '{"type": "object", "properties": {"name": {"type": "string"}, "__proto__": {"type": "object", "default": {"polluted": true}}}}',
  ) as Record<string, unknown>;
  const answer = await answerServerRequest(handlers, "elicitation/create", { message: "m", requestedSchema }, { signal: new AbortController().signal });
  const content = answer.content as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(content), Object.prototype);
  assert.ok(Object.hasOwn(content, "__proto__"));
  assert.equal(JSON.stringify(content), '{"name":"x","__proto__":{"polluted":true}}');
});

test("V6, X3: a bare McpClient given a form handler without compileSchema refuses at connect, naming the export, before the server starts", async () => {
  const { McpClient: WebMcpClient } = await import("../../src/mcp/client.js");
  const { StdioTransport } = await import("../../src/node/stdio.js");
  // A command that cannot start: reaching the transport would be a transport error, not config.
  const transport = new StdioTransport({ command: "/nonexistent/yada-server" });
  const form = async () => ({ action: "cancel" as const });
  await assert.rejects(WebMcpClient.connect(transport, { handlers: { elicitation: { form } }, hosting: hostHandlers }), (e: Error & { code?: string }) => e.code === "config" && /compileSchema/.test(e.message));
  await assert.rejects(WebMcpClient.connect(transport, { handlers: { elicitation: { form, compileSchema: "yes" as never } }, hosting: hostHandlers }), (e: Error & { code?: string }) => e.code === "config" && /option compileSchema must be a function/.test(e.message));
});

test("V6, X3: a bare McpClient given handlers without the host handlers' module refuses at connect, naming hostHandlers, before the server starts", async () => {
  const { McpClient: WebMcpClient } = await import("../../src/mcp/client.js");
  const { StdioTransport } = await import("../../src/node/stdio.js");
  const { ConfigError } = await import("../../src/errors.js");
  // A command that cannot start: reaching the transport would be a transport error, not config.
  const transport = new StdioTransport({ command: "/nonexistent/yada-server" });
  const named = (e: unknown): boolean => e instanceof ConfigError && e.code === "config" && /handlers needs \{ hosting: hostHandlers \}/.test(e.message);
  await assert.rejects(WebMcpClient.connect(transport, { handlers: { roots: () => [] } }), named);
  await assert.rejects(WebMcpClient.connect(transport, { handlers: { sampling: { handle: async () => ({ role: "assistant", content: { type: "text", text: "" }, model: "m" }) } } }), named);
  await assert.rejects(WebMcpClient.connect(transport, { handlers: { roots: () => [] }, hosting: {} as never }), named);
});
