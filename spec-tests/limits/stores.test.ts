// W9 / W12 bounds of the stores past one process: the Durable Object store's scan
// and message bounds (its storage given as a sorted map, the remote side a loopback
// HTTP server), and the PostgreSQL store's query and poll bounds (a real pg client
// on a socket that never answers: how a hung database looks).
import assert from "node:assert/strict";
import { describe, test, type TestContext } from "node:test";
import { createServer, type Server } from "node:net";
import { createServer as createHttpServer } from "node:http";
import pg from "pg";
import { DurableObjectActionStore, type DurableObjectStorageLike } from "../../src/actions/durable-object-store.js";
import { remoteActionStore, serveActionStore } from "../../src/actions/durable-object-remote.js";
import { MemoryActionStore } from "../../src/actions/memory-store.js";
import { PostgresActionStore } from "../../src/actions/postgres-store.js";
import { DO_LIST_SCAN_MAX, MAX_DO_MESSAGE_BYTES, PG_POLL_INTERVAL_MS, PG_QUERY_TIMEOUT_MS } from "../../src/limits.js";
import { newRecord } from "../actions/store-contract.js";
import { limitNamed } from "./support.js";

const T = { timeout: 60_000 };
type Coded = Error & { code?: string };

/** Durable Object storage as a sorted in-memory map, with the operations the store uses. */
function memoryStorage(): DurableObjectStorageLike {
  const data = new Map<string, unknown>();
  let sorted: string[] | undefined;
  const ops = {
    get: (async (k: string | string[]) => (Array.isArray(k) ? new Map(k.filter((x) => data.has(x)).map((x) => [x, structuredClone(data.get(x))])) : structuredClone(data.get(k)))) as DurableObjectStorageLike["get"],
    put: async (entries: Record<string, unknown>) => {
      for (const [k, v] of Object.entries(entries)) data.set(k, structuredClone(v));
      sorted = undefined;
    },
    delete: async (k: string) => ((sorted = undefined), data.delete(k)),
    list: async ({ prefix = "", start, limit = Infinity }: { prefix?: string; start?: string; limit?: number }) => {
      sorted ??= [...data.keys()].sort();
      const out = new Map<string, unknown>();
      for (const k of sorted) {
        if (out.size >= limit) break;
        if (k.startsWith(prefix) && (start === undefined || k >= start)) out.set(k, structuredClone(data.get(k)));
      }
      return out;
    },
  };
  return { ...ops, transaction: (fn) => fn(ops) };
}

describe("W12: Durable Object store bounds", { concurrency: true }, () => {
  test("W12: one list reads at most DO_LIST_SCAN_MAX records: a match at that position is found, one past it is not", T, async () => {
    const store = new DurableObjectActionStore(memoryStorage());
    const t0 = 1_000_000;
    for (let i = 0; i < DO_LIST_SCAN_MAX - 1; i++) await store.create(newRecord({ tenantId: "other", createdAt: t0 + i }));
    const last = await store.create(newRecord({ tenantId: "acme", createdAt: t0 + DO_LIST_SCAN_MAX }));
    assert.deepEqual((await store.list({ tenantId: "acme" })).map((r) => r.id), [last.id], "found at read DO_LIST_SCAN_MAX");
    // One more record before it: the match is now read DO_LIST_SCAN_MAX + 1, past the scan.
    await store.create(newRecord({ tenantId: "other", createdAt: t0 + DO_LIST_SCAN_MAX - 0.5 }));
    assert.deepEqual(await store.list({ tenantId: "acme" }), []);
    assert.equal((await store.get(last.id))?.id, last.id, "it is still there");
  });

  test("U4: a Durable Object count by tenant and state reads kept numbers (built by the first count), exact after every move; a count by run reads at most DO_LIST_SCAN_MAX records", T, async () => {
    const storage = memoryStorage();
    let reads = 0;
    const counting: DurableObjectStorageLike = { ...storage, transaction: (fn) => storage.transaction((txn) => fn({ ...txn, list: (o) => (reads++, txn.list(o)) })) };
    const store = new DurableObjectActionStore(counting);
    const t0 = 1_000_000;
    const made = [];
    for (let i = 0; i < 300; i++) made.push(await store.create(newRecord({ createdAt: t0 + i, runId: i < 10 ? "r1" : "r2" })));
    assert.equal(await store.count({ tenantId: "acme", state: "awaiting_approval" }), 300, "the first count builds the numbers");
    await store.create(newRecord({ createdAt: t0 + 400 }));
    const a = made[0]!;
    await store.transition(a.id, { state: "awaiting_approval", fence: 0 }, { state: "expired" }, t0 + 500);
    reads = 0;
    assert.equal(await store.count({ tenantId: "acme", state: "awaiting_approval" }), 300);
    assert.equal(await store.count({ tenantId: "acme", state: ["expired", "awaiting_approval"] }), 301);
    assert.equal(await store.count({ tenantId: "acme" }), 301);
    assert.equal(reads, 0, "no record was listed to count");
    assert.equal(await store.count({ tenantId: "acme", runId: "r1" }), 10);
    for (let i = 0; i < DO_LIST_SCAN_MAX; i++) await store.create(newRecord({ tenantId: "other", createdAt: t0 + 1_000 + i }));
    await assert.rejects(store.count({ tenantId: "acme", runId: "r1" }), limitNamed("DO_LIST_SCAN_MAX", DO_LIST_SCAN_MAX));
    assert.equal(await store.count({ tenantId: "other", state: "awaiting_approval" }), DO_LIST_SCAN_MAX, "kept numbers have no scan bound");
  });

  test("W12: an answer of MAX_DO_MESSAGE_BYTES bytes is read; one byte more is a limit error naming the bound", T, async () => {
    let size = 0;
    const server = createHttpServer((req, res) => {
      req.resume();
      const doc = '{"ok":true,"value":null}';
      res.writeHead(200, { "content-type": "application/json" }).end(doc + " ".repeat(size - doc.length));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    const store = remoteActionStore({ fetch: (_u, init) => fetch(url, init) }, { name: "loopback" });
    try {
      size = MAX_DO_MESSAGE_BYTES;
      assert.equal(await store.get("a"), undefined);
      size = MAX_DO_MESSAGE_BYTES + 1;
      await assert.rejects(store.get("a"), limitNamed("MAX_DO_MESSAGE_BYTES", MAX_DO_MESSAGE_BYTES));
    } finally {
      server.close();
    }
  });

  test("W12: a request over MAX_DO_MESSAGE_BYTES UTF-8 bytes is refused by both sides: unsent by the client, unread by the object", T, async () => {
    let requests = 0;
    const store = remoteActionStore({ fetch: async () => ((requests++), new Response('{"ok":true,"value":null}')) });
    // Two-byte characters: under the bound in characters, over it in bytes.
    const wide = newRecord({ arguments: { pad: "\u00e9".repeat(MAX_DO_MESSAGE_BYTES / 2) } });
    await assert.rejects(store.create(wide), limitNamed("MAX_DO_MESSAGE_BYTES", MAX_DO_MESSAGE_BYTES));
    assert.equal(requests, 0, "nothing was sent");
    const served = new MemoryActionStore();
    const ask = async (bytes: number): Promise<Record<string, unknown>> => {
      const doc = '{"op":"get","args":["a"]}';
      const res = await serveActionStore(served, new Request("https://action-store/get", { method: "POST", body: doc + " ".repeat(bytes - doc.length) }));
      return (await res.json()) as Record<string, unknown>;
    };
    assert.deepEqual(await ask(MAX_DO_MESSAGE_BYTES), { ok: true, value: null });
    const over = await ask(MAX_DO_MESSAGE_BYTES + 1);
    assert.equal(over.ok, false);
    assert.deepEqual({ ...(over.error as object), message: undefined }, { code: "limit", limit: "MAX_DO_MESSAGE_BYTES", max: MAX_DO_MESSAGE_BYTES, message: undefined });
  });
});

/** A TCP server that accepts and never answers, and a pg pool pointed at it. */
async function silentDatabase(): Promise<{ query: (text: string, params?: (string | null)[]) => Promise<{ rows: unknown[] }>; close(): Promise<void> }> {
  const sockets = new Set<import("node:net").Socket>();
  const server: Server = createServer((s) => void sockets.add(s));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const pool = new pg.Pool({ host: "127.0.0.1", port: (server.address() as { port: number }).port, user: "u", password: "p", database: "d", max: 1 });
  pool.on("error", () => {});
  return {
    query: (text, params) => pool.query(text, params),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
      await pool.end().catch(() => {});
    },
  };
}

describe("W9, W12: PostgreSQL store time bounds", () => {
  test("W9: a query the database never answers fails after queryTimeoutMs, and after PG_QUERY_TIMEOUT_MS by default (mocked timers)", T, async (t: TestContext) => {
    const db = await silentDatabase();
    try {
      const quick = new PostgresActionStore({ query: db.query, queryTimeoutMs: 200 });
      await assert.rejects(quick.get("a"), (e: Coded) => e.code === "store" && /no answer within 200 ms/.test(e.message));
      t.mock.timers.enable({ apis: ["setTimeout"] });
      const store = new PostgresActionStore({ query: db.query });
      let settled: unknown;
      const got = store.get("a").catch((e: unknown) => (settled = e));
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      t.mock.timers.tick(PG_QUERY_TIMEOUT_MS - 1);
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      assert.equal(settled, undefined, "gave up before PG_QUERY_TIMEOUT_MS");
      t.mock.timers.tick(1);
      await got;
      const e = settled as unknown as Coded;
      assert.equal(e.code, "store");
      assert.match(e.message, new RegExp(`no answer within ${PG_QUERY_TIMEOUT_MS} ms`));
    } finally {
      t.mock.timers.reset();
      await db.close();
    }
  });

  test("W12: waitForWork without notifications sleeps PG_POLL_INTERVAL_MS by default, pollIntervalMs when set", T, async () => {
    const db = await silentDatabase();
    try {
      const timed = async (store: PostgresActionStore): Promise<number> => {
        const t0 = performance.now();
        assert.equal(await store.waitForWork(), false);
        return performance.now() - t0;
      };
      const dflt = await timed(new PostgresActionStore({ query: db.query }));
      assert.ok(dflt >= PG_POLL_INTERVAL_MS - 20 && dflt < PG_POLL_INTERVAL_MS * 10, `slept ${dflt} ms`);
      const quick = await timed(new PostgresActionStore({ query: db.query, pollIntervalMs: 50 }));
      assert.ok(quick >= 30 && quick < PG_POLL_INTERVAL_MS - 20, `slept ${quick} ms`);
    } finally {
      await db.close();
    }
  });
});
