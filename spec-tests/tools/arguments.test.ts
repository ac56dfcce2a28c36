// T5 (arguments validated against the input schema before sending) and T6
// (arguments bounded to 32,000 UTF-8 bytes), against the catalog, server-everything
// (draft-07 schemas) and small inline servers with unusual schemas.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MAX_TOOL_ARGUMENT_BYTES } from "../../src/limits.js";
import { connectMcp } from "../../src/node/tools.js";
import { compile } from "../../src/tools/read-tool.js";
import { alice, allowAll, bytes, calls, envelope, everything, inlineServer, KINDS, recording, rejection, T, textOf, tool, using, withCatalog } from "./helpers.js";

/** An inline server listing one tool `t` with the given input schema, answering "ran". */
function schemaServer(inputSchema: object) {
  return inlineServer(
    "inline",
    `(m) => m.method === "tools/list"
      ? { tools: [{ name: "t", inputSchema: ${JSON.stringify(inputSchema)}, annotations: { readOnlyHint: true } }] }
      : { content: [{ type: "text", text: "ran" }] }`,
  );
}

describe("T5: argument validation", { concurrency: true }, () => {
  for (const kind of KINDS) {
    test(`T5: arguments that violate the input schema are refused and nothing is sent (${kind})`, T, () =>
      withCatalog(kind, async ({ config }) => {
        const rec = recording();
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
          const lookup = tool(c, "catalog__lookup");
          for (const args of [{ sku: "abc" }, {}, { sku: "ABC-123", extra: 1 }, "ABC-123", null]) {
            const e = envelope(await lookup.execute(args, { identity: alice }));
            assert.equal(e.error, "invalid_arguments");
          }
          assert.deepEqual(calls(rec.sent), []);
        });
      }),
    );
  }

  test("T5: the validation message names the failing place, never the argument value", T, () =>
    withCatalog("stdio", async ({ config }) => {
      await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
        const e = envelope(await tool(c, "catalog__lookup").execute({ sku: "secret-value-123" }, { identity: alice }));
        assert.match(e.message, /\/sku/);
        assert.doesNotMatch(e.message, /secret-value-123/);
      });
    }),
  );

  test("T5: draft-07 schemas (server-everything) are enforced", T, async () => {
    const rec = recording();
    await using(await connectMcp(everything(), { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
      const sum = tool(c, "everything__get-sum");
      assert.equal(envelope(await sum.execute({ a: 1, b: "2" }, { identity: alice })).error, "invalid_arguments");
      assert.deepEqual(calls(rec.sent), []);
      assert.match(textOf(await sum.execute({ a: 1, b: 2 }, { identity: alice })), /3/);
      assert.deepEqual(calls(rec.sent), ["get-sum"]);
    });
  });

  test("T5: 2020-12 keywords are enforced (prefixItems, dependentRequired)", T, async () => {
    const server = schemaServer({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { pair: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }], items: false } },
      dependentRequired: { pair: ["why"] },
    });
    const rec = recording();
    await using(await connectMcp(server, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
      const t = tool(c, "inline__t");
      assert.equal(envelope(await t.execute({ pair: ["a", 1, 2], why: "x" }, { identity: alice })).error, "invalid_arguments");
      assert.equal(envelope(await t.execute({ pair: ["a", 1] }, { identity: alice })).error, "invalid_arguments");
      assert.deepEqual(calls(rec.sent), []);
      assert.equal(textOf(await t.execute({ pair: ["a", 1], why: "x" }, { identity: alice })), "ran");
    });
  });

  test("T5: a schema with a remote $ref fails at connect; nothing is fetched", T, async () => {
    let fetched = 0;
    const e = await rejection(
      connectMcp(schemaServer({ type: "object", properties: { a: { $ref: "https://example.com/remote.json" } } }), { identity: alice, authorize: allowAll }, {
        fetch: async () => {
          fetched++;
          return new Response("{}");
        },
      }),
    );
    assert.equal(e.code, "schema");
    assert.match(e.message, /inline: tool "t" input schema/);
    assert.equal(fetched, 0);
  });

  test("T5, T9: a tool's schema is checked when listed and compiled at its first call, once; one that does not compile is refused before its tool is offered", () => {
    // What the schema object holds when it is compiled shows when that happens.
    const schema: Record<string, unknown> = { type: "object", properties: { a: { type: "integer" } } };
    const input = compile(schema, 'srv: tool "t" input schema');
    schema.required = ["a"]; // after the check, before the first call: the first call compiles it
    const first = input.validate({});
    assert.equal(first.valid, false, "compiled at the first call, not when listed");
    schema.required = ["b"]; // after the first call: compiled once, and kept
    assert.equal(input.validate({ a: 1 }).valid, true);
    assert.equal(input.validate({ a: "x" }).valid, false);
    for (const bad of [{ $ref: "https://example.com/remote.json" }, { type: "string", pattern: "(" }, { $async: true }]) {
      assert.throws(() => compile(bad, 'srv: tool "u" input schema'), (e: Error & { code?: string }) => e.code === "schema" && /srv: tool "u" input schema/.test(e.message));
    }
  });

  test("T9: an output schema that does not compile fails at connect", T, async () => {
    const server = inlineServer(
      "inline",
      `(m) => m.method === "tools/list"
        ? { tools: [{ name: "t", inputSchema: { type: "object" }, outputSchema: { type: "object", properties: { n: { $ref: "#/nowhere" } } }, annotations: { readOnlyHint: true } }] }
        : { content: [{ type: "text", text: "ran" }] }`,
    );
    const e = await rejection(connectMcp(server, { identity: alice, authorize: allowAll }));
    assert.equal(e.code, "schema");
    assert.match(e.message, /inline: tool "t" output schema/);
  });

  test("T5: a schema with $async fails at connect", T, async () => {
    const e = await rejection(connectMcp(schemaServer({ $async: true, type: "object" }), { identity: alice, authorize: allowAll }));
    assert.equal(e.code, "schema");
    assert.match(e.message, /\$async/);
  });
});

describe("T6: argument bound", { concurrency: true }, () => {
  for (const kind of KINDS) {
    test(`T6: arguments over 32,000 UTF-8 bytes are refused and nothing is sent (${kind})`, T, () =>
      withCatalog(kind, async ({ config }) => {
        const rec = recording();
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
          const search = tool(c, "catalog__search");
          // {"query":"…"} is 12 bytes around the query.
          const fits = { query: "x".repeat(MAX_TOOL_ARGUMENT_BYTES - 12) };
          assert.equal(bytes(JSON.stringify(fits)), 32_000);
          assert.equal((await search.execute(fits, { identity: alice })).isError, false);
          assert.deepEqual(calls(rec.sent), ["search"]);
          const over = { query: "x".repeat(MAX_TOOL_ARGUMENT_BYTES - 11) };
          const e = envelope(await search.execute(over, { identity: alice }));
          assert.equal(e.error, "limit");
          assert.match(e.message, /32000/);
          assert.deepEqual(calls(rec.sent), ["search"]);
        });
      }),
    );
  }

  test("T6: the argument bound counts UTF-8 bytes, not characters", T, () =>
    withCatalog("stdio", async ({ config }) => {
      const rec = recording();
      await using(await connectMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
        const args = { query: "é".repeat(16_000) }; // 16,012 characters, 32,012 bytes
        assert.equal(envelope(await tool(c, "catalog__search").execute(args, { identity: alice })).error, "limit");
        assert.deepEqual(calls(rec.sent), []);
      });
    }),
  );
});
