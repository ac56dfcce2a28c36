// MCP client spans with the real OpenTelemetry SDK (O1-O3): a real stdio server
// process that keeps the `_meta` of every request, and a loopback HTTP server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { McpClient } from "../../src/node/client.js";
import { McpClient as WebMcpClient } from "../../src/mcp/client.js";
import { HttpTransport } from "../../src/transport/http.js";
import { StdioTransport } from "../../src/node/stdio.js";
import { ConfigError, JsonRpcError } from "../../src/errors.js";
import { mcpTracing } from "../../src/trace/mcp.js";
import { MAX_TRACE_CONTENT_CHARS, MAX_TRACESTATE_CHARS } from "../../src/limits.js";
import type { Tracer, TraceSpan } from "../../src/trace/types.js";
import { fixtureServer, repoPath } from "../helpers/paths.js";
import { everythingExported, otel, parentOf, traceparentOf } from "../helpers/otel.js";
import { pathToFileURL } from "node:url";

const traced = (options: Parameters<typeof McpClient.connectStdio>[3] = {}) => McpClient.connectStdio("node", [fixtureServer("traced.mjs")], undefined, options);
const textOf = (r: { content: Array<{ type: string; text?: string }> }): string => r.content.map((c) => c.text ?? "").join("");
type Seen = Array<{ method: string; meta: Record<string, unknown> | null }>;

test("O1: every request McpClient sends is a client span named and attributed after the OpenTelemetry MCP conventions", async () => {
  const o = otel();
  const client = await traced({ tracer: o.tracer, era: "legacy" });
  await client.listTools();
  await client.callTool("echo", { text: "hi" });
  await client.close();

  const init = o.span("initialize");
  assert.equal(init.kind, SpanKind.CLIENT);
  assert.equal(init.attributes["mcp.method.name"], "initialize");
  assert.equal(init.attributes["jsonrpc.request.id"], "1");
  assert.equal(init.attributes["network.transport"], "pipe");
  assert.equal(init.attributes["mcp.protocol.version"], client.protocolVersion, "the revision the answer names");
  const list = o.span("tools/list");
  assert.equal(list.attributes["mcp.protocol.version"], client.protocolVersion, "the revision initialize negotiated");
  const call = o.span("tools/call echo");
  assert.equal(call.kind, SpanKind.CLIENT);
  assert.deepEqual(
    { ...call.attributes },
    {
      "network.transport": "pipe",
      "mcp.method.name": "tools/call",
      "mcp.protocol.version": client.protocolVersion,
      "gen_ai.tool.name": "echo",
      "gen_ai.operation.name": "execute_tool",
      "jsonrpc.request.id": "3",
    },
  );
  assert.equal(call.status.code, SpanStatusCode.UNSET);
});

test("O1: the modern era's requests (server/discover, tasks/*) carry the revision of their own _meta; a prompt's span names the prompt", async () => {
  const o = otel();
  const modern = await McpClient.connectStdio("node", [fixtureServer("modern-tasks.mjs")], undefined, { tracer: o.tracer });
  assert.equal(modern.era, "modern");
  await modern.callTool("research", { steps: 1 });
  await modern.close();
  for (const name of ["server/discover", "tools/call research", "tasks/get"]) {
    assert.equal(o.span(name).attributes["mcp.protocol.version"], "2026-07-28", name);
  }

  const catalog = await McpClient.connectStdio("node", [fixtureServer("catalog/stdio.mjs")], undefined, { tracer: o.tracer });
  const [first] = await catalog.listPrompts();
  assert.ok(first);
  // Answered or refused, the request has its span.
  await catalog.getPrompt(first.name, Object.fromEntries((first.arguments ?? []).map((a) => [a.name, "x"]))).catch(() => {});
  await catalog.close();
  const prompt = o.span(`prompts/get ${first.name}`);
  assert.equal(prompt.attributes["gen_ai.prompt.name"], first.name);
  assert.equal(prompt.attributes["gen_ai.operation.name"], undefined, "execute_tool is for tool calls only");
});

test("O1: a JSON-RPC error answer sets error.type and rpc.response.status_code to its code and the status to error; isError is tool_error", async () => {
  const o = otel();
  const client = await traced({ tracer: o.tracer });
  await assert.rejects(client.callTool("refuse", {}), JsonRpcError);
  const failed = await client.callTool("fail", {});
  assert.equal(failed.isError, true);
  await client.close();

  const refused = o.span("tools/call refuse");
  assert.equal(refused.attributes["error.type"], "-32000");
  assert.equal(refused.attributes["rpc.response.status_code"], "-32000");
  assert.equal(refused.status.code, SpanStatusCode.ERROR);
  assert.equal(refused.status.message, "-32000", "the server's message stays out without traceContent");
  assert.equal(refused.events[0]?.name, "exception");
  assert.doesNotMatch(JSON.stringify(refused.events), /refused/);
  const toolError = o.span("tools/call fail");
  assert.equal(toolError.attributes["error.type"], "tool_error");
  assert.equal(toolError.status.code, SpanStatusCode.ERROR);
  assert.equal(toolError.events.length, 0, "a tool's own error answer is no exception");
});

test("O1: a timeout is error.type timeout", async () => {
  const o = otel();
  const client = await traced({ tracer: o.tracer });
  await assert.rejects(client.withCallTimeout(50).callTool("slow", { ms: 5_000 }));
  await client.close();
  assert.equal(o.span("tools/call slow").attributes["error.type"], "timeout");
});

test("O2: each request's trace context travels in its params._meta: the traceparent of its own span, under the host's active span", async () => {
  const o = otel();
  const client = await traced({ tracer: o.tracer });
  await o.tracer.startActiveSpan("host", async (host) => {
    await client.callTool("echo", { text: "hi" });
    host.end();
  });
  const seen = JSON.parse(textOf(await client.callTool("seen", {}))) as Seen;
  await client.close();

  const host = o.span("host");
  const call = o.span("tools/call echo");
  assert.equal(parentOf(call), host.spanContext().spanId, "the client span is a child of the active span");
  assert.equal(call.spanContext().traceId, host.spanContext().traceId);
  const sent = seen.find((r) => r.method === "tools/call" && r.meta?.traceparent === traceparentOf(call));
  assert.ok(sent, `the server saw ${JSON.stringify(seen)}`);
  // Every request carries the context of its own span, the handshake's too.
  for (const r of seen) assert.match(String(r.meta?.traceparent), /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/, r.method);
  assert.equal(seen.find((r) => r.method === "initialize")?.meta?.traceparent, traceparentOf(o.span("initialize")));
});

test("O2: a span's tracestate travels beside its traceparent up to MAX_TRACESTATE_CHARS; a longer one is left out", async () => {
  const o = otel();
  // The SDK's spans, with the vendor state a host's propagator would have given them.
  const withState = (state: string): Tracer => {
    const dress = (span: TraceSpan): TraceSpan => {
      const c = span.spanContext();
      const traceState = { serialize: () => state, get: () => undefined, set: () => traceState, unset: () => traceState };
      return { spanContext: () => ({ ...c, traceState }), setAttribute: (k, v) => span.setAttribute(k, v), setStatus: (x) => span.setStatus(x), recordException: (e) => span.recordException(e), end: () => span.end() };
    };
    return {
      startSpan: (name, options) => dress(o.tracer.startSpan(name, options as never)),
      startActiveSpan: (name, options, fn) => o.tracer.startActiveSpan(name, options as never, (span) => fn(dress(span))) as never,
    };
  };
  const seenWith = async (state: string): Promise<Seen> => {
    const client = await traced({ tracer: withState(state), era: "legacy" });
    await client.callTool("echo", { text: "hi" });
    const seen = JSON.parse(textOf(await client.callTool("seen", {}))) as Seen;
    await client.close();
    return seen;
  };
  const fits = "v=" + "a".repeat(MAX_TRACESTATE_CHARS - 2);
  const ok = (await seenWith(fits)).find((r) => r.method === "tools/call");
  assert.equal(ok?.meta?.tracestate, fits);
  assert.match(String(ok?.meta?.traceparent), /^00-/);
  const over = (await seenWith(fits + "a")).find((r) => r.method === "tools/call");
  assert.equal(over?.meta?.tracestate, undefined);
  assert.match(String(over?.meta?.traceparent), /^00-/, "the traceparent still goes");
});

test("O2: a server's request is a server span of its own trace, linked to the server's traceparent only in its exact W3C form", async () => {
  const o = otel();
  // Connected inside a host span, whose context the session's reading then carries.
  const client = await o.tracer.startActiveSpan("app start", async (app) => {
    const c = await traced({ tracer: o.tracer, era: "legacy", handlers: { roots: () => [{ uri: "file:///srv", name: "srv" }] } });
    app.end();
    return c;
  });
  const good = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  const hostile: unknown[] = [
    "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" + "x".repeat(100_000),
    "00-00000000000000000000000000000000-b7ad6b7169203331-01",
    "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
    "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    "00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-01",
    { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331" },
    42,
  ];
  await client.callTool("ask", { traceparent: good });
  for (const t of hostile) await client.callTool("ask", { traceparent: t });
  await client.close();

  const asked = o.spans().filter((s) => s.name === "roots/list");
  assert.equal(asked.length, 1 + hostile.length);
  for (const s of asked) {
    assert.equal(s.kind, SpanKind.SERVER);
    assert.equal(parentOf(s), undefined, "a root: the session's reading context is no request of the host");
    assert.equal(s.attributes["mcp.method.name"], "roots/list");
    assert.match(String(s.attributes["jsonrpc.request.id"]), /^ask-\d+$/);
  }
  const [first, ...rest] = asked;
  assert.deepEqual(first?.links.map((l) => [l.context.traceId, l.context.spanId, l.context.isRemote]), [["0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", true]]);
  for (const s of rest) assert.deepEqual(s.links, [], `no link from ${JSON.stringify(s.attributes["jsonrpc.request.id"])}`);
});

test("O3: without a tracer nothing reaches the wire: no request carries a traceparent", async () => {
  const client = await traced();
  await client.callTool("echo", { text: "hi" });
  const seen = JSON.parse(textOf(await client.callTool("seen", {}))) as Seen;
  await client.close();
  assert.ok(seen.length >= 3);
  for (const r of seen) assert.ok(r.meta === null || !("traceparent" in r.meta), JSON.stringify(r));
});

test("O3: the web McpClient takes a tracer only with the tracing module, before anything starts; a tracer without startActiveSpan is refused", async () => {
  const o = otel();
  const transport = new StdioTransport({ command: "node", args: [fixtureServer("traced.mjs")] });
  await assert.rejects(WebMcpClient.connect(transport, { tracer: o.tracer }), (e: unknown) => e instanceof ConfigError && /tracing: mcpTracing/.test(e.message));
  await assert.rejects(McpClient.connectStdio("node", [fixtureServer("traced.mjs")], undefined, { tracer: {} as never }), (e: unknown) => e instanceof ConfigError && /startActiveSpan/.test(e.message));
  const web = await WebMcpClient.connect(new StdioTransport({ command: "node", args: [fixtureServer("traced.mjs")] }), { tracer: o.tracer, tracing: mcpTracing });
  await web.callTool("echo", { text: "hi" });
  await web.close();
  assert.ok(o.span("tools/call echo"));
});

test("O3: arguments and results are recorded only with traceContent, cut at MAX_TRACE_CONTENT_CHARS", async () => {
  const secret = "s3cr3t-argument-value";
  const plain = otel();
  const client = await traced({ tracer: plain.tracer });
  await client.callTool("echo", { text: secret });
  await client.close();
  assert.doesNotMatch(everythingExported(plain.spans()), new RegExp(secret));

  const opted = otel();
  const open = await traced({ tracer: opted.tracer, traceContent: true });
  await open.callTool("echo", { text: secret });
  await open.callTool("echo", { text: "x".repeat(MAX_TRACE_CONTENT_CHARS * 2) });
  await open.close();
  const [small, big] = opted.spans().filter((s) => s.name === "tools/call echo");
  assert.equal(small?.attributes["gen_ai.tool.call.arguments"], JSON.stringify({ text: secret }));
  assert.match(String(small?.attributes["gen_ai.tool.call.result"]), new RegExp(secret));
  assert.equal(String(big?.attributes["gen_ai.tool.call.arguments"]).length, MAX_TRACE_CONTENT_CHARS);
  assert.equal(String(big?.attributes["gen_ai.tool.call.result"]).length, MAX_TRACE_CONTENT_CHARS);
});

type CatalogHttpModule = typeof import("../../fixtures/servers/catalog/http.mjs");
const { startCatalogHttp } = (await import(pathToFileURL(repoPath("fixtures", "servers", "catalog", "http.mjs")).href)) as CatalogHttpModule;

test("O1, O3: over Streamable HTTP a span names the server's host and port, never the path, a header value or the session id", async () => {
  const server = await startCatalogHttp({});
  const o = otel();
  const token = "Bearer tok-9f8e7d6c5b4a";
  try {
    const url = `${server.url}?api_key=query-secret-123`;
    const client = await McpClient.connect(new HttpTransport(url, { headers: { authorization: token, "x-tenant-key": "hdr-secret-456" } }), { tracer: o.tracer, era: "legacy" });
    await client.listTools();
    await client.close();
  } finally {
    await server.close();
  }
  const list = o.span("tools/list");
  const { hostname, port } = new URL(server.url);
  assert.equal(list.attributes["server.address"], hostname);
  assert.equal(list.attributes["server.port"], Number(port));
  assert.equal(list.attributes["network.transport"], "tcp");
  assert.equal(list.attributes["network.protocol.name"], "http");
  assert.equal(list.attributes["mcp.session.id"], undefined);
  const exported = everythingExported(o.spans());
  for (const secret of ["tok-9f8e7d6c5b4a", "hdr-secret-456", "query-secret-123", new URL(server.url).pathname]) assert.ok(!exported.includes(secret), secret);
});
