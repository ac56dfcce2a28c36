// X3, pay for what you use: the web entry's connectMcp carries read tools over
// Streamable HTTP only; write and confirmed tools (mcpWrites), resource tools
// (mcpResources), task-augmented tools (taskCalls) and the HTTP+SSE fallback
// (legacySse) are modules passed in its options, and yada-mcp/node's connectMcp
// passes them all.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { connectMcp } from "../../src/tools/connect.js";
import { connectMcp as nodeConnectMcp, nodeTransportFactory } from "../../src/node/tools.js";
import { mcpWrites } from "../../src/tools/action-tools.js";
import { mcpResources } from "../../src/tools/resources.js";
import { taskCalls } from "../../src/mcp/task-module.js";
import { legacySse } from "../../src/transport/legacy-fallback.js";
import { compileSchema } from "../../src/schema/index.js";
import { compileWith } from "../../src/schema/compile.js";
import { startEverything } from "../helpers/everything.js";
import { alice, allowAll, inlineServer, T } from "./helpers.js";

// A read-only tool the server runs only as a task (V8), and a plain one.
const TASKED = inlineServer(
  "tasked",
  `(m) => m.method === "tools/list"
    ? { tools: [
        { name: "plain", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
        { name: "slow_report", inputSchema: { type: "object" }, annotations: { readOnlyHint: true }, execution: { taskSupport: "required" } },
      ] }
    : { content: [{ type: "text", text: "ran" }] }`,
);
const stdio = { transportFactory: nodeTransportFactory };

describe("X3: connectMcp's modules", () => {
  test("W1, X3: writeTools or confirmTools without { writes: mcpWrites } fail before anything starts, naming the module", async () => {
    let built = 0;
    const counting = { transportFactory: (...a: Parameters<typeof nodeTransportFactory>) => (built++, nodeTransportFactory(...a)) };
    const rename = { version: "1", prepareTool: "prepare_rename", receiptTool: "rename_receipt" };
    for (const extra of [{ writeTools: { rename } }, { confirmTools: "*" as const }, { confirmTools: ["delete"] }]) {
      await assert.rejects(connectMcp({ ...TASKED, ...extra }, { identity: alice, authorize: allowAll }, counting), (e: Error & { code?: string }) => {
        assert.equal(e.code, "config");
        assert.match(e.message, /writes: mcpWrites/);
        return true;
      });
    }
    assert.equal(built, 0, "no transport was built");
    await assert.rejects(connectMcp(TASKED, { identity: alice, authorize: allowAll }, { ...stdio, writes: {} as typeof mcpWrites }), { code: "config" });
  });

  test("T11, X3: resources: true without { resourceTools: mcpResources } fails before anything starts, naming the module; with it (or through yada-mcp/node) the two resource tools are there", T, async () => {
    let built = 0;
    const counting = { transportFactory: (...a: Parameters<typeof nodeTransportFactory>) => (built++, nodeTransportFactory(...a)) };
    for (const modules of [{}, { resourceTools: {} as typeof mcpResources }]) {
      await assert.rejects(connectMcp({ ...TASKED, resources: true }, { identity: alice, authorize: allowAll }, { ...counting, ...modules }), (e: Error & { code?: string }) => {
        assert.equal(e.code, "config");
        assert.match(e.message, /resources: true needs \{ resourceTools: mcpResources \}/);
        return true;
      });
    }
    assert.equal(built, 0, "no transport was built");
    for (const connection of [
      await connectMcp({ ...TASKED, resources: true }, { identity: alice, authorize: allowAll }, { ...stdio, resourceTools: mcpResources, tasks: taskCalls }),
      await nodeConnectMcp({ ...TASKED, resources: true }, { identity: alice, authorize: allowAll }),
    ]) {
      try {
        assert.deepEqual(connection.tools.map((t) => t.name), ["tasked__plain", "tasked__slow_report", "tasked__list_resources", "tasked__read_resource"]);
      } finally {
        await connection.close();
      }
    }
  });

  test("V8, X3: without { tasks: taskCalls } a tool that runs only as a task is left out with a warning; named in readTools it is a config error", T, async () => {
    const warnings: unknown[] = [];
    const logger = (level: string, message: string, data?: unknown): void => {
      if (level === "warn") warnings.push({ message, data });
    };
    const without = await connectMcp(TASKED, { identity: alice, authorize: allowAll }, { ...stdio, logger });
    try {
      assert.deepEqual(without.tools.map((t) => t.name), ["tasked__plain"]);
      assert.match(JSON.stringify(warnings), /slow_report.*runs only as a task/);
    } finally {
      await without.close();
    }
    await assert.rejects(connectMcp({ ...TASKED, readTools: ["slow_report"] }, { identity: alice, authorize: allowAll }, stdio), (e: Error & { code?: string }) => {
      assert.equal(e.code, "config");
      assert.match(e.message, /slow_report.*tasks: taskCalls/);
      return true;
    });
    for (const connection of [
      await connectMcp(TASKED, { identity: alice, authorize: allowAll }, { ...stdio, tasks: taskCalls }),
      await nodeConnectMcp(TASKED, { identity: alice, authorize: allowAll }),
    ]) {
      try {
        assert.deepEqual(connection.tools.map((t) => t.name), ["tasked__plain", "tasked__slow_report"]);
      } finally {
        await connection.close();
      }
    }
  });

  test("H14, X3: the HTTP+SSE fallback is the fallback option's (legacySse); without it a 2024-11-05 server is refused with its HTTP status", T, async () => {
    const server = await startEverything("sse");
    try {
      await assert.rejects(connectMcp({ name: "old", url: server.url }, { identity: alice, authorize: allowAll }), { code: "http" });
      for (const connect of [
        () => connectMcp({ name: "old", url: server.url }, { identity: alice, authorize: allowAll }, { fallback: legacySse }),
        () => nodeConnectMcp({ name: "old", url: server.url }, { identity: alice, authorize: allowAll }),
      ]) {
        const connection = await connect();
        try {
          assert.ok((await connection.prompts(alice)).length > 0, "the prompts were listed over HTTP+SSE");
        } finally {
          await connection.close();
        }
      }
    } finally {
      await server.stop();
    }
  });

  test("T5, X3: the tool schemas' compile carries no format checks; asked for format assertion it is a schema error", () => {
    // Only a registered meta-schema turns the format-assertion vocabulary on: connectMcp passes no registry.
    const registry = {
      "urn:example:assert-meta": {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        $vocabulary: { "https://json-schema.org/draft/2020-12/vocab/core": true, "https://json-schema.org/draft/2020-12/vocab/format-assertion": true },
      },
    };
    const schema = { $schema: "urn:example:assert-meta", type: "string", format: "email" };
    assert.equal(compileSchema(schema, { registry }).validate("not an email").valid, false, "compileSchema asserts it");
    assert.throws(() => compileWith(schema, { registry }, null).validate("x"), { code: "schema" });
    assert.throws(() => compileWith({ type: "string" }, { formats: "assert" }, null), { code: "schema" });
    // Formats stay annotations otherwise, as with compileSchema's default.
    assert.equal(compileWith({ type: "string", format: "email" }, {}, null).validate("not an email").valid, true);
  });
});
