// R1, R3, R4, R5: full runs with the scripted provider against the example
// catalog MCP server (a real child process over stdio, through connectMcp).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { anthropicBody } from "../../src/agent/anthropic.js";
import type { ToolResultMessage } from "../../src/agent/messages.js";
import { openaiBody } from "../../src/agent/openai-chat.js";
import type { ModelRequest } from "../../src/agent/provider.js";
import { run } from "../../src/agent/run.js";
import { scripted } from "../../src/agent/scripted.js";
import { ConfigError } from "../../src/errors.js";
import { nodeReadTools } from "../../src/node/builtins/index.js";
import { connectMcp } from "../../src/node/tools.js";
import type { McpConnection } from "../../src/tools/connect.js";
import type { ConfirmTool, Identity, ReadTool } from "../../src/tools/types.js";
import { fixtureServer } from "../helpers/paths.js";
import { alice, hostTool, text } from "./support.js";

const authorized: Array<[string, string]> = [];
const connectCatalog = (name = "catalog"): Promise<McpConnection<ReadTool>> =>
  connectMcp(
    { name, command: process.execPath, args: [fixtureServer("catalog/stdio.mjs")] },
    {
      identity: alice,
      authorize: (who: Identity, tool: string) => {
        authorized.push([who.actorId, tool]);
        return true;
      },
    },
    { timeoutMs: 10_000 },
  );

/** The tool results the model saw in request `n` (0-based). */
const seenResults = (request: ModelRequest | undefined): ToolResultMessage[] =>
  (request?.messages ?? []).filter((m): m is ToolResultMessage => m.role === "tool");
const firstText = (m: ToolResultMessage | undefined): string => (m?.content[0]?.type === "text" ? m.content[0].text : "");

let catalog: McpConnection<ReadTool>;
before(async () => {
  catalog = await connectCatalog();
});
after(async () => {
  await catalog.close();
});

describe("R1: full runs against the catalog MCP server", { timeout: 30_000 }, () => {
  test("R1: the model looks up and searches the catalog in parallel, then answers from the results", async () => {
    authorized.length = 0;
    const provider = scripted([
      { text: "Let me look.", toolCalls: [{ name: "catalog__lookup", arguments: { sku: "ABC-123" } }, { name: "catalog__search", arguments: { query: "g" } }] },
      (request) => ({ text: `Found: ${seenResults(request).map(firstText).join(" | ")}` }),
    ]);
    const result = await run({ provider, tools: catalog.tools, identity: alice, input: "Find product A", system: "Use the catalog." });
    assert.equal(result.stopReason, "end");
    assert.match(result.text, /^Found: Product ABC-123: Widget, 12\.50 EUR, in stock \| /);
    assert.match(result.text, /"sku":"DEF-456","name":"Gadget"/);
    assert.deepEqual(authorized.sort(), [
      ["alice", "lookup"],
      ["alice", "search"],
    ]);
    assert.ok(provider.requests[0]?.tools.some((t) => t.name === "catalog__lookup" && t.description.includes("SKU")));
  });

  test("R4: a failing MCP tool and an unknown SKU reach the model as error results; the run goes on", async () => {
    const provider = scripted([
      { toolCalls: [{ name: "catalog__lookup", arguments: { sku: "ZZZ-999" } }, { name: "catalog__fail" }] },
      { text: "Both failed." },
    ]);
    const result = await run({ provider, tools: catalog.tools, identity: alice, input: "go" });
    assert.equal(result.stopReason, "end");
    const [unknown, fail] = seenResults(provider.requests[1]);
    assert.equal(unknown?.isError, true);
    assert.match(firstText(unknown), /tool_failed.*Unknown SKU: ZZZ-999/);
    assert.equal(fail?.isError, true);
    assert.match(firstText(fail), /Inventory backend failed/);
  });

  test("R3: image parts of an MCP result reach the provider and map to both wire formats", async () => {
    const provider = scripted([{ toolCalls: [{ name: "catalog__image" }] }, { text: "Nice pictures." }]);
    await run({ provider, tools: catalog.tools, identity: alice, input: "Show the product" });
    const request = provider.requests[1];
    const [images] = seenResults(request);
    const mimes = (images?.content ?? []).flatMap((p) => (p.type === "image" ? [p.mimeType] : []));
    assert.deepEqual(mimes, ["image/png", "image/jpeg", "image/webp", "image/gif"]);
    assert.ok(request);
    const wire = JSON.stringify(anthropicBody(request, "m", 100));
    for (const mime of mimes) assert.ok(wire.includes(`"type":"image","source":{"type":"base64","media_type":"${mime}"`), mime);
    const chat = JSON.stringify(openaiBody(request, { model: "m" }));
    for (const mime of mimes) assert.ok(chat.includes(`"url":"data:${mime};base64,`), mime);
  });

  test("R1: a mutating catalog tool stops the run with approval_required; the server is never asked to rename", async () => {
    const rename: ConfirmTool = {
      name: "catalog__rename",
      description: "Renames a product.",
      inputSchema: { type: "object", properties: { sku: { type: "string" }, name: { type: "string" } }, required: ["sku", "name"] },
      effect: "confirm",
      version: "reviewed-1",
      prepare: async () => assert.fail("prepare belongs to the approval flow"),
      execute: async () => assert.fail("execute belongs to the approval flow"),
    };
    const provider = scripted([{ toolCalls: [{ name: "catalog__rename", arguments: { sku: "ABC-123", name: "Gear" } }] }]);
    const result = await run({ provider, tools: [...catalog.tools, rename], identity: alice, input: "Rename ABC-123 to Gear" });
    assert.equal(result.stopReason, "approval_required");
    assert.deepEqual(result.proposedCalls, [{ callId: "call_1_1", toolName: "catalog__rename", effect: "confirm", arguments: { sku: "ABC-123", name: "Gear" } }]);
    const lookup = catalog.tools.find((t) => t.name === "catalog__lookup");
    const after = await lookup?.execute({ sku: "ABC-123" }, { identity: alice });
    assert.match(JSON.stringify(after?.content), /Widget/);
  });

  test("R1: tools of two connections with the same name are rejected before the first model call", async () => {
    const twin = await connectCatalog();
    try {
      const provider = scripted([{ text: "never" }]);
      await assert.rejects(run({ provider, tools: [...catalog.tools, ...twin.tools], identity: alice, input: "go" }), ConfigError);
      assert.equal(provider.requests.length, 0);
    } finally {
      await twin.close();
    }
  });

  test("R5: host read tools and Node built-ins mix with MCP tools in one run", async () => {
    const dir = await mkdtemp(join(tmpdir(), "yada-agent-"));
    try {
      await writeFile(join(dir, "notes.txt"), "ABC-123 ships on Mondays\n");
      const clock = hostTool("clock", async () => text("2025-01-06, a Monday"));
      const provider = scripted([
        {
          toolCalls: [
            { name: "catalog__lookup", arguments: { sku: "ABC-123" } },
            { name: "searchFiles", arguments: { query: "ABC-123" } },
            { name: "clock" },
          ],
        },
        (request) => ({ text: seenResults(request).map(firstText).join("\n") }),
      ]);
      const result = await run({ provider, tools: [...catalog.tools, ...nodeReadTools({ roots: [dir] }), clock], identity: alice, input: "When does A ship?" });
      assert.equal(result.text, "Product ABC-123: Widget, 12.50 EUR, in stock\nnotes.txt:1: ABC-123 ships on Mondays\n2025-01-06, a Monday");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
