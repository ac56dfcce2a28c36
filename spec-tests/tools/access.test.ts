// T1 (identity binding) and T4 (authorization on every invocation), against the
// catalog over stdio and HTTP.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { connectMcp } from "../../src/node/tools.js";
import type { Identity } from "../../src/tools/types.js";
import { alice, allowAll, calls, envelope, KINDS, mallory, recording, rejection, T, textOf, tool, using, withCatalog } from "./helpers.js";

describe("T1: identity binding", { concurrency: true }, () => {
  for (const kind of KINDS) {
    test(`T1: a tool call by another identity fails with unauthorized and sends nothing (${kind})`, T, () =>
      withCatalog(kind, async ({ config }) => {
        const rec = recording();
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
          const e = await rejection(tool(c, "catalog__lookup").execute({ sku: "ABC-123" }, { identity: mallory }));
          assert.equal(e.code, "unauthorized");
          assert.deepEqual(calls(rec.sent), []);
          // The bound identity still works on the same connection.
          const ok = await tool(c, "catalog__lookup").execute({ sku: "ABC-123" }, { identity: alice });
          assert.match(textOf(ok), /Widget/);
        });
      }),
    );
  }

  test("T1: prompts and getPrompt by another identity fail with unauthorized", T, () =>
    withCatalog("stdio", async ({ config }) => {
      const asked: string[] = [];
      const authorize = (_who: Identity, name: string) => (asked.push(name), true);
      await using(await connectMcp(config, { identity: alice, authorize }), async (c) => {
        assert.equal((await rejection(c.prompts(mallory))).code, "unauthorized");
        assert.equal((await rejection(c.getPrompt(mallory, "welcome"))).code, "unauthorized");
        assert.deepEqual(asked, [], "authorize is not even asked for a foreign identity");
      });
    }),
  );

  test("T1: the identity is copied at connect: changing the host's object later does not rebind", T, () =>
    withCatalog("stdio", async ({ config }) => {
      const identity = { actorId: "alice", tenantId: "acme" };
      await using(await connectMcp(config, { identity, authorize: allowAll }), async (c) => {
        identity.tenantId = "other";
        const e = await rejection(tool(c, "catalog__lookup").execute({ sku: "ABC-123" }, { identity: { actorId: "alice", tenantId: "other" } }));
        assert.equal(e.code, "unauthorized");
      });
    }),
  );

  test("T1: an identity without actorId or tenantId is refused before anything is launched", T, async () => {
    const rec = recording();
    for (const identity of [{ actorId: "alice" }, { actorId: "", tenantId: "acme" }, null]) {
      const e = await rejection(
        connectMcp({ name: "catalog", command: "node", args: [] }, { identity: identity as unknown as Identity, authorize: allowAll }, { transportFactory: rec.factory }),
      );
      assert.equal(e.code, "config");
    }
    assert.equal(rec.built(), 0);
  });
});

describe("T4: authorization", { concurrency: true }, () => {
  for (const kind of KINDS) {
    test(`T4: a denied call sends nothing to the server and the model sees an error (${kind})`, T, () =>
      withCatalog(kind, async ({ config, http }) => {
        const rec = recording();
        const authorize = (_who: Identity, name: string) => name !== "lookup";
        await using(await connectMcp(config, { identity: alice, authorize }, { transportFactory: rec.factory }), async (c) => {
          const result = await tool(c, "catalog__lookup").execute({ sku: "ABC-123" }, { identity: alice });
          assert.equal(envelope(result).error, "unauthorized");
          assert.deepEqual(calls(rec.sent), [], "no tools/call left the client");
          if (http) assert.equal(http.requests.filter((r) => r.rpcMethod === "tools/call").length, 0, "the server received no tools/call");
          // An allowed tool on the same connection is sent.
          await tool(c, "catalog__search").execute({ query: "w" }, { identity: alice });
          assert.deepEqual(calls(rec.sent), ["search"]);
        });
      }),
    );
  }

  test("T4: authorize is awaited on every invocation with the bound identity and the remote name", T, () =>
    withCatalog("stdio", async ({ config }) => {
      const seen: Array<[Identity, string]> = [];
      let allow = true;
      const authorize = async (who: Identity, name: string) => {
        await new Promise((r) => setTimeout(r, 20));
        seen.push([who, name]);
        return allow;
      };
      await using(await connectMcp(config, { identity: alice, authorize }), async (c) => {
        const lookup = tool(c, "catalog__lookup");
        assert.equal((await lookup.execute({ sku: "ABC-123" }, { identity: alice })).isError, false);
        allow = false; // permissions revoked between two calls: the second is denied
        assert.equal(envelope(await lookup.execute({ sku: "ABC-123" }, { identity: alice })).error, "unauthorized");
        assert.deepEqual(
          seen.map(([who, name]) => [who.actorId, who.tenantId, name]),
          [
            ["alice", "acme", "lookup"],
            ["alice", "acme", "lookup"],
          ],
        );
      });
    }),
  );

  test("T4: only true authorizes: a truthy non-boolean answer is a denial", T, () =>
    withCatalog("stdio", async ({ config }) => {
      const rec = recording();
      const authorize = (() => "yes") as unknown as () => boolean;
      await using(await connectMcp(config, { identity: alice, authorize }, { transportFactory: rec.factory }), async (c) => {
        assert.equal(envelope(await tool(c, "catalog__lookup").execute({ sku: "ABC-123" }, { identity: alice })).error, "unauthorized");
        assert.deepEqual(calls(rec.sent), []);
      });
    }),
  );

  test("T4: an authorize callback that throws sends nothing and the error reaches the caller", T, () =>
    withCatalog("stdio", async ({ config }) => {
      const rec = recording();
      const authorize = (): boolean => {
        throw new Error("permission service down");
      };
      await using(await connectMcp(config, { identity: alice, authorize }, { transportFactory: rec.factory }), async (c) => {
        const e = await rejection(tool(c, "catalog__lookup").execute({ sku: "ABC-123" }, { identity: alice }));
        assert.equal(e.message, "permission service down");
        assert.deepEqual(calls(rec.sent), []);
      });
    }),
  );
});
