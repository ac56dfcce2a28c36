// V5: list changes reach `onListChanged` listeners through one API in both eras:
// plain notifications in the legacy era, a `subscriptions/listen` request in the
// modern one (stdio and HTTP), told apart by its subscription id.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ListKind, McpClient } from "../../src/mcp/client.js";
import { waitFor } from "../helpers/clients.js";
import { assertModernRequests, catalogScript, connectDual, connectHttp, connectRecorded, posts, readWire, received, requestsOf, sent, startDualHttp, using } from "./support.js";

const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

function acknowledged(client: McpClient): Promise<Record<string, unknown> | undefined> {
  return new Promise((resolve) => {
    const off = client.onNotification((method, params) => {
      if (method !== "notifications/subscriptions/acknowledged") return;
      off();
      resolve(params);
    });
  });
}

test("V5: in the legacy era list_changed notifications reach onListChanged (catalog fixture and the dual server)", { timeout: 30_000 }, async () => {
  const catalog = await connectRecorded(["node", catalogScript]);
  await using(catalog.client, async (client) => {
    assert.equal(client.era, "legacy");
    const kinds: ListKind[] = [];
    client.onListChanged((k) => kinds.push(k));
    await client.callTool("touch", { mode: "same" });
    await waitFor(() => kinds.includes("tools"));
  });
  const dual = await connectDual({ era: "legacy" });
  await using(dual.client, async (client) => {
    assert.equal(client.era, "legacy");
    const kinds: ListKind[] = [];
    client.onListChanged((k) => kinds.push(k));
    await client.callTool("touch", {});
    await waitFor(() => kinds.includes("tools"));
  });
  const messages = sent(readWire(dual.out));
  assert.equal(requestsOf(messages, "subscriptions/listen").length, 0, "no listen request in the legacy era");
});

test("V5: in the modern era over stdio onListChanged listens with subscriptions/listen; notifications carry its id; the last listener gone, the subscription is cancelled", { timeout: 30_000 }, async () => {
  const { client, out } = await connectDual();
  await using(client, async () => {
    assert.equal(client.era, "modern");
    const kinds: ListKind[] = [];
    const ack = acknowledged(client);
    const off = client.onListChanged((k) => kinds.push(k));
    const honored = await ack;
    assert.deepEqual(honored?.notifications, { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true });
    await client.callTool("touch", {});
    await waitFor(() => kinds.includes("tools"));
    off();
    await settle(100);
    await client.callTool("touch", {});
    await settle(200);
    assert.deepEqual(kinds, ["tools"], "no delivery after the last listener is removed");
  });
  const wire = readWire(out);
  const listen = requestsOf(sent(wire), "subscriptions/listen");
  assert.equal(listen.length, 1);
  const id = listen[0]?.id;
  assert.deepEqual(listen[0]?.params?.notifications, { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true });
  assertModernRequests(sent(wire));
  const changes = received(wire).filter((m) => m.method === "notifications/tools/list_changed");
  assert.equal(changes.length, 1, "the server stopped sending once the subscription was cancelled");
  assert.equal((changes[0]?.params?._meta as Record<string, unknown>)[SUBSCRIPTION_ID], id);
  const cancelled = sent(wire).filter((m) => m.method === "notifications/cancelled");
  assert.deepEqual(cancelled.map((m) => m.params?.requestId), [id], "stdio ends a subscription with notifications/cancelled");
});

test("V5: in the modern era over HTTP the listen POST stays open as a stream and delivers list_changed", { timeout: 30_000 }, async () => {
  const server = await startDualHttp();
  try {
    await using(await connectHttp(server.url), async (client) => {
      const kinds: ListKind[] = [];
      const ack = acknowledged(client);
      const off = client.onListChanged((k) => kinds.push(k));
      await ack;
      const listen = posts(server.requests).filter((p) => p.body.method === "subscriptions/listen");
      assert.equal(listen.length, 1, "one stream, not a poll");
      assert.equal(listen[0]?.headers["mcp-method"], "subscriptions/listen");
      await client.callTool("touch", {});
      await waitFor(() => kinds.includes("tools"));
      server.notify.promptsChanged();
      await waitFor(() => kinds.includes("prompts"));
      assert.equal(listen[0]?.exchange.open, true, "the stream stays open between notifications");
      off();
      // Closing the stream is how an HTTP client ends a subscription.
      await waitFor(() => listen[0]?.exchange.open === false);
      server.notify.resourcesChanged();
      await settle(100);
      assert.deepEqual(kinds, ["tools", "prompts"]);
    });
  } finally {
    await server.close();
  }
});

// A hand-written modern stdio server: it acknowledges a listen request, then sends
// a tools change for another subscription, a resources change without any, and a
// prompts change for the one it acknowledged.
const strayServer = `
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
const SID = "io.modelcontextprotocol/subscriptionId";
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined || m.method === undefined) return;
  if (m.method === "server/discover") return send({ jsonrpc: "2.0", id: m.id, result: { resultType: "complete", supportedVersions: ["2026-07-28"],
    capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true } }, ttlMs: 0, cacheScope: "public" } });
  if (m.method === "subscriptions/listen") {
    send({ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { _meta: { [SID]: m.id }, notifications: m.params.notifications } });
    send({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: { [SID]: "someone-else" } } });
    send({ jsonrpc: "2.0", method: "notifications/resources/list_changed" });
    send({ jsonrpc: "2.0", method: "notifications/prompts/list_changed", params: { _meta: { [SID]: m.id } } });
    return;
  }
  send({ jsonrpc: "2.0", id: m.id, result: {} });
});`;

test("V5: in the modern era only notifications of the client's own subscription reach the listeners", { timeout: 30_000 }, async () => {
  const { client } = await connectRecorded(["node", "-e", strayServer]);
  await using(client, async () => {
    assert.equal(client.era, "modern");
    const kinds: ListKind[] = [];
    client.onListChanged((k) => kinds.push(k));
    await waitFor(() => kinds.length > 0);
    await settle(100);
    assert.deepEqual(kinds, ["prompts"]);
  });
});

// A hand-written modern stdio server that ends the first subscription with
// notifications/cancelled, the second with the listen result, and delivers a
// change on the third.
const endingServer = `
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
const SID = "io.modelcontextprotocol/subscriptionId";
let listens = 0;
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined || m.method === undefined) return;
  if (m.method === "server/discover") return send({ jsonrpc: "2.0", id: m.id, result: { resultType: "complete", supportedVersions: ["2026-07-28"],
    capabilities: { tools: { listChanged: true } }, ttlMs: 0, cacheScope: "public" } });
  if (m.method === "subscriptions/listen") {
    listens++;
    send({ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { _meta: { [SID]: m.id }, notifications: { toolsListChanged: true } } });
    if (listens === 1) return send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: m.id, reason: "server shutting the stream" } });
    if (listens === 2) return send({ jsonrpc: "2.0", id: m.id, result: { resultType: "complete", _meta: { [SID]: m.id } } });
    return send({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: { [SID]: m.id } } });
  }
  send({ jsonrpc: "2.0", id: m.id, result: {} });
});`;

test("V5: a subscription the server ends (notifications/cancelled or the listen result) is listened to again", { timeout: 30_000 }, async () => {
  const { client, out } = await connectRecorded(["node", "-e", endingServer]);
  await using(client, async () => {
    const kinds: ListKind[] = [];
    client.onListChanged((k) => kinds.push(k));
    await waitFor(() => kinds.length > 0, 10_000);
    assert.deepEqual(kinds, ["tools"]);
  });
  const listens = requestsOf(sent(readWire(out)), "subscriptions/listen");
  assert.equal(listens.length, 3);
  assert.equal(new Set(listens.map((l) => l.id)).size, 3, "each subscription is a new request");
});
