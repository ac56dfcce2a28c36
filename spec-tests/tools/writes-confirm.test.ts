// W6, W7: what an approval covers (write versions, confirm versions) and
// confirmed tools, against the reference contract server and server-everything.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { connectMcp } from "../../src/node/tools.js";
import type { McpServerConfig } from "../../src/tools/config.js";
import { alice, allowAll, calls, everything, recording, rejection, T, textOf, using } from "./helpers.js";
import { approve, confirmTool, contractStdio, performed, RENAME, withContract, writeTool } from "./writes-support.js";

/** The version of the rename write tool under `config`. */
async function versionOf(config: McpServerConfig): Promise<string> {
  return using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => writeTool(c).version);
}

describe("W6: the write tool's version", { concurrency: true }, () => {
  test("W6: the version changes with the reviewed version, the endpoint, the mapping and a schema, not with env values or tokens", T, () =>
    withContract("stdio", async ({ log, config }) => {
      const base = await versionOf(config);
      assert.match(base, /^reviewed-1\+sha256:[0-9a-f]{64}$/);
      assert.equal(await versionOf({ ...config, env: { API_TOKEN: "rotated-secret" } } as McpServerConfig), base, "env values are excluded");
      assert.notEqual(await versionOf({ ...config, writeTools: { rename: { ...RENAME.rename, version: "reviewed-2" } } }), base);
      assert.notEqual(await versionOf(contractStdio(log, { args: ["--principal", "alice/acme"] })), base, "other arguments: another endpoint");
      assert.notEqual(await versionOf(contractStdio(log, { modes: "rename-schema-v2" })), await versionOf(contractStdio(log, { modes: "correct" })), "a changed input schema");
      const remapped = contractStdio(log, { extra: { writeTools: { rename: { ...RENAME.rename, receiptTool: "get_item" } } } });
      assert.notEqual(await versionOf(remapped), base, "another helper mapping");
    }),
  );

  test("W6: over HTTP the URL counts and a rotated bearer token does not", T, () =>
    withContract("http", async ({ config }) => {
      const url = String(config.url);
      const one = await versionOf({ name: "contract", url, headers: { authorization: "Bearer t1" }, writeTools: RENAME });
      const two = await versionOf({ name: "contract", url, headers: { authorization: "Bearer t2" }, writeTools: RENAME });
      assert.equal(one, two);
      assert.notEqual(await versionOf({ name: "contract", url: `${url}?v=2`, headers: { authorization: "Bearer t1" }, writeTools: RENAME }), one);
    }, { tokens: { t1: "alice/acme", t2: "alice/acme" } }),
  );

  test("W6: an approval never crosses a changed schema: version_changed, nothing sent", T, () =>
    withContract("stdio", async ({ log }) => {
      const before = await connectMcp(contractStdio(log), { identity: alice, authorize: allowAll });
      const action = await using(before, async (c) => approve(await writeTool(c).prepare({ id: "A", name: "x" }, { identity: alice })));
      const rec = recording();
      await using(await connectMcp(contractStdio(log, { modes: "rename-schema-v2" }), { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
        const outcome = await writeTool(c).execute(action, { identity: alice });
        assert.equal(outcome.status, "failed");
        assert.match(outcome.status === "failed" ? textOf(outcome.result) : "", /"error":"version_changed"/);
        assert.equal(outcome.status === "failed" ? outcome.notSent : undefined, true);
        assert.equal((await writeTool(c).reconcile(action, { identity: alice })).status, "unknown");
      });
      assert.deepEqual(calls(rec.sent), []);
      assert.equal(performed(log), 0);
    }),
  );
});

describe("W7: confirmed tools", { concurrency: true }, () => {
  for (const kind of ["stdio", "http"] as const) {
    test(`W7: a confirmed tool prepares without sending, executes once, and a remote isError is tool_failed (${kind})`, T, () =>
      withContract(kind, async ({ config, log }) => {
        const rec = recording();
        await using(await connectMcp({ ...config, confirmTools: ["delete_item"] }, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
          const del = confirmTool(c, "contract__delete_item");
          assert.match(del.version, /^confirm:[0-9a-f]{64}$/);
          const prepared = await del.prepare({ id: "B" }, { identity: alice });
          assert.deepEqual(prepared, { tool: "contract__delete_item", version: del.version, arguments: { id: "B" } });
          assert.deepEqual(calls(rec.sent), []);
          const done = await del.execute(approve(prepared), { identity: alice });
          assert.equal(done.status, "succeeded");
          assert.equal(done.status === "succeeded" ? textOf(done.result) : "", "deleted B");
          const missing = await del.execute(approve(await del.prepare({ id: "Z" }, { identity: alice })), { identity: alice });
          assert.equal(missing.status, "failed");
          assert.equal(missing.status === "failed" ? textOf(missing.result) : "", '{"error":"tool_failed","message":"no item Z"}');
          assert.deepEqual(calls(rec.sent), ["delete_item", "delete_item"]);
          assert.equal(performed(log), 1);
        });
      }),
    );
  }

  test("W7: one approved call is sent at most once: repeating its execute sends nothing", T, () =>
    withContract("stdio", async ({ config, log }) => {
      const rec = recording();
      await using(await connectMcp({ ...config, confirmTools: ["add_item"] }, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
        const add = confirmTool(c, "contract__add_item");
        const action = approve(await add.prepare({ id: "D", name: "Product D" }, { identity: alice }));
        const [first, second] = await Promise.allSettled([add.execute(action, { identity: alice }), add.execute(action, { identity: alice })]);
        assert.equal(first.status === "fulfilled" ? first.value.status : first.reason, "succeeded");
        assert.equal(second.status === "rejected" ? (second.reason as { code?: string }).code : "sent", "validation");
        assert.equal((await rejection(add.execute(action, { identity: alice }))).code, "validation");
        assert.deepEqual(calls(rec.sent), ["add_item"]);
        assert.equal(performed(log), 1);
      });
    }),
  );

  test("W7: an uncertain outcome (timeout, cancellation after the send) is unknown, sent once", { timeout: 30_000 }, () =>
    withContract("stdio", async ({ config }) => {
      const rec = recording();
      await using(await connectMcp({ ...config, confirmTools: ["delete_item"] }, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory, timeoutMs: 3_000 }), async (c) => {
        const del = confirmTool(c, "contract__delete_item");
        const timedOut = await del.execute(approve(await del.prepare({ id: "A" }, { identity: alice })), { identity: alice });
        assert.equal(timedOut.status, "unknown");
        const cancelled = await del.execute(approve(await del.prepare({ id: "B" }, { identity: alice })), { identity: alice, signal: AbortSignal.timeout(200) });
        assert.equal(cancelled.status, "unknown");
        assert.deepEqual(calls(rec.sent), ["delete_item", "delete_item"]);
      });
    }, { executeDelayMs: 10_000 }),
  );

  test('W7: "*" confirms every tool with no other role that is not readOnlyHint: true; helpers never', T, () =>
    withContract("stdio", async ({ config }) => {
      const names = async (extra: Record<string, unknown>): Promise<string[]> =>
        using(await connectMcp({ ...config, ...extra } as McpServerConfig, { identity: alice, authorize: allowAll }), async (c) => c.tools.map((t) => `${t.name}:${t.effect}`));
      assert.deepEqual(await names({ confirmTools: "*" }), ["contract__get_item:read", "contract__rename:write", "contract__delete_item:confirm", "contract__add_item:confirm"]);
      // Without the mapping the helpers are plain read-only tools, so reads.
      assert.deepEqual(await names({ writeTools: undefined, confirmTools: "*" }), [
        "contract__get_item:read",
        "contract__prepare_rename:read",
        "contract__rename_receipt:read",
        "contract__rename:confirm",
        "contract__delete_item:confirm",
        "contract__add_item:confirm",
      ]);
      assert.deepEqual(await names({ writeTools: undefined, readTools: ["get_item", "add_item"], confirmTools: "*" }), ["contract__get_item:read", "contract__add_item:read", "contract__rename:confirm", "contract__delete_item:confirm"]);
    }),
  );

  test("W7: confirmTools names must exist and must not overlap other roles", T, () =>
    withContract("stdio", async ({ config }) => {
      const missing = await rejection(connectMcp({ ...config, confirmTools: ["drop_table"] }, { identity: alice, authorize: allowAll }));
      assert.equal(missing.code, "tool_not_found");
      for (const extra of [{ readTools: ["get_item"], confirmTools: ["get_item"] }, { confirmTools: ["rename"] }, { confirmTools: ["prepare_rename"] }]) {
        const e = await rejection(connectMcp({ ...config, ...extra } as McpServerConfig, { identity: alice, authorize: allowAll }));
        assert.equal(e.code, "config", JSON.stringify(extra));
        assert.match(e.message, /cannot overlap/);
      }
    }),
  );

  test("W7: a changed version, a denial or another identity at execute sends nothing", T, () =>
    withContract("stdio", async ({ config, log }) => {
      const rec = recording();
      let allow = true;
      await using(await connectMcp({ ...config, confirmTools: ["delete_item"] }, { identity: alice, authorize: () => allow }, { transportFactory: rec.factory }), async (c) => {
        const del = confirmTool(c, "contract__delete_item");
        const action = approve(await del.prepare({ id: "A" }, { identity: alice }));
        const changed = await del.execute({ ...action, version: "confirm:0" }, { identity: alice });
        assert.match(changed.status === "failed" ? textOf(changed.result) : "", /version_changed/);
        allow = false;
        const denied = await del.execute(action, { identity: alice });
        assert.match(denied.status === "failed" ? textOf(denied.result) : "", /"error":"unauthorized"/);
        assert.equal((await rejection(del.execute(action, { identity: { actorId: "eve", tenantId: "acme" } }))).code, "unauthorized");
        assert.deepEqual(calls(rec.sent), []);
        assert.equal(performed(log), 0);
      });
    }),
  );

  test("W7: server-everything, unchanged: its mutating tools become confirmed tools and execute once", T, async () => {
    await using(await connectMcp({ ...everything(), confirmTools: "*" } as McpServerConfig, { identity: alice, authorize: allowAll }), async (c) => {
      const effects = new Map(c.tools.map((t) => [t.name, t.effect]));
      assert.equal(effects.get("everything__echo"), "read");
      assert.equal(effects.get("everything__toggle-simulated-logging"), "confirm");
      const toggle = confirmTool(c, "everything__toggle-simulated-logging");
      const outcome = await toggle.execute(approve(await toggle.prepare({}, { identity: alice })), { identity: alice });
      assert.equal(outcome.status, "succeeded");
      assert.match(outcome.status === "succeeded" ? textOf(outcome.result) : "", /logging/i);
    });
  });
});
