// T13: notifications/tools/list_changed → rediscover and compare; unchanged →
// the connection continues; changed → stale with the exact message. Against the
// catalog's `touch` tool over stdio and HTTP.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { connectMcp } from "../../src/node/tools.js";
import { alice, allowAll, calls, inlineServer, KINDS, methods, recording, rejection, T, textOf, tool, until, using, withCatalog } from "./helpers.js";

const STALE = "MCP tool contract changed; reconnect required";

const FIRST_T = `{ name: "t", description: "first", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }`;
const SECOND_T = `{ name: "t", description: "second", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }`;

/**
 * A server with one read tool: `first` (JavaScript source) in the first tools/list
 * answer, `second` in the later ones (by default only the description changes).
 * Each call of `t` announces list_changed `notifyMs` later; the listings after the
 * first answer `relistMs` late.
 */
function changingServer(notifyMs: number, relistMs: number, first = FIRST_T, second = SECOND_T) {
  return inlineServer(
    "inline",
    `(() => {
      let lists = 0;
      return (m) => {
        if (m.method === "tools/list") {
          lists++;
          return lists === 1 ? { tools: [${first}] } : new Promise((r) => setTimeout(() => r({ tools: [${second}] }), ${relistMs}));
        }
        setTimeout(() => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" }) + "\\n"), ${notifyMs});
        return { content: [{ type: "text", text: "ran" }] };
      };
    })()`,
  );
}

/** `inline__t` runs once, the connection then turns stale by itself, and the next call fails with the stale message. */
async function runsThenGoesStale(server: ReturnType<typeof changingServer>, options: Parameters<typeof connectMcp>[2] = {}): Promise<void> {
  await using(await connectMcp(server, { identity: alice, authorize: allowAll }, options), async (c) => {
    assert.equal(textOf(await tool(c, "inline__t").execute({}, { identity: alice })), "ran");
    await until(() => !c.isConnected());
    assert.equal((await rejection(tool(c, "inline__t").execute({}, { identity: alice }))).message, STALE);
  });
}

describe("T13: list_changed", { concurrency: true }, () => {
  for (const kind of KINDS) {
    test(`T13: an unchanged catalog after list_changed keeps the connection (${kind})`, T, () =>
      withCatalog(kind, async ({ config }) => {
        const rec = recording();
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
          const listsBefore = methods(rec.sent).filter((m) => m === "tools/list").length;
          assert.equal(textOf(await tool(c, "catalog__touch").execute({ mode: "same" }, { identity: alice })), "touched (same)");
          await until(() => methods(rec.sent).filter((m) => m === "tools/list").length > listsBefore);
          assert.match(textOf(await tool(c, "catalog__lookup").execute({ sku: "ABC-123" }, { identity: alice })), /Widget/);
          assert.equal(c.isConnected(), true);
        });
      }),
    );

    test(`T13: a changed catalog makes the connection stale with the exact message (${kind})`, T, () =>
      withCatalog(kind, async ({ config }) => {
        const rec = recording();
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
          await tool(c, "catalog__touch").execute({ mode: "changed" }, { identity: alice });
          // The next call waits for the comparison, then fails without being sent.
          const callsBefore = methods(rec.sent).filter((m) => m === "tools/call").length;
          const e = await rejection(tool(c, "catalog__lookup").execute({ sku: "ABC-123" }, { identity: alice }));
          assert.equal(e.code, "stale_contract");
          assert.equal(e.message, STALE);
          assert.equal(methods(rec.sent).filter((m) => m === "tools/call").length, callsBefore);
          assert.equal(c.isConnected(), false);
          const p = await rejection(c.prompts(alice));
          assert.equal(p.code, "stale_contract");
          assert.equal(p.message, STALE);
        });
      }),
    );
  }

  test("T13: a change to a tool the connection does not expose keeps it connected", T, () =>
    withCatalog(
      "stdio",
      async ({ config }) => {
        // Only `search` is selected: "changed" alters lookup's description and adds `extra`.
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
          await tool(c, "catalog__touch").execute({ mode: "changed" }, { identity: alice });
          assert.equal((await tool(c, "catalog__search").execute({ query: "w" }, { identity: alice })).isError, false);
          assert.equal(c.isConnected(), true);
        });
      },
      { extra: { readTools: ["search", "touch"] } },
    ),
  );

  test("T13: the stale state is reached without a further call (isConnected turns false)", T, () =>
    withCatalog("stdio", async ({ config }) => {
      await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
        await tool(c, "catalog__touch").execute({ mode: "changed" }, { identity: alice });
        await until(() => !c.isConnected());
      });
    }),
  );

  test("T13: a changed input schema counts as a change", T, () =>
    // The server's schema for `t` gains a property after the first tools/list answer.
    runsThenGoesStale(
      changingServer(
        0,
        0,
        `{ name: "t", inputSchema: { type: "object", properties: {} }, annotations: { readOnlyHint: true } }`,
        `{ name: "t", inputSchema: { type: "object", properties: { extra: { type: "string" } } }, annotations: { readOnlyHint: true } }`,
      ),
    ),
  );
  test("T13: changed annotations alone count as a change", T, () =>
    // Only destructiveHint flips after the first tools/list answer.
    runsThenGoesStale(
      changingServer(
        0,
        0,
        `{ name: "t", inputSchema: { type: "object" }, annotations: { readOnlyHint: true, destructiveHint: false } }`,
        `{ name: "t", inputSchema: { type: "object" }, annotations: { readOnlyHint: true, destructiveHint: true } }`,
      ),
    ),
  );
  test("T13, V5: in the modern era a change made before the listen is acknowledged is caught", T, async () => {
    // A modern server whose catalog changes between the first tools/list and the
    // listen; it acknowledges the listen but never announces the change.
    const script = `
const rl = require("readline").createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
let lists = 0;
rl.on("line", (l) => {
  const m = JSON.parse(l);
  if (m.id === undefined) return;
  const ok = (result) => send({ jsonrpc: "2.0", id: m.id, result: { resultType: "complete", ...result } });
  if (m.method === "server/discover") return ok({ supportedVersions: ["2026-07-28"], capabilities: { tools: { listChanged: true } }, ttlMs: 0, cacheScope: "private" });
  if (m.method === "tools/list") {
    lists++;
    return ok({ tools: [{ name: "t", description: lists === 1 ? "first" : "second", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }], ttlMs: 0, cacheScope: "private" });
  }
  if (m.method === "subscriptions/listen") {
    return send({ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { _meta: { "io.modelcontextprotocol/subscriptionId": m.id }, notifications: m.params.notifications } });
  }
  ok({ content: [{ type: "text", text: "ran" }] });
});`;
    const server = { name: "modern", command: process.execPath, args: ["-e", script] };
    await using(await connectMcp(server, { identity: alice, authorize: allowAll }), async (c) => {
      await until(() => !c.isConnected());
      assert.equal((await rejection(tool(c, "modern__t").execute({}, { identity: alice }))).message, STALE);
    });
  });

  test("T4, T13: a call whose authorize is pending when list_changed arrives waits for the comparison; a changed contract sends nothing", T, async () => {
    const rec = recording();
    let asked = 0;
    const authorize = async (): Promise<boolean> => {
      asked++;
      // The second call is admitted before the announcement; its permission comes
      // once the comparison's tools/list is out (the answer takes 300 ms).
      if (asked === 2) await until(() => methods(rec.sent).filter((m) => m === "tools/list").length === 2);
      return true;
    };
    await using(await connectMcp(changingServer(200, 300), { identity: alice, authorize }, { transportFactory: rec.factory }), async (c) => {
      assert.equal(textOf(await tool(c, "inline__t").execute({}, { identity: alice })), "ran");
      const e = await rejection(tool(c, "inline__t").execute({}, { identity: alice }));
      assert.equal(asked, 2);
      assert.equal(e.code, "stale_contract");
      assert.equal(e.message, STALE);
      assert.deepEqual(calls(rec.sent), ["t"]);
    });
  });

  test("T13: a logger that throws does not keep a changed contract usable", T, async () => {
    const logger = (level: string): void => {
      if (level === "warn") throw new Error("the log sink is down");
    };
    await runsThenGoesStale(changingServer(0, 0), { logger });
  });
});
