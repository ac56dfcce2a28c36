// W10 (read path): reconnectingMcp reconnects after a stale contract or an expired
// session, accepts only a matching contract, and waits 30 s after a failed
// reconnect (injected clock). Against the catalog over stdio and HTTP.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { RECONNECT_BACKOFF_MS } from "../../src/limits.js";
import { connectMcp, reconnectingMcp } from "../../src/node/tools.js";
import { alice, allowAll, mallory, recording, rejection, T, textOf, tool, using, withCatalog } from "./helpers.js";

/** A clock the test moves by hand. */
function fakeClock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

describe("W10: reconnectingMcp", { concurrency: true }, () => {
  test("W10: after a changed contract it reconnects, and a matching contract is accepted (stdio: a fresh process)", T, () =>
    withCatalog("stdio", async ({ config }) => {
      const rec = recording();
      await using(await reconnectingMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
        await tool(c, "catalog__touch").execute({ mode: "changed" }, { identity: alice });
        // The old process now lists a changed catalog; the call reconnects to a new one.
        assert.match(textOf(await tool(c, "catalog__lookup").execute({ sku: "ABC-123" }, { identity: alice })), /Widget/);
        assert.equal(rec.built(), 2);
        assert.equal(c.isConnected(), true);
      });
    }),
  );

  test("W10: an expired HTTP session (404) is replaced and the call made once on the new session", T, () =>
    withCatalog(
      "http",
      async ({ config, http }) => {
        const rec = recording();
        // After initialize the session serves three requests (initialized, tools/list, one call); the next gets 404.
        await using(await reconnectingMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
          const lookup = tool(c, "catalog__lookup");
          assert.match(textOf(await lookup.execute({ sku: "ABC-123" }, { identity: alice })), /Widget/);
          assert.match(textOf(await lookup.execute({ sku: "DEF-456" }, { identity: alice })), /Gadget/);
          assert.equal(rec.built(), 2);
          assert.equal(http?.requests.filter((r) => r.rpcMethod === "initialize").length, 2);
        });
      },
      { http: { expireAfter: 3 } },
    ),
  );

  test("W10: plain connectMcp reports an expired session and stops (session_expired, not connected)", T, () =>
    withCatalog(
      "http",
      async ({ config }) => {
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
          await tool(c, "catalog__lookup").execute({ sku: "ABC-123" }, { identity: alice });
          const e = await rejection(tool(c, "catalog__lookup").execute({ sku: "ABC-123" }, { identity: alice }));
          assert.equal(e.code, "session_expired");
          assert.equal(c.isConnected(), false);
        });
      },
      { http: { expireAfter: 3 } },
    ),
  );

  test("W10: a reconnect whose contract differs is refused with a clear error", T, () =>
    withCatalog("http", async ({ config }) => {
      // The HTTP catalog shares its state between sessions: after "changed" every new session lists the changed catalog.
      const rec = recording();
      await using(await reconnectingMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
        await tool(c, "catalog__touch").execute({ mode: "changed" }, { identity: alice });
        const e = await rejection(tool(c, "catalog__lookup").execute({ sku: "ABC-123" }, { identity: alice }));
        assert.equal(e.code, "stale_contract");
        assert.match(e.message, /differs from the one first connected/);
        assert.equal(rec.built(), 2);
        assert.equal(c.isConnected(), false);
      });
    }),
  );

  test("W10: after a failed reconnect the same error is rethrown without reconnecting for 30 s", T, () =>
    withCatalog("http", async ({ config }) => {
      const rec = recording();
      const clock = fakeClock();
      await using(await reconnectingMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory, now: clock.now }), async (c) => {
        const lookup = tool(c, "catalog__lookup");
        await tool(c, "catalog__touch").execute({ mode: "changed" }, { identity: alice });
        const first = await rejection(lookup.execute({ sku: "ABC-123" }, { identity: alice }));
        assert.equal(rec.built(), 2);

        clock.advance(RECONNECT_BACKOFF_MS - 1);
        const again = await rejection(lookup.execute({ sku: "ABC-123" }, { identity: alice }));
        assert.strictEqual(again, first, "the very same error");
        assert.strictEqual(await rejection(c.prompts(alice)), first);
        assert.equal(rec.built(), 2, "no reconnect inside the 30 s");

        clock.advance(1);
        const later = await rejection(lookup.execute({ sku: "ABC-123" }, { identity: alice }));
        assert.equal(rec.built(), 3, "tried again after 30 s");
        assert.notStrictEqual(later, first);
        assert.equal(later.code, "stale_contract");
      });
    }),
  );

  test("W10: concurrent calls share one reconnect", T, () =>
    withCatalog("stdio", async ({ config }) => {
      const rec = recording();
      await using(await reconnectingMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
        await tool(c, "catalog__touch").execute({ mode: "changed" }, { identity: alice });
        const lookup = tool(c, "catalog__lookup");
        const results = await Promise.all(["ABC-123", "DEF-456", "ABC-123"].map((sku) => lookup.execute({ sku }, { identity: alice })));
        assert.deepEqual(results.map((r) => r.isError), [false, false, false]);
        assert.equal(rec.built(), 2, "one new connection for all three calls");
      });
    }),
  );

  test("W10: another identity fails with unauthorized and never triggers a reconnect", T, () =>
    withCatalog("stdio", async ({ config }) => {
      const rec = recording();
      await using(await reconnectingMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
        await tool(c, "catalog__touch").execute({ mode: "changed" }, { identity: alice });
        assert.equal((await rejection(tool(c, "catalog__lookup").execute({ sku: "ABC-123" }, { identity: mallory }))).code, "unauthorized");
        assert.equal((await rejection(c.prompts(mallory))).code, "unauthorized");
        assert.equal(rec.built(), 1);
      });
    }),
  );

  test("W10: prompts survive a reconnect too, and calls fail after close()", T, () =>
    withCatalog("stdio", async ({ config }) => {
      const rec = recording();
      const c = await reconnectingMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory });
      try {
        await tool(c, "catalog__touch").execute({ mode: "changed" }, { identity: alice });
        assert.deepEqual((await c.prompts(alice)).map((p) => p.name), ["summarize", "welcome"]);
        assert.equal(rec.built(), 2);
      } finally {
        await c.close();
      }
      assert.equal((await rejection(tool(c, "catalog__lookup").execute({ sku: "ABC-123" }, { identity: alice }))).code, "connection_closed");
      assert.equal(c.isConnected(), false);
      assert.equal(rec.built(), 2);
    }),
  );
});

test("W10: reconnects use a frozen copy of the config: a host that changes its object later sends nothing elsewhere", T, () =>
  withCatalog(
    "http",
    async ({ config, http }) => {
      const mutable = { ...config } as { name: string; url: string };
      await using(await reconnectingMcp(mutable as typeof config, { identity: alice, authorize: allowAll }), async (c) => {
        // After the first connect the host points its object elsewhere (nothing listens on port 9).
        mutable.url = "http://127.0.0.1:9/mcp";
        const lookup = tool(c, "catalog__lookup");
        assert.match(textOf(await lookup.execute({ sku: "ABC-123" }, { identity: alice })), /Widget/);
        // The session expires here: the reconnect goes to the original URL.
        assert.match(textOf(await lookup.execute({ sku: "DEF-456" }, { identity: alice })), /Gadget/);
        assert.equal(http?.requests.filter((r) => r.rpcMethod === "initialize").length, 2);
      });
    },
    { http: { expireAfter: 3 } },
  ),
);

test("W10: the pinned copy reaches nested fields: headers and readTools changed later by the host are not used on reconnect", T, () =>
  withCatalog(
    "http",
    async ({ config, http }) => {
      const headers = { "x-api-key": "first" };
      const readTools = ["lookup"];
      const mutable = { ...config, headers, readTools } as typeof config;
      await using(await reconnectingMcp(mutable, { identity: alice, authorize: allowAll }), async (c) => {
        headers["x-api-key"] = "changed";
        readTools.push("search");
        const lookup = tool(c, "catalog__lookup");
        assert.match(textOf(await lookup.execute({ sku: "ABC-123" }, { identity: alice })), /Widget/);
        // The session expires here: the reconnect sends the original header and selects the original tools.
        assert.match(textOf(await lookup.execute({ sku: "DEF-456" }, { identity: alice })), /Gadget/);
        assert.equal(http?.requests.filter((r) => r.rpcMethod === "initialize").length, 2);
        assert.deepEqual(new Set(http?.requests.map((r) => r.headers["x-api-key"])), new Set(["first"]));
        assert.deepEqual(c.tools.map((t) => t.name), ["catalog__lookup"]);
      });
    },
    { http: { expireAfter: 3 } },
  ),
);
