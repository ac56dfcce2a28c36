// T2 (server__tool names, the 64-character limit, duplicates) and T3 (read
// selection), against the catalog over stdio and HTTP.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { connectMcp } from "../../src/node/tools.js";
import { RESERVED_NAMES, selectReadTools } from "../../src/tools/select.js";
import { assertUniqueToolNames, checkToolName, prefixedToolName } from "../../src/tools/names.js";
import { alice, allowAll, inlineServer, KINDS, recording, rejection, T, textOf, tool, using, withCatalog } from "./helpers.js";

// What the catalog lists, by annotation (fixtures/servers/catalog/catalog.mjs).
const READ_ONLY = ["bad_output", "fail", "image", "list_roots", "lookup", "mixed", "report", "search", "slow", "touch"];

describe("T2: tool names", { concurrency: true }, () => {
  for (const kind of KINDS) {
    test(`T2: tools are named server__tool and call the remote tool by its own name (${kind})`, T, () =>
      withCatalog(kind, async ({ config }) => {
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
          assert.deepEqual(c.tools.map((t) => t.name).sort(), READ_ONLY.map((n) => `catalog__${n}`));
          assert.match(textOf(await tool(c, "catalog__lookup").execute({ sku: "DEF-456" }, { identity: alice })), /Gadget/);
        });
      }),
    );
  }

  test("T2: a 65-character combined name fails with the 64-character limit in the message", T, () =>
    withCatalog("stdio", async ({ config }) => {
      const name = "s".repeat(57); // 57 + "__" + "lookup" = 65
      const e = await rejection(connectMcp({ ...config, name, readTools: ["lookup"] }, { identity: alice, authorize: allowAll }));
      assert.equal(e.code, "limit");
      assert.match(e.message, /the limit is 64/);
      assert.match(e.message, /65 characters/);
    }),
  );

  test("T2: a combined name of exactly 64 characters is accepted", T, () =>
    withCatalog("stdio", async ({ config }) => {
      const name = "s".repeat(56);
      await using(await connectMcp({ ...config, name, readTools: ["lookup"] }, { identity: alice, authorize: allowAll }), async (c) => {
        assert.deepEqual(
          c.tools.map((t) => t.name.length),
          [64],
        );
      });
    }),
  );

  test("T2: the 65-character limit error closes the server it launched", T, () =>
    withCatalog("stdio", async ({ config }) => {
      const rec = recording();
      await rejection(connectMcp({ ...config, name: "s".repeat(57), readTools: ["lookup"] }, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }));
      assert.equal(rec.built(), 1);
      assert.ok(rec.closed() >= 1, "the transport (and with it the process) was closed");
    }),
  );

  test("T2: duplicate names across two connections are rejected by assertUniqueToolNames", T, async () => {
    await withCatalog("stdio", async ({ config }) => {
      const a = await connectMcp(config, { identity: alice, authorize: allowAll });
      try {
        const b = await connectMcp(config, { identity: alice, authorize: allowAll });
        try {
          assert.throws(() => assertUniqueToolNames([...a.tools, ...b.tools]), (e: Error & { code?: string }) => {
            assert.equal(e.code, "config");
            assert.match(e.message, /catalog__/);
            return true;
          });
        } finally {
          await b.close();
        }
        const c = await connectMcp({ ...config, name: "catalog2" }, { identity: alice, authorize: allowAll });
        try {
          assert.doesNotThrow(() => assertUniqueToolNames([...a.tools, ...c.tools]));
        } finally {
          await c.close();
        }
      } finally {
        await a.close();
      }
    });
  });

  test("T2: names with characters providers refuse are rejected; 64 is the bound", () => {
    assert.equal(prefixedToolName("crm", "find-contact"), "crm__find-contact");
    assert.throws(() => prefixedToolName("crm", "find.contact"), { code: "config" });
    assert.throws(() => checkToolName(""), { code: "config" });
    assert.throws(() => checkToolName("x".repeat(65)), /the limit is 64/);
  });
});

describe("T3: read selection", { concurrency: true }, () => {
  for (const kind of KINDS) {
    test(`T3: without readTools exactly the readOnlyHint: true tools are exposed (${kind})`, T, () =>
      withCatalog(kind, async ({ config }) => {
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
          const names = c.tools.map((t) => t.name.slice("catalog__".length)).sort();
          assert.deepEqual(names, READ_ONLY);
          assert.ok(!names.includes("rename"), "readOnlyHint false is not a read");
          assert.ok(!names.includes("unannotated"), "no annotation is not a read without readTools");
          assert.ok(c.tools.every((t) => t.effect === "read"));
        });
      }),
    );
  }

  test("T3: readTools selects exactly the listed tools, including unannotated ones", T, () =>
    withCatalog("stdio", async ({ config }) => {
      await using(await connectMcp({ ...config, readTools: ["unannotated", "lookup"] }, { identity: alice, authorize: allowAll }), async (c) => {
        assert.deepEqual(c.tools.map((t) => t.name), ["catalog__unannotated", "catalog__lookup"]);
        assert.equal(textOf(await tool(c, "catalog__unannotated").execute({}, { identity: alice })), "ok");
      });
    }),
  );

  for (const kind of KINDS) {
    test(`T3: a readTools name the server does not list fails, naming it (${kind})`, T, () =>
      withCatalog(kind, async ({ config }) => {
        const e = await rejection(connectMcp({ ...config, readTools: ["lookup", "no_such_tool"] }, { identity: alice, authorize: allowAll }));
        assert.equal(e.code, "tool_not_found");
        assert.match(e.message, /no_such_tool/);
      }),
    );
  }

  test("T3: a tool marked readOnlyHint: false is rejected from readTools", T, () =>
    withCatalog("stdio", async ({ config }) => {
      const e = await rejection(connectMcp({ ...config, readTools: ["rename"] }, { identity: alice, authorize: allowAll }));
      assert.equal(e.code, "config");
      assert.match(e.message, /rename/);
      assert.match(e.message, /readOnlyHint: false/);
    }),
  );

  test("T3: discovery follows every page (tools spread one per page)", T, () =>
    withCatalog(
      "stdio",
      async ({ config }) => {
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
          assert.equal(c.tools.length, READ_ONLY.length);
        });
      },
      { flags: { toolsPageSize: 1 } },
    ),
  );

  test("T3: discovery fails when the server lists a tool twice", T, async () => {
    const twice = inlineServer(
      "twice",
      `(m) => ({ tools: [0, 1].map(() => ({ name: "t", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } })) })`,
    );
    const e = await rejection(connectMcp(twice, { identity: alice, authorize: allowAll }));
    assert.equal(e.code, "protocol");
    assert.match(e.message, /lists the tool 't' twice/);
  });

  test("T3: discovery fails on a repeated cursor", T, () =>
    withCatalog(
      "stdio",
      async ({ config }) => {
        const e = await rejection(connectMcp(config, { identity: alice, authorize: allowAll }));
        assert.equal(e.code, "protocol");
        assert.match(e.message, /repeated a cursor/);
      },
      { flags: { toolsPageSize: 2, repeatCursor: true } },
    ),
  );
});

test("T2, T3: an annotated read tool whose name providers refuse is left out; named in readTools it fails", async () => {
  const answer = `(m) => m.method === "tools/list"
    ? { tools: [
        { name: "ok", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
        { name: "admin.list", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
      ] }
    : { content: [{ type: "text", text: "ran" }] }`;
  const warnings: string[] = [];
  const c = await connectMcp(inlineServer("inline", answer), { identity: alice, authorize: allowAll }, {
    logger: (level, message, data) => level === "warn" && warnings.push(`${message} ${String(data?.tool)}`),
  });
  try {
    assert.deepEqual(c.tools.map((t) => t.name), ["inline__ok"]);
    assert.ok(warnings.some((w) => w.includes("admin.list")));
  } finally {
    await c.close();
  }
  await assert.rejects(
    connectMcp({ ...inlineServer("inline", answer), readTools: ["admin.list"] }, { identity: alice, authorize: allowAll }),
    (e: unknown) => (e as { code?: string }).code === "config",
  );
});

test("T4, T11, T12: a remote tool named like a host permission (get_prompt, read_resource, ...) is refused", () => {
  const tool = (name: string) => ({ name, inputSchema: { type: "object" }, annotations: { readOnlyHint: true } });
  for (const name of RESERVED_NAMES) {
    assert.throws(() => selectReadTools({ name: "s" }, [tool("ok"), tool(name)]), (e: unknown) => (e as { code?: string }).code === "config", name);
  }
  assert.deepEqual(selectReadTools({ name: "s" }, [tool("ok")]).map((t) => t.name), ["ok"]);
});
