// W4, W5: phase authorization and execute failure classes of write tools, against
// the reference contract server (fixtures/servers/contract) over stdio and HTTP,
// its durable log counting what it really performed.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { connectMcp } from "../../src/node/tools.js";
import type { FetchFunction } from "../../src/transport/http.js";
import type { ActionOutcome } from "../../src/tools/types.js";
import { alice, allowAll, calls, mallory, recording, rejection, T, until, using } from "./helpers.js";
import { approve, performed, RENAME, withContract, writeTool } from "./writes-support.js";
import { pathToFileURL } from "node:url";
import { repoPath } from "../helpers/paths.js";

type ProxyModule = typeof import("../../fixtures/actions/cut-proxy.mjs");
const { startCutProxy } = (await import(pathToFileURL(repoPath("fixtures", "actions", "cut-proxy.mjs")).href)) as ProxyModule;

const KINDS = ["stdio", "http"] as const;
const notSent = (o: ActionOutcome): boolean | undefined => (o.status === "succeeded" ? undefined : o.notSent);

describe("W4: phase authorization", { concurrency: true }, () => {
  for (const kind of KINDS) {
    test(`W4: prepare authorizes the mutation and the preparation helper, execute the mutation, reconcile the mutation and the receipt helper (${kind})`, T, () =>
      withContract(kind, async ({ config }) => {
        const asked: string[] = [];
        const authorize = (who: { actorId: string }, tool: string): boolean => {
          asked.push(`${who.actorId}:${tool}`);
          return true;
        };
        await using(await connectMcp(config, { identity: alice, authorize }), async (c) => {
          const rename = writeTool(c);
          const action = approve(await rename.prepare({ id: "A", name: "x" }, { identity: alice }));
          assert.deepEqual(asked.splice(0), ["alice:rename", "alice:prepare_rename"]);
          await rename.execute(action, { identity: alice });
          assert.deepEqual(asked.splice(0), ["alice:rename"]);
          await rename.reconcile(action, { identity: alice });
          assert.deepEqual(asked.splice(0), ["alice:rename", "alice:rename_receipt"]);
        });
      }),
    );
  }

  test("W4: a denied helper or mutation stops its phase before anything is sent", T, () =>
    withContract("stdio", async ({ config, log }) => {
      const rec = recording();
      const denied = new Set<string>();
      const authorize = (_: unknown, tool: string): boolean => !denied.has(tool);
      await using(await connectMcp(config, { identity: alice, authorize }, { transportFactory: rec.factory }), async (c) => {
        const rename = writeTool(c);
        denied.add("prepare_rename");
        const e = await rejection(rename.prepare({ id: "A", name: "x" }, { identity: alice }));
        assert.equal(e.code, "unauthorized");
        assert.match(e.message, /denied "prepare_rename"/);
        denied.clear();
        const action = approve(await rename.prepare({ id: "A", name: "x" }, { identity: alice }));
        denied.add("rename");
        const outcome = await rename.execute(action, { identity: alice });
        assert.equal(outcome.status, "failed");
        assert.equal(notSent(outcome), true);
        denied.clear();
        denied.add("rename_receipt");
        assert.equal((await rename.reconcile(action, { identity: alice })).status, "unknown");
        assert.deepEqual(calls(rec.sent), ["prepare_rename"]);
        assert.equal(performed(log), 0);
      });
    }),
  );

  test("W4: another identity, a closed connection and a cancelled signal are refused in every phase, before the send", T, () =>
    withContract("stdio", async ({ config, log }) => {
      const rec = recording();
      const c = await connectMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory });
      const rename = writeTool(c);
      const action = approve(await rename.prepare({ id: "A", name: "x" }, { identity: alice }));
      const phases = (context: Parameters<typeof rename.execute>[1]) => [rename.prepare({ id: "A", name: "x" }, context), rename.execute(action, context), rename.reconcile(action, context)];
      for (const p of phases({ identity: mallory })) assert.equal((await rejection(p)).code, "unauthorized");
      for (const p of phases({ identity: { ...alice, actorId: "bob" } })) assert.equal((await rejection(p)).code, "unauthorized");
      for (const p of phases({ identity: alice, signal: AbortSignal.abort() })) assert.equal((await rejection(p)).code, "cancelled");
      await c.close();
      for (const p of phases({ identity: alice })) assert.equal((await rejection(p)).code, "connection_closed");
      assert.deepEqual(calls(rec.sent), ["prepare_rename"]);
      assert.equal(performed(log), 0);
    }),
  );
});

describe("W5: execute failures leave the outcome unknown; recovery only by receipt", { concurrency: true }, () => {
  for (const kind of KINDS) {
    test(`W5: a connection dropped after the write is unknown; a new connection resolves it by receipt, never resending (${kind})`, T, () =>
      withContract(kind, async ({ config, log }) => {
        const first = recording();
        const c1 = await connectMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: first.factory });
        const action = approve(await writeTool(c1).prepare({ id: "A", name: "After drop" }, { identity: alice }));
        const outcome = await writeTool(c1).execute(action, { identity: alice });
        assert.equal(outcome.status, "unknown");
        assert.equal(notSent(outcome), undefined);
        await c1.close();
        assert.equal(performed(log, action.operationId), 1);
        // A new connection (after a reconnect or a restart) asks for the receipt only.
        const second = recording();
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: second.factory }), async (c2) => {
          const reconciled = await writeTool(c2).reconcile(action, { identity: alice });
          assert.equal(reconciled.status, "succeeded");
          assert.match(reconciled.status === "succeeded" ? JSON.stringify(reconciled.result) : "", /renamed A to .*After drop/);
        });
        assert.deepEqual([...calls(first.sent), ...calls(second.sent)], ["prepare_rename", "rename", "rename_receipt"]);
        assert.equal(performed(log, action.operationId), 1);
      }, { modes: "drop-after-perform" }),
    );
  }

  test("W5: a timeout after the server performed is unknown, and the receipt establishes the write", { timeout: 40_000 }, () =>
    withContract("stdio", async ({ config, log }) => {
      await using(await connectMcp(config, { identity: alice, authorize: allowAll }, { timeoutMs: 6_000 }), async (c) => {
        const rename = writeTool(c);
        const action = approve(await rename.prepare({ id: "C", name: "Slow" }, { identity: alice }));
        const outcome = await rename.execute(action, { identity: alice });
        assert.equal(outcome.status, "unknown");
        assert.match(outcome.status === "unknown" ? outcome.reason : "", /^timeout: /);
        assert.equal(performed(log, action.operationId), 1);
        assert.equal((await rename.reconcile(action, { identity: alice })).status, "succeeded");
      });
    }, { modes: "timeout-after-perform" }),
  );

  test("W5: a call cancelled after it was sent is unknown, not thrown", T, () =>
    withContract("stdio", async ({ config, log }) => {
      const rec = recording();
      await using(await connectMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
        const rename = writeTool(c);
        const action = approve(await rename.prepare({ id: "C", name: "x" }, { identity: alice }));
        const controller = new AbortController();
        const running = rename.execute(action, { identity: alice, signal: controller.signal });
        await until(() => calls(rec.sent).includes("rename"), 15_000);
        controller.abort();
        const outcome = await running;
        assert.equal(outcome.status, "unknown");
        assert.equal(notSent(outcome), undefined);
        assert.equal(performed(log), 0, "the server dropped it during its delay (cancelled)");
      });
    }, { executeDelayMs: 5_000 }),
  );

  test("W5: a refused connection is unknown with notSent: no byte reached the server", T, () =>
    withContract("http", async ({ config, http, log }) => {
      const c = await connectMcp(config, { identity: alice, authorize: allowAll });
      await using(c, async () => {
        const action = approve(await writeTool(c).prepare({ id: "A", name: "x" }, { identity: alice }));
        await http?.close();
        // The first request after the close may meet the pooled socket closing: that
        // one is uncertain. A read takes it; the mutation then meets a refused connection.
        const read = c.tools.find((t) => t.effect === "read");
        await read?.execute({ id: "A" }, { identity: alice });
        const outcome = await writeTool(c).execute(action, { identity: alice });
        assert.equal(outcome.status, "unknown");
        assert.equal(notSent(outcome), true);
        assert.equal(performed(log), 0);
      });
    }),
  );

  for (const status of [401, 403]) {
    test(`W5: a ${status} answered before the body was read is unknown with notSent; through a fetch of the host's own it proves nothing`, T, () =>
      withContract("http", async ({ http, log }) => {
        // A loopback gateway in front of the real server refuses the mutation unread.
        let refuse = false;
        const proxy = await startCutProxy({ port: http?.port ?? 0, plan: (r) => (refuse && r.tool === "rename" ? { kind: "status", status } : { kind: "forward" }) });
        try {
          const config = { name: "contract", url: proxy.url, writeTools: RENAME };
          const own: FetchFunction = (input, init) => globalThis.fetch(input, init);
          for (const fetch of [undefined, own]) {
            const c = await connectMcp(config, { identity: alice, authorize: allowAll }, fetch ? { fetch } : {});
            await using(c, async () => {
              const action = approve(await writeTool(c).prepare({ id: "A", name: "x" }, { identity: alice }));
              refuse = true;
              const outcome = await writeTool(c).execute(action, { identity: alice });
              refuse = false;
              assert.equal(outcome.status, "unknown");
              // A host's fetch may retry or relay: its refusal is uncertain like any failure after the send began.
              assert.equal(notSent(outcome), fetch ? undefined : true, fetch ? "a host fetch" : "the runtime's fetch");
              assert.match(outcome.status === "unknown" ? outcome.reason : "", new RegExp(`^http: .*${status}`));
              assert.equal(performed(log), 0);
            });
          }
        } finally {
          await proxy.close();
        }
      }),
    );
  }
});
