// W5, W8, W9: kill -9 of the worker process at each step boundary of ACTIONS.md,
// then a restart, checked against the reference server's own log: every approved
// action performed exactly once or not at all, none twice, and an uncertain one
// resolved by receipt only (the mutation is never sent again).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createActions } from "../../src/actions/approvals.js";
import { openFileStore } from "../../src/node/file-store.js";
import { connectMcp } from "../../src/node/tools.js";
import type { WriteTool } from "../../src/tools/types.js";
import { fixtureServer } from "../helpers/paths.js";
import { alice, bob, logLines, tempDir } from "./support.js";
import { runWorker } from "./kill-support.js";

type ContractHttpModule = typeof import("../../fixtures/servers/contract/http.mjs");
const { startContractHttp } = (await import(pathToFileURL(fixtureServer("contract/http.mjs")).href)) as ContractHttpModule;


const renames = (log: string, operationId: string) => logLines(log).filter((l) => l.tool === "rename" && l.operationId === operationId);

describe("W8: kill -9 at each step boundary, then a restart", { timeout: 120_000 }, () => {
  for (const step of ["before-send", "in-flight", "before-commit"] as const) {
    test(`W8: killed ${step}: performed at most once, never resent, resolved by receipt only`, async () => {
      const dir = tempDir();
      const log = join(dir, "server.log");
      const storePath = join(dir, "actions.jsonl");
      const server = await startContractHttp({ log, executeDelayMs: step === "in-flight" ? 400 : 0 });
      try {
        // Propose and approve through a real connectMcp write tool, then hand the store over.
        const connection = await connectMcp({ name: "contract", url: server.url, writeTools: { rename: { version: "reviewed-1", prepareTool: "prepare_rename", receiptTool: "rename_receipt" } } }, { identity: alice, authorize: () => true });
        const tool = connection.tools.find((t): t is WriteTool => t.effect === "write");
        assert.ok(tool);
        const store = await openFileStore(storePath);
        const actions = createActions({ store, mayApprove: () => true });
        const proposed = await actions.propose(await tool.prepare({ id: "A", name: `After ${step}` }, { identity: alice }), { identity: alice, effect: "write" });
        await actions.approve(proposed, bob);
        await store.close();
        await connection.close();

        const at = await runWorker([storePath, server.url, proposed.id], { KILL_AT: step }, true);
        assert.equal(at, `at ${step}`);
        const [, state, executes] = (await runWorker([storePath, server.url, proposed.id], { RUN_MS: "3000" }, false)).split(" ");
        assert.equal(executes, "0", "the restarted worker never sent the mutation again");
        const done = `done ${state}`;

        const lines = renames(log, proposed.operationId);
        const performedCount = lines.filter((l) => l.status === "succeeded").length;
        assert.ok(performedCount <= 1, "never performed twice");
        assert.ok(lines.length <= 1, "one rename reached the server at most");
        const final = await openFileStore(storePath);
        const record = await final.get(proposed.id);
        await final.close();
        if (step === "before-send") {
          assert.equal(performedCount, 0);
          assert.equal(lines.length, 0, "nothing reached the server");
          assert.equal(done, "done reconciling", "no receipt: still unknown, never resent");
          assert.ok((record?.attempts ?? 0) >= 1, "the receipt was looked up");
        } else if (step === "before-commit") {
          assert.equal(performedCount, 1);
          assert.equal(done, "done succeeded", "the receipt resolved it");
        } else {
          // In flight: the server performed it or not; the store agrees with the server's log.
          assert.equal(done, performedCount === 1 ? "done succeeded" : "done reconciling");
        }
        assert.equal(record?.state, state);
      } finally {
        await server.close();
      }
    });
  }
});
