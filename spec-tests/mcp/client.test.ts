import { test } from "node:test";
import assert from "node:assert/strict";
import { McpClient } from "../../src/node/client.js";
import { ProtocolError, UnsupportedVersionError } from "../../src/errors.js";
import type { EmbeddedResource, ImageContent, ResourceLink, TextContent } from "../../src/mcp/types.js";
import { connectFixture, rejection } from "../helpers/clients.js";
import { fixtureServer } from "../helpers/paths.js";

const catalog = fixtureServer("catalog/stdio.mjs");

test("V1: the client asks for 2025-11-25 and accepts each older legacy revision", async () => {
  for (const version of ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]) {
    const { client } = await connectFixture("echo.mjs", ["--version", version]);
    assert.equal(client.protocolVersion, version);
    await client.close();
  }
});

test("V1: a revision the client does not speak fails the connect with a clear error and closes it", async () => {
  const e = await rejection(connectFixture("echo.mjs", ["--version", "1999-01-01"]));
  assert.ok(e instanceof UnsupportedVersionError);
  assert.equal(e.code, "unsupported_version");
  assert.equal(e.offered, "1999-01-01");
  assert.match(e.message, /'1999-01-01'.*2025-11-25/);
});

test("V3: tools/list follows nextCursor across pages", async () => {
  const paged = await McpClient.connectStdio("node", [catalog, "--tools-page-size", "2"]);
  const single = await McpClient.connectStdio("node", [catalog]);
  try {
    const a = (await paged.listTools()).map((t) => t.name);
    const b = (await single.listTools()).map((t) => t.name);
    assert.deepEqual(a, b);
    assert.ok(a.length >= 8, `only ${a.length} tools`);
  } finally {
    await paged.close();
    await single.close();
  }
});

test("V3: a repeated cursor is an error, not an endless loop", async () => {
  const client = await McpClient.connectStdio("node", [catalog, "--tools-page-size", "2", "--repeat-cursor"]);
  try {
    const e = await rejection(client.listTools());
    assert.ok(e instanceof ProtocolError);
    assert.match(e.message, /repeated a cursor/);
  } finally {
    await client.close();
  }
});

test("V3: resources, templates and prompts follow their cursors too", async () => {
  const client = await McpClient.connectStdio("node", [catalog]);
  try {
    const resources = await client.listResources();
    assert.ok(resources.length >= 4, `${resources.length} resources`);
    assert.ok(resources.every((r) => typeof r.uri === "string" && typeof r.name === "string"));
    const page = await client.listResourcesPage();
    assert.ok(page.resources.length < resources.length && typeof page.nextCursor === "string");
    assert.ok((await client.listResourceTemplates()).length >= 1);
    const prompts = await client.listPrompts();
    assert.ok(prompts.some((p) => p.name === "summarize"));
    const first = resources[0];
    assert.ok(first);
    const contents = await client.readResource(first.uri);
    assert.equal(contents[0]?.uri, first.uri);
    const prompt = await client.getPrompt("summarize", { sku: "ABC-123" });
    assert.ok(prompt.messages.length >= 1);
  } finally {
    await client.close();
  }
});

test("V4: tools/call returns every content kind of the content model", async () => {
  const client = await McpClient.connectStdio("node", [catalog]);
  try {
    const r = await client.callTool("mixed", {});
    const kinds: string[] = r.content.map((c) => c.type);
    for (const k of ["text", "image", "audio", "resource", "resource_link"]) assert.ok(kinds.includes(k), `missing ${k}`);
    const image = r.content.find((c) => c.type === "image") as ImageContent;
    assert.equal(typeof image.data, "string");
    assert.match(image.mimeType, /^image\//);
    const resources = r.content.filter((c) => c.type === "resource") as EmbeddedResource[];
    assert.ok(resources.some((c) => "text" in c.resource) && resources.some((c) => "blob" in c.resource));
    const link = r.content.find((c) => c.type === "resource_link") as ResourceLink;
    assert.ok(link.uri && link.name);
    // An unknown kind is kept as received (T16 renders it).
    assert.ok(r.content.some((c) => c.type === "unknown" && c.kind === "hologram" && c.block.type === "hologram"));
    assert.equal(r.isError, false);
    const structured = await client.callTool("search", { query: "" });
    assert.equal(typeof structured.structuredContent, "object");
    const failed = await client.callTool("fail", {});
    assert.equal(failed.isError, true);
    assert.equal((failed.content[0] as TextContent).type, "text");
  } finally {
    await client.close();
  }
});

test("V4: a result that breaks the content model is a protocol error", async () => {
  const { inlineServer } = await import("../helpers/clients.js");
  const client = await McpClient.connectStdio(
    "node",
    inlineServer("(m) => m.params.name === 'a' ? { content: 'not an array' } : m.params.name === 'b' ? { content: [{ type: 'image', data: 1 }] } : { content: [], isError: 'yes' }"),
  );
  try {
    for (const name of ["a", "b", "c"]) {
      const e = await rejection(client.callTool(name, {}));
      assert.ok(e instanceof ProtocolError, `${name}: ${e.message}`);
    }
  } finally {
    await client.close();
  }
});

test("T15: the low-level API: connectStdio, listTools, callTool, withCallTimeout, ping, close", async () => {
  const client = await McpClient.connectStdio("node", [fixtureServer("echo.mjs")]);
  const tools = await client.listTools();
  assert.ok(tools.some((t) => t.name === "echo" && typeof t.inputSchema === "object"));
  const r = await client.withCallTimeout(5_000).callTool("echo", { text: "hi" });
  assert.equal((r.content[0] as TextContent).text, "hi");
  await client.ping();
  assert.equal(client.serverInfo.name.length > 0, true);
  await client.close();
  assert.equal(client.isClosed, true);
  assert.equal((await rejection(client.callTool("echo", { text: "x" }))).code, "connection_closed");
});

test("V2: a server remembered as legacy that answers initialize like a modern one is probed again", async () => {
  // One script, two behaviours chosen by MODE (the environment is not part of the server's key):
  // legacy answers the probe -32601; modern-only answers initialize -32022 and discover with a result.
  const script = `
const rl = require("readline").createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
rl.on("line", (l) => {
  const m = JSON.parse(l);
  if (m.id === undefined) return;
  const modern = process.env.MODE === "modern";
  if (m.method === "server/discover") {
    if (!modern) return send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
    return send({ jsonrpc: "2.0", id: m.id, result: { resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, ttlMs: 0, cacheScope: "private", _meta: { "io.modelcontextprotocol/serverInfo": { name: "m", version: "2" } } } });
  }
  if (m.method === "initialize") {
    if (modern) return send({ jsonrpc: "2.0", id: m.id, error: { code: -32022, message: "Unsupported protocol version", data: { supported: ["2026-07-28"], requested: "2025-11-25" } } });
    return send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "l", version: "1" } } });
  }
  send({ jsonrpc: "2.0", id: m.id, result: { tools: [], resultType: "complete" } });
});`;
  const first = await McpClient.connectStdio("node", ["-e", script], { MODE: "legacy" });
  assert.equal(first.era, "legacy");
  await first.close();
  const second = await McpClient.connectStdio("node", ["-e", script], { MODE: "modern" });
  try {
    assert.equal(second.era, "modern");
    assert.equal(second.serverInfo.name, "m");
  } finally {
    await second.close();
  }
});
