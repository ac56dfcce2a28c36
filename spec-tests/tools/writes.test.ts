// W1, W2, W3, W11: write tools over the reference contract server
// (fixtures/servers/contract), stdio and HTTP: roles and their consistency checks,
// the action envelope on every phase, and the strict result envelopes.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { JsonRpcMessage } from "../../src/jsonrpc/messages.js";
import { connectMcp } from "../../src/node/tools.js";
import type { McpConnection } from "../../src/tools/connect.js";
import type { Tool, WriteTool } from "../../src/tools/types.js";
import { alice, allowAll, calls, recording, rejection, T, using } from "./helpers.js";
import { approve, contractStdio, performed, RENAME, withContract, writeTool } from "./writes-support.js";

const KINDS = ["stdio", "http"] as const;

/** The `_meta["io.yada/action"]` of every tools/call among `sent`, with the remote name. */
function envelopes(sent: readonly JsonRpcMessage[]): Array<{ name: string; meta: unknown; args: unknown }> {
  return sent.flatMap((m) => {
    if (!("method" in m) || m.method !== "tools/call") return [];
    const p = m.params as { name: string; arguments?: unknown; _meta?: Record<string, unknown> };
    return [{ name: p.name, meta: p._meta?.["io.yada/action"], args: p.arguments }];
  });
}

describe("W1: write tools and their hidden helpers", { concurrency: true }, () => {
  for (const kind of KINDS) {
    test(`W1: the mutation is a write tool, its helpers are hidden from the model (${kind})`, T, () =>
      withContract(kind, async ({ config }) => {
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
          assert.deepEqual(
            c.tools.map((t) => `${t.name}:${t.effect}`),
            ["contract__get_item:read", "contract__rename:write"],
          );
          const rename = writeTool(c);
          assert.equal(typeof rename.prepare, "function");
          assert.equal(typeof rename.execute, "function");
          assert.equal(typeof rename.reconcile, "function");
        });
      }),
    );
  }

  test("W1: overlapping roles are refused before the server is launched", T, async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ writeTools: RENAME, readTools: ["prepare_rename"] }, /prepare_rename.*overlap/],
      [{ writeTools: RENAME, readTools: ["rename"] }, /"rename" is both a read tool and a write tool/],
      [{ writeTools: RENAME, confirmTools: ["rename_receipt"] }, /rename_receipt.*overlap/],
      [{ writeTools: { ...RENAME, add_item: { version: "1", prepareTool: "prepare_rename", receiptTool: "get_item" } } }, /prepare_rename.*overlap/],
      [{ writeTools: { rename: { version: "1", prepareTool: "get_item", receiptTool: "get_item" } } }, /get_item.*overlap/],
      [{ writeTools: { rename: { version: "1", prepareTool: "rename", receiptTool: "rename_receipt" } } }, /"rename" is both a write tool/],
    ];
    for (const [extra, message] of cases) {
      const rec = recording();
      const e = await rejection(connectMcp(contractStdio("/nonexistent/log", { extra }), { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }));
      assert.equal(e.code, "config", JSON.stringify(extra));
      assert.match(e.message, message);
      assert.equal(rec.built(), 0, "nothing is launched");
    }
  });

  test("W1: a helper that is not annotated readOnlyHint: true is refused", T, () =>
    withContract("stdio", async ({ config }) => {
      const e = await rejection(connectMcp(config, { identity: alice, authorize: allowAll }));
      assert.equal(e.code, "config");
      assert.match(e.message, /helper "prepare_rename" must be annotated readOnlyHint: true/);
    }, { modes: "helper-not-read-only" }),
  );

  test("W1: a mutation annotated readOnlyHint: true is refused", T, () =>
    withContract("stdio", async ({ config }) => {
      const e = await rejection(connectMcp(config, { identity: alice, authorize: allowAll }));
      assert.equal(e.code, "config");
      assert.match(e.message, /write tool "rename" is annotated readOnlyHint: true/);
    }, { modes: "rename-read-only" }),
  );

  test("W1: a mapped tool the server does not list is tool_not_found", T, () =>
    withContract("stdio", async ({ config }) => {
      const e = await rejection(connectMcp({ ...config, writeTools: { rename: { ...RENAME.rename, receiptTool: "nope" } } }, { identity: alice, authorize: allowAll }));
      assert.equal(e.code, "tool_not_found");
      assert.match(e.message, /"nope"/);
    }),
  );
});

describe("W2: the action envelope", { concurrency: true }, () => {
  for (const kind of KINDS) {
    test(`W2: prepare, execute and receipt carry exactly their envelope fields (${kind})`, T, () =>
      withContract(kind, async ({ config }) => {
        const rec = recording();
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
          const rename = writeTool(c);
          const prepared = await rename.prepare({ id: "A", name: "Renamed" }, { identity: alice });
          const action = approve(prepared, "op-envelope");
          assert.equal((await rename.execute(action, { identity: alice })).status, "succeeded");
          assert.equal((await rename.reconcile(action, { identity: alice })).status, "succeeded");
          const base = { contractVersion: 1, tool: "rename", actorId: "alice", tenantId: "acme" };
          assert.deepEqual(envelopes(rec.sent), [
            { name: "prepare_rename", meta: base, args: { id: "A", name: "Renamed" } },
            { name: "rename", meta: { ...base, operationId: "op-envelope", stateVersion: prepared.stateVersion }, args: { id: "A", name: "Renamed" } },
            { name: "rename_receipt", meta: { ...base, operationId: "op-envelope" }, args: {} },
          ]);
        });
      }),
    );
  }

  test("W2: model arguments cannot carry _meta, so they cannot reach the envelope; nothing is sent", T, () =>
    withContract("stdio", async ({ config, log }) => {
      const rec = recording();
      const c = await connectMcp({ ...config, confirmTools: ["add_item"] }, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory });
      await using(c, async () => {
        const forged = { "io.yada/action": { contractVersion: 1, tool: "rename", actorId: "root", tenantId: "other", operationId: "x", stateVersion: "A:1" } };
        // add_item's schema accepts other members: only the _meta rule stops this one.
        const add = c.tools.find((t) => t.name === "contract__add_item");
        assert.equal(add?.effect, "confirm");
        const e1 = await rejection(add.effect === "confirm" ? add.prepare({ id: "D", name: "x", _meta: forged }, { identity: alice }) : Promise.resolve());
        assert.equal(e1.code, "validation");
        assert.match(e1.message, /_meta/);
        const e2 = await rejection(writeTool(c).prepare({ id: "A", name: "x", _meta: forged }, { identity: alice }));
        assert.equal(e2.code, "validation");
        assert.deepEqual(calls(rec.sent), []);
        assert.equal(performed(log), 0);
      });
    }),
  );

  test("W2: the envelope's identity is the connection's; a server that checks it refuses another principal", T, () =>
    withContract("http", async ({ config, log }) => {
      // The HTTP server authenticates bob's token; the connection acts for alice.
      const c = await connectMcp({ name: "contract", url: String(config.url), headers: { authorization: "Bearer bob-token" }, writeTools: RENAME }, { identity: alice, authorize: allowAll });
      await using(c, async () => {
        const e = await rejection(writeTool(c).prepare({ id: "A", name: "x" }, { identity: alice }));
        assert.equal(e.code, "tool_failed");
        assert.match(e.message, /forbidden/);
        assert.equal(performed(log), 0);
      });
    }, { tokens: { "bob-token": "bob/acme" } }),
  );
});

async function prepared(c: McpConnection<Tool>): Promise<{ rename: WriteTool; action: ReturnType<typeof approve> }> {
  const rename = writeTool(c);
  return { rename, action: approve(await rename.prepare({ id: "B", name: "Renamed B" }, { identity: alice })) };
}

describe("W3: strict, bounded result envelopes", { concurrency: true }, () => {
  for (const kind of KINDS) {
    test(`W3: a correct server: prepare gives stateVersion and preview; execute succeeds once; a repeated operation id writes nothing (${kind})`, T, () =>
      withContract(kind, async ({ config, log }) => {
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
          const { rename, action } = await prepared(c);
          assert.equal(action.stateVersion, "B:1");
          assert.equal(action.preview, 'Rename B from "Product B" to "Renamed B"');
          assert.match(action.version, /^reviewed-1\+sha256:[0-9a-f]{64}$/);
          const first = await rename.execute(action, { identity: alice });
          assert.equal(first.status, "succeeded");
          const again = await rename.execute(action, { identity: alice });
          assert.deepEqual(again, first);
          assert.equal(performed(log, action.operationId), 1);
        });
      }),
    );
  }

  for (const mode of ["prepare-text-only", "prepare-extra-fields", "prepare-long-state"]) {
    test(`W3: a preparation that is not strict is a contract error (${mode})`, T, () =>
      withContract("stdio", async ({ config }) => {
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
          const e = await rejection(writeTool(c).prepare({ id: "A", name: "x" }, { identity: alice }));
          assert.equal(e.code, "contract");
          assert.match(e.message, /contract: tools\/call "prepare_rename"/);
        });
      }, { modes: mode }),
    );
  }

  for (const mode of ["text-only", "extra-fields", "missing-fields", "wrong-operation-id", "unknown-status"]) {
    test(`W3: an execute answer that is not a strict receipt is never success: unknown (${mode})`, T, () =>
      withContract("stdio", async ({ config, log }) => {
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
          const { rename, action } = await prepared(c);
          const outcome = await rename.execute(action, { identity: alice });
          assert.equal(outcome.status, "unknown");
          assert.equal("notSent" in outcome ? outcome.notSent : undefined, undefined, "it was sent");
          assert.equal(performed(log, action.operationId), 1, "the server did write");
          // The receipt establishes it.
          assert.equal((await rename.reconcile(action, { identity: alice })).status, "succeeded");
        });
      }, { modes: mode }),
    );
  }

  for (const mode of ["empty-receipt", "receipt-unknown"]) {
    test(`W3: an empty or unknown receipt keeps the outcome unknown (${mode})`, T, () =>
      withContract("stdio", async ({ config }) => {
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
          const { rename, action } = await prepared(c);
          assert.equal((await rename.execute(action, { identity: alice })).status, "unknown");
          for (let i = 0; i < 2; i++) assert.equal((await rename.reconcile(action, { identity: alice })).status, "unknown");
        });
      }, { modes: mode }),
    );
  }

  test("W3: a stale state version is a definitive failure with the server's message", T, () =>
    withContract("stdio", async ({ config, log }) => {
      await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
        const { rename, action } = await prepared(c);
        const outcome = await rename.execute({ ...action, stateVersion: "B:0" }, { identity: alice });
        assert.equal(outcome.status, "failed");
        assert.match(outcome.status === "failed" ? outcome.result.content.map((p) => (p.type === "text" ? p.text : "")).join("") : "", /"error":"tool_failed".*changed since it was prepared/);
        assert.equal(performed(log), 0);
      });
    }),
  );

  test("W3: a state version over 1,024 or an operation id over 256 characters is refused before the send", T, () =>
    withContract("stdio", async ({ config }) => {
      const rec = recording();
      await using(await connectMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
        const { rename, action } = await prepared(c);
        for (const bad of [{ stateVersion: "v".repeat(1025) }, { stateVersion: "" }, { operationId: "o".repeat(257) }, { operationId: "" }]) {
          const e = await rejection(rename.execute({ ...action, ...bad }, { identity: alice }));
          assert.equal(e.code, "validation");
        }
        assert.deepEqual(calls(rec.sent), ["prepare_rename"]);
        assert.equal((await rename.execute({ ...action, stateVersion: "B:1", operationId: "o".repeat(256) }, { identity: alice })).status, "succeeded");
      });
    }),
  );

  test("W3: a mutating preparation cannot make its execute succeed: the state version it answered is stale", T, () =>
    withContract("stdio", async ({ config, log }) => {
      await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
        const { rename, action } = await prepared(c);
        assert.equal((await rename.execute(action, { identity: alice })).status, "failed");
        assert.equal(performed(log), 1, "the broken server wrote during prepare, once; execute wrote nothing");
      });
    }, { modes: "mutating-prepare" }),
  );
});

describe("W11: write configuration types", () => {
  test("W11: a literal with writeTools gives McpConnection<Tool>; phases need the effect narrowed", T, () =>
    withContract("stdio", async ({ log }) => {
      const c = await connectMcp(
        { name: "contract", command: process.execPath, args: [contractStdio(log).args?.[0] ?? "", "--log", log], writeTools: { rename: { version: "r1", prepareTool: "prepare_rename", receiptTool: "rename_receipt" } } },
        { identity: alice, authorize: allowAll },
      );
      await using(c, async () => {
        const first: Tool | undefined = c.tools[1];
        // @ts-expect-error a Tool has no prepare until narrowed by effect
        assert.equal(typeof first?.prepare, "function");
        if (first?.effect !== "write") throw new Error("expected the write tool second");
        assert.equal((await first.prepare({ id: "C", name: "x" }, { identity: alice })).stateVersion, "C:1");
      });
    }),
  );
});
