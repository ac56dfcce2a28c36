// H1, H3, H4, H5, H8: how the HTTP transport posts messages and reads answers,
// against loopback fixture servers (fixtures/http/).
import { test } from "node:test";
import assert from "node:assert/strict";
import { HttpTransport } from "../../src/transport/http.js";
import { HttpError, LimitError, TimeoutError, TransportError } from "../../src/errors.js";
import { delay, header, notification, recordingSink, request, until, withFixture } from "./http-fixtures.js";

const T = { timeout: 15_000 };

test("H1: each message is a POST with Accept for JSON and SSE and a JSON Content-Type; a JSON answer is delivered", T, async () => {
  await withFixture("json", {}, async (server) => {
    const transport = new HttpTransport(server.url);
    const sink = recordingSink();
    await transport.start(sink);
    await transport.send(request(1, "tools/call", { name: "echo", arguments: { text: "hi" } }));
    await transport.send(notification("notifications/initialized"));
    assert.deepEqual(sink.messages, [{ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "hi" }] } }]);
    assert.deepEqual(sink.errors, []);
    assert.equal(server.requests.length, 2);
    for (const r of server.requests) {
      assert.equal(r.method, "POST");
      assert.equal(header(r, "accept"), "application/json, text/event-stream");
      assert.equal(header(r, "content-type"), "application/json");
    }
    assert.equal(server.requests[1]?.message?.method, "notifications/initialized");
    await transport.close();
  });
});

test("H1: an SSE answer is parsed and its response delivered", T, async () => {
  await withFixture("sse", {}, async (server) => {
    const transport = new HttpTransport(server.url);
    const sink = recordingSink();
    await transport.start(sink);
    await transport.send(request("a", "tools/call", { name: "echo", arguments: { text: "über" } }));
    assert.deepEqual(sink.messages, [{ jsonrpc: "2.0", id: "a", result: { content: [{ type: "text", text: "über" }] } }]);
    await transport.close();
  });
});

test("H3: progress and message frames before the result go to the sink; the result ends the wait", T, async () => {
  await withFixture("progress", { count: 3 }, async (server) => {
    const transport = new HttpTransport(server.url);
    const sink = recordingSink();
    await transport.start(sink);
    await transport.send(request(5, "tools/call", { name: "echo", arguments: { text: "done" }, _meta: { progressToken: "p" } }));
    const methods = sink.messages.map((m) => (m as { method?: string }).method ?? "response");
    assert.deepEqual(methods, [
      "notifications/progress",
      "notifications/progress",
      "notifications/progress",
      "notifications/message",
      "response",
    ]);
    assert.deepEqual(sink.errors, []);
    await transport.close();
  });
});

test("H3: a frame with a method is not the response even when it carries the request's id", T, async () => {
  await withFixture("progress", { count: 1, sameIdRequest: true }, async (server) => {
    const transport = new HttpTransport(server.url);
    const sink = recordingSink();
    await transport.start(sink);
    await transport.send(request(9, "tools/call", { name: "echo", arguments: { text: "x" } }));
    // The server's ping with id 9 came first; the wait went on to the real result.
    assert.deepEqual(sink.messages[0], { jsonrpc: "2.0", id: 9, method: "ping" });
    assert.deepEqual(sink.messages.at(-1), { jsonrpc: "2.0", id: 9, result: { content: [{ type: "text", text: "x" }] } });
    assert.equal(sink.messages.length, 4);
    await transport.close();
  });
});

test("H4: returns at the response frame while the server holds the stream open", T, async () => {
  await withFixture("held-open", {}, async (server) => {
    const transport = new HttpTransport(server.url);
    const sink = recordingSink();
    await transport.start(sink);
    const started = Date.now();
    await transport.send(request(1, "ping"));
    assert.ok(Date.now() - started < 1_000, "send resolved at the response frame");
    assert.deepEqual(sink.messages, [{ jsonrpc: "2.0", id: 1, result: {} }]);
    assert.equal(server.requests[0]?.closedAt, undefined, "the server still holds the stream");
    // The trailing read is bounded: the transport lets go of the stream by itself.
    await until(() => server.requests[0]?.closedAt !== undefined, 5_000);
    await transport.close();
  });
});

test("H5: a server that accepts the POST then sends nothing fails the request with TimeoutError", T, async () => {
  for (const mode of ["headers", "body"]) {
    await withFixture("stall", { mode }, async (server) => {
      const transport = new HttpTransport(server.url, { idleTimeoutMs: 150 });
      const sink = recordingSink();
      await transport.start(sink);
      const started = Date.now();
      await transport.send(request(3, "tools/call", { name: "slow" }));
      const elapsed = Date.now() - started;
      assert.equal(sink.errors.length, 1, mode);
      const { id, error } = sink.errors[0] ?? assert.fail("no error");
      assert.equal(id, 3);
      assert.ok(error instanceof TimeoutError, `${mode}: ${error.name}`);
      assert.equal(error.code, "timeout");
      assert.equal((error as TimeoutError).timeoutMs, 150);
      assert.match(error.message, /tools\/call/);
      assert.ok(elapsed >= 140 && elapsed < 2_000, `${mode}: fired after ${elapsed} ms`);
      await transport.close();
    });
  }
});

test("H5: a long call that keeps streaming progress is never cut off by the idle bound", T, async () => {
  // 12 progress frames 50 ms apart: 600 ms in all, four times the 150 ms idle bound.
  await withFixture("progress", { count: 12, intervalMs: 50 }, async (server) => {
    const transport = new HttpTransport(server.url, { idleTimeoutMs: 150 });
    const sink = recordingSink();
    await transport.start(sink);
    const started = Date.now();
    await transport.send(request(4, "tools/call", { name: "echo", arguments: { text: "long" } }));
    assert.ok(Date.now() - started >= 550);
    assert.deepEqual(sink.errors, []);
    assert.deepEqual(sink.messages.at(-1), { jsonrpc: "2.0", id: 4, result: { content: [{ type: "text", text: "long" }] } });
    await transport.close();
  });
});

test("H8: 202 and 204 with empty bodies acknowledge a notification and a response", T, async () => {
  await withFixture("accepted", {}, async (server) => {
    const transport = new HttpTransport(server.url);
    await transport.start(recordingSink());
    await transport.send(notification("notifications/initialized"));
    await transport.send({ jsonrpc: "2.0", id: "srv-1", result: {} });
    assert.deepEqual(
      server.requests.map((r) => r.message?.method ?? "response"),
      ["notifications/initialized", "response"],
    );
    await transport.close();
  });
});

test("H8: an empty 200 is an error saying a proxy answered, for requests and notifications", T, async () => {
  await withFixture("empty-200", {}, async (server) => {
    const transport = new HttpTransport(server.url);
    const sink = recordingSink();
    await transport.start(sink);
    await transport.send(request(1, "tools/list"));
    const err = sink.errors[0]?.error;
    assert.ok(err instanceof HttpError, String(err));
    assert.equal(err.status, 200);
    assert.match(err.message, /a proxy answered, not the MCP server/);
    await assert.rejects(transport.send(notification("notifications/initialized")), (e: unknown) => {
      return e instanceof HttpError && /a proxy answered, not the MCP server/.test(e.message);
    });
    await transport.close();
  });
});

test("H8: an empty event stream answering a notification is an error saying a proxy answered", T, async () => {
  await withFixture("empty-200", { eventStream: true }, async (server) => {
    const transport = new HttpTransport(server.url);
    await transport.start(recordingSink());
    await assert.rejects(transport.send(notification("notifications/initialized")), (e: unknown) => {
      return e instanceof HttpError && e.status === 200 && /a proxy answered, not the MCP server/.test(e.message);
    });
    await transport.close();
  });
});

test("H8: a notification answered by a non-empty event stream succeeds and what it streams is delivered", T, async () => {
  await withFixture("sse", { notificationStream: true }, async (server) => {
    const transport = new HttpTransport(server.url);
    const sink = recordingSink();
    await transport.start(sink);
    await transport.send(notification("notifications/initialized"));
    await until(() => sink.messages.length === 1);
    assert.deepEqual(sink.messages, [{ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "streamed" } }]);
    assert.deepEqual(sink.errors, []);
    await transport.close();
  });
});

test("H8: a notification's event stream whose first event is over the bound fails with that LimitError, not as an empty answer", T, async () => {
  await withFixture("sse", { notificationStream: true }, async (server) => {
    const transport = new HttpTransport(server.url, { maxEventBytes: 16 });
    await transport.start(recordingSink());
    await assert.rejects(transport.send(notification("notifications/initialized")), (e: unknown) => e instanceof LimitError && e.code === "limit");
    await transport.close();
  });
});

test("H1: the JSON answer body is bounded: a larger one is a LimitError", T, async () => {
  await withFixture("json", {}, async (server) => {
    const transport = new HttpTransport(server.url, { maxJsonBytes: 64 });
    const sink = recordingSink();
    await transport.start(sink);
    await transport.send(request(1, "tools/call", { name: "echo", arguments: { text: "y".repeat(200) } }));
    const err = sink.errors[0]?.error;
    assert.ok(err instanceof LimitError, String(err));
    assert.equal(err.limit, "MAX_HTTP_JSON_BYTES");
    await transport.close();
  });
});

test("H2: an SSE event over the bound fails the request with a LimitError", T, async () => {
  await withFixture("sse", {}, async (server) => {
    const transport = new HttpTransport(server.url, { maxEventBytes: 64 });
    const sink = recordingSink();
    await transport.start(sink);
    await transport.send(request(1, "tools/call", { name: "echo", arguments: { text: "z".repeat(200) } }));
    const err = sink.errors[0]?.error;
    assert.ok(err instanceof LimitError, String(err));
    assert.equal(err.limit, "MAX_SSE_EVENT_BYTES");
    assert.deepEqual(sink.messages, []);
    await transport.close();
  });
});

test("H1: aborting the send's signal aborts the fetch and reports nothing", T, async () => {
  await withFixture("stall", { mode: "body" }, async (server) => {
    const transport = new HttpTransport(server.url);
    const sink = recordingSink();
    await transport.start(sink);
    const ac = new AbortController();
    const sending = transport.send(request(1, "tools/call", { name: "slow" }), { signal: ac.signal });
    await until(() => server.requests.length === 1);
    ac.abort();
    await sending;
    assert.deepEqual(sink.errors, [], "the session settled the request itself");
    await until(() => server.requests[0]?.closedAt !== undefined);
    await transport.close();
  });
});

test("H1: a refused connection fails the request with TransportError", T, async () => {
  let url = "";
  await withFixture("json", {}, async (server) => {
    url = server.url;
  });
  await delay(10);
  const transport = new HttpTransport(url);
  const sink = recordingSink();
  await transport.start(sink);
  await transport.send(request(1, "ping"));
  assert.ok(sink.errors[0]?.error instanceof TransportError, String(sink.errors[0]?.error));
  await transport.close();
});

test("H1: a 400 / 404 carrying a JSON-RPC error for the request is that request's response (revision 2026-07-28)", T, async () => {
  await withFixture("rpc-error", {}, async (server) => {
    const transport = new HttpTransport(server.url);
    const sink = recordingSink();
    await transport.start(sink);
    transport.setProtocolVersion("2026-07-28");
    await transport.send(request(1, "no/such/method"));
    await transport.send(request(2, "tools/call", { name: "x" }));
    assert.deepEqual(sink.messages, [
      { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } },
      { jsonrpc: "2.0", id: 2, error: { code: -32020, message: "Header mismatch" } },
    ]);
    assert.equal(sink.errors.length, 0);
    // An error body that answers no request (id null) leaves the status as the error.
    await transport.send(request(3, "ping"));
    const err = sink.errors[0]?.error;
    assert.ok(err instanceof HttpError, String(err));
    assert.equal(err.status, 400);
    assert.equal(sink.messages.length, 2);
    await transport.close();
  });
});
