import { test } from "node:test";
import assert from "node:assert/strict";
import { McpClient } from "../../src/node/client.js";
import { HttpTransport } from "../../src/transport/http.js";
import { LimitError, UnsupportedVersionError, YadaError } from "../../src/errors.js";
import {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_HANDSHAKE_TIMEOUT_MS,
  DEFAULT_HTTP_IDLE_TIMEOUT_MS,
  MAX_LIST_ITEMS,
  MAX_LIST_PAGES,
  MAX_QUOTED_CHARS,
  MAX_QUOTED_TEXT_CHARS,
} from "../../src/limits.js";
import { rejection } from "../helpers/clients.js";
import { fixtureServer } from "../helpers/paths.js";
import { initializeResult, startRpcServer } from "../helpers/http.js";

// A legacy stdio server whose tools/list never ends (a new cursor each page) or lists too many tools.
function listingServer(mode: "endless" | "many"): string[] {
  const script = `
const rl = require("readline").createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
let pages = 0;
rl.on("line", (l) => {
  const m = JSON.parse(l);
  if (m.id === undefined) return;
  if (m.method === "server/discover") return send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
  if (m.method === "initialize") return send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } } });
  if (m.method === "tools/list") {
    pages++;
    const tool = (n) => ({ name: "t" + n, inputSchema: { type: "object" } });
    if (${JSON.stringify(mode)} === "endless") return send({ jsonrpc: "2.0", id: m.id, result: { tools: [tool(pages)], nextCursor: "c" + pages } });
    const tools = Array.from({ length: 5001 }, (_, i) => tool(pages * 10000 + i));
    return send({ jsonrpc: "2.0", id: m.id, result: { tools, nextCursor: pages < 2 ? "next" : undefined } });
  }
  if (m.method === "tools/call") return send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: String(pages) }] } });
});`;
  return ["-e", script];
}

test("V3: discovery follows at most MAX_LIST_PAGES pages, then fails with a limit error", async () => {
  const client = await McpClient.connectStdio("node", listingServer("endless"));
  try {
    const e = await rejection(client.listTools());
    assert.ok(e instanceof LimitError);
    assert.equal(e.limit, "MAX_LIST_PAGES");
    // The server counted exactly MAX_LIST_PAGES tools/list requests.
    const r = await client.callTool("t1", {});
    assert.equal((r.content[0] as { text: string }).text, String(MAX_LIST_PAGES));
  } finally {
    await client.close();
  }
});

test("V3: discovery accepts at most MAX_LIST_ITEMS items across pages", async () => {
  assert.ok(MAX_LIST_ITEMS < 10_002);
  const client = await McpClient.connectStdio("node", listingServer("many"));
  try {
    const e = await rejection(client.listTools());
    assert.ok(e instanceof LimitError);
    assert.equal(e.limit, "MAX_LIST_ITEMS");
  } finally {
    await client.close();
  }
});

test("S5, S6, H5: the default bounds are 60 s for the handshake, 5 min per stdio call, none per HTTP call, 120 s idle", async () => {
  assert.equal(DEFAULT_HANDSHAKE_TIMEOUT_MS, 60_000);
  assert.equal(DEFAULT_CALL_TIMEOUT_MS, 300_000);
  assert.equal(DEFAULT_HTTP_IDLE_TIMEOUT_MS, 120_000);
  const server = await startRpcServer((m, res) => {
    if (m.id === undefined) return void res.writeHead(202).end();
    if (m.method === "server/discover") return void res.writeHead(400).end();
    const result = m.method === "initialize" ? initializeResult() : { tools: [] };
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: m.id, result }));
  });
  try {
    const http = await McpClient.connect(new HttpTransport(server.url));
    assert.equal(http.callTimeoutMs, null);
    await http.close();
    const stdio = await McpClient.connectStdio("node", listingServer("many"));
    assert.equal(stdio.callTimeoutMs, DEFAULT_CALL_TIMEOUT_MS);
    await stdio.close();
  } finally {
    server.close();
  }
});

test("S5: a notifications/initialized the server refuses fails the connect", async () => {
  const server = await startRpcServer((m, res) => {
    if (m.method === "notifications/initialized") return void res.writeHead(500).end();
    if (m.method === "server/discover") return void res.writeHead(400).end();
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: initializeResult() }));
  });
  try {
    const e = await rejection(McpClient.connect(new HttpTransport(server.url)));
    assert.ok(e instanceof YadaError);
    assert.equal(e.code, "http");
  } finally {
    server.close();
  }
});

test("S5, S6, H5: time bounds longer than a runtime timer allows (2^31 ms) are clamped, not fired at once", async () => {
  const huge = 2 ** 32;
  const catalog = fixtureServer("catalog/stdio.mjs");
  const client = await McpClient.connectStdio("node", [catalog], undefined, { handshakeTimeoutMs: huge, callTimeoutMs: huge, requestTimeoutMs: huge });
  try {
    const result = await client.callTool("slow", { ms: 300 });
    assert.equal(result.isError ?? false, false);
    assert.ok((await client.listTools()).length > 0);
  } finally {
    await client.close();
  }
  const server = await startRpcServer((m, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(": opened\n\n");
    setTimeout(() => res.end(`data: ${JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { tools: [] } })}\n\n`), 300);
  });
  try {
    const transport = new HttpTransport(server.url, { idleTimeoutMs: huge });
    const got: unknown[] = [];
    await transport.start({ message: (m) => got.push(m), requestError: (_id, e) => got.push(e.code), closed: () => {} });
    await transport.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    await transport.close();
    assert.deepEqual(got, [{ jsonrpc: "2.0", id: 1, result: { tools: [] } }]);
  } finally {
    server.close();
  }
});

test("V4: structuredContent nested deeper than MAX_INSTANCE_DEPTH is a limit error, not a stack overflow later", async () => {
  const nested = (depth: number): string => "[".repeat(depth) + "]".repeat(depth);
  const server = await startRpcServer((m, res) => {
    if (m.id === undefined) return void res.writeHead(202).end();
    if (m.method === "server/discover") return void res.writeHead(400).end();
    const depth = Number((m.params?.arguments as { depth?: number } | undefined)?.depth);
    const result = m.method === "initialize" ? JSON.stringify(initializeResult({ tools: {} })) : `{"content":[],"structuredContent":{"v":${nested(depth)}}}`;
    res.writeHead(200, { "content-type": "application/json" }).end(`{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":${result}}`);
  });
  const client = await McpClient.connect(new HttpTransport(server.url));
  try {
    const e = await rejection(client.callTool("deep", { depth: 100_000 }));
    assert.ok(e instanceof LimitError, String(e));
    assert.equal(e.limit, "MAX_INSTANCE_DEPTH");
    const ok = await client.callTool("deep", { depth: 100 });
    assert.ok(ok.structuredContent);
  } finally {
    await client.close();
    server.close();
  }
});

test("V1: versions a server offers are quoted in the error cut at MAX_QUOTED_CHARS (one) and MAX_QUOTED_TEXT_CHARS (a list)", async () => {
  const long = "9".repeat(500);
  const server = await startRpcServer((m, res) => {
    if (m.id === undefined) return void res.writeHead(202).end();
    // The modern probe lists only revisions yada does not speak; initialize picks an unknown one.
    const discover = m.method === "server/discover";
    const result = discover ? { supportedVersions: Array.from({ length: 50 }, (_, i) => `1999-01-${i}`), capabilities: {} } : { ...initializeResult(), protocolVersion: long };
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: m.id, result }));
  });
  try {
    const listed = await rejection(McpClient.connect(new HttpTransport(server.url), { era: "auto" }));
    assert.ok(listed instanceof UnsupportedVersionError, String(listed));
    assert.equal(listed.offered.length, MAX_QUOTED_TEXT_CHARS);
    const one = await rejection(McpClient.connect(new HttpTransport(server.url), { era: "legacy" }));
    assert.ok(one instanceof UnsupportedVersionError, String(one));
    assert.equal(one.offered, long.slice(0, MAX_QUOTED_CHARS));
  } finally {
    server.close();
  }
});
