// W5, W8, W9: adversarial review of the action layer — approvals bound to what was
// shown, a not-sent retry that never follows a takeover, the file store lock.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { repoPath } from "../helpers/paths.js";
import { createActions } from "../../src/actions/approvals.js";
import { MemoryActionStore } from "../../src/actions/memory-store.js";
import { createWorker } from "../../src/actions/worker.js";
import type { ActionRecord } from "../../src/actions/types.js";
import type { ConfirmTool } from "../../src/tools/types.js";
import { openFileStore } from "../../src/node/file-store.js";
import { newRecord } from "./store-contract.js";
import { alice, bob, performed, renameTool, startContract, tempDir } from "./support.js";

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "resolved";
  } catch (e) {
    return String((e as { code?: unknown }).code);
  }
}

const closedPort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

describe("review: approvals and the worker", { timeout: 60_000 }, () => {
  test("W8: an approval carrying arguments other than the stored ones is refused, whatever hash it names", async () => {
    const store = new MemoryActionStore();
    const actions = createActions({ store, mayApprove: () => true });
    const a = await actions.propose({ tool: "items__rename", version: "v1", arguments: { id: "A", name: "Gear" } }, { identity: alice, effect: "write" });
    // The approver was shown other arguments (edited in transit) under the stored hash.
    const shown = { ...a, arguments: { id: "A", name: "Harmless" } };
    assert.equal(await code(actions.approve(shown, bob)), "conflict");
    assert.equal(await code(actions.approve({ ...a, preview: "nothing happens" }, bob)), "conflict");
    assert.equal((await store.get(a.id))?.state, "awaiting_approval");
    // Shown exactly as stored (any key order): approved.
    assert.equal((await actions.approve({ ...a, arguments: { name: "Gear", id: "A" } }, bob)).state, "approved");
  });

  test("W8: a proposal's arguments are JSON data: Infinity, NaN, an undefined member or a Date (hashed as one value, shown and sent as another) are refused; what is stored is the JSON", async () => {
    const dir = tempDir();
    const path = join(dir, "actions.jsonl");
    const store = await openFileStore(path);
    try {
      const actions = createActions({ store, mayApprove: () => true });
      const propose = (args: Record<string, unknown>) => actions.propose({ tool: "pay__send", version: "v1", arguments: args }, { identity: alice, effect: "confirm" });
      // A model that writes 1e309 gets Infinity from JSON.parse: JSON itself can only say null.
      for (const args of [JSON.parse('{"amount": 1e309}') as Record<string, unknown>, { amount: Number.NaN }, { amount: 5, memo: undefined }, { when: new Date(0) }]) {
        assert.equal(await code(propose(args)), "validation", JSON.stringify(args));
      }
      assert.deepEqual(await store.list({ tenantId: alice.tenantId }), [], "nothing was recorded");
      // What JSON can say exactly is kept, hashed as stored, and approvable from the file store.
      const a = await propose(JSON.parse('{"__proto__": {"admin": true}, "zero": -0, "big": 12345678901234567890}') as Record<string, unknown>);
      assert.deepEqual(Object.keys(a.arguments), ["__proto__", "zero", "big"]);
      assert.equal((await actions.approve(a, bob)).state, "approved");
    } finally {
      await store.close();
    }
  });

  test("W5, U6: a worker given toolPrefixes executes its servers' actions and never leases another's; bad prefixes are refused when it is made", async () => {
    const store = new MemoryActionStore();
    const actions = createActions({ store, mayApprove: () => true });
    const propose = async (tool: string) => actions.approve(await actions.propose({ tool, version: "v1", arguments: { n: 1 } }, { identity: alice, effect: "confirm" }), bob);
    const other = await propose("billing__refund"); // the oldest: a claim of any action takes it first
    const mine = await propose("files__rename");
    const sent: string[] = [];
    const tool = (name: string): ConfirmTool => ({
      effect: "confirm", name, version: "v1", description: "", inputSchema: { type: "object" },
      prepare: async () => ({ tool: name, version: "v1", arguments: {} }),
      execute: async (a) => (sent.push(a.tool), { status: "succeeded", result: { content: [{ type: "text", text: "ok" }], isError: false } }),
    });
    const worker = createWorker({ store, resolveTool: (a) => (a.tool.startsWith("files__") ? tool(a.tool) : undefined), toolPrefixes: ["files__"], concurrency: 1 });
    assert.equal(await worker.runOnce(), 1);
    assert.deepEqual(sent, ["files__rename"]);
    assert.equal((await store.get(mine.id))?.state, "succeeded");
    const left = await store.get(other.id);
    assert.deepEqual([left?.state, left?.fence, left?.leaseOwner], ["approved", other.fence, undefined], "the other server's action is untouched");
    assert.throws(() => createWorker({ store, resolveTool: () => undefined, toolPrefixes: [""] }), (e: unknown) => (e as { code?: unknown }).code === "validation");
  });

  test("W8: an approval made while a worker held the action to expire it by a faster clock leaves no lease that holds the approved action back", async () => {
    const store = new MemoryActionStore();
    let approverClock = 1_000_000;
    const actions = createActions({ store, mayApprove: () => true, approvalTtlMs: 60_000, now: () => approverClock });
    const a = await actions.propose({ tool: "items__rename", version: "v1", arguments: { id: "A", name: "Gear" } }, { identity: alice, effect: "write" });
    // A worker whose clock runs 2 s ahead takes the action to expire it, then stops before it moves it.
    const workerNow = approverClock + 60_001;
    assert.equal((await store.claim({ workerId: "w-fast", now: workerNow, leaseMs: 300_000 }))?.id, a.id);
    approverClock += 59_000; // still inside the window by the approver's clock
    const approved = await actions.approve(await store.get(a.id) as ActionRecord, bob);
    assert.equal(approved.state, "approved");
    assert.equal(approved.leaseUntil, undefined, "the expiry lease is released with the decision");
    assert.equal((await store.claim({ workerId: "w2", now: workerNow + 1_000, leaseMs: 30_000 }))?.id, a.id, "a worker can take the approved action now");
  });

  test("W5: a not-sent retry is never made once the lease lapsed and another worker declared the outcome uncertain", async () => {
    const server = await startContract();
    const closed = await closedPort();
    try {
      let clock = 1_000_000;
      const now = () => clock;
      const store = new MemoryActionStore();
      const actions = createActions({ store, mayApprove: () => true, now });
      const ops: string[] = [];
      let other: ReturnType<typeof createWorker> | undefined;
      const tool = renameTool(server.client, alice, "reviewed-1", async (action) => {
        ops.push(action.operationId);
        if (ops.length === 1) {
          // A slow refusal: the lease lapses, a second worker finds the action executing and takes it over.
          clock += 60_000;
          await other?.runOnce();
          await fetch(`http://127.0.0.1:${closed}/mcp`, { method: "POST", body: "{}" });
        }
      });
      const resolveTool = (r: ActionRecord) => (r.tool === tool.name ? tool : undefined);
      other = createWorker({ store, resolveTool, workerId: "w2", leaseMs: 30_000, now });
      const prepared = await tool.prepare({ id: "A", name: "Gear" }, { identity: alice });
      const a = await actions.propose(prepared, { identity: alice, effect: "write" });
      await actions.approve(a, bob);
      await createWorker({ store, resolveTool, workerId: "w1", leaseMs: 30_000, now }).runOnce();
      assert.deepEqual(ops, [a.operationId], "execute was not called again after the takeover");
      assert.equal(performed(server.log, a.operationId), 0);
      assert.notEqual((await store.get(a.id))?.state, "succeeded");
    } finally {
      await server.close();
    }
  });
});

describe("review: the lease around a send", { timeout: 60_000 }, () => {
  test("W5: the lease restarts when executing is recorded, so a slow tool lookup never lets a second worker take over a send in flight", async () => {
    const server = await startContract();
    try {
      let clock = 1_000_000;
      const now = () => clock;
      const store = new MemoryActionStore();
      const actions = createActions({ store, mayApprove: () => true, now });
      let taken = -1;
      const other = createWorker({ store, resolveTool: () => undefined, workerId: "w2", leaseMs: 30_000, now });
      const tool = renameTool(server.client, alice, "reviewed-1", async () => {
        // The send is under way; a little later a second worker looks for work.
        clock += 1_000;
        taken = await other.runOnce();
      });
      const prepared = await tool.prepare({ id: "A", name: "Gear" }, { identity: alice });
      const a = await actions.propose(prepared, { identity: alice, effect: "write" });
      await actions.approve(a, bob);
      const resolveTool = async (r: ActionRecord) => {
        clock += 29_500; // the host's tool lookup took most of the claim's lease
        return r.tool === tool.name ? tool : undefined;
      };
      await createWorker({ store, resolveTool, workerId: "w1", leaseMs: 30_000, now }).runOnce();
      assert.equal(taken, 0, "the second worker found nothing to take over");
      assert.equal((await store.get(a.id))?.state, "succeeded");
      assert.equal(performed(server.log, a.operationId), 1);
    } finally {
      await server.close();
    }
  });
});

describe("review: what a tool answers", { timeout: 60_000 }, () => {
  test("W5: a success whose result breaks the record's rules is an uncertain outcome at once, never an action left executing", async () => {
    const server = await startContract();
    try {
      const store = new MemoryActionStore();
      const actions = createActions({ store, mayApprove: () => true });
      const real = renameTool(server.client, alice);
      const sloppy = {
        ...real,
        async execute(action: Parameters<typeof real.execute>[0], context: Parameters<typeof real.execute>[1]) {
          const o = await real.execute(action, context);
          // Performed, but answered with a part the record cannot hold.
          return o.status === "succeeded" ? { ...o, result: { content: [{ type: "text" as const, text: "ok", annotations: { audience: ["user"] } }], isError: false } } : o;
        },
      };
      const prepared = await real.prepare({ id: "A", name: "Gear" }, { identity: alice });
      const a = await actions.propose(prepared, { identity: alice, effect: "write" });
      await actions.approve(a, bob);
      await createWorker({ store, resolveTool: () => sloppy }).runOnce();
      const after = await store.get(a.id);
      assert.equal(after?.state, "reconciling");
      assert.equal(after?.leaseOwner, undefined, "the lease was released");
      assert.equal(performed(server.log, a.operationId), 1);
    } finally {
      await server.close();
    }
  });
});

describe("review: the file store lock", { timeout: 60_000 }, () => {
  test("W9: two openers racing for a stale lock: exactly one gets the store", async () => {
    // A pid that is certainly gone: a child that has exited.
    const dead = await new Promise<number>((resolve) => {
      const c = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
      c.on("exit", () => resolve(c.pid as number));
    });
    for (let round = 0; round < 20; round++) {
      const path = join(tempDir(), "actions.jsonl");
      writeFileSync(`${path}.lock`, `${dead}\n`);
      const opened = await Promise.allSettled([openFileStore(path), openFileStore(path), openFileStore(path)]);
      const won = opened.filter((o) => o.status === "fulfilled");
      for (const o of won) await o.value.close();
      assert.equal(won.length, 1, `round ${round}: ${won.length} openers hold the lock at once`);
      for (const o of opened) if (o.status === "rejected") assert.equal((o.reason as { code?: unknown }).code, "store");
    }
  });
  test("W9: an append that failed half-written leaves no partial line, so the next acknowledged record survives a reopen", async () => {
    const path = join(tempDir(), "actions.jsonl");
    const url = (p: string) => JSON.stringify(pathToFileURL(repoPath("build", ...p.split("/"))).href);
    const code = `import { openFileStore } from ${url("src/node/file-store.js")}; import { newRecord } from ${url("spec-tests/actions/store-contract.js")};
import { createInterface } from "node:readline";
const store = await openFileStore(${JSON.stringify(path)});
await store.create(newRecord());
try { await store.create(newRecord({ preview: "x".repeat(7_900) })); console.log("big stored"); } catch (e) { console.log("big failed " + e.code); }
console.log("ready");
for await (const line of createInterface({ input: process.stdin })) break;
const b = await store.create(newRecord());
console.log("acknowledged " + b.id);
await store.close();`;
    // A real short write: the file size limit (8 KiB) cuts the big record's append; SIGXFSZ is ignored so the write fails instead.
    const p = spawn("bash", ["-c", `ulimit -S -f 8; trap '' XFSZ; exec "${process.execPath}" --input-type=module -e "$0"`, code], { stdio: ["pipe", "pipe", "inherit"] });
    const out: string[] = [];
    const exited = new Promise<void>((resolve) => p.on("exit", () => resolve()));
    for await (const line of createInterface({ input: p.stdout as NodeJS.ReadableStream })) {
      out.push(line);
      if (line === "ready") {
        // The disk has room again (the limit is lifted) before the next change.
        assert.equal(spawnSync("prlimit", ["--pid", String(p.pid), "--fsize=unlimited"]).status, 0);
        p.stdin?.end("go\n");
      }
    }
    await exited;
    assert.ok(out.some((l) => l.startsWith("big failed")), out.join("; "));
    const acked = out.find((l) => l.startsWith("acknowledged "))?.slice("acknowledged ".length);
    assert.ok(acked, out.join("; "));
    const store = await openFileStore(path);
    try {
      assert.equal((await store.get(acked))?.id, acked, "the acknowledged record is in the journal after a reopen");
      assert.equal((await store.list({ tenantId: "acme" })).length, 2);
    } finally {
      await store.close();
    }
  });
});
