// V2: how the era and revision are settled. A modern error (-32022) is answered by
// one retry with a revision the server names, never by falling back; any other
// answer to the probe, or none, means a legacy server (stdio and HTTP alike).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { JsonRpcError, UnsupportedVersionError } from "../../src/errors.js";
import { fixtureServer } from "../helpers/paths.js";
import { rejection } from "../helpers/clients.js";
import { connectHttp, connectRecorded, MODERN, metaOf, readWire, requestsOf, sent, transcriptPath, using, type Message } from "./support.js";

type CatalogHttpModule = typeof import("../../fixtures/servers/catalog/http.mjs");
const { startCatalogHttp } = (await import(pathToFileURL(fixtureServer("catalog/http.mjs")).href)) as CatalogHttpModule;

// A hand-written stdio server whose answers to the probe are chosen by `mode`
// (its only argument). Every other request gets an empty list or an empty result.
const script = `
const mode = process.argv[1];
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
const rejectVersion = (id, requested, supported) =>
  send({ jsonrpc: "2.0", id, error: { code: -32022, message: "Unsupported protocol version", data: { supported, requested } } });
const discovered = (id) => send({ jsonrpc: "2.0", id, result: {
  resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, ttlMs: 0, cacheScope: "public",
  _meta: { "io.modelcontextprotocol/serverInfo": { name: "hand-written", version: "1" } } } });
let discovers = 0, lists = 0;
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined || m.method === undefined) return;
  const requested = m.params?._meta?.["io.modelcontextprotocol/protocolVersion"] ?? "none";
  if (m.method === "server/discover") {
    discovers++;
    if (mode === "reject-once") return discovers === 1 ? rejectVersion(m.id, requested, ["2026-07-28"]) : discovered(m.id);
    if (mode === "reject-always") return rejectVersion(m.id, requested, ["2026-07-28"]);
    if (mode === "legacy-only") return rejectVersion(m.id, requested, ["2025-06-18"]);
    if (mode === "none-shared") return rejectVersion(m.id, requested, ["2099-01-01"]);
    if (mode === "missing-capability") return send({ jsonrpc: "2.0", id: m.id, error: { code: -32021, message: "needs elicitation", data: { requiredCapabilities: { elicitation: {} } } } });
    if (mode === "silent") return;
    if (mode === "not-discover") return send({ jsonrpc: "2.0", id: m.id, result: {} });
    return discovered(m.id);
  }
  if (m.method === "initialize") return send({ jsonrpc: "2.0", id: m.id, result: {
    protocolVersion: mode === "legacy-only" ? "2025-06-18" : "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "hand-written", version: "1" } } });
  if (m.method === "tools/list") {
    lists++;
    if (mode === "reject-list-once" && lists === 1) return rejectVersion(m.id, requested, ["2026-07-28"]);
    return send({ jsonrpc: "2.0", id: m.id, result: { tools: [], ttlMs: 0, cacheScope: "public" } });
  }
  send({ jsonrpc: "2.0", id: m.id, result: {} });
});`;
const handWritten = (mode: string): string[] => ["node", "-e", script, mode];

test("V2: -32022 to the probe is answered by one retry with a new id and a revision the server names, not by falling back", { timeout: 30_000 }, async () => {
  const { client, out } = await connectRecorded(handWritten("reject-once"));
  await using(client, async () => {
    assert.equal(client.era, "modern");
    assert.equal(client.protocolVersion, MODERN);
    assert.deepEqual(client.serverInfo, { name: "hand-written", version: "1" });
  });
  const messages = sent(readWire(out));
  const probes = requestsOf(messages, "server/discover");
  assert.equal(probes.length, 2);
  assert.notEqual(probes[0]?.id, probes[1]?.id);
  for (const p of probes) assert.equal(metaOf(p)["io.modelcontextprotocol/protocolVersion"], MODERN);
  assert.equal(requestsOf(messages, "initialize").length, 0, "a modern error is never a reason to fall back");
});

test("V2: a server that keeps answering -32022 gets exactly one retry, then a clear error", { timeout: 30_000 }, async () => {
  const out = transcriptPath();
  const e = await rejection(connectRecorded(handWritten("reject-always"), {}, out));
  assert.ok(e instanceof UnsupportedVersionError, String(e));
  const messages = sent(readWire(out));
  assert.equal(requestsOf(messages, "server/discover").length, 2);
  assert.equal(requestsOf(messages, "initialize").length, 0);
});

test("V2: -32022 naming no revision the client speaks fails the connect without initialize", { timeout: 30_000 }, async () => {
  const out = transcriptPath();
  const e = await rejection(connectRecorded(handWritten("none-shared"), {}, out));
  assert.ok(e instanceof UnsupportedVersionError, String(e));
  assert.match(e.message, /2099-01-01/);
  const messages = sent(readWire(out));
  assert.equal(requestsOf(messages, "server/discover").length, 1);
  assert.equal(requestsOf(messages, "initialize").length, 0);
});

test("V2: -32022 naming only a legacy revision leads to initialize, and that revision is used", { timeout: 30_000 }, async () => {
  const { client, out } = await connectRecorded(handWritten("legacy-only"));
  await using(client, async () => {
    assert.equal(client.era, "legacy");
    assert.equal(client.protocolVersion, "2025-06-18");
  });
  const methods = sent(readWire(out)).map((m) => m.method);
  assert.deepEqual(methods.slice(0, 3), ["server/discover", "initialize", "notifications/initialized"]);
});

test("V2: another modern error to the probe (-32021) is surfaced, not taken for a legacy server", { timeout: 30_000 }, async () => {
  const out = transcriptPath();
  const e = await rejection(connectRecorded(handWritten("missing-capability"), {}, out));
  assert.ok(e instanceof JsonRpcError && e.rpcCode === -32021, String(e));
  assert.equal(requestsOf(sent(readWire(out)), "initialize").length, 0);
});

test("V2: -32022 to a later request is retried once with a new id, and the request succeeds", { timeout: 30_000 }, async () => {
  const { client, out } = await connectRecorded(handWritten("reject-list-once"));
  await using(client, async () => {
    assert.equal(client.era, "modern");
    assert.deepEqual(await client.listTools(), []);
  });
  const lists = requestsOf(sent(readWire(out)), "tools/list");
  assert.equal(lists.length, 2);
  assert.notEqual(lists[0]?.id, lists[1]?.id);
});

test("V2: a probe answered with something that is not a discover result falls back to initialize", { timeout: 30_000 }, async () => {
  const { client, out } = await connectRecorded(handWritten("not-discover"));
  await using(client, async () => assert.equal(client.era, "legacy"));
  const methods = sent(readWire(out)).map((m) => m.method);
  assert.deepEqual(methods.slice(0, 2), ["server/discover", "initialize"]);
});

test("V2: a probe left unanswered falls back to initialize after discoverTimeoutMs", { timeout: 30_000 }, async () => {
  const started = Date.now();
  const { client, out } = await connectRecorded(handWritten("silent"), { discoverTimeoutMs: 300 });
  const took = Date.now() - started;
  await using(client, async () => {
    assert.equal(client.era, "legacy");
    assert.equal(client.protocolVersion, "2025-11-25");
  });
  assert.ok(took >= 300, `the probe was given its time (${took} ms)`);
  assert.ok(took < 10_000, `the fallback did not wait for the handshake bound (${took} ms)`);
  const messages = sent(readWire(out));
  const probe = requestsOf(messages, "server/discover")[0];
  assert.ok(probe);
  assert.equal(requestsOf(messages, "initialize").length, 1);
  // The abandoned probe is cancelled, so a slow legacy server can drop it.
  const cancelled = messages.find((m) => m.method === "notifications/cancelled");
  assert.equal(cancelled?.params?.requestId, probe.id);
});

// ── HTTP ─────────────────────────────────────────────────────────────────────────

interface Probed {
  url: string;
  bodies: Message[];
  headers: Record<string, string | undefined>[];
  close(): Promise<void>;
}

/**
 * A hand-written HTTP server: `discover` decides how server/discover is answered
 * (write a response, or return "hold" to never answer); initialize gets a legacy
 * answer; tools/list an empty list; notifications 202; anything but POST 405.
 */
async function handWrittenHttp(discover: (res: ServerResponse, m: Message, count: number) => "hold" | void): Promise<Probed> {
  const bodies: Message[] = [];
  const headers: Record<string, string | undefined>[] = [];
  let discovers = 0;
  const server = createServer(async (req, res) => {
    if (req.method !== "POST") return void res.writeHead(405).end(); // no GET stream
    let text = "";
    for await (const chunk of req) text += String(chunk);
    const m = JSON.parse(text) as Message;
    bodies.push(m);
    headers.push(req.headers as Record<string, string | undefined>);
    const json = (status: number, value: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
    if (m.method === "server/discover") {
      discover(res, m, ++discovers);
      return;
    }
    if (m.id === undefined) return void res.writeHead(202).end();
    if (m.method === "initialize") {
      return json(200, { jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "hand-written", version: "1" } } });
    }
    if (m.method === "tools/list") return json(200, { jsonrpc: "2.0", id: m.id, result: { tools: [] } });
    json(200, { jsonrpc: "2.0", id: m.id, result: {} });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    bodies,
    headers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

test("V2: over HTTP a legacy server's refusal of the probe (400 without a modern error) falls back to initialize", { timeout: 30_000 }, async () => {
  const catalog = await startCatalogHttp();
  try {
    await using(await connectHttp(catalog.url), async (client) => {
      assert.equal(client.era, "legacy");
      assert.ok((await client.listTools()).length > 0);
    });
    const [probe, init, ...rest] = catalog.requests;
    assert.equal(probe?.rpcMethod, "server/discover");
    assert.equal(probe?.headers["mcp-protocol-version"], MODERN);
    assert.equal(probe?.headers["mcp-method"], "server/discover");
    assert.equal(init?.rpcMethod, "initialize");
    assert.equal(init?.headers["mcp-protocol-version"], undefined, "the legacy initialize carries no version header");
    assert.equal(init?.headers["mcp-method"], undefined, "nor the modern headers");
    for (const r of rest.filter((x) => x.method === "POST")) {
      assert.equal(r.headers["mcp-protocol-version"], "2025-11-25");
      assert.equal(r.headers["mcp-method"], undefined);
    }
    // The origin and path name the server: it is remembered as legacy.
    const seen = catalog.requests.length;
    await using(await connectHttp(catalog.url), async (client) => assert.equal(client.era, "legacy"));
    assert.equal(catalog.requests[seen]?.rpcMethod, "initialize", "no second probe");
    assert.ok(!catalog.requests.slice(seen).some((r) => r.rpcMethod === "server/discover"));
  } finally {
    await catalog.close();
  }
});

test("V2: over HTTP a probe left unanswered falls back to initialize after discoverTimeoutMs", { timeout: 30_000 }, async () => {
  const server = await handWrittenHttp(() => "hold");
  try {
    const started = Date.now();
    await using(await connectHttp(server.url, { discoverTimeoutMs: 300 }), async (client) => {
      assert.equal(client.era, "legacy");
      assert.ok(Date.now() - started >= 300);
      assert.deepEqual(await client.listTools(), []);
    });
    // The aborted POST is the probe's cancellation: nothing reaches the server before initialize.
    assert.deepEqual(server.bodies.map((b) => b.method).slice(0, 3), ["server/discover", "initialize", "notifications/initialized"]);
  } finally {
    await server.close();
  }
});

test("V2: over HTTP a 400 carrying -32022 is a modern answer: one retry with a new id, no fallback", { timeout: 30_000 }, async () => {
  const server = await handWrittenHttp((res, m, count) => {
    const body =
      count === 1
        ? { jsonrpc: "2.0", id: m.id, error: { code: -32022, message: "Unsupported protocol version", data: { supported: [MODERN], requested: "x" } } }
        : {
            jsonrpc: "2.0",
            id: m.id,
            result: { resultType: "complete", supportedVersions: [MODERN], capabilities: { tools: {} }, ttlMs: 0, cacheScope: "public", _meta: { "io.modelcontextprotocol/serverInfo": { name: "hand-written", version: "2" } } },
          };
    res.writeHead(count === 1 ? 400 : 200, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  try {
    await using(await connectHttp(server.url), async (client) => {
      assert.equal(client.era, "modern");
      assert.deepEqual(client.serverInfo, { name: "hand-written", version: "2" });
      assert.deepEqual(await client.listTools(), []);
    });
    const methods = server.bodies.map((b) => b.method);
    assert.deepEqual(methods, ["server/discover", "server/discover", "tools/list"]);
    assert.notEqual(server.bodies[0]?.id, server.bodies[1]?.id);
    for (const h of server.headers) assert.equal(h["mcp-protocol-version"], MODERN);
  } finally {
    await server.close();
  }
});
