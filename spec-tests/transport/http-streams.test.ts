// H12, H13: the GET stream, resumption with Last-Event-ID, and server requests on
// a POST stream, against loopback fixture servers (fixtures/http/).
import { test } from "node:test";
import assert from "node:assert/strict";
import { HttpTransport } from "../../src/transport/http.js";
import { TransportError } from "../../src/errors.js";
import type { LogLevel } from "../../src/log.js";
import { delay, header, recordingSink, request, until, withFixture } from "./http-fixtures.js";

const T = { timeout: 15_000 };

test("H12: a POST stream closed before its response is resumed by GET with Last-Event-ID after the retry delay", T, async () => {
  await withFixture("resumable", { retryMs: 120 }, async (server) => {
    const transport = new HttpTransport(server.url);
    const sink = recordingSink();
    await transport.start(sink);
    await transport.send(request(7, "tools/call", { name: "echo", arguments: { text: "resumed" } }));
    assert.deepEqual(sink.errors, []);
    assert.deepEqual(sink.messages, [{ jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: "resumed" }] } }]);
    const [post, get] = server.requests;
    assert.equal(post?.method, "POST");
    assert.equal(get?.method, "GET");
    assert.equal(header(get, "last-event-id"), "p-1");
    assert.equal(header(get, "accept"), "text/event-stream");
    const waited = (get?.at ?? 0) - (post?.closedAt ?? 0);
    assert.ok(waited >= 100, `the client waited ${waited} ms, less than the server's retry of 120 ms`);
    await transport.close();
  });
});

test("H12: resumption that brings nothing stops after maxResumeAttempts with a TransportError", T, async () => {
  await withFixture("resumable", { retryMs: 10, neverAnswer: true }, async (server) => {
    const transport = new HttpTransport(server.url, { maxResumeAttempts: 2 });
    const sink = recordingSink();
    await transport.start(sink);
    await transport.send(request(1, "tools/call", { name: "echo", arguments: {} }));
    const err = sink.errors[0]?.error;
    assert.ok(err instanceof TransportError, String(err));
    assert.match(err.message, /2 resumptions brought nothing/);
    assert.deepEqual(
      server.requests.map((r) => r.method),
      ["POST", "GET", "GET"],
    );
    await transport.close();
  });
});

test("H12: openInbound opens the GET stream; its messages reach the sink and it resumes with Last-Event-ID", T, async () => {
  await withFixture("resumable", { retryMs: 20, inboundEvents: 2 }, async (server) => {
    const transport = new HttpTransport(server.url, { maxResumeAttempts: 2 });
    const sink = recordingSink();
    await transport.start(sink);
    transport.openInbound();
    transport.openInbound(); // a second call opens nothing more
    await until(() => sink.messages.length === 2);
    assert.deepEqual(
      sink.messages.map((m) => (m as { params: { data: string } }).params.data),
      ["inbound 1", "inbound 2"],
    );
    // After the last message the stream brings nothing: two more tries, then it stops.
    await until(() => server.requests.length === 4);
    await delay(150);
    assert.deepEqual(
      server.requests.map((r) => [r.method, header(r, "last-event-id") ?? "-"]),
      [
        ["GET", "-"],
        ["GET", "g-1"],
        ["GET", "g-2"],
        ["GET", "g-2"],
      ],
    );
    await transport.close();
  });
});

test("H12: a 405 to the GET stream is tolerated and logged", T, async () => {
  await withFixture("json", {}, async (server) => {
    const logs: Array<[LogLevel, string]> = [];
    const transport = new HttpTransport(server.url, { logger: (level, message) => void logs.push([level, message]) });
    const sink = recordingSink();
    await transport.start(sink);
    transport.openInbound();
    await until(() => logs.some(([, m]) => /offers no GET stream \(HTTP 405\)/.test(m)));
    await transport.send(request(1, "ping"));
    assert.deepEqual(sink.messages, [{ jsonrpc: "2.0", id: 1, result: {} }]);
    assert.deepEqual(sink.errors, []);
    assert.equal(logs.find(([, m]) => /405/.test(m))?.[0], "info");
    await transport.close();
  });
});

test("H12: close() ends an open GET stream", T, async () => {
  await withFixture("stall", { mode: "body" }, async (server) => {
    const transport = new HttpTransport(server.url, { idleTimeoutMs: 100 });
    await transport.start(recordingSink());
    transport.openInbound();
    await until(() => server.requests.length === 1);
    await delay(300); // quiet for three idle bounds: the GET stream is not cut
    assert.equal(server.requests[0]?.closedAt, undefined);
    await transport.close();
    await until(() => server.requests[0]?.closedAt !== undefined);
  });
});

test("H13: server requests on the POST stream reach the sink, and the answers are POSTed back", T, async () => {
  await withFixture("server-requests", {}, async (server) => {
    const transport = new HttpTransport(server.url);
    const sink = recordingSink();
    // What the session does: answer each server request through the transport.
    const answers: Promise<void>[] = [];
    const message = sink.message;
    sink.message = (value) => {
      message(value);
      const m = value as { id?: string; method?: string };
      if (m.method !== undefined && m.id !== undefined) {
        const result = m.method === "roots/list" ? { roots: [] } : { echoed: m.method };
        answers.push(transport.send({ jsonrpc: "2.0", id: m.id, result }));
      }
    };
    await transport.start(sink);
    await transport.send(request(1, "tools/call", { name: "ask", arguments: {} }));
    await Promise.all(answers);
    const methods = sink.messages.map((m) => (m as { method?: string }).method ?? "response");
    assert.deepEqual(methods, ["sampling/createMessage", "elicitation/create", "roots/list", "response"]);
    const final = sink.messages.at(-1) as { result: { content: Array<{ text: string }> } };
    assert.deepEqual(
      final.result.content.map((c) => c.text),
      ['{"echoed":"sampling/createMessage"}', '{"echoed":"elicitation/create"}', '{"roots":[]}'],
    );
    const posted = server.requests.filter((r) => r.message !== undefined && r.message.method === undefined);
    assert.equal(posted.length, 3, "three answers were POSTed");
    await transport.close();
  });
});
