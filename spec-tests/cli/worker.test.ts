// U6, W8, P4: `yada worker` executes the approved actions of every run in a file
// store, through a reviewed --config file that maps the reference contract server's
// write; SIGTERM and a Ctrl-C at the terminal let the action in hand finish, then
// exit 0; `yada actions approve` says what will execute an action; the --config
// file is refused when others could have written it.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXIT } from "../../src/cli/exit.js";
import { CLI_STORE_BUSY_POLL_MS, CLI_STORE_BUSY_WAIT_MS, CLI_WORKER_PASS_CLAIM_MS, CLI_WORKER_YIELD_MS, MAX_CLI_CONFIG_BYTES, MAX_CLI_WORKER_CONNECTIONS } from "../../src/limits.js";
import { createActions } from "../../src/actions/approvals.js";
import { openFileStore } from "../../src/node/file-store.js";
import { connectMcp } from "../../src/node/tools.js";
import type { ActionRecord } from "../../src/actions/types.js";
import type { McpServerConfig } from "../../src/tools/config.js";
import { fixtureServer, repoRoot } from "../helpers/paths.js";
import { logLines, performed } from "../tools/writes-support.js";
import { CLI, errorCodes, yada, yadaOnTerminal } from "./support.js";

const T = { timeout: 90_000 };
const RENAME = { rename: { version: "reviewed-1", prepareTool: "prepare_rename", receiptTool: "rename_receipt" } };

let dir: string;
before(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "yada-worker-cli-")));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh folder for one test: its --config file (mode 600), the server's log, the store. */
function world(name: string, args: string[] = []): { config: string; log: string; store: string; at: string } {
  const at = join(dir, name);
  mkdirSync(at, { mode: 0o700 });
  const log = join(at, "contract.log");
  const config = join(at, "yada.json");
  const server = { name: "contract", command: process.execPath, args: [fixtureServer("contract/stdio.mjs"), "--log", log, "--principal", "cli/local", ...args], writeTools: RENAME };
  writeFileSync(config, JSON.stringify([server]), { mode: 0o600 });
  return { config, log, store: join(at, "actions.jsonl"), at };
}

/** An undecided run with --store: its rename of `item` is recorded awaiting approval (exit 4). Returns the action. */
async function proposeRename(w: { config: string; store: string; at: string }, item: string, actor = "cli"): Promise<ActionRecord> {
  const plan = join(w.at, `plan-${item}-${actor}.json`);
  writeFileSync(plan, JSON.stringify([{ toolCalls: [{ name: "contract__rename", arguments: { id: item, name: `Renamed ${item}` } }] }, { text: "done" }]));
  const r = await yada(["run", `rename ${item}`, "--server", "contract", "--config", w.config, "--provider", "scripted", "--script", plan, "--store", w.store, "--actor", actor]);
  assert.equal(r.code, EXIT.approval, r.stderr);
  assert.match(r.stderr, /still awaiting approval/);
  assert.match(r.stderr, new RegExp(`yada worker --store \\S+ --server contract --config \\S+`));
  const list = await yada(["actions", "list", "--store", w.store, "--json"]);
  const mine = (JSON.parse(list.stdout) as ActionRecord[]).filter((a) => a.actorId === actor && a.arguments.id === item);
  assert.equal(mine.length, 1, list.stdout);
  assert.equal(mine[0]?.state, "awaiting_approval");
  return mine[0] as ActionRecord;
}

/** A running `yada worker` process, its output as it comes. */
function startWorker(args: string[]): { child: ChildProcess; out: () => string; err: () => string; waitFor(re: RegExp): Promise<void>; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [CLI, "worker", ...args], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const waiters = new Set<() => void>();
  child.stdout.setEncoding("utf8").on("data", (d: string) => ((out += d), waiters.forEach((w) => w())));
  child.stderr.setEncoding("utf8").on("data", (d: string) => ((err += d), waiters.forEach((w) => w())));
  const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const exit = new Promise<number | null>((resolve) => child.on("close", (code) => (clearTimeout(killer), resolve(code))));
  return {
    child,
    out: () => out,
    err: () => err,
    waitFor: (re) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the worker never printed ${re}:\n${out}\n${err}`)), 30_000);
        const check = (): void => {
          if (re.test(out)) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve();
          }
        };
        waiters.add(check);
        check();
      }),
    exit,
  };
}

describe("U6: yada worker", T, () => {
  test("U6, W8: an undecided run records the write; approve says nothing executes it yet; worker --once executes it once, through the --config mapping", T, async () => {
    const w = world("once");
    const a = await proposeRename(w, "A");
    assert.equal(a.effect, "write");
    assert.equal(a.preview, 'Rename A from "Product A" to "Renamed A"');
    const ok = await yada(["actions", "approve", a.id, "--store", w.store]);
    assert.equal(ok.code, EXIT.ok, ok.stderr);
    assert.match(ok.stdout, new RegExp(`^${a.id} approved by cli@local\\nnothing executes it until a worker runs on this store: yada worker --store \\S+ --server contract`));
    const r = await yada(["worker", "--server", "contract", "--config", w.config, "--store", w.store, "--once"]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.match(r.stdout, new RegExp(`^${a.id}  contract__rename  executing\\n${a.id}  contract__rename  succeeded: .*renamed A to`, "m"));
    assert.equal(performed(w.log), 1);
    const shown = JSON.parse((await yada(["actions", "show", a.id, "--store", w.store, "--json"])).stdout) as ActionRecord;
    assert.equal(shown.state, "succeeded");
    // A second pass finds nothing to do: the server performed the rename once.
    const again = await yada(["worker", "--server", "contract", "--config", w.config, "--store", w.store, "--once"]);
    assert.equal(again.code, EXIT.ok, again.stderr);
    assert.equal(again.stdout, "");
    assert.equal(performed(w.log), 1);
  });

  test("U6: the worker never claims an action of a server it does not serve: it stays approved, unleased, for a worker that serves it", T, async () => {
    const w = world("foreign");
    const a = await proposeRename(w, "B");
    assert.equal((await yada(["actions", "approve", a.id, "--store", w.store])).code, EXIT.ok);
    // An approved action of another server in the same store.
    const store = await openFileStore(w.store);
    let other: ActionRecord;
    try {
      const actions = createActions({ store, mayApprove: () => true });
      const proposed = await actions.propose({ tool: "billing__refund", version: "v1", arguments: { order: "o-1" } }, { identity: { actorId: "cli", tenantId: "local" }, effect: "confirm" });
      other = await actions.approve(proposed, { actorId: "ops", tenantId: "local" });
    } finally {
      await store.close();
    }
    const r = await yada(["worker", "--server", "contract", "--config", w.config, "--store", w.store, "--once"]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.match(r.stdout, new RegExp(`${a.id}  contract__rename  succeeded`));
    assert.doesNotMatch(r.stdout + r.stderr, /billing__refund/, "the worker never took it up");
    const after = JSON.parse((await yada(["actions", "show", other.id, "--store", w.store, "--json"])).stdout) as ActionRecord;
    assert.deepEqual([after.state, after.fence, after.leaseOwner, after.leaseUntil], ["approved", other.fence, undefined, undefined], "not leased: a worker that serves billing may take it at once");
  });

  test("U6: the worker executes the actions of every run, each for its own actor; approve says the running worker executes it; SIGTERM lets the action in hand finish, then exit 0", T, async () => {
    const w = world("every", ["--execute-delay-ms", "1500", "--mode", "trust-meta"]);
    const first = await proposeRename(w, "A");
    const second = await proposeRename(w, "B", "bob");
    const third = await proposeRename(w, "C");
    const worker = startWorker(["--server", "contract", "--config", w.config, "--store", w.store]);
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const ok = await yada(["actions", "approve", first.id, "--store", w.store]);
      assert.equal(ok.code, EXIT.ok, ok.stderr);
      assert.match(ok.stdout, new RegExp(`the yada worker running on this store \\(process ${worker.child.pid}\\) executes it`));
      await worker.waitFor(new RegExp(`${first.id}  contract__rename  succeeded`));
      assert.equal((await yada(["actions", "approve", second.id, "--store", w.store])).code, EXIT.ok);
      await worker.waitFor(new RegExp(`${second.id}  contract__rename  succeeded`));
      assert.equal((await yada(["actions", "approve", third.id, "--store", w.store])).code, EXIT.ok);
      await worker.waitFor(new RegExp(`${third.id}  contract__rename  executing`));
      worker.child.kill("SIGTERM");
      assert.equal(await worker.exit, EXIT.ok, worker.err());
    } finally {
      worker.child.kill("SIGKILL");
    }
    assert.match(worker.out(), new RegExp(`${third.id}  contract__rename  succeeded`), "the action in hand finished");
    // Each mutation carried its own action's actor in the envelope, once.
    const done = logLines(w.log).filter((l) => l.status === "succeeded") as Array<{ id?: string; actorId?: string }>;
    assert.deepEqual(done.map((l) => [l.id, l.actorId]), [["A", "cli"], ["B", "bob"], ["C", "cli"]]);
    assert.ok(!existsSync(`${w.store}.worker`), "the worker's note is gone");
  });

  test("U6: a Ctrl-C at the terminal stops the worker once the action in hand is done (its stdio server keeps running until then)", T, async () => {
    const w = world("ctrl-c", ["--execute-delay-ms", "1500"]);
    const a = await proposeRename(w, "A");
    assert.equal((await yada(["actions", "approve", a.id, "--store", w.store])).code, EXIT.ok);
    const term = yadaOnTerminal(["worker", "--server", "contract", "--config", w.config, "--store", w.store]);
    await term.waitFor(new RegExp(`${a.id}  contract__rename  executing`));
    term.type("\u0003");
    const { code, screen } = await term.done;
    assert.equal(code, EXIT.ok, screen);
    assert.match(screen, new RegExp(`${a.id}  contract__rename  succeeded`));
    assert.equal(performed(w.log), 1);
  });

  test("U6: yada actions waits while the running worker holds the store for a pass (well within CLI_STORE_BUSY_WAIT_MS), even where it cannot leave its waiting note, and fails at once for another holder", T, async () => {
    const w = world("busy");
    const held = await openFileStore(w.store);
    try {
      // Held by a process that is no worker: refused at once.
      const t0 = Date.now();
      const refused = await yada(["actions", "list", "--store", w.store]);
      assert.equal(refused.code, EXIT.usage);
      assert.match(refused.stderr, /locked by process/);
      assert.ok(Date.now() - t0 < CLI_STORE_BUSY_WAIT_MS / 2);
      // Held by the worker that serves the store (this process, as its note says): waited for,
      // also where no waiting note can be left beside the store (its name taken by a folder).
      writeFileSync(`${w.store}.worker`, JSON.stringify({ pid: process.pid, servers: ["contract"] }));
      mkdirSync(`${w.store}.waiting`);
      const waiting = yada(["actions", "list", "--store", w.store]);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await held.close();
      const r = await waiting;
      assert.equal(r.code, EXIT.ok, r.stderr);
      assert.match(r.stderr, new RegExp(`^yada: waiting for the action store: the yada worker \\(process ${process.pid}\\) is using it for a pass$`, "m"));
    } finally {
      await held.close();
      rmSync(`${w.store}.worker`, { force: true });
      rmSync(`${w.store}.waiting`, { recursive: true, force: true });
    }
  });

  test("U6: a pass of the worker claims for at most CLI_WORKER_PASS_CLAIM_MS, then leaves the store free (up to CLI_WORKER_YIELD_MS) for a yada actions that waits, trying every CLI_STORE_BUSY_POLL_MS, while work is left", T, async () => {
    const w = world("pass", ["--execute-delay-ms", "1500"]);
    const config = JSON.parse(readFileSync(w.config, "utf8")) as McpServerConfig[];
    const owner = { actorId: "cli", tenantId: "local" };
    const connection = await connectMcp(config[0] as McpServerConfig, { identity: owner, authorize: () => true });
    const store = await openFileStore(w.store);
    const ids: string[] = [];
    try {
      const rename = connection.tools.find((t) => t.name === "contract__rename");
      assert.ok(rename && rename.effect === "write");
      const api = createActions({ store, mayApprove: () => true });
      for (const item of ["A", "B", "C"]) {
        const a = await api.propose(await rename.prepare({ id: item, name: `Renamed ${item}` }, { identity: owner }), { identity: owner, effect: "write" });
        await api.approve(a, owner);
        ids.push(a.id);
      }
    } finally {
      await store.close();
      await connection.close();
    }
    // Three sends of 1.5 s each, one at a time: longer than a pass claims.
    assert.ok(CLI_WORKER_PASS_CLAIM_MS < 1_500);
    // The worker waits long enough for several of the waiting command's tries.
    assert.ok(CLI_WORKER_YIELD_MS >= 4 * CLI_STORE_BUSY_POLL_MS);
    const worker = startWorker(["--server", "contract", "--config", w.config, "--store", w.store]);
    try {
      await worker.waitFor(new RegExp(`${ids[0]}  contract__rename  executing`));
      const listed = await yada(["actions", "list", "--store", w.store, "--json"]);
      assert.equal(listed.code, EXIT.ok, listed.stderr);
      const states = new Map((JSON.parse(listed.stdout) as ActionRecord[]).map((a) => [a.id, a.state]));
      // The pass that took A ended after A: the list got the store before the last action was done.
      assert.equal(states.get(ids[0] as string), "succeeded");
      assert.notEqual(states.get(ids[2] as string), "succeeded", "the worker held the store for the whole queue");
      await worker.waitFor(new RegExp(`${ids[2]}  contract__rename  succeeded`));
      worker.child.kill("SIGTERM");
      assert.equal(await worker.exit, EXIT.ok, worker.err());
    } finally {
      worker.child.kill("SIGKILL");
    }
    assert.equal(performed(w.log), 3);
  });

  test("U6: past MAX_CLI_WORKER_CONNECTIONS identities the worker closes the least recently used connection and still executes each action as its own actor", T, async () => {
    const w = world("many", ["--mode", "trust-meta"]);
    const config = JSON.parse(readFileSync(w.config, "utf8")) as McpServerConfig[];
    const owner = { actorId: "cli", tenantId: "local" };
    const connection = await connectMcp(config[0] as McpServerConfig, { identity: owner, authorize: () => true });
    const store = await openFileStore(w.store);
    const actors = Array.from({ length: MAX_CLI_WORKER_CONNECTIONS + 1 }, (_, i) => `actor-${i}`);
    try {
      const rename = connection.tools.find((t) => t.name === "contract__rename");
      assert.ok(rename && rename.effect === "write");
      const api = createActions({ store, mayApprove: () => true });
      for (const actorId of actors) {
        const prepared = await rename.prepare({ id: "A", name: actorId }, { identity: owner });
        const a = await api.propose(prepared, { identity: { actorId, tenantId: "local" }, effect: "write" });
        await api.approve(a, owner);
      }
    } finally {
      await store.close();
      await connection.close();
    }
    const r = await yada(["worker", "--server", "contract", "--config", w.config, "--store", w.store, "--once"], { timeoutMs: 60_000 });
    assert.equal(r.code, EXIT.ok, r.stderr);
    const done = logLines(w.log).filter((l) => l.status === "succeeded") as Array<{ actorId?: string }>;
    assert.equal(done.length, 1, "one rename of A at its approved state version; the others are stale: failed, sent once each");
    const outcomes = (JSON.parse((await yada(["actions", "list", "--store", w.store, "--json"])).stdout) as ActionRecord[]).map((a) => a.state);
    assert.deepEqual([...new Set(outcomes)].sort(), ["failed", "succeeded"]);
    assert.deepEqual(
      logLines(w.log).map((l) => (l as { actorId?: string }).actorId),
      actors,
      "every actor's execute reached the server once, in its own envelope, the 17th on a connection opened after the first was closed",
    );
  });

  test("U6, P4: the worker and yada actions refuse a store that does not exist, and a directory, creating nothing", T, async () => {
    const w = world("missing");
    const missing = join(w.at, "nope", "actions.jsonl");
    const r = await yada(["worker", "--server", "contract", "--config", w.config, "--store", missing, "--once"]);
    assert.equal(r.code, EXIT.usage);
    assert.match(r.stderr, /^yada: store: no action store at \S+nope\/actions\.jsonl$/m);
    for (const args of [["list"], ["show", "x"], ["approve", "x"], ["reject", "x", "no"]]) {
      const a = await yada(["actions", ...args, "--store", missing]);
      assert.equal(a.code, EXIT.usage, a.stderr);
      assert.deepEqual(errorCodes(a.stderr), ["store"]);
      assert.match(a.stderr, /no action store at /);
      const d = await yada(["actions", ...args, "--store", w.at]);
      assert.equal(d.code, EXIT.usage, d.stderr);
      assert.match(d.stderr, /^yada: store: \S+ is a directory; --store names the store's journal file/m);
    }
    assert.ok(!existsSync(join(w.at, "nope")), "nothing was created");
  });
});

describe("P4: the --config file", T, () => {
  test("P4: a --config file its group or others may write, owned by another user, or in a directory others may write is refused", T, async () => {
    const w = world("perms");
    const args = ["worker", "--server", "contract", "--config", w.config, "--store", w.store, "--once"];
    writeFileSync(w.store, "");
    for (const [mode, why] of [
      [0o620, /writable by its group or others \(mode 620\)/],
      [0o602, /writable by its group or others \(mode 602\)/],
    ] as const) {
      chmodSync(w.config, mode);
      const r = await yada(args);
      assert.equal(r.code, EXIT.usage, r.stderr);
      assert.deepEqual(errorCodes(r.stderr), ["config"]);
      assert.match(r.stderr, why);
    }
    chmodSync(w.config, 0o600);
    if (process.getuid?.() === 0) {
      chownSync(w.config, 12345, 12345);
      const r = await yada(args);
      assert.match(r.stderr, /is owned by another user \(uid 12345\)/);
      chownSync(w.config, 0, 0);
    }
    chmodSync(w.at, 0o777);
    const open = await yada(args);
    assert.equal(open.code, EXIT.usage);
    assert.match(open.stderr, /is in a directory its group or others may write \(mode 777\)/);
    chmodSync(w.at, 0o700);
    const fine = await yada(args);
    assert.equal(fine.code, EXIT.ok, fine.stderr);
  });

  test("P4: a --config file of MAX_CLI_CONFIG_BYTES is read; one byte more is refused", T, async () => {
    const w = world("size");
    writeFileSync(w.store, "");
    const args = ["worker", "--server", "contract", "--config", w.config, "--store", w.store, "--once"];
    const json = JSON.stringify([{ name: "contract", command: process.execPath, args: [fixtureServer("contract/stdio.mjs"), "--log", w.log], writeTools: RENAME }]);
    writeFileSync(w.config, json + " ".repeat(MAX_CLI_CONFIG_BYTES - Buffer.byteLength(json)), { mode: 0o600 });
    assert.equal((await yada(args)).code, EXIT.ok);
    writeFileSync(w.config, json + " ".repeat(MAX_CLI_CONFIG_BYTES + 1 - Buffer.byteLength(json)), { mode: 0o600 });
    const r = await yada(args);
    assert.equal(r.code, EXIT.usage);
    assert.match(r.stderr, new RegExp(`is larger than ${MAX_CLI_CONFIG_BYTES} bytes`));
  });

  test("P4: YADA_MCP_SERVERS stays read-only: its refusal of a write mapping says where write mappings go", T, async () => {
    const env = { YADA_MCP_SERVERS: JSON.stringify([{ name: "contract", command: process.execPath, writeTools: RENAME }]) };
    const r = await yada(["tools", "--server", "contract"], { env });
    assert.equal(r.code, EXIT.usage);
    assert.deepEqual(errorCodes(r.stderr), ["config"]);
    assert.match(r.stderr, /YADA_MCP_SERVERS\[0\] \(contract\): writeTools is not allowed here \(read-only: write mappings go in host code or yada --config\)/);
  });
});
