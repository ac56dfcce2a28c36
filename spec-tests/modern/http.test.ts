// V2 over Streamable HTTP against the dual-era server of the official SDK v2
// packages (createMcpHandler), on 127.0.0.1: the modern headers on every POST,
// `_meta` in every body, x-mcp-header parameters mirrored as Mcp-Param-*, and
// input_required retries as new POSTs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { JsonRpcError } from "../../src/errors.js";
import { captureLogs, rejection } from "../helpers/clients.js";
import { assertModernRequests, connectDual, connectHttp, MODERN, posts, startDualHttp, textOf, using, type DualHttp } from "./support.js";

async function withDual<T>(options: { badHeaderTool?: boolean }, body: (server: DualHttp) => Promise<T>): Promise<T> {
  const server = await startDualHttp(options);
  try {
    return await body(server);
  } finally {
    await server.close();
  }
}

// Which body field Mcp-Name mirrors, per method (spec 2026-07-28 "Standard Request Headers").
const NAME_OF: Record<string, string> = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri" };

test("V2: a dual-era server over HTTP is spoken to in the modern era, with MCP-Protocol-Version, Mcp-Method and Mcp-Name on every POST", { timeout: 30_000 }, async () => {
  await withDual({}, async (server) => {
    await using(await connectHttp(server.url), async (client) => {
      assert.equal(client.era, "modern");
      assert.equal(client.protocolVersion, MODERN);
      assert.deepEqual(client.serverInfo, { name: "yada-dual-fixture", version: "2.4.0-fixture" });
      assert.ok((await client.listTools()).some((t) => t.name === "add"));
      assert.deepEqual((await client.callTool("add", { a: 20, b: 22 })).structuredContent, { sum: 42 });
      assert.equal((await client.readResource("dual://readme"))[0]?.uri, "dual://readme");
      assert.equal((await client.getPrompt("welcome", { name: "Bo" })).messages.length, 1);
    });
    const all = posts(server.requests);
    assert.deepEqual(
      all.map((p) => p.body.method),
      ["server/discover", "tools/list", "tools/call", "resources/read", "prompts/get"],
    );
    assert.ok(server.requests.every((r) => r.method === "POST"), "no GET stream and no DELETE in this revision");
    for (const { headers, body } of all) {
      const method = body.method ?? "";
      assert.equal(headers["mcp-protocol-version"], MODERN, method);
      assert.equal(headers["mcp-method"], method);
      const field = NAME_OF[method];
      assert.equal(headers["mcp-name"], field === undefined ? undefined : body.params?.[field], `Mcp-Name of ${method}`);
      assert.equal(headers["mcp-session-id"], undefined, "no session in this revision");
      assert.match(headers.accept ?? "", /application\/json/);
      assert.match(headers.accept ?? "", /text\/event-stream/);
    }
    assertModernRequests(all.map((p) => p.body));
  });
});

test("V2: an x-mcp-header parameter is mirrored as Mcp-Param-Region, base64-encoded when it is not plain ASCII", { timeout: 30_000 }, async () => {
  await withDual({}, async (server) => {
    await using(await connectHttp(server.url), async (client) => {
      await client.listTools();
      // The server checks each Mcp-Param-* header against the arguments (-32020 on a mismatch).
      const plain = await client.callTool("where", { region: "us-west1", query: "q" });
      assert.deepEqual(plain.structuredContent, { region: "us-west1", header: "us-west1", query: "q" });
      const unicode = await client.callTool("where", { region: "Zürich", query: "q" });
      assert.equal((unicode.structuredContent as { header: string }).header, `=?base64?${Buffer.from("Zürich").toString("base64")}?=`);
      const absent = await client.callTool("where", { query: "q" });
      assert.equal((absent.structuredContent as { header: string }).header, "none");
    });
    const calls = posts(server.requests).filter((p) => p.body.method === "tools/call");
    assert.deepEqual(
      calls.map((c) => c.headers["mcp-param-region"]),
      ["us-west1", "=?base64?WsO8cmljaA==?=", undefined],
    );
  });
});

test("V2: over HTTP a tool whose x-mcp-header declaration is invalid is left out of listTools, with a warning; over stdio it stays", { timeout: 30_000 }, async () => {
  await withDual({ badHeaderTool: true }, async (server) => {
    const { logs, logger } = captureLogs();
    await using(await connectHttp(server.url, { logger }), async (client) => {
      const names = (await client.listTools()).map((t) => t.name);
      assert.ok(!names.includes("bad-header"), names.join(", "));
      assert.ok(names.includes("where"), "the other tools stay usable");
      const warning = logs.find((l) => l.level === "warn" && l.data?.tool === "bad-header");
      assert.ok(warning, JSON.stringify(logs));
      assert.match(String(warning.data?.reason), /number|string, integer or boolean/);
    });
  });
  // The same server lists the tool over stdio, which has no headers: there the
  // annotation may be ignored, and the tool is kept.
  const { client } = await connectDual({}, ["--bad-header-tool"]);
  await using(client, async () => assert.ok((await client.listTools()).some((t) => t.name === "bad-header")));
});

test("V2: over HTTP an input_required answer is retried as a new POST with its headers, inputResponses and the exact requestState", { timeout: 30_000 }, async () => {
  await withDual({}, async (server) => {
    let state: unknown;
    const client = await connectHttp(server.url, {
      handlers: { elicitation: { form: async () => ({ action: "accept", content: { name: "Grace", excited: true } }) } },
    });
    await using(client, async () => {
      const r = await client.callTool("greet", {});
      assert.equal(textOf(r), "Hello, Grace!");
      state = (r.structuredContent as { state: string }).state;
    });
    const calls = posts(server.requests).filter((p) => p.body.method === "tools/call");
    assert.equal(calls.length, 2);
    const [first, retry] = calls;
    assert.ok(first && retry);
    assert.notEqual(retry.body.id, first.body.id);
    assert.equal(first.body.params?.requestState, undefined);
    assert.equal(retry.body.params?.requestState, state, "the state the server minted came back unchanged");
    assert.deepEqual(retry.body.params?.inputResponses, { name: { action: "accept", content: { name: "Grace", excited: true } } });
    for (const c of calls) {
      assert.equal(c.headers["mcp-name"], "greet");
      assert.equal(c.headers["mcp-method"], "tools/call");
      assert.equal(c.headers["mcp-protocol-version"], MODERN);
    }
    assertModernRequests(calls.map((c) => c.body), { elicitation: { form: {} } });
  });
});

test("V2: a call made before the tools were listed, answered -32020 for a missing Mcp-Param header, re-lists the tools and succeeds", { timeout: 30_000 }, async () => {
  await withDual({}, async (server) => {
    await using(await connectHttp(server.url), async (client) => {
      const r = await client.callTool("where", { region: "ap-south", query: "q" });
      assert.deepEqual(r.structuredContent, { region: "ap-south", header: "ap-south", query: "q" });
      // Known now: the next call carries the header at once.
      await client.callTool("where", { region: "ap-east", query: "q" });
    });
    const steps = posts(server.requests)
      .filter((p) => p.body.method !== "server/discover")
      .map((p) => [p.body.method, p.headers["mcp-param-region"]]);
    assert.deepEqual(steps, [
      ["tools/call", undefined],
      ["tools/list", undefined],
      ["tools/call", "ap-south"],
      ["tools/call", "ap-east"],
    ]);
  });
});

test("V2: Mcp-Name carries a name that is not plain ASCII in the base64 form the server decodes", { timeout: 30_000 }, async () => {
  await withDual({}, async (server) => {
    await using(await connectHttp(server.url), async (client) => {
      // The header passes the server's check (else -32020), so the read fails on the missing resource instead.
      const e = await rejection(client.readResource("dual://café"));
      assert.ok(e instanceof JsonRpcError, String(e));
      assert.equal(e.rpcCode, -32602, e.message);
    });
    const read = posts(server.requests).find((p) => p.body.method === "resources/read");
    assert.equal(read?.headers["mcp-name"], `=?base64?${Buffer.from("dual://café").toString("base64")}?=`);
  });
});
