// The long version of the kill -9 loop (W5, W8, W9): ROUNDS times per step
// boundary (before-send, in-flight, before-commit), a worker process is killed
// there and restarted; the reference server's own log decides what happened.
//   node scripts/build.mjs --no-types && ROUNDS=20 node scripts/actions-kill-loop.mjs
// Prints, per boundary: performed once / not at all / twice (must be 0), how many
// the restarted worker resent (must be 0), how the store ended, and how often the
// store and the server's log disagree (must be 0).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const { startContractHttp } = await import(join(root, "fixtures/servers/contract/http.mjs"));
const { openFileStore } = await import(join(root, "build/src/node/file-store.js"));
const { createActions } = await import(join(root, "build/src/actions/approvals.js"));
const { connectMcp } = await import(join(root, "build/src/node/tools.js"));
const worker = join(root, "build/spec-tests/actions/kill-worker.js");
const ROUNDS = Number(process.env.ROUNDS ?? 10);
const alice = { actorId: "alice", tenantId: "acme" };
const mapping = { rename: { version: "reviewed-1", prepareTool: "prepare_rename", receiptTool: "rename_receipt" } };

function runWorker(args, env, kill) {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [worker, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "ignore"] });
    const timer = setTimeout(() => p.kill("SIGKILL"), 30_000);
    let first = "";
    createInterface({ input: p.stdout }).on("line", (line) => {
      if (first) return;
      first = line;
      if (kill) p.kill("SIGKILL");
    });
    p.on("exit", () => {
      clearTimeout(timer);
      resolve(first);
    });
  });
}

const table = [];
for (const step of ["before-send", "in-flight", "before-commit"]) {
  const counts = { once: 0, none: 0, twice: 0, resent: 0, succeeded: 0, reconciling: 0, other: 0, mismatch: 0 };
  for (let i = 0; i < ROUNDS; i++) {
    const dir = mkdtempSync(join(tmpdir(), "yada-kill-"));
    const log = join(dir, "server.log");
    const storePath = join(dir, "actions.jsonl");
    // In flight: a random point inside the server's delay before it performs.
    const server = await startContractHttp({ log, executeDelayMs: step === "in-flight" ? 50 + Math.floor(Math.random() * 300) : 0 });
    try {
      const connection = await connectMcp({ name: "contract", url: server.url, writeTools: mapping }, { identity: alice, authorize: () => true });
      const tool = connection.tools.find((t) => t.effect === "write");
      const store = await openFileStore(storePath);
      const actions = createActions({ store, mayApprove: () => true });
      const a = await actions.propose(await tool.prepare({ id: "A", name: `round ${i}` }, { identity: alice }), { identity: alice, effect: "write" });
      await actions.approve(a, { actorId: "bob", tenantId: "acme" });
      await store.close();
      await connection.close();
      await runWorker([storePath, server.url, a.id], { KILL_AT: step }, true);
      const done = await runWorker([storePath, server.url, a.id], { RUN_MS: "3000" }, false);
      const [, state, executes] = done.split(" ");
      let text = "";
      try {
        text = readFileSync(log, "utf8");
      } catch {}
      const performed = text.split("\n").filter((l) => l.includes(`"operationId":"${a.operationId}"`) && l.includes('"status":"succeeded"')).length;
      if (performed === 0) counts.none++;
      else if (performed === 1) counts.once++;
      else counts.twice++;
      if (executes !== "0") counts.resent++;
      if (state === "succeeded") counts.succeeded++;
      else if (state === "reconciling") counts.reconciling++;
      else counts.other++;
      // The store agrees with the server: succeeded exactly when the server performed it.
      if ((state === "succeeded") !== (performed === 1)) counts.mismatch++;
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  table.push({ step, ...counts });
}
console.log(`${ROUNDS} rounds per boundary`);
console.table(table);
const bad = table.some((r) => r.twice > 0 || r.resent > 0 || r.other > 0 || r.mismatch > 0);
console.log(bad ? "FAILED: a mutation was performed twice, resent, or ended in an unexpected state" : "ok: every action performed at most once, none resent; uncertain ones resolved by receipt only");
process.exitCode = bad ? 1 : 0;
