// T11 (resources as two read tools) and T12 (prompts as host calls), against the
// catalog over stdio and HTTP and inline servers for the bounds.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MAX_RESOURCE_TEXT_CHARS } from "../../src/limits.js";
import { connectMcp } from "../../src/node/tools.js";
import { checkPromptArgs } from "../../src/tools/prompts.js";
import type { Identity } from "../../src/tools/types.js";
import { alice, allowAll, envelope, inlineServer, KINDS, mallory, methods, recording, rejection, T, textOf, tool, using, withCatalog } from "./helpers.js";

describe("T11: resources", { concurrency: true }, () => {
  for (const kind of KINDS) {
    test(`T11: list_resources pages by cursor and read_resource returns text (${kind})`, T, () =>
      withCatalog(
        kind,
        async ({ config }) => {
          await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
            const list = tool(c, "catalog__list_resources");
            const first = JSON.parse(textOf(await list.execute({}, { identity: alice }))) as { resources: { uri: string }[]; nextCursor?: string };
            assert.deepEqual(first.resources.map((r) => r.uri), ["catalog://products/ABC-123", "catalog://products/DEF-456"]);
            assert.equal(typeof first.nextCursor, "string");
            const second = JSON.parse(textOf(await list.execute({ cursor: first.nextCursor }, { identity: alice }))) as { resources: { uri: string }[]; nextCursor?: string };
            assert.deepEqual(second.resources.map((r) => r.uri), ["catalog://readme", "catalog://images/logo.png"]);
            assert.equal(second.nextCursor, undefined);
            const read = tool(c, "catalog__read_resource");
            assert.equal(textOf(await read.execute({ uri: "catalog://readme" }, { identity: alice })), "The catalog lists products by SKU (three letters, a dash, three digits).\n");
          });
        },
        { extra: { resources: true } },
      ),
    );
  }

  test("T11: a binary resource reads as [blob: mime]", T, () =>
    withCatalog(
      "stdio",
      async ({ config }) => {
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
          assert.equal(textOf(await tool(c, "catalog__read_resource").execute({ uri: "catalog://images/logo.png" }, { identity: alice })), "[blob: image/png]");
        });
      },
      { extra: { resources: true } },
    ),
  );

  test("T11: the resource tools are authorized as list_resources and read_resource; a denial sends nothing", T, () =>
    withCatalog(
      "stdio",
      async ({ config }) => {
        const asked: string[] = [];
        const authorize = (_who: Identity, name: string) => (asked.push(name), name === "list_resources");
        const rec = recording();
        await using(await connectMcp(config, { identity: alice, authorize }, { transportFactory: rec.factory }), async (c) => {
          assert.equal((await tool(c, "catalog__list_resources").execute({}, { identity: alice })).isError, false);
          assert.equal(envelope(await tool(c, "catalog__read_resource").execute({ uri: "catalog://readme" }, { identity: alice })).error, "unauthorized");
          assert.deepEqual(asked, ["list_resources", "read_resource"]);
          assert.ok(!methods(rec.sent).includes("resources/read"));
        });
      },
      { extra: { resources: true } },
    ),
  );

  test("T11: resource text is cut to 32,000 characters", T, async () => {
    const server = inlineServer(
      "big",
      `(m) => m.method === "tools/list" ? { tools: [] } : { contents: [{ uri: m.params.uri, text: "r".repeat(50000) }] }`,
      "{ tools: {}, resources: {} }",
    );
    await using(await connectMcp({ ...server, resources: true }, { identity: alice, authorize: allowAll }), async (c) => {
      const text = textOf(await tool(c, "big__read_resource").execute({ uri: "big://r" }, { identity: alice }));
      assert.equal(text.length, MAX_RESOURCE_TEXT_CHARS);
      assert.match(text, /^r+\n\[truncated: 50000 characters, shown up to 32000\]$/);
    });
  });

  test("T11: without resources: true there are no resource tools", T, () =>
    withCatalog("stdio", async ({ config }) => {
      await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
        assert.ok(!c.tools.some((t) => t.name.endsWith("_resources") || t.name.endsWith("_resource")));
      });
    }),
  );

  test("T11: read_resource requires a uri; nothing is sent without one", T, () =>
    withCatalog(
      "stdio",
      async ({ config }) => {
        const rec = recording();
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
          assert.equal(envelope(await tool(c, "catalog__read_resource").execute({}, { identity: alice })).error, "invalid_arguments");
          assert.ok(!methods(rec.sent).includes("resources/read"));
        });
      },
      { extra: { resources: true } },
    ),
  );
});

describe("T12: prompts", { concurrency: true }, () => {
  for (const kind of KINDS) {
    test(`T12: prompts lists and getPrompt renders text, authorized as list_prompts / get_prompt (${kind})`, T, () =>
      withCatalog(kind, async ({ config }) => {
        const asked: string[] = [];
        const authorize = (_who: Identity, name: string) => (asked.push(name), true);
        await using(await connectMcp(config, { identity: alice, authorize }), async (c) => {
          assert.deepEqual((await c.prompts(alice)).map((p) => p.name), ["summarize", "welcome"]);
          const prompt = await c.getPrompt(alice, "summarize", { sku: "ABC-123" });
          assert.deepEqual(prompt, {
            description: "Summary of ABC-123",
            messages: [{ role: "user", text: "Summarize this product in one sentence. Product ABC-123: Widget, 12.50 EUR, in stock." }],
          });
          assert.deepEqual(asked, ["list_prompts", "get_prompt"]);
        });
      }),
    );
  }

  test("T12: a denied prompt call throws unauthorized and sends nothing", T, () =>
    withCatalog("stdio", async ({ config }) => {
      const rec = recording();
      await using(await connectMcp(config, { identity: alice, authorize: () => false }, { transportFactory: rec.factory }), async (c) => {
        assert.equal((await rejection(c.prompts(alice))).code, "unauthorized");
        assert.equal((await rejection(c.getPrompt(alice, "welcome"))).code, "unauthorized");
        assert.ok(!methods(rec.sent).some((m) => m.startsWith("prompts/")));
      });
    }),
  );

  test("T12: prompt listing follows cursor pages", T, () =>
    withCatalog(
      "stdio",
      async ({ config }) => {
        const rec = recording();
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
          assert.deepEqual((await c.prompts(alice)).map((p) => p.name), ["summarize", "welcome"]);
          assert.equal(methods(rec.sent).filter((m) => m === "prompts/list").length, 2);
        });
      },
      { flags: { promptsPageSize: 1 } },
    ),
  );

  test("T12: prompt listing stops after 100 pages with a limit error", T, async () => {
    const endless = inlineServer(
      "endless",
      `(m) => m.method === "tools/list" ? { tools: [] } : { prompts: [], nextCursor: "c" + (Number((m.params.cursor || "c0").slice(1)) + 1) }`,
      "{ tools: {}, prompts: {} }",
    );
    const rec = recording();
    await using(await connectMcp(endless, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
      const e = await rejection(c.prompts(alice));
      assert.equal(e.code, "limit");
      assert.match(e.message, /more than 100 pages/);
      assert.equal(methods(rec.sent).filter((m) => m === "prompts/list").length, 100);
    });
  });

  test("T12: a prompt argument named \"__proto__\" is refused, not silently dropped", () => {
    assert.throws(() => checkPromptArgs(JSON.parse('{"sku":"A","__proto__":"x"}')), { code: "validation", message: /"__proto__"/ });
    assert.deepEqual(checkPromptArgs({ sku: "A" }), { sku: "A" });
  });

  test("T12: getPrompt by another identity fails; prompt arguments must be strings", T, () =>
    withCatalog("stdio", async ({ config }) => {
      await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
        assert.equal((await rejection(c.getPrompt(mallory, "welcome"))).code, "unauthorized");
        const e = await rejection(c.getPrompt(alice, "summarize", { sku: 42 } as unknown as Record<string, string>));
        assert.equal(e.code, "validation");
      });
    }),
  );
});
