// T15/T16: mcpTools wraps a client's tools as plain read tools that execute
// directly; rendering follows seed 000 (a text resource as its text, other kinds
// as JSON with base64 sizes; isError → an is_error result). Against the catalog
// and server-everything over stdio.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MAX_TOOL_RESULT_BYTES } from "../../src/limits.js";
import { McpClient } from "../../src/node/client.js";
import { mcpTools } from "../../src/tools/adapter.js";
import type { ReadTool } from "../../src/tools/types.js";
import { fixtureServer } from "../helpers/paths.js";
import { alice, bytes, everything, T, textOf } from "./helpers.js";

async function withClient(args: string[], fn: (client: McpClient) => Promise<void>): Promise<void> {
  const client = await McpClient.connectStdio(process.execPath, args);
  try {
    await fn(client);
  } finally {
    await client.close();
  }
}
const catalog = [fixtureServer("catalog/stdio.mjs")];
const byName = (tools: readonly ReadTool[], name: string): ReadTool => {
  const t = tools.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name}`);
  return t;
};

describe("T15: mcpTools", { concurrency: true }, () => {
  test("T15: every listed tool becomes a read tool with the server's name, description and schema", T, () =>
    withClient(catalog, async (client) => {
      const listed = await client.listTools();
      const tools = await mcpTools(client);
      assert.deepEqual(tools.map((t) => t.name), listed.map((t) => t.name));
      const lookup = byName(tools, "lookup");
      assert.equal(lookup.effect, "read");
      assert.equal(lookup.description, "Look up a product by SKU: name, price and availability.");
      assert.deepEqual(lookup.inputSchema, listed.find((t) => t.name === "lookup")?.inputSchema);
      assert.match(textOf(await lookup.execute({ sku: "ABC-123" }, { identity: alice })), /Widget/);
    }),
  );

  test("T15: the adapter executes directly, mutating tools included (the host takes responsibility)", T, () =>
    withClient(catalog, async (client) => {
      const tools = await mcpTools(client);
      const rename = byName(tools, "rename");
      assert.equal(textOf(await rename.execute({ sku: "ABC-123", name: "Widget 2" }, { identity: alice })), "Renamed ABC-123 from Widget to Widget 2");
    }),
  );

  test("T15: a remote isError comes back as an is_error result with its text", T, () =>
    withClient(catalog, async (client) => {
      const result = await byName(await mcpTools(client), "lookup").execute({ sku: "ZZZ-999" }, { identity: alice });
      assert.deepEqual(result, { content: [{ type: "text", text: "Unknown SKU: ZZZ-999" }], isError: true });
    }),
  );

  test("T15: a server error is an error result, not a throw (the model can react)", T, () =>
    withClient(catalog, async (client) => {
      const result = await byName(await mcpTools(client), "lookup").execute({ sku: "bad" }, { identity: alice });
      assert.equal(result.isError, true);
      assert.equal(JSON.parse(textOf(result)).error, "jsonrpc");
    }),
  );

  test("T15: results stay bounded to 32,000 UTF-8 bytes", T, () =>
    withClient(catalog, async (client) => {
      const text = textOf(await byName(await mcpTools(client), "report").execute({}, { identity: alice }));
      assert.ok(bytes(text) <= MAX_TOOL_RESULT_BYTES);
    }),
  );

  test("T15: a call timeout bounds each call", T, () =>
    withClient(catalog, async (client) => {
      const slow = byName(await mcpTools(client, { timeoutMs: 200 }), "slow");
      assert.equal(JSON.parse(textOf(await slow.execute({ ms: 5_000 }, { identity: alice }))).error, "timeout");
    }),
  );

  test("T15: a prefix names tools prefix__tool", T, () =>
    withClient(catalog, async (client) => {
      const tools = await mcpTools(client, { prefix: "cat" });
      assert.ok(tools.every((t) => t.name.startsWith("cat__")));
    }),
  );

  test("T15: server-everything's tools are wrapped and callable", T, async () => {
    const config = everything();
    await withClient([...(config.args ?? [])], async (client) => {
      const tools = await mcpTools(client);
      assert.match(textOf(await byName(tools, "echo").execute({ message: "hi there" }, { identity: alice })), /hi there/);
    });
  });
});

describe("T16: the adapter's rendering", { concurrency: true }, () => {
  test("T16: a text resource reads as its text; audio, a blob resource, a link and an unknown kind as JSON with sizes", T, () =>
    withClient(catalog, async (client) => {
      const result = await byName(await mcpTools(client), "mixed").execute({}, { identity: alice });
      const lines = textOf(result).split("\n");
      assert.equal(lines[0], "Here is everything.");
      const json = (line: string | undefined) => JSON.parse(line ?? "") as Record<string, unknown>;
      // The sizes, measured independently on the raw result.
      const raw = (await client.callTool("mixed", {})).content as unknown as Array<Record<string, unknown>>;
      const size = (b64: unknown) => `[base64: ${Buffer.from(String(b64), "base64").length} bytes]`;
      const blob = (raw[4]?.resource as Record<string, unknown>).blob;
      assert.deepEqual(json(lines[1]), { type: "audio", data: size(raw[2]?.data), mimeType: "audio/wav" });
      assert.equal(lines[2], "The catalog lists products by SKU (three letters, a dash, three digits).");
      assert.equal(lines[3], "", "the resource's own trailing newline");
      assert.deepEqual(json(lines[4]), { type: "resource", resource: { uri: "catalog://images/logo.png", blob: size(blob), mimeType: "image/png" } });
      assert.equal(json(lines[5]).type, "resource_link");
      assert.deepEqual(json(lines[6]), { type: "hologram", data: "[base64: 2250 bytes]" });
      assert.equal(result.content.filter((p) => p.type === "image").length, 1);
    }),
  );
});
