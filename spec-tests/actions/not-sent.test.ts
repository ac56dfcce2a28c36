// W5, W8: an approval is not spent on a send that never happened, and a send that may
// have happened is never repeated. Real processes and loopback servers only: the
// reference contract server (stdio child or HTTP) with its own durable log of every
// mutation, behind a loopback proxy that refuses, answers or cuts (fixtures/actions/
// cut-proxy.mjs), and connectMcp's own write tool. Not sent (the connection closed or
// refused before the send, HTTP 401 / 403): tried again after resolveTool, executed
// exactly once. Maybe sent (500, 502, 504 after the POST, a request cut mid-body, an
// answer cut short, a server that crashed after reading): reconciling, never sent again.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createActions } from "../../src/actions/approvals.js";
import { MemoryActionStore } from "../../src/actions/memory-store.js";
import { createWorker, type WorkerOptions } from "../../src/actions/worker.js";
import type { ActionRecord, ActionStore } from "../../src/actions/types.js";
import { NOT_SENT_RETRY_DELAY_MS, RECONCILE_MAX_DELAY_MS } from "../../src/limits.js";
import { connectMcp } from "../../src/node/tools.js";
import type { McpServerConfig } from "../../src/tools/config.js";
import type { McpConnection } from "../../src/tools/connect.js";
import type { Tool, WriteTool } from "../../src/tools/types.js";
import { repoPath } from "../helpers/paths.js";
import { contractStdio, logLines, RENAME, startContractHttp } from "../tools/writes-support.js";
import { alice, bob, tempDir } from "./support.js";

type ProxyModule = typeof import("../../fixtures/actions/cut-proxy.mjs");
const { startCutProxy } = (await import(pathToFileURL(repoPath("fixtures", "actions", "cut-proxy.mjs")).href)) as ProxyModule;
type Plan = import("../../fixtures/actions/cut-proxy.mjs").Plan;

const T = { timeout: 60_000 };
const allow = () => true;

/** Renames the server performed or refused with this operation id (its own log). */
const renames = (log: string, operationId: string) => logLines(log).filter((l) => l.tool === "rename" && l.operationId === operationId);

/**
 * The host's resolver: connectMcp for the action's actor, kept while it is connected and
 * made again once it is not (a server that died, a session that expired). `calls` counts
 * the resolutions; `beforeReturn` runs inside the first one (a test kills the server there).
 */
function reconnecting(config: McpServerConfig, beforeReturn?: (c: McpConnection<Tool>) => Promise<void>) {
  let current: McpConnection<Tool> | undefined;
  let connecting: Promise<McpConnection<Tool>> | undefined;
  let first: Promise<void> | undefined;
  const all: McpConnection<Tool>[] = [];
  const state = { calls: 0, connects: 0 };
  const connection = async (): Promise<McpConnection<Tool>> => {
    if (current?.isConnected()) return current;
    connecting ??= connectMcp(config, { identity: alice, authorize: allow }).then((c) => {
      state.connects++;
      all.push(c);
      current = c;
      connecting = undefined;
      return c;
    });
    return connecting;
  };
  return {
    state,
    connection,
    resolveTool: async (a: ActionRecord): Promise<WriteTool | undefined> => {
      state.calls++;
      const c = await connection();
      const tool = c.tools.find((t): t is WriteTool => t.name === a.tool && t.effect === "write");
      if (beforeReturn) await (first ??= beforeReturn(c));
      return tool;
    },
    close: async () => {
      for (const c of all) await c.close().catch(() => undefined);
    },
  };
}

/** Prepares and approves a rename through the connection's own write tool. */
async function approvedRename(store: ActionStore, c: McpConnection<Tool>, id: string, name: string): Promise<ActionRecord> {
  const tool = c.tools.find((t): t is WriteTool => t.name === "contract__rename" && t.effect === "write");
  assert.ok(tool, "the write tool");
  const actions = createActions({ store, mayApprove: allow });
  const proposed = await actions.propose(await tool.prepare({ id, name }, { identity: alice }), { identity: alice, effect: "write" });
  return actions.approve(proposed, bob);
}

/** A worker over `store` that records every state it stored per action. */
function recordingWorker(store: ActionStore, resolveTool: (a: ActionRecord) => Promise<WriteTool | undefined>, extra: Partial<WorkerOptions> = {}) {
  const moves = new Map<string, string[]>();
  const worker = createWorker({
    store,
    resolveTool,
    onAction: (a) => moves.set(a.id, [...(moves.get(a.id) ?? []), a.state]),
    ...extra,
  });
  return { worker, moves };
}

describe("W5, W8: not sent is tried again, exactly once in the end", T, () => {
  test("W5, W8: a stdio server killed before the batch's sends: each execute never left, is tried again after resolveTool reconnects, and the server's log shows each performed exactly once", T, async () => {
    const dir = tempDir();
    const log = join(dir, "contract.log");
    const pidFile = join(dir, "server.pid");
    const config = contractStdio(log, { args: ["--pid-file", pidFile] });
    const store = new MemoryActionStore();
    // The server dies after the tools were resolved and before anything was sent: the
    // connection is closed when the calls are made (the issue of a batch claimed together).
    const host = reconnecting(config, async (c) => {
      process.kill(Number(readFileSync(pidFile, "utf8")), "SIGKILL");
      for (let i = 0; i < 200 && c.isConnected(); i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(c.isConnected(), false, "the client saw the server die");
    });
    try {
      const first = await host.connection();
      const approved = [];
      for (const item of ["A", "B", "C"]) approved.push(await approvedRename(store, first, item, `${item} renamed`));
      const { worker, moves } = recordingWorker(store, host.resolveTool, { concurrency: 3 });
      assert.equal(await worker.runOnce(), 3);
      for (const a of approved) {
        const done = await store.get(a.id);
        assert.equal(done?.state, "succeeded", `${a.id}: ${JSON.stringify(done?.outcome)}`);
        assert.deepEqual(moves.get(a.id), ["executing", "succeeded"], "one executing record, never reconciling");
        const lines = renames(log, a.operationId);
        assert.equal(lines.length, 1, "the server received the rename once");
        assert.equal(lines[0]?.status, "succeeded");
      }
      assert.equal(host.state.connects, 2, "resolveTool reconnected once, for all three");
      assert.ok(host.state.calls >= 6, `resolveTool was called again before each retry (${host.state.calls} calls)`);
    } finally {
      await host.close();
    }
  });

  test("W5, W8: HTTP refused before the send (connection refused, 401, 403) is tried again under the same operation id and performed exactly once", T, async () => {
    const dir = tempDir();
    const log = join(dir, "contract.log");
    const server = await startContractHttp({ log });
    let refuse: number | undefined;
    const proxy = await startCutProxy({
      port: server.port,
      plan: (r): Plan => {
        if (r.tool === "rename" && refuse !== undefined) {
          const status = refuse;
          refuse = undefined;
          return { kind: "status", status };
        }
        return { kind: "forward" };
      },
    });
    const host = reconnecting({ name: "contract", url: proxy.url, writeTools: RENAME } as McpServerConfig);
    try {
      const store = new MemoryActionStore();
      const c = await host.connection();
      const cases = [
        { item: "A", how: "refused" },
        { item: "B", how: 401 },
        { item: "C", how: 403 },
      ] as const;
      for (const { item, how } of cases) {
        const a = await approvedRename(store, c, item, `${item} again`);
        const resolvedAt: number[] = [];
        const { worker, moves } = recordingWorker(store, async (x) => {
          resolvedAt.push(performance.now());
          const tool = await host.resolveTool(x);
          // The first attempt only: the proxy stops listening for a moment, or refuses the POST unread.
          if (host.state.calls === 1) {
            if (how === "refused") void proxy.pause(80);
            else refuse = how;
          }
          return tool;
        });
        host.state.calls = 0;
        assert.equal(await worker.runOnce(), 1);
        const done = await store.get(a.id);
        assert.equal(done?.state, "succeeded", `${how}: ${JSON.stringify(done?.outcome)}`);
        assert.deepEqual(moves.get(a.id), ["executing", "succeeded"], `${how}: never reconciling`);
        assert.equal(host.state.calls, 2, `${how}: resolveTool again before the second attempt`);
        const pause = (resolvedAt[1] ?? 0) - (resolvedAt[0] ?? 0);
        assert.ok(pause >= NOT_SENT_RETRY_DELAY_MS / 2, `${how}: a pause of at least half NOT_SENT_RETRY_DELAY_MS before trying again (${pause} ms)`);
        const posts = proxy.seen.filter((s) => s.tool === "rename" && s.operationId === a.operationId);
        assert.deepEqual(posts.map((s) => s.plan?.kind), how === "refused" ? ["forward"] : ["status", "forward"], `${how}: the POSTs that reached the proxy`);
        const lines = renames(log, a.operationId);
        assert.deepEqual(lines.map((l) => l.status), ["succeeded"], `${how}: performed exactly once`);
      }
    } finally {
      await host.close();
      await proxy.close();
      await server.close();
    }
  });
});

describe("W5, W8: maybe sent is never sent again", T, () => {
  const cases: Array<{ what: string; plan?: Plan; modes?: string; performs: boolean }> = [
    { what: "HTTP 500 after the POST", plan: { kind: "after", status: 500 }, performs: true },
    { what: "HTTP 502 after the POST", plan: { kind: "after", status: 502 }, performs: true },
    { what: "HTTP 504 after the POST", plan: { kind: "after", status: 504 }, performs: true },
    { what: "the request cut mid-body", plan: { kind: "cut-request", at: 400 }, performs: false },
    { what: "the answer cut short", plan: { kind: "cut-response", at: 20 }, performs: true },
    { what: "the server crashed after reading it (its socket destroyed)", modes: "drop-after-perform", performs: true },
  ];
  for (const c of cases) {
    test(`W5, W8: ${c.what}: reconciling, never retried; settled by receipt${c.performs ? "" : " or, never performed, by the reconcile window"}`, T, async () => {
      const dir = tempDir();
      const log = join(dir, "contract.log");
      const server = await startContractHttp({ log, modes: c.modes });
      let broken = false;
      const proxy = await startCutProxy({
        port: server.port,
        plan: (r): Plan => {
          if (r.tool === "rename" && c.plan && !broken) {
            broken = true;
            return c.plan;
          }
          return { kind: "forward" };
        },
      });
      const host = reconnecting({ name: "contract", url: proxy.url, writeTools: RENAME } as McpServerConfig);
      try {
        const store = new MemoryActionStore();
        const a = await approvedRename(store, await host.connection(), "A", "Maybe");
        let clock = Date.now();
        const { worker, moves } = recordingWorker(store, host.resolveTool, { now: () => clock, reconcileWindowMs: 10 * RECONCILE_MAX_DELAY_MS });
        await worker.runOnce();
        const uncertain = await store.get(a.id);
        assert.equal(uncertain?.state, "reconciling", JSON.stringify(uncertain?.outcome));
        assert.equal(uncertain.outcome?.uncertainSince, clock, "the window counts from here");
        const posts = () => proxy.seen.filter((s) => s.tool === "rename" && s.operationId === a.operationId).length;
        assert.equal(posts(), 1, "one POST of the mutation");
        // Receipt lookups (over a new connection when the old one broke), never the mutation again.
        for (let i = 0; i < 12 && (await store.get(a.id))?.state === "reconciling"; i++) {
          clock += RECONCILE_MAX_DELAY_MS;
          await worker.runOnce();
        }
        const done = await store.get(a.id);
        assert.equal(posts(), 1, "never sent again");
        assert.equal(moves.get(a.id)?.filter((s) => s === "executing").length, 1);
        const lines = renames(log, a.operationId);
        if (c.performs) {
          assert.equal(done?.state, "succeeded", "the receipt settled it");
          assert.deepEqual(lines.map((l) => l.status), ["succeeded"]);
        } else {
          assert.equal(lines.length, 0, "the server never had the whole request");
          assert.equal(done?.state, "outcome_unknown", "no receipt: the window settled it");
          assert.match(done.outcome?.reason ?? "", /reconcile window/);
        }
      } finally {
        await host.close();
        await proxy.close();
        await server.close();
      }
    });
  }

  test("W5, W8: a stdio server that crashed after reading the rename: reconciling, never retried; the receipt over a new process settles it", T, async () => {
    const dir = tempDir();
    const log = join(dir, "contract.log");
    const host = reconnecting(contractStdio(log, { modes: "drop-after-perform" }));
    try {
      const store = new MemoryActionStore();
      const a = await approvedRename(store, await host.connection(), "B", "Crashed");
      let clock = Date.now();
      const { worker, moves } = recordingWorker(store, host.resolveTool, { now: () => clock });
      await worker.runOnce();
      assert.equal((await store.get(a.id))?.state, "reconciling");
      clock += RECONCILE_MAX_DELAY_MS;
      await worker.runOnce();
      assert.equal((await store.get(a.id))?.state, "succeeded");
      assert.deepEqual(moves.get(a.id), ["executing", "reconciling", "succeeded"]);
      assert.deepEqual(renames(log, a.operationId).map((l) => l.status), ["succeeded"], "performed once, never sent again");
      assert.equal(host.state.connects, 2);
    } finally {
      await host.close();
    }
  });
});
