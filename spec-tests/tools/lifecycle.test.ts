// T10: timeoutMs for setup, discovery and calls; cancellation signals; calls fail
// after close(). Against the catalog over stdio and HTTP, a silent stdio server,
// a server that never answers tools/list, and an HTTP server that never answers.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { describe, test } from "node:test";
import { connectMcp } from "../../src/node/tools.js";
import { fixtureServer } from "../helpers/paths.js";
import { alice, allowAll, envelope, inlineServer, KINDS, rejection, T, textOf, tool, using, withCatalog } from "./helpers.js";

describe("T10: time bounds, cancellation and close", { concurrency: true }, () => {
  for (const kind of KINDS) {
    test(`T10: a call longer than timeoutMs is a timeout error and the connection goes on (${kind})`, T, () =>
      withCatalog(kind, async ({ config }) => {
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }, { timeoutMs: 2_500 }), async (c) => {
          const started = Date.now();
          const e = envelope(await tool(c, "catalog__slow").execute({ ms: 15_000 }, { identity: alice }));
          assert.equal(e.error, "timeout");
          assert.match(e.message, /2500 ms; the server may still carry the call out/);
          assert.ok(Date.now() - started < 8_000);
          assert.equal(textOf(await tool(c, "catalog__slow").execute({ ms: 10 }, { identity: alice })), "slept 10 ms");
        });
      }),
    );

    test(`T10: the call's signal cancels it (${kind})`, T, () =>
      withCatalog(kind, async ({ config }) => {
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
          const controller = new AbortController();
          setTimeout(() => controller.abort(), 100);
          const started = Date.now();
          const e = await rejection(tool(c, "catalog__slow").execute({ ms: 10_000 }, { identity: alice, signal: controller.signal }));
          assert.equal(e.code, "cancelled");
          assert.ok(Date.now() - started < 3_000);
          assert.ok(c.isConnected());
        });
      }),
    );

    test(`T10: after close() calls and prompts fail with connection_closed (${kind})`, T, () =>
      withCatalog(kind, async ({ config }) => {
        const c = await connectMcp(config, { identity: alice, authorize: allowAll });
        assert.ok(c.isConnected());
        await c.close();
        await c.close(); // idempotent
        assert.equal(c.isConnected(), false);
        assert.equal((await rejection(tool(c, "catalog__lookup").execute({ sku: "ABC-123" }, { identity: alice }))).code, "connection_closed");
        assert.equal((await rejection(c.prompts(alice))).code, "connection_closed");
      }),
    );
  }

  test("T10: the connect option timeoutMs overrides the server's timeoutMs", T, () =>
    withCatalog(
      "stdio",
      async ({ config }) => {
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }, { timeoutMs: 2_500 }), async (c) => {
          assert.match(envelope(await tool(c, "catalog__slow").execute({ ms: 15_000 }, { identity: alice })).message, /after 2500 ms/);
        });
      },
      { extra: { timeoutMs: 60_000 } },
    ),
  );

  test("T10: the server's timeoutMs bounds calls when no option overrides it", T, () =>
    withCatalog(
      "stdio",
      async ({ config }) => {
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
          assert.match(envelope(await tool(c, "catalog__slow").execute({ ms: 15_000 }, { identity: alice })).message, /after 2500 ms/);
        });
      },
      { extra: { timeoutMs: 2_500 } },
    ),
  );

  test("T10: setup against a stdio server that never answers ends with a timeout", T, async () => {
    const started = Date.now();
    const e = await rejection(
      connectMcp({ name: "silent", command: process.execPath, args: [fixtureServer("silent.mjs")], timeoutMs: 300 }, { identity: alice, authorize: allowAll }),
    );
    assert.equal(e.code, "timeout");
    assert.ok(Date.now() - started < 5_000);
  });

  test("T10: setup against an HTTP server that never answers ends with a timeout", T, async () => {
    const hanging = createServer(() => {}); // accepts, never answers
    await new Promise<void>((r) => hanging.listen(0, "127.0.0.1", r));
    try {
      const address = hanging.address();
      const port = typeof address === "object" && address ? address.port : 0;
      const e = await rejection(connectMcp({ name: "hang", url: `http://127.0.0.1:${port}/mcp` }, { identity: alice, authorize: allowAll }, { timeoutMs: 300 }));
      assert.equal(e.code, "timeout");
    } finally {
      hanging.closeAllConnections();
      await new Promise((r) => hanging.close(r));
    }
  });

  test("T10: discovery is bounded by timeoutMs (a server that never answers tools/list)", T, async () => {
    const server = inlineServer("mute", '(m) => m.method === "tools/list" ? new Promise(() => {}) : {}');
    const started = Date.now();
    const e = await rejection(connectMcp(server, { identity: alice, authorize: allowAll }, { timeoutMs: 400 }));
    assert.equal(e.code, "timeout");
    assert.ok(Date.now() - started < 5_000);
  });

  test("T10: the connect signal cancels setup", T, async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const e = await rejection(
      connectMcp({ name: "silent", command: process.execPath, args: [fixtureServer("silent.mjs")] }, { identity: alice, authorize: allowAll }, { signal: controller.signal }),
    );
    assert.equal(e.code, "cancelled");
  });

  test("T10: a server that exits mid-call fails the call with connection_closed and the connection reports it", T, async () => {
    const crash = inlineServer(
      "crash",
      '(m) => m.method === "tools/call" ? process.exit(3) : { tools: [{ name: "boom", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }] }',
    );
    await using(await connectMcp(crash, { identity: alice, authorize: allowAll }), async (c) => {
      const e = await rejection(tool(c, "crash__boom").execute({}, { identity: alice }));
      assert.equal(e.code, "connection_closed");
      assert.equal(c.isConnected(), false);
    });
  });
});
