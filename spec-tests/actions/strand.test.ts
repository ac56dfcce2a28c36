// W13: a worker that dies strands at most the action it was sending. A worker
// process (kill-worker.ts: the file store, connectMcp's write tool over HTTP to the
// reference contract server, the default concurrency of 8) claims a batch of 8
// approved renames, records executing for the first and is SIGKILLed before that
// send. The journal on disk then holds one action executing and seven still approved;
// a restarted worker executes the seven exactly once (the server's own log) and never
// sends the stranded one, which reconciles by receipt.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createActions } from "../../src/actions/approvals.js";
import { openFileStore } from "../../src/node/file-store.js";
import { connectMcp } from "../../src/node/tools.js";
import { DEFAULT_WORKER_CONCURRENCY } from "../../src/limits.js";
import type { WriteTool } from "../../src/tools/types.js";
import { fixtureServer } from "../helpers/paths.js";
import { alice, bob, logLines, tempDir } from "./support.js";
import { runWorker } from "./kill-support.js";

type ContractHttpModule = typeof import("../../fixtures/servers/contract/http.mjs");
const { startContractHttp } = (await import(pathToFileURL(fixtureServer("contract/http.mjs")).href)) as ContractHttpModule;


test("W13: a worker killed between recording executing and sending strands only the action in hand; the rest of its batch stays approved and is executed once by the next worker", { timeout: 90_000 }, async () => {
  const n = DEFAULT_WORKER_CONCURRENCY;
  const dir = tempDir();
  const log = join(dir, "server.log");
  // n items the server knows from its log (replayed on start).
  writeFileSync(log, Array.from({ length: n }, (_, i) => JSON.stringify({ tool: "add_item", status: "succeeded", id: `s${i}`, to: `item ${i}`, at: 0, pid: 0 })).join("\n") + "\n");
  const storePath = join(dir, "actions.jsonl");
  const server = await startContractHttp({ log });
  try {
    const connection = await connectMcp({ name: "contract", url: server.url, writeTools: { rename: { version: "reviewed-1", prepareTool: "prepare_rename", receiptTool: "rename_receipt" } } }, { identity: alice, authorize: () => true });
    const tool = connection.tools.find((t): t is WriteTool => t.effect === "write");
    assert.ok(tool);
    const store = await openFileStore(storePath);
    const actions = createActions({ store, mayApprove: () => true });
    const ids: string[] = [];
    const ops = new Map<string, string>();
    for (let i = 0; i < n; i++) {
      const a = await actions.propose(await tool.prepare({ id: `s${i}`, name: `renamed ${i}` }, { identity: alice }), { identity: alice, effect: "write" });
      await actions.approve(a, bob);
      ids.push(a.id);
      ops.set(a.id, a.operationId);
    }
    await store.close();
    await connection.close();

    // The first send of the batch is held after its executing record; the process dies there.
    assert.equal(await runWorker([storePath, server.url, ids[0] ?? ""], { KILL_AT: "before-send" }, true), "at before-send");
    const after = await openFileStore(storePath);
    const states = await Promise.all(ids.map(async (id) => (await after.get(id))?.state));
    await after.close();
    const executing = ids.filter((_, i) => states[i] === "executing");
    assert.equal(executing.length, 1, `one action stranded, not the batch: ${states.join(", ")}`);
    assert.equal(states.filter((s) => s === "approved").length, n - 1, "the rest of the batch was never marked");
    const renames = () => logLines(log).filter((l) => l.tool === "rename");
    assert.equal(renames().length, 0, "nothing was sent");

    const stranded = executing[0] ?? "";
    const [, state, executes] = (await runWorker([storePath, server.url, stranded], { RUN_MS: "3000" }, false)).split(" ");
    assert.equal(state, "reconciling", "the stranded one is uncertain: resolved by receipt only, never resent");
    assert.equal(executes, String(n - 1), "the next worker sent each of the others once");
    const final = await openFileStore(storePath);
    try {
      for (const id of ids) {
        const lines = renames().filter((l) => l.operationId === ops.get(id));
        if (id === stranded) assert.equal(lines.length, 0, "the stranded action was never sent");
        else {
          assert.deepEqual(lines.map((l) => l.status), ["succeeded"], "performed exactly once");
          assert.equal((await final.get(id))?.state, "succeeded");
        }
      }
    } finally {
      await final.close();
    }
  } finally {
    await server.close();
  }
});
