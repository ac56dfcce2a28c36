// One writer per file store under every race (W15): openers racing for stores whose
// holder was SIGKILLed. Each round, a holder process opens `--stores` file stores,
// leaves in each an approved confirm action and one it was "sending" (executing,
// its marker written, lease lapsed), and is SIGKILLed; then `--racers` long-lived
// racer processes, released at one instant, each try to open every one of those
// stores. Each winner keeps the store open until every racer has answered (so two
// winners of one store would hold it at the same time) and runs a worker pass over it.
// The judge is outside the stores: a confirm action's execute creates a marker file
// named after the action with O_EXCL, so a second execute of one action fails to
// create it and is counted, whichever process ran it.
//   node scripts/build.mjs --no-types && node scripts/lock-race.mjs [--rounds 200] [--stores 50] [--racers 8] [--lock socket|files] [--json]
// Prints trials (stores raced for), processes, double holders, double executes,
// executes missing, stores nobody won, and the duration; exits 1 on any double.
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
// LOCK_RACE_BUILD: another build tree to race (an older lock, to see the judge count its doubles).
const build = process.env.LOCK_RACE_BUILD ?? join(root, "build");
const mod = (p) => import(pathToFileURL(join(build, "src", p)).href);
/** The store's open with the lock seam, or a build's plain openFileStore when it has none. */
const opener = async () => {
  const m = await mod("node/file-store.js");
  return m.openFileStoreWith ?? ((path) => m.openFileStore(path));
};
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const role = arg("role", "coordinator");
const lock = arg("lock", process.platform === "linux" ? "socket" : "files");

const alice = { actorId: "alice", tenantId: "acme" };
const bob = { actorId: "bob", tenantId: "acme" };

/** The confirm tool of the race: its execute is the judge, a marker per action created with O_EXCL. */
function markerTool(markers, onDouble) {
  return {
    name: "race__touch",
    description: "",
    inputSchema: { type: "object" },
    effect: "confirm",
    version: "v1",
    prepare: async (args) => ({ tool: "race__touch", version: "v1", arguments: args }),
    execute: async (approved) => {
      mark(markers, approved.operationId, onDouble);
      return { status: "succeeded", result: { content: [{ type: "text", text: "ok" }], isError: false } };
    },
  };
}

function mark(markers, operationId, onDouble) {
  try {
    closeSync(openSync(join(markers, operationId), "wx"));
  } catch (e) {
    if (e.code === "EEXIST") onDouble(operationId);
    else throw e;
  }
}

const lines = (stream, f) => createInterface({ input: stream }).on("line", (l) => f(JSON.parse(l)));

// ── the holder: opens every store, leaves its two actions, says ready, waits for SIGKILL ──
if (role === "holder") {
  const openFileStoreWith = await opener();
  const { createActions } = await mod("actions/approvals.js");
  const [markers, round, ...paths] = process.argv.slice(process.argv.indexOf("--paths") + 1);
  const tool = markerTool(markers, () => undefined);
  await Promise.all(
    paths.map(async (path, i) => {
      const store = await openFileStoreWith(path, {}, { lock });
      const actions = createActions({ store, mayApprove: () => true });
      const propose = (tag) => actions.propose({ tool: "race__touch", version: "v1", arguments: { tag } }, { identity: alice, effect: "confirm", runId: `r${round}`, callId: `${tag}-${round}-${i}` });
      // One this holder was sending when it died: executing, its marker written, its lease lapsed.
      const worker = `holder-${process.pid}`;
      const sent = await actions.approve(await propose("sent"), bob);
      const c = await store.claim({ workerId: worker, now: Date.now(), leaseMs: 60_000 });
      if (c?.id !== sent.id) throw new Error("the holder did not claim its action");
      const executing = await store.transition(c.id, { state: c.state, fence: c.fence }, { state: "executing", leaseOwner: worker, leaseUntil: Date.now() + 1 }, Date.now());
      mark(markers, executing.operationId, () => undefined);
      // And one approved, for the winner to execute.
      await actions.approve(await propose("send"), bob);
    }),
  );
  console.log("ready");
  setInterval(() => undefined, 60_000); // held until SIGKILL
}

// ── a racer: on each go, opens every store it can at one instant, runs a worker pass, holds until release ──
else if (role === "racer") {
  const openFileStoreWith = await opener();
  const { createWorker } = await mod("actions/worker.js");
  let held = [];
  lines(process.stdin, async (m) => {
    if (m.go !== undefined) {
      const doubles = [];
      const tool = markerTool(m.markers, (op) => doubles.push(op));
      while (Date.now() < m.at); // released together
      const errors = [];
      const opened = await Promise.all(
        m.paths.map((p) =>
          openFileStoreWith(p, {}, { lock }).then(
            (s) => s,
            (e) => (e.code === "store" && /locked by/.test(e.message) ? undefined : (errors.push(`${e.code}: ${e.message}`), undefined)),
          ),
        ),
      );
      held = opened.filter(Boolean);
      let executed = 0;
      await Promise.all(
        held.map(async (store) => {
          const worker = createWorker({ store, resolveTool: () => tool, leaseMs: 60_000, onAction: (a) => void (a.state === "succeeded" && executed++) });
          // A store error here is the journal fence refusing a second holder's move: counted, never fatal.
          await worker.runOnce().catch((e) => errors.push(`${e.code}: ${e.message}`));
        }),
      );
      console.log(JSON.stringify({ round: m.go, won: held.map((s) => s.path), executed, doubles, errors }));
    } else if (m.release !== undefined) {
      await Promise.all(held.map((s) => s.close().catch(() => undefined)));
      held = [];
      console.log(JSON.stringify({ released: m.release }));
    }
  });
}

// ── the coordinator ──
else {
  const rounds = Number(arg("rounds", 200));
  const storesPerRound = Number(arg("stores", 50));
  const racerCount = Number(arg("racers", 8));
  const json = process.argv.includes("--json");
  const self = fileURLToPath(import.meta.url);
  const dir = mkdtempSync(join(tmpdir(), "yada-lock-race-"));
  const markers = join(dir, "markers");
  mkdirSync(markers);
  const t0 = performance.now();
  const totals = { trials: 0, doubleHolders: 0, doubleExecutes: 0, missing: 0, unclaimed: 0, errors: [] };

  const racers = Array.from({ length: racerCount }, () => {
    const p = spawn(process.execPath, [self, "--role", "racer", "--lock", lock], { stdio: ["pipe", "pipe", "inherit"] });
    const waiting = [];
    lines(p.stdout, (m) => waiting.shift()?.resolve(m));
    p.on("exit", (code) => {
      for (const w of waiting.splice(0)) w.reject(new Error(`a racer exited (${code})`));
    });
    return { p, ask: (m) => new Promise((resolve, reject) => (waiting.push({ resolve, reject }), p.stdin.write(JSON.stringify(m) + "\n"))) };
  });
  let processes = racerCount;

  try {
    for (let round = 0; round < rounds; round++) {
      const paths = Array.from({ length: storesPerRound }, (_, i) => join(dir, `r${round}`, `s${i}.jsonl`));
      for (const p of paths) mkdirSync(join(p, ".."), { recursive: true });
      // The holder: opens every store, then is SIGKILLed (and reaped) before the race starts.
      const holder = spawn(process.execPath, [self, "--role", "holder", "--lock", lock, "--paths", markers, String(round), ...paths], { stdio: ["ignore", "pipe", "inherit"] });
      processes++;
      const exited = new Promise((resolve) => holder.on("exit", resolve));
      const ready = await new Promise((resolve) => {
        createInterface({ input: holder.stdout }).once("line", (l) => resolve(l === "ready"));
        void exited.then(() => resolve(false));
      });
      if (!ready) throw new Error(`round ${round}: the holder did not get ready`);
      holder.kill("SIGKILL");
      await exited;
      const at = Date.now() + 20;
      const answers = await Promise.all(racers.map((r) => r.ask({ go: round, paths, at, markers })));
      const winners = new Map(paths.map((p) => [p, 0]));
      let executed = 0;
      for (const a of answers) {
        for (const p of a.won) winners.set(p, (winners.get(p) ?? 0) + 1);
        executed += a.executed;
        totals.doubleExecutes += a.doubles.length;
        totals.errors.push(...a.errors);
      }
      for (const n of winners.values()) {
        if (n > 1) totals.doubleHolders++;
        if (n === 0) totals.unclaimed++;
      }
      totals.missing += storesPerRound - executed;
      totals.trials += storesPerRound;
      await Promise.all(racers.map((r) => r.ask({ release: round })));
      rmSync(join(dir, `r${round}`), { recursive: true, force: true });
    }
  } finally {
    for (const r of racers) r.p.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
  const seconds = (performance.now() - t0) / 1000;
  const label = process.env.LOCK_RACE_BUILD ? `${lock} (build ${process.env.LOCK_RACE_BUILD})` : lock;
  const report = { lock: label, rounds, storesPerRound, racers: racerCount, processes, ...totals, errors: totals.errors.slice(0, 5), errorCount: totals.errors.length, seconds: Number(seconds.toFixed(1)) };
  if (json) console.log(JSON.stringify(report));
  else {
    console.log(`lock ${label}: ${totals.trials} trials (${rounds} rounds of ${storesPerRound} stores), ${racerCount} racers, ${processes} processes, ${seconds.toFixed(1)} s`);
    console.log(`double holders ${totals.doubleHolders}, double executes ${totals.doubleExecutes}, executes missing ${totals.missing}, stores nobody won ${totals.unclaimed}, other errors ${totals.errors.length}`);
    for (const e of totals.errors.slice(0, 5)) console.log(`  ${e}`);
  }
  process.exit(totals.doubleHolders + totals.doubleExecutes > 0 ? 1 : 0);
}
