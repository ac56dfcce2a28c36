// W9, W12: a lost database connection while the worker records `executing`, end to
// end: the worker's pool reaches PostgreSQL through a loopback TCP proxy that cuts
// the connection at that one statement, either before it reaches the database or
// after the database committed it (the answer is lost). The worker never sends
// without a confirmed `executing`; it claims again; the contract server's own log
// shows the rename performed at most once.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, connect, type Server, type Socket } from "node:net";
import pg from "pg";
import { PostgresActionStore } from "../../src/actions/postgres-store.js";
import { createWorker } from "../../src/actions/worker.js";
import { argumentsHash } from "../../src/actions/hash.js";
import { freshTable, startPostgres, type TestPostgres } from "../helpers/postgres.js";
import { alice, performed, renameLines, renameTool, startContract, type ContractServer } from "./support.js";

// A Bind message parameter whose whole value is `executing` (its 4-byte length, then the
// text): a transition's new or expected state, never a statement's text, where the word is
// quoted. After arming, the first statement that carries one is the move to executing.
const EXECUTING_PARAM = Buffer.from("\x00\x00\x00\x09executing", "latin1");

type Cut = "none" | "before-database" | "after-commit";

/** A loopback proxy to PostgreSQL that cuts the connection once, at the executing statement. */
async function startProxy(port: number): Promise<{ port: number; arm(cut: Cut): void; close(): Promise<void> }> {
  let armed: Cut = "none";
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const up = connect(port, "127.0.0.1");
    sockets.add(client).add(up);
    let cutOnReply = false;
    const cut = (): void => {
      client.destroy();
      up.destroy();
    };
    client.on("data", (d: Buffer) => {
      if (armed !== "none" && d.includes(EXECUTING_PARAM)) {
        const how = armed;
        armed = "none";
        if (how === "before-database") return cut();
        cutOnReply = true;
      }
      up.write(d);
    });
    up.on("data", (d: Buffer) => (cutOnReply ? cut() : client.write(d)));
    for (const s of [client, up]) {
      s.on("error", () => undefined);
      s.on("close", () => {
        sockets.delete(s);
        cut();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    arm: (c) => void (armed = c),
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let db: TestPostgres;
let server: ContractServer;
before(async () => {
  db = await startPostgres();
  server = await startContract();
});
after(async () => {
  await server?.close();
  await db?.stop();
});

async function setup(item: string) {
  const table = freshTable();
  const direct = new PostgresActionStore({ query: db.query, table });
  await direct.migrate();
  const proxy = await startProxy(db.config.port);
  const pool = new pg.Pool({ ...db.config, port: proxy.port, max: 1 });
  pool.on("error", () => undefined);
  const store = new PostgresActionStore({ query: (t, p) => pool.query(t, p), table });
  const args = { id: item, name: `Renamed ${item}` };
  const now = Date.now();
  const id = `lost-${table}`;
  await direct.create({
    id, operationId: `op-${table}`, actorId: "alice", tenantId: "acme", tool: "items__rename", effect: "write", version: "reviewed-1",
    arguments: args, argumentsHash: await argumentsHash(args), stateVersion: `${item}:1`, state: "awaiting_approval",
    fence: 0, attempts: 0, createdAt: now, updatedAt: now, expiresAt: now + 3_600_000,
  });
  await direct.transition(id, { state: "awaiting_approval", fence: 0 }, { state: "approved", approval: { actorId: "bob", tenantId: "acme", at: now } }, now);
  const tool = renameTool(server.client, alice);
  const errors: unknown[] = [];
  const worker = createWorker({ store, resolveTool: () => tool, leaseMs: 800, onError: (e) => errors.push(e) });
  return { direct, proxy, pool, tool, worker, id, operationId: `op-${table}`, errors };
}

const lapse = () => new Promise((r) => setTimeout(r, 900));

test("W9: the connection is lost before `executing` reaches the database: nothing is sent, the worker claims again and sends once", { timeout: 60_000 }, async () => {
  const s = await setup("A");
  try {
    s.proxy.arm("before-database");
    await assert.rejects(s.worker.runOnce(), (e: unknown) => (e as { code?: string }).code === "store");
    assert.equal(s.tool.executes, 0, "no send without a recorded executing");
    const leased = await s.direct.get(s.id);
    assert.equal(leased?.state, "approved", "the statement never arrived");
    assert.equal(leased?.fence, 1);
    await lapse();
    assert.equal(await s.worker.runOnce(), 1);
    const done = await s.direct.get(s.id);
    assert.equal(done?.state, "succeeded");
    assert.equal(done?.fence, 2, "claimed again");
    assert.equal(s.tool.executes, 1);
    assert.equal(performed(server.log, s.operationId), 1);
  } finally {
    await s.pool.end();
    await s.proxy.close();
  }
});

test("W9: the connection is lost after the database committed `executing`: nothing is sent, the lapsed action is reconciled by receipt, never sent", { timeout: 60_000 }, async () => {
  const s = await setup("B");
  try {
    s.proxy.arm("after-commit");
    await assert.rejects(s.worker.runOnce(), (e: unknown) => (e as { code?: string }).code === "store");
    assert.equal(s.tool.executes, 0, "no send without a confirmed executing");
    const committed = await s.direct.get(s.id);
    assert.equal(committed?.state, "executing", "the database committed it");
    await lapse();
    // The lapsed executing lease means "maybe sent": reconciling, then receipt lookups.
    for (let i = 0; i < 5 && ((await s.direct.get(s.id))?.attempts ?? 0) < 1; i++) {
      await s.worker.runOnce();
      await new Promise((r) => setTimeout(r, 200));
    }
    const after = await s.direct.get(s.id);
    assert.equal(after?.state, "reconciling", "the receipt says unknown: it stays reconciling");
    assert.equal(after?.attempts, 1);
    assert.equal(s.tool.executes, 0, "never sent");
    assert.equal(renameLines(server.log, s.operationId), 0, "the server never received it");
  } finally {
    await s.pool.end();
    await s.proxy.close();
  }
});

test("W12: a lease lapses while a slow execute is in flight: the late commit is refused by the fence, the action is resolved by receipt, never sent twice", { timeout: 60_000 }, async () => {
  // The server takes 3 s to perform; the first worker's lease is 0.5 s.
  const slow = await startContract({ delayMs: 3_000 });
  const table = freshTable();
  const store = new PostgresActionStore({ query: db.query, table });
  await store.migrate();
  try {
    const args = { id: "C", name: "Renamed C" };
    const now = Date.now();
    const id = `slow-${table}`;
    const operationId = `op-${table}`;
    await store.create({
      id, operationId, actorId: "alice", tenantId: "acme", tool: "items__rename", effect: "write", version: "reviewed-1",
      arguments: args, argumentsHash: await argumentsHash(args), stateVersion: "C:1", state: "awaiting_approval",
      fence: 0, attempts: 0, createdAt: now, updatedAt: now, expiresAt: now + 3_600_000,
    });
    await store.transition(id, { state: "awaiting_approval", fence: 0 }, { state: "approved", approval: { actorId: "bob", tenantId: "acme", at: now } }, now);
    const slowTool = renameTool(slow.client, alice);
    const firstMoves: { state: string; fence: number }[] = [];
    const first = createWorker({ store, workerId: "slow", resolveTool: () => slowTool, leaseMs: 500, onAction: (a) => firstMoves.push({ state: a.state, fence: a.fence }) });
    const inFlight = first.runOnce();
    await new Promise((r) => setTimeout(r, 800));
    // The lease lapsed mid-send: the second worker takes over (fence bumped) and reconciles.
    const recoverTool = renameTool(slow.client, alice);
    const second = createWorker({ store, workerId: "recover", resolveTool: () => recoverTool, leaseMs: 10_000, random: () => 0 });
    await second.runOnce();
    const taken = await store.get(id);
    assert.equal(taken?.state, "reconciling");
    assert.ok((taken?.fence ?? 0) >= 2);
    // The first worker's answer arrives; its commit at fence 1 loses the compare-and-swap
    // and is dropped (its pass may then claim the action again and reconcile it: by receipt).
    await inFlight;
    assert.equal(slowTool.executes, 1);
    assert.deepEqual(firstMoves.filter((m) => m.fence === 1).map((m) => m.state), ["executing"], "nothing was committed at the lapsed fence after executing");
    for (let i = 0; i < 40 && (await store.get(id))?.state !== "succeeded"; i++) {
      await new Promise((r) => setTimeout(r, 250));
      await second.runOnce();
    }
    const done = await store.get(id);
    assert.equal(done?.state, "succeeded", "resolved by the receipt");
    assert.ok((done?.fence ?? 0) > (taken?.fence ?? 0), "settled under a later claim than the takeover");
    assert.equal(recoverTool.executes, 0, "the recovering worker never sent");
    assert.equal(renameLines(slow.log, operationId), 1, "one execute reached the server");
    assert.equal(performed(slow.log, operationId), 1);
  } finally {
    await slow.close();
  }
});
