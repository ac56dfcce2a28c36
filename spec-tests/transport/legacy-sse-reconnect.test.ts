// H14: the 2024-11-05 HTTP+SSE transport reconnects a dropped event stream, against
// the loopback fixture fixtures/http/legacy-sse.mjs (which cuts its stream on the
// `drop` tool, gives each stream a new session that answers nothing before its
// handshake, and has hostile modes for the reconnect).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ConnectionClosedError } from "../../src/errors.js";
import { McpClient } from "../../src/mcp/client.js";
import { LegacySseTransport, type LegacySseOptions } from "../../src/transport/legacy-sse.js";
import { MIN_LEGACY_RECONNECT_MS } from "../../src/limits.js";
import { withFixture, type LoopbackServer } from "./http-fixtures.js";

const T = { timeout: 30_000 };
type Coded = Error & { code?: string };
type Sessions = Record<string, string[]>;
const sessionsOf = (server: LoopbackServer): Sessions => (server as LoopbackServer & { sessions: Sessions }).sessions;
const gets = (server: LoopbackServer): number => server.requests.filter((r) => r.method === "GET").length;
const calls = (server: LoopbackServer, name: string): number => server.requests.filter((r) => r.message?.method === "tools/call" && (r.message.params as { name?: string }).name === name).length;

async function connected(server: LoopbackServer, options: LegacySseOptions, body: (client: McpClient) => Promise<void>): Promise<void> {
  const client = await McpClient.connect(new LegacySseTransport(server.url, { headers: { "x-tenant": "acme" }, ...options }), { era: "legacy" });
  try {
    await body(client);
  } finally {
    await client.close();
  }
}

const droppedInFlight = (e: unknown): boolean =>
  e instanceof ConnectionClosedError && e.info.maybeDelivered === true && /dropped while tools\/call waited; it may have run and is not sent again/.test(e.message);

describe("H14: HTTP+SSE reconnects", { concurrency: true }, () => {
  test("H14: a dropped stream is reconnected; the call in flight fails saying it may have run and is never re-sent; the new session gets the handshake replayed, then the next call", T, () =>
    withFixture("legacy-sse", { retryMs: 50 }, async (server) => {
      await connected(server, {}, async (client) => {
        await assert.rejects(client.callTool("drop", {}), droppedInFlight);
        const r = await client.callTool("echo", { text: "again" });
        assert.deepEqual(r.content, [{ type: "text", text: "again" }]);
      });
      assert.deepEqual(sessionsOf(server), {
        s1: ["initialize", "notifications/initialized", "tools/call drop"],
        s2: ["initialize", "notifications/initialized", "tools/call echo"],
      });
      assert.equal(calls(server, "drop"), 1, "the dropped call is not re-sent");
      assert.equal(gets(server), 2);
      assert.ok(server.requests.every((r) => r.headers["x-tenant"] === "acme"), "the custom header rides on the new GET and POSTs too");
    }),
  );

  test("H14: a reconnect that announces the same session resumes it without a second handshake", T, () =>
    withFixture("legacy-sse", { retryMs: 50, sameSession: true }, async (server) => {
      await connected(server, {}, async (client) => {
        await assert.rejects(client.callTool("drop", {}), droppedInFlight);
        const r = await client.callTool("echo", { text: "same" });
        assert.deepEqual(r.content, [{ type: "text", text: "same" }]);
      });
      assert.deepEqual(sessionsOf(server), { s1: ["initialize", "notifications/initialized", "tools/call drop", "tools/call echo"] });
    }),
  );

  test("H14: reconnects that never bring a fresh endpoint end the transport after the bounded attempts, backing off even from retry: 0; a call waiting for it fails unsent", T, () =>
    withFixture("legacy-sse", { retryMs: 0, mode: "no-endpoint-again" }, async (server) => {
      const started = Date.now();
      await connected(server, { endpointTimeoutMs: 300, maxReconnectAttempts: 2 }, async (client) => {
        await assert.rejects(client.callTool("drop", {}), droppedInFlight);
        await assert.rejects(client.callTool("echo", { text: "never" }), (e: Coded) => e.code === "connection_closed" && /2 reconnects failed/.test(e.message));
      });
      assert.equal(gets(server), 3, "the first stream and two reconnects");
      const [, second, third] = server.requests.filter((r) => r.method === "GET").map((r) => r.at);
      // The second reconnect waits out the first one's endpoint bound, then twice the floor: retry: 0 makes no tight loop
      // (150 ms of slack: the times are when the server saw each GET, so a slow first GET shortens the gap).
      assert.ok((third ?? 0) - (second ?? 0) >= 300 + 2 * MIN_LEGACY_RECONNECT_MS - 150, `${(third ?? 0) - (second ?? 0)} ms between reconnects`);
      assert.equal(calls(server, "echo"), 0, "nothing is POSTed without a fresh endpoint");
      assert.ok(Date.now() - started < 15_000);
    }),
  );

  test("H14: a new session that refuses the replayed initialize ends the transport; nothing else is sent to it", T, () =>
    withFixture("legacy-sse", { retryMs: 50, mode: "refuse-reinit" }, async (server) => {
      await connected(server, {}, async (client) => {
        await assert.rejects(client.callTool("drop", {}), droppedInFlight);
        await assert.rejects(client.callTool("echo", { text: "refused" }), (e: Coded) => e.code === "protocol" && /refused the replayed initialize/.test(e.message));
      });
      assert.deepEqual(sessionsOf(server).s2, ["initialize"]);
    }),
  );

  test("H14: a reconnect whose endpoint names another origin is refused and ends the transport; nothing is sent", T, () =>
    withFixture("legacy-sse", { retryMs: 50, mode: "foreign-again" }, async (server) => {
      await connected(server, {}, async (client) => {
        await assert.rejects(client.callTool("drop", {}), droppedInFlight);
        await assert.rejects(client.callTool("echo", { text: "elsewhere" }), (e: Coded) => e.code === "protocol" && /another origin/.test(e.message));
      });
      assert.equal(gets(server), 2);
      assert.equal(calls(server, "echo"), 0);
    }),
  );
});
