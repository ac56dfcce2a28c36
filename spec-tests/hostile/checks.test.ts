// Tests for checks that an earlier suite could not notice missing: each situation
// here is ended by the check under test, never by the fixture itself.
import { test } from "node:test";
import assert from "node:assert/strict";
import { McpClient } from "../../src/node/client.js";
import { HttpTransport } from "../../src/transport/http.js";
import { ProtocolError } from "../../src/errors.js";
import { MAX_SESSION_ID_CHARS } from "../../src/limits.js";
import { captureLogs, inlineServer, rejection } from "../helpers/clients.js";
import { initializeResult, startRpcServer } from "../helpers/http.js";
import { fixtureServer } from "../helpers/paths.js";
import type { TextContent } from "../../src/mcp/types.js";

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test("S7: close() ends a server that ignores stdin end and SIGTERM by SIGKILL, well before it would exit by itself", async () => {
  const { logs, logger } = captureLogs();
  // The fixture's own safety exit is far beyond the test's bound: only SIGKILL ends it in time.
  const client = await McpClient.connectStdio("node", [fixtureServer("ignore-stdin-close.mjs"), "--max-life", "110000"], undefined, { logger, era: "legacy" });
  const stderr = (): string => logs.filter((l) => l.message === "server stderr").map((l) => String(l.data?.text)).join("");
  while (!/pid \d+/.test(stderr())) await new Promise((r) => setTimeout(r, 10));
  const pid = Number(/pid (\d+)/.exec(stderr())?.[1]);
  const t0 = Date.now();
  const closed = await Promise.race([client.close().then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 30_000).unref())]);
  if (!closed && alive(pid)) process.kill(pid, "SIGKILL");
  assert.ok(closed, "close() did not finish within 30 s");
  assert.ok(Date.now() - t0 < 30_000);
  assert.equal(alive(pid), false);
  assert.match(stderr(), /ignoring SIGTERM/);
});

test("J2: a stdio response whose id has the right digits but is a string is not the answer to a numeric id", async () => {
  // Answers every call twice: first with the id as a string ("wrong"), then the real one.
  const args = inlineServer(`(m) => {
    process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: String(m.id), result: { content: [{ type: "text", text: "wrong" }] } }) + "\\n");
    return new Promise((r) => setTimeout(() => r({ content: [{ type: "text", text: "right" }] }), 100));
  }`);
  const { logs, logger } = captureLogs();
  const client = await McpClient.connectStdio("node", args, undefined, { logger });
  try {
    const r = await client.callTool("t", {});
    assert.equal((r.content[0] as TextContent).text, "right");
    assert.ok(logs.some((l) => l.message === "dropped a response for an unknown id" && typeof l.data?.id === "string"));
  } finally {
    await client.close();
  }
});

test("J2: on an SSE answer, a response whose id is the string form of the request's does not end the wait for it", async () => {
  // The real answer comes after HTTP_TRAILING_READ_MS: a stream taken as answered
  // by the string id would stop being read before it.
  const server = await startRpcServer((m, res) => {
    if (m.method === "initialize") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: initializeResult({ tools: {} }) }));
    if (m.method !== "tools/call") return void res.writeHead(202).end();
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id: String(m.id), result: { content: [{ type: "text", text: "wrong" }] } })}\n\n`);
    setTimeout(() => res.end(`data: ${JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: "right" }] } })}\n\n`), 1_500);
  });
  const client = await McpClient.connect(new HttpTransport(server.url), { name: "ids", era: "legacy" });
  try {
    const r = await client.callTool("t", {}, { timeoutMs: 10_000 });
    assert.equal((r.content[0] as TextContent).text, "right");
  } finally {
    await client.close();
    server.close();
  }
});

test("J2: a malformed answer to a call in flight (result not an object) fails that call at once with a protocol error, over stdio", async () => {
  // The only answer the server gives is malformed: without the check the call waits for its whole bound.
  const args = inlineServer(`(m) => {
    process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: 5 }) + "\\n");
    return new Promise(() => {});
  }`);
  const client = await McpClient.connectStdio("node", args);
  try {
    const t0 = Date.now();
    const e = await rejection(client.callTool("t", {}, { timeoutMs: 20_000 }));
    assert.ok(e instanceof ProtocolError, String(e));
    assert.match(e.message, /tools\/call: the answer is not a valid JSON-RPC response \(JSON-RPC result is not an object\)/);
    assert.ok(Date.now() - t0 < 10_000, "the call failed at once, not at its bound");
    const again = await rejection(client.callTool("t", {}, { timeoutMs: 20_000 }));
    assert.ok(again instanceof ProtocolError, "the session goes on: the next call gets its own answer");
  } finally {
    await client.close();
  }
});

test("J2: a malformed answer on an SSE stream fails the call at once; a string id of the same digits fails nothing", async () => {
  const server = await startRpcServer((m, res) => {
    if (m.method === "initialize") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: initializeResult({ tools: {} }) }));
    if (m.method !== "tools/call") return void res.writeHead(202).end();
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id: String(m.id), result: {}, error: { code: 1, message: "x" } })}\n\n`);
    res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id: m.id, result: "done" })}\n\n`); // the stream stays open
  });
  // Without the check the call would wait on the open stream until its bound.
  const client = await McpClient.connect(new HttpTransport(server.url), { name: "malformed", era: "legacy" });
  try {
    const t0 = Date.now();
    const e = await rejection(client.callTool("t", {}, { timeoutMs: 20_000 }));
    assert.ok(Date.now() - t0 < 10_000, "the call failed at once, not at its bound");
    assert.ok(e instanceof ProtocolError, String(e));
    assert.match(e.message, /^malformed: tools\/call: the answer is not a valid JSON-RPC response \(JSON-RPC result is not an object\)/, "failed by its own id, not the string one");
  } finally {
    await client.close();
    server.close();
  }
});

for (const [what, sid] of [
  ["a space", "abc def"],
  ["a tab", "abc\tdef"],
  ["a byte above ASCII", "caf\u00e9"],
  [`${MAX_SESSION_ID_CHARS + 1} characters`, "s".repeat(MAX_SESSION_ID_CHARS + 1)],
] as const) {
  test(`H6: an Mcp-Session-Id with ${what} is refused at initialize`, async () => {
    const server = await startRpcServer((m, res) => {
      res.writeHead(200, { "content-type": "application/json", "mcp-session-id": sid });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: initializeResult({ tools: {} }) }));
    });
    try {
      const e = await rejection(McpClient.connect(new HttpTransport(server.url), { name: "sid", era: "legacy" }));
      assert.ok(e instanceof ProtocolError, `${e.name}: ${e.message}`);
      assert.match(e.message, /Mcp-Session-Id/);
      assert.ok(!e.message.includes(sid), "the value is not echoed");
    } finally {
      server.close();
    }
  });
}

test(`H6: an Mcp-Session-Id of exactly ${MAX_SESSION_ID_CHARS} visible characters is accepted and sent back`, async () => {
  const sid = "!~".repeat(MAX_SESSION_ID_CHARS / 2);
  const seen: Array<string | undefined> = [];
  const server = await startRpcServer((m, res) => {
    if (m.method === "initialize") {
      res.writeHead(200, { "content-type": "application/json", "mcp-session-id": sid });
      return void res.end(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: initializeResult({ tools: {} }) }));
    }
    res.writeHead(202).end();
  });
  const original = server.url;
  try {
    const transport = new HttpTransport(original, {
      fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
        seen.push(new Headers(init?.headers).get("mcp-session-id") ?? undefined);
        return fetch(input, init);
      }) as typeof fetch,
    });
    const client = await McpClient.connect(transport, { name: "sid", era: "legacy" });
    await client.close();
    assert.ok(seen.includes(sid), "the session id rides on later requests");
  } finally {
    server.close();
  }
});

test("J3: a JSON-RPC error message from a server is cut to MAX_RPC_ERROR_MESSAGE_CHARS", async () => {
  const { MAX_RPC_ERROR_MESSAGE_CHARS } = await import("../../src/limits.js");
  const { JsonRpcError } = await import("../../src/errors.js");
  // Answers every call with an error whose message is 50 times the bound.
  const args = inlineServer(`(m) => {
    process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, error: { code: -32000, message: "m".repeat(${MAX_RPC_ERROR_MESSAGE_CHARS * 50}) } }) + "\\n");
    return new Promise(() => {});
  }`);
  const client = await McpClient.connectStdio("node", args);
  try {
    const e = await rejection(client.callTool("t", {}));
    assert.ok(e instanceof JsonRpcError, `${e.name}: ${e.message.slice(0, 100)}`);
    assert.ok(e.rpcMessage.length <= MAX_RPC_ERROR_MESSAGE_CHARS + 1, `${e.rpcMessage.length} characters kept`);
    assert.ok(e.message.length < MAX_RPC_ERROR_MESSAGE_CHARS + 200);
  } finally {
    await client.close();
  }
});

test("J2: beyond MAX_PENDING_REQUESTS requests in flight, the next one fails at once with a limit error", async () => {
  const { MAX_PENDING_REQUESTS } = await import("../../src/limits.js");
  const { LimitError } = await import("../../src/errors.js");
  // Never answers a call: every request stays pending.
  const client = await McpClient.connectStdio("node", inlineServer("() => new Promise(() => {})"));
  try {
    // The handshake used none: the connection's own pending count starts at 0.
    const pending = Array.from({ length: MAX_PENDING_REQUESTS }, () => client.callTool("t", {}, { timeoutMs: 60_000 }).catch((e: unknown) => e));
    const e = await rejection(client.callTool("t", {}, { timeoutMs: 60_000 }));
    assert.ok(e instanceof LimitError && e.limit === "MAX_PENDING_REQUESTS", `${e.name}: ${e.message}`);
    await client.close();
    for (const p of await Promise.all(pending)) assert.equal((p as { code?: string }).code, "connection_closed");
  } finally {
    await client.close();
  }
});

test("V3: a list cursor longer than MAX_CURSOR_CHARS is refused with a limit error, not sent back", async () => {
  const { MAX_CURSOR_CHARS } = await import("../../src/limits.js");
  const script = `
const rl = require("readline").createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
let lists = 0;
rl.on("line", (l) => {
  const m = JSON.parse(l);
  if (m.id === undefined) return;
  if (m.method === "initialize") return send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } } });
  if (m.method === "tools/list") { lists++; return send({ jsonrpc: "2.0", id: m.id, result: { tools: [], nextCursor: "c".repeat(${MAX_CURSOR_CHARS + 1}) } }); }
  if (m.method === "tools/call") return send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: String(lists) }] } });
  send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
});`;
  const client = await McpClient.connectStdio("node", ["-e", script], undefined, { era: "legacy" });
  try {
    const e = await rejection(client.listTools());
    assert.equal(e.code, "limit");
    const lists = await client.callTool("count", {});
    assert.equal((lists.content[0] as TextContent).text, "1", "the cursor was never sent back");
  } finally {
    await client.close();
  }
});
