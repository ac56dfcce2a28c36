// W5: the transports say which failures provably sent nothing (YadaError.notSent), and
// only those. stdio: a process that is gone, or a pipe closed, before the write; the
// session: a request made after it ended (the request that was in flight when it
// ended may have been delivered). HTTP: a transport already closed, a refused
// connection, a 401 / 403; not a 500 or a reset, and nothing through a host's fetch.
// Real child processes and loopback servers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { StdioTransport } from "../../src/node/stdio.js";
import { HttpTransport } from "../../src/transport/http.js";
import { JsonRpcSession } from "../../src/jsonrpc/session.js";
import { ConnectionClosedError, HttpError, TransportError, type YadaError } from "../../src/errors.js";
import { recordingSink, request, until, withFixture } from "./http-fixtures.js";

const T = { timeout: 20_000 };

async function rejection(p: Promise<unknown>): Promise<YadaError> {
  try {
    await p;
  } catch (e) {
    return e as YadaError;
  }
  throw new Error("it resolved");
}

/** A loopback port nobody listens on. */
const closedPort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

test("W5: stdio: a write after the server process is gone, or after close, is refused unwritten with notSent", T, async () => {
  // A server that reads nothing and exits when told to on stdin's first line.
  const transport = new StdioTransport({ command: process.execPath, args: ["-e", "process.stdin.once('data', () => process.exit(4)); setInterval(() => {}, 1000)"] });
  const sink = recordingSink();
  await transport.start(sink);
  await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await until(() => sink.closedWith.length > 0, 10_000);
  const e = await rejection(transport.send(request(1, "tools/call", { name: "x" })));
  assert.ok(e instanceof ConnectionClosedError);
  assert.equal(e.notSent, true);
  assert.equal(sink.closedWith[0]?.notSent, false, "the close itself says nothing of what was written before");
  await transport.close();
  const after = await rejection(transport.send(request(2, "tools/call", { name: "x" })));
  assert.equal(after.notSent, true);
});

test("W5: the session: a request made after it ended says notSent, with the close as its cause; the one in flight does not", T, async () => {
  // Reads one line (the request), then dies without answering.
  const transport = new StdioTransport({ command: process.execPath, args: ["-e", "process.stdin.once('data', () => setTimeout(() => process.exit(3), 20)); setInterval(() => {}, 1000)"] });
  const session = new JsonRpcSession(transport, { name: "dies" });
  await session.start();
  let sent = 0;
  const inFlight = await rejection(session.request("tools/call", { name: "x" }, { onSent: () => sent++ }));
  assert.equal(sent, 1, "onSent: the request was handed to the transport");
  assert.ok(inFlight instanceof ConnectionClosedError);
  assert.equal(inFlight.notSent, false, "it was written: it may have been delivered");
  const later = await rejection(session.request("tools/call", { name: "y" }, { onSent: () => sent++ }));
  assert.ok(later instanceof ConnectionClosedError);
  assert.equal(later.notSent, true);
  assert.equal(later.cause, inFlight);
  assert.equal(sent, 1, "a refused request is never reported handed over");
  await session.close();
});

test("W5: HTTP: a send after close, a refused connection and a 401 say notSent; a 500 and a reset do not; a host's fetch proves nothing", T, async () => {
  const closed = new HttpTransport("http://127.0.0.1:9/mcp");
  await closed.start(recordingSink());
  await closed.close();
  assert.equal((await rejection(closed.send(request(1, "ping")))).notSent, true, "closed before the send");

  const port = await closedPort();
  for (const own of [false, true]) {
    const t = new HttpTransport(`http://127.0.0.1:${port}/mcp`, own ? { fetch: (u, i) => globalThis.fetch(u, i) } : {});
    const sink = recordingSink();
    await t.start(sink);
    await t.send(request(1, "tools/call", { name: "x" }));
    const e = sink.errors[0]?.error;
    assert.ok(e instanceof TransportError, String(e));
    assert.equal(e.notSent, !own, own ? "a host's fetch: not proven" : "refused: nothing left");
    await t.close();
  }

  const cases: Array<[string, Record<string, unknown>, boolean, new (...a: never[]) => YadaError]> = [
    ["unauthorized", {}, true, HttpError],
    ["faults", { mode: "status-500" }, false, HttpError],
    ["faults", { mode: "reset" }, false, TransportError],
  ];
  for (const [fixture, options, expected, kind] of cases) {
    await withFixture(fixture, options, async (server) => {
      const t = new HttpTransport(server.url);
      const sink = recordingSink();
      await t.start(sink);
      await t.send(request(7, "tools/call", { name: "echo", arguments: {} }));
      const e = sink.errors[0]?.error;
      assert.ok(e instanceof kind, `${fixture} ${JSON.stringify(options)}: ${String(e)}`);
      assert.equal(e.notSent, expected, `${fixture} ${JSON.stringify(options)}`);
      await t.close();
    });
  }
});
