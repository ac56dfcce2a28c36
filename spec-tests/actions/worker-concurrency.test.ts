// W12: a worker keeps several actions in flight (the `concurrency` option), claims
// them in one batch and writes their moves together, against the reference contract
// server (a real stdio child with its own log of every mutation): never more than
// `concurrency` sends at once, each action performed exactly once.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createActions } from "../../src/actions/approvals.js";
import { MemoryActionStore } from "../../src/actions/memory-store.js";
import { PostgresActionStore } from "../../src/actions/postgres-store.js";
import { createWorker } from "../../src/actions/worker.js";
import type { ActionRecord, ActionStore } from "../../src/actions/types.js";
import { DEFAULT_WORKER_CONCURRENCY, MAX_TRANSITION_BATCH, MAX_WORKER_CONCURRENCY } from "../../src/limits.js";
import type { ActionOutcome, ApprovedAction, WriteTool } from "../../src/tools/types.js";
import { freshTable, startPostgres, type TestPostgres } from "../helpers/postgres.js";
import { alice, bob, performed, renameTool, startContract, type ContractServer } from "./support.js";

/** Counts the calls of each store method. */
function counting(store: ActionStore): { store: ActionStore; calls: Record<string, number> } {
  const calls: Record<string, number> = {};
  const counted = new Proxy(store, {
    get(target, key, receiver) {
      const v = Reflect.get(target, key, receiver) as unknown;
      if (typeof v !== "function") return v;
      return (...args: unknown[]) => {
        calls[String(key)] = (calls[String(key)] ?? 0) + 1;
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: counted, calls };
}

/**
 * The rename tool, counting each call in flight from the moment its request was
 * handed over (W13: the worker records the next action's executing only then) until
 * it returns; the first ones are held there until `width` are in flight together
 * (or every action has started), so the test sees how many the worker runs at once.
 */
function gatedRename(server: ContractServer, width: number, total: number) {
  const inner = renameTool(server.client, alice);
  const seen = { inFlight: 0, max: 0, started: 0 };
  const tool: WriteTool = {
    ...inner,
    async execute(action: ApprovedAction, ctx): Promise<ActionOutcome> {
      let sent = false;
      const onSent = (): void => {
        if (sent) return;
        sent = true;
        seen.inFlight++;
        seen.started++;
        seen.max = Math.max(seen.max, seen.inFlight);
        ctx.onSent?.();
      };
      try {
        const outcome = await inner.execute(action, { ...ctx, onSent });
        // Held until `width` sends were in flight together once (bounded: 5 s).
        for (let i = 0; i < 500 && seen.max < width && seen.started < total; i++) await new Promise((r) => setTimeout(r, 10));
        return outcome;
      } finally {
        if (sent) seen.inFlight--;
      }
    },
  };
  return { tool, seen };
}

async function approvedRenames(store: ActionStore, tool: WriteTool, n: number, tag: string): Promise<ActionRecord[]> {
  const actions = createActions({ store, mayApprove: () => true });
  const out: ActionRecord[] = [];
  for (let i = 0; i < n; i++) {
    // An item of its own per action, so every rename can succeed.
    const item = `${tag}-${i}`;
    const added = await server.client.callTool("add_item", { id: item, name: `Item ${item}` });
    assert.equal(added.isError, false);
    const prepared = await tool.prepare({ id: item, name: `Renamed ${item}` }, { identity: alice });
    const a = await actions.propose(prepared, { identity: alice, effect: "write" });
    out.push(await actions.approve(a, bob));
  }
  return out;
}

let server: ContractServer;
let db: TestPostgres;
// Bounded, as every test: a hook that hangs fails the file instead of holding the run.
before(async () => {
  server = await startContract();
  db = await startPostgres();
}, { timeout: 120_000 });
after(async () => {
  await server?.close();
  await db?.stop();
}, { timeout: 60_000 });

describe("W12: worker concurrency", { timeout: 90_000 }, () => {
  test("W12: a worker keeps up to `concurrency` actions in flight, never more, batches its claims and moves, and performs each once", async () => {
    for (const width of [1, 4]) {
      const { store, calls } = counting(new MemoryActionStore());
      const total = 8;
      const { tool, seen } = gatedRename(server, width, total);
      const ids = await approvedRenames(store, tool, total, `w${width}`);
      for (const k of Object.keys(calls)) delete calls[k];
      const worker = createWorker({ store, resolveTool: () => tool, concurrency: width });
      assert.equal(await worker.runOnce(), total);
      assert.equal(seen.max, width, `${width}: sends in flight at once`);
      for (const a of ids) {
        assert.equal((await store.get(a.id))?.state, "succeeded");
        assert.equal(performed(server.log, a.operationId), 1, "performed exactly once");
      }
      if (width > 1) {
        assert.ok((calls["claimMany"] ?? 0) >= 1 && (calls["claimMany"] ?? 0) < total, `claims batched: ${JSON.stringify(calls)}`);
        assert.ok((calls["transitionMany"] ?? 0) < 2 * total, `moves batched: ${JSON.stringify(calls)}`);
        assert.equal(calls["transition"] ?? 0, 0, "every move went through a batch");
      }
    }
  });

  test("W12: without the option a worker keeps DEFAULT_WORKER_CONCURRENCY actions in flight, never more", async () => {
    const store = new MemoryActionStore();
    const total = DEFAULT_WORKER_CONCURRENCY + 3;
    // The gate waits for one more than the default: it opens only when every action has started.
    const { tool, seen } = gatedRename(server, DEFAULT_WORKER_CONCURRENCY + 1, total);
    const ids = await approvedRenames(store, tool, total, "default");
    const worker = createWorker({ store, resolveTool: () => tool });
    let handled = 0;
    for (let pass = 0; pass < 5 && handled < total; pass++) handled += await worker.runOnce();
    assert.equal(handled, total);
    assert.equal(seen.max, DEFAULT_WORKER_CONCURRENCY, "sends in flight at once");
    for (const a of ids) assert.equal(performed(server.log, a.operationId), 1, "performed exactly once");
  });

  test("W12: concurrency must be an integer from 1 to MAX_WORKER_CONCURRENCY", () => {
    // One batch of transitions holds every pending move of a worker's actions.
    assert.ok(MAX_WORKER_CONCURRENCY <= MAX_TRANSITION_BATCH);
    const store = new MemoryActionStore();
    for (const concurrency of [0, -1, 1.5, MAX_WORKER_CONCURRENCY + 1, Number.NaN]) {
      assert.throws(() => createWorker({ store, resolveTool: () => undefined, concurrency }), (e: unknown) => (e as { code?: string }).code === "validation", String(concurrency));
    }
  });

  test("W12: three concurrent workers on one PostgreSQL perform every action exactly once, in batches", async () => {
    const table = freshTable();
    const direct = new PostgresActionStore({ query: db.query, table });
    await direct.migrate();
    const total = 24;
    const { tool } = gatedRename(server, 1, total);
    const ids = await approvedRenames(direct, tool, total, "pg");
    const stores = Array.from({ length: 3 }, () => counting(new PostgresActionStore({ query: db.query, table })));
    const workers = stores.map((s, i) => createWorker({ store: s.store, resolveTool: () => tool, concurrency: 5, workerId: `pg-${i}` }));
    let handled = 0;
    for (let pass = 0; pass < 10 && handled < total; pass++) handled += (await Promise.all(workers.map((w) => w.runOnce()))).reduce((a, b) => a + b, 0);
    assert.equal(handled, total);
    for (const a of ids) {
      const r = await direct.get(a.id);
      assert.equal(r?.state, "succeeded");
      assert.equal(r.fence, 1, "claimed once");
      assert.equal(performed(server.log, a.operationId), 1, "performed exactly once");
    }
    const claims = stores.reduce((n, s) => n + (s.calls["claimMany"] ?? 0), 0);
    assert.ok(claims < total, `claims batched: ${claims} for ${total} actions`);
  });
});
