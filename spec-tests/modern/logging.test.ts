// V7: the server log level, set with logging/setLevel in the legacy era and carried
// in every request's `_meta` in the modern one, and notifications/message reaching
// the host's onServerLog, against the dual-era server of the official SDK v2 packages.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ServerLogEntry } from "../../src/mcp/client.js";
import { waitFor } from "../helpers/clients.js";
import { connectDual, connectHttp, metaOf, posts, readWire, received, requestsOf, sent, startDualHttp, using } from "./support.js";

const LOG_LEVEL = "io.modelcontextprotocol/logLevel";
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("V7: legacy era: logLevel is sent with logging/setLevel, and entries at or above it reach onServerLog", { timeout: 30_000 }, async () => {
  const entries: ServerLogEntry[] = [];
  const { client, out } = await connectDual({ era: "legacy", logLevel: "info", onServerLog: (e) => entries.push(e) });
  await using(client, async () => {
    await client.callTool("log", { message: "first" });
    await waitFor(() => entries.length >= 1);
    await settle(50);
    assert.deepEqual(entries, [{ level: "info", logger: "dual", data: "first" }], "the debug entry is filtered by the server");
    await client.setLogLevel("debug");
    await client.callTool("log", { message: "second" });
    await waitFor(() => entries.length >= 3);
    assert.deepEqual(entries.slice(1), [
      { level: "info", logger: "dual", data: "second" },
      { level: "debug", logger: "dual", data: "debug: second" },
    ]);
  });
  const messages = sent(readWire(out));
  assert.deepEqual(requestsOf(messages, "logging/setLevel").map((m) => m.params?.level), ["info", "debug"]);
});

test("V7: modern era over stdio: the level rides in every request's _meta, no logging/setLevel is sent, and entries reach onServerLog", { timeout: 30_000 }, async () => {
  const entries: ServerLogEntry[] = [];
  const { client, out } = await connectDual({ logLevel: "info", onServerLog: (e) => entries.push(e) });
  await using(client, async () => {
    assert.equal(client.era, "modern");
    await client.callTool("log", { message: "first" });
    await waitFor(() => entries.length >= 1);
    await settle(50);
    assert.deepEqual(entries, [{ level: "info", logger: "dual", data: "first" }]);
    await client.setLogLevel("debug");
    await client.callTool("log", { message: "second" });
    await waitFor(() => entries.length >= 3);
    assert.deepEqual(entries.slice(1).map((e) => e.data), ["second", "debug: second"]);
  });
  const wire = readWire(out);
  const messages = sent(wire);
  assert.equal(requestsOf(messages, "logging/setLevel").length, 0, "logging/setLevel does not exist in this revision");
  const levels = messages.filter((m) => "id" in m).map((m) => [m.method, metaOf(m)[LOG_LEVEL]]);
  assert.deepEqual(levels, [
    ["server/discover", undefined],
    ["tools/call", "info"],
    ["tools/call", "debug"],
  ]);
  // Log messages are request-scoped: never stamped with a subscription id.
  for (const n of received(wire).filter((m) => m.method === "notifications/message")) assert.equal(n.params?._meta, undefined);
});

test("V7: modern era without a level: the server sends no log messages at all", { timeout: 30_000 }, async () => {
  const entries: ServerLogEntry[] = [];
  const { client, out } = await connectDual({ onServerLog: (e) => entries.push(e) });
  await using(client, async () => {
    assert.equal(client.era, "modern");
    await client.callTool("log", { message: "quiet" });
    await settle(100);
  });
  assert.deepEqual(entries, []);
  const wire = readWire(out);
  assert.ok(sent(wire).every((m) => !("id" in m) || metaOf(m)[LOG_LEVEL] === undefined));
  assert.equal(received(wire).filter((m) => m.method === "notifications/message").length, 0);
});

test("V7: modern era over HTTP: log messages arrive on the call's own response stream", { timeout: 30_000 }, async () => {
  const server = await startDualHttp();
  try {
    const entries: ServerLogEntry[] = [];
    await using(await connectHttp(server.url, { logLevel: "warning", onServerLog: (e) => entries.push(e) }), async (client) => {
      await client.callTool("log", { message: "below the level" });
      await client.setLogLevel("info");
      await client.callTool("log", { message: "at the level" });
    });
    // Delivered before the call's result, on its stream: nothing to wait for.
    assert.deepEqual(entries, [{ level: "info", logger: "dual", data: "at the level" }]);
    const calls = posts(server.requests).filter((p) => p.body.method === "tools/call");
    assert.deepEqual(calls.map((c) => metaOf(c.body)[LOG_LEVEL]), ["warning", "info"]);
  } finally {
    await server.close();
  }
});
