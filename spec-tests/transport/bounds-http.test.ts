// Bounds of the Streamable HTTP transport, crossed through the public client
// against a loopback server of the test's own (127.0.0.1, port 0). Delays too long
// to wait out run on a mocked clock (node:test mock timers): the transport's own
// timer fires exactly at the constant, never before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { McpClient } from "../../src/mcp/client.js";
import { HttpTransport } from "../../src/transport/http.js";
import { ConfigError, HttpError, JsonRpcError, TransportError } from "../../src/errors.js";
import {
  DEFAULT_SSE_RETRY_MS,
  HTTP_DELETE_TIMEOUT_MS,
  MAX_CUSTOM_HEADERS,
  MAX_HEADER_VALUE_CHARS,
  MAX_HTTP_ERROR_BODY_BYTES,
  MAX_SSE_RESUME_ATTEMPTS,
  MAX_SSE_RETRY_MS,
} from "../../src/limits.js";
import { rejection } from "../helpers/clients.js";
import { mockClock, realDelay, realWaitFor, type MockClock } from "../helpers/clock.js";
import type { TextContent } from "../../src/mcp/types.js";

type Message = { id?: number; method?: string };
type Handler = (m: Message, req: IncomingMessage, res: ServerResponse) => boolean | void;

/**
 * A legacy MCP server on 127.0.0.1: answers initialize (with `sessionId` when
 * given), 202 to notifications, 405 to a plain GET; `handle` may take any request
 * first (returns true when it answered).
 */
async function startServer(handle: Handler, sessionId?: string): Promise<{ url: string; seen: Array<{ method: string; rpc?: string; lastEventId?: string; headers: IncomingMessage["headers"] }>; close(): void }> {
  const seen: Array<{ method: string; rpc?: string; lastEventId?: string; headers: IncomingMessage["headers"] }> = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      const m = body ? (JSON.parse(body) as Message) : {};
      const lastEventId = req.headers["last-event-id"] as string | undefined;
      seen.push({ method: req.method ?? "", ...(m.method && { rpc: m.method }), ...(lastEventId && { lastEventId }), headers: req.headers });
      if (handle(m, req, res) === true) return;
      if (req.method === "GET" || req.method === "DELETE") return void res.writeHead(405).end();
      if (m.id === undefined) return void res.writeHead(202).end();
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (sessionId && m.method === "initialize") headers["mcp-session-id"] = sessionId;
      const reply =
        m.method === "initialize"
          ? { jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "h", version: "1" } } }
          : { jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } };
      res.writeHead(200, headers).end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`,
    seen,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

const answer = (id: number | undefined, text: string): string => JSON.stringify({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text }] } });

test("H10: MAX_CUSTOM_HEADERS custom headers are all sent; one more is a config error", async () => {
  const server = await startServer(() => {});
  try {
    const headers = Object.fromEntries(Array.from({ length: MAX_CUSTOM_HEADERS }, (_, i) => [`x-h-${i}`, `v${i}`]));
    const client = await McpClient.connect(new HttpTransport(server.url, { headers }), { era: "legacy" });
    await client.close();
    const init = server.seen.find((r) => r.rpc === "initialize");
    assert.equal(init?.headers[`x-h-${MAX_CUSTOM_HEADERS - 1}`], `v${MAX_CUSTOM_HEADERS - 1}`);
    const tooMany = { ...headers, "x-one-more": "v" };
    assert.throws(() => new HttpTransport(server.url, { headers: tooMany }), (e: unknown) => e instanceof ConfigError && e.message.includes(String(MAX_CUSTOM_HEADERS)));
    let t = new HttpTransport(server.url, { headers });
    assert.throws(() => (t = t.withHeader("x-one-more", "v")), ConfigError);
  } finally {
    server.close();
  }
});

test("H10: a custom header value of MAX_HEADER_VALUE_CHARS is sent; one character more is refused without echoing it", async () => {
  const server = await startServer(() => {});
  try {
    const value = "k".repeat(MAX_HEADER_VALUE_CHARS);
    const client = await McpClient.connect(new HttpTransport(server.url).withHeader("X-Key", value), { era: "legacy" });
    await client.close();
    assert.equal(server.seen.find((r) => r.rpc === "initialize")?.headers["x-key"], value);
    const long = "s".repeat(MAX_HEADER_VALUE_CHARS + 1);
    const e = (() => {
      try {
        new HttpTransport(server.url).withHeader("X-Key", long);
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    assert.ok(e instanceof ConfigError, String(e));
    assert.ok(!e.message.includes("sss"), "the value is not in the message");
  } finally {
    server.close();
  }
});

test("V2: a 400 answer's JSON-RPC error (spec 2026-07-28 Request Metadata) is read up to MAX_HTTP_ERROR_BODY_BYTES, not past it", async () => {
  // tools/call "fits" gets a body of exactly the bound, "over" one byte more (JSON padded with spaces).
  const server = await startServer((m, _req, res) => {
    if (m.method !== "tools/call") return false;
    const name = (m as { params?: { name?: string } }).params?.name;
    const json = JSON.stringify({ jsonrpc: "2.0", id: m.id, error: { code: -32602, message: "no such tool" } });
    const size = MAX_HTTP_ERROR_BODY_BYTES + (name === "over" ? 1 : 0);
    res.writeHead(400, { "content-type": "application/json" }).end(json + " ".repeat(size - json.length));
    return true;
  });
  const client = await McpClient.connect(new HttpTransport(server.url), { era: "legacy" });
  try {
    const fits = await rejection(client.callTool("fits", {}));
    assert.ok(fits instanceof JsonRpcError && fits.rpcCode === -32602, `${fits.name}: ${fits.message}`);
    const over = await rejection(client.callTool("over", {}));
    assert.ok(over instanceof HttpError && over.status === 400, `${over.name}: ${over.message}`);
  } finally {
    await client.close();
    server.close();
  }
});

test("H6: close() waits for the session-release DELETE at most HTTP_DELETE_TIMEOUT_MS", async (t) => {
  // The DELETE is never answered.
  const server = await startServer((_m, req) => req.method === "DELETE", "session-1");
  const client = await McpClient.connect(new HttpTransport(server.url), { era: "legacy" });
  let clock: MockClock | undefined;
  try {
    clock = mockClock(t);
    let closed = false;
    const closing = client.close().then(() => (closed = true));
    await realWaitFor(() => server.seen.some((r) => r.method === "DELETE"));
    clock.tick(HTTP_DELETE_TIMEOUT_MS - 250);
    await realDelay(200);
    assert.equal(closed, false, "still waiting shortly before the bound");
    clock.tick(250);
    await closing;
    assert.equal(server.seen.find((r) => r.method === "DELETE")?.headers["mcp-session-id"], "session-1");
  } finally {
    clock?.restore();
    server.close();
  }
});

/**
 * A server whose tools/call stream sends a priming event (id "e1", and `retry` when
 * given) and ends before the answer; each resuming GET gets an event stream that
 * ends at once, or (from GET number `answerOn`) the answer.
 */
function resumingServer(retry: number | undefined, answerOn = Infinity): Promise<Awaited<ReturnType<typeof startServer>> & { resumes(): number }> {
  let callId: number | undefined;
  let resumes = 0;
  return startServer((m, req, res) => {
    if (m.method === "tools/call") {
      callId = m.id;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(`${retry === undefined ? "" : `retry: ${retry}\n`}id: e1\ndata: \n\n`);
      return true;
    }
    if (req.method === "GET" && req.headers["last-event-id"] !== undefined) {
      resumes++;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(resumes >= answerOn ? `id: e2\ndata: ${answer(callId, "resumed")}\n\n` : "");
      return true;
    }
    return false;
  }).then((s) => Object.assign(s, { resumes: () => resumes }));
}

test("H12: with no retry field, a broken stream is resumed after DEFAULT_SSE_RETRY_MS, at most MAX_SSE_RESUME_ATTEMPTS times in a row", async (t) => {
  const server = await resumingServer(undefined);
  const client = await McpClient.connect(new HttpTransport(server.url), { era: "legacy" });
  let clock: MockClock | undefined;
  try {
    clock = mockClock(t);
    let settled: unknown;
    const call = client.callTool("t", {}).then((v) => (settled = v), (e: unknown) => (settled = e));
    await realWaitFor(() => server.seen.some((r) => r.rpc === "tools/call"));
    for (let attempt = 1; attempt <= MAX_SSE_RESUME_ATTEMPTS; attempt++) {
      await realWaitFor(() => clock?.armed(DEFAULT_SSE_RETRY_MS) === attempt); // the stream ended and the client waits to resume
      clock.tick(DEFAULT_SSE_RETRY_MS - 1);
      await realDelay(100);
      assert.equal(server.resumes(), attempt - 1, `resumption ${attempt} not before ${DEFAULT_SSE_RETRY_MS} ms`);
      clock.tick(1);
      await realWaitFor(() => server.resumes() === attempt);
    }
    await call;
    assert.ok(settled instanceof TransportError, String(settled));
    assert.match(settled.message, new RegExp(`${MAX_SSE_RESUME_ATTEMPTS} resumptions brought nothing`));
    assert.equal(server.resumes(), MAX_SSE_RESUME_ATTEMPTS, "no resumption past the bound");
    assert.ok(server.seen.filter((r) => r.lastEventId !== undefined).every((r) => r.lastEventId === "e1"));
  } finally {
    clock?.restore();
    await client.close();
    server.close();
  }
});

test("H12: a server's retry field beyond MAX_SSE_RETRY_MS is clamped to it", async (t) => {
  const server = await resumingServer(MAX_SSE_RETRY_MS * 1000, 1);
  const client = await McpClient.connect(new HttpTransport(server.url), { era: "legacy" });
  let clock: MockClock | undefined;
  try {
    clock = mockClock(t);
    const call = client.callTool("t", {});
    await realWaitFor(() => clock?.armed(MAX_SSE_RETRY_MS) === 1);
    clock.tick(MAX_SSE_RETRY_MS - 1);
    await realDelay(100);
    assert.equal(server.resumes(), 0, "not before MAX_SSE_RETRY_MS");
    clock.tick(1);
    const r = await call;
    assert.equal((r.content[0] as TextContent).text, "resumed");
    assert.equal(server.resumes(), 1);
  } finally {
    clock?.restore();
    await client.close();
    server.close();
  }
});
