// H4, H5, J5: a request the session gives up on (its bound passed, its caller
// cancelled) lets go of its POST stream at once, not at the transport's idle bound;
// and one timer bounds many exchanges of a transport, each at its own deadline.
// Against the loopback fixture servers (fixtures/http/).
import { test } from "node:test";
import assert from "node:assert/strict";
import { HttpTransport } from "../../src/transport/http.js";
import { JsonRpcSession } from "../../src/jsonrpc/session.js";
import { CancelledError, TimeoutError } from "../../src/errors.js";
import { RecordingTransport } from "../../src/transport/recording.js";
import { HTTP_BOUND_SWEEP_MS, MAX_SPARE_SSE_PARSERS } from "../../src/limits.js";
import { recordingSink, request, until, withFixture } from "./http-fixtures.js";

const T = { timeout: 20_000 };
// Far beyond every wait below: a stream still open at the end was not let go of.
const IDLE_MS = 60_000;

test("H5, J5: a request whose bound passes releases its POST stream at once, well before the idle bound", T, async () => {
  await withFixture("stall", { mode: "body" }, async (server) => {
    const session = new JsonRpcSession(new HttpTransport(server.url, { idleTimeoutMs: IDLE_MS }), { name: "stall" });
    await session.start();
    session.cancelNotifications = false; // only the tools/call POST reaches the server
    await assert.rejects(session.request("tools/call", { name: "slow" }, { timeoutMs: 1_000 }), TimeoutError);
    await until(() => server.requests.length === 1 && server.requests[0]?.closedAt !== undefined, 5_000);
    await session.close();
  });
});

test("H5, J5: a cancelled request releases its POST stream at once, also through a RecordingTransport", T, async () => {
  await withFixture("stall", { mode: "body" }, async (server) => {
    const transport = new RecordingTransport(new HttpTransport(server.url, { idleTimeoutMs: IDLE_MS }), () => {});
    const session = new JsonRpcSession(transport, { name: "stall" });
    await session.start();
    session.cancelNotifications = false;
    const caller = new AbortController();
    const call = session.request("tools/call", { name: "slow" }, { signal: caller.signal });
    await until(() => server.requests.length === 1, 5_000);
    caller.abort();
    await assert.rejects(call, CancelledError);
    await until(() => server.requests[0]?.closedAt !== undefined, 5_000);
    await session.close();
  });
});

test("H4, H5: with 16 exchanges in flight, each stalled one times out at its own idle bound and each answered stream is let go", T, async () => {
  // Stalled POSTs, and answered streams held open after their response (H4).
  await withFixture("stall", { mode: "body" }, async (stalled) => {
    await withFixture("held-open", {}, async (held) => {
      const slow = new HttpTransport(stalled.url, { idleTimeoutMs: 200 });
      const fast = new HttpTransport(held.url, { idleTimeoutMs: IDLE_MS });
      const slowSink = recordingSink();
      const fastSink = recordingSink();
      await slow.start(slowSink);
      await fast.start(fastSink);
      const started = Date.now();
      const sends: Promise<void>[] = [];
      for (let i = 0; i < 8; i++) {
        sends.push(slow.send(request(i, "tools/call", { name: "slow" })));
        sends.push(fast.send(request(i, "ping")));
      }
      await Promise.all(sends);
      assert.equal(slowSink.errors.length, 8);
      for (const { error } of slowSink.errors) assert.ok(error instanceof TimeoutError && error.timeoutMs === 200, error.message);
      assert.ok(Date.now() - started >= 190, "not before the idle bound");
      assert.equal(fastSink.messages.length, 8);
      assert.deepEqual(fastSink.errors, []);
      // Every stalled stream is closed by the idle bound, every held one by the trailing read's end.
      await until(() => stalled.requests.every((r) => r.closedAt !== undefined), 5_000);
      await until(() => held.requests.every((r) => r.closedAt !== undefined), 5_000);
      await slow.close();
      await fast.close();
    });
  });
});

test("H5: an idle bound longer than HTTP_BOUND_SWEEP_MS fires at its own time, not at the first sweep", T, async () => {
  const idleMs = HTTP_BOUND_SWEEP_MS + 400;
  await withFixture("stall", { mode: "body" }, async (server) => {
    const transport = new HttpTransport(server.url, { idleTimeoutMs: idleMs });
    const sink = recordingSink();
    await transport.start(sink);
    const started = Date.now();
    await transport.send(request(1, "tools/call", { name: "slow" }));
    const elapsed = Date.now() - started;
    const { error } = sink.errors[0] ?? assert.fail("no error");
    assert.ok(error instanceof TimeoutError && error.timeoutMs === idleMs, error.message);
    assert.ok(elapsed >= idleMs - 10 && elapsed < idleMs + 5_000, `fired after ${elapsed} ms`);
    await transport.close();
  });
});

test("H2: more SSE answers in flight than MAX_SPARE_SSE_PARSERS each get their own parser; the kept ones read the next answers right", T, async () => {
  await withFixture("sse", {}, async (server) => {
    const transport = new HttpTransport(server.url);
    const sink = recordingSink();
    await transport.start(sink);
    const n = MAX_SPARE_SSE_PARSERS + 8;
    for (let round = 0; round < 2; round++) {
      sink.messages.length = 0;
      const sends = Array.from({ length: n }, (_, i) => transport.send(request(`${round}-${i}`, "tools/call", { name: "echo", arguments: { text: `text ${round}-${i}` } })));
      await Promise.all(sends);
      assert.deepEqual(sink.errors, []);
      const got = new Map(sink.messages.map((m) => [(m as { id: string }).id, m]));
      for (let i = 0; i < n; i++) {
        const id = `${round}-${i}`;
        assert.deepEqual(got.get(id), { jsonrpc: "2.0", id, result: { content: [{ type: "text", text: `text ${id}` }] } });
      }
    }
    await transport.close();
  });
});
