// W10 (writes): reconnectingMcp pins effect, version and specification of write
// and confirmed tools, delegates every phase to the live connection, reauthorizes
// each call and never replays a mutation. Against the reference contract server
// over stdio, whose next launch reads its modes from a file.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { connectMcp, reconnectingMcp } from "../../src/node/tools.js";
import type { McpServerConfig } from "../../src/tools/config.js";
import { alice, allowAll, calls, recording, rejection, T, using } from "./helpers.js";
import { approve, confirmTool, contractStdio, performed, writeTool } from "./writes-support.js";

/** A stdio configuration whose launches read their modes from a file the test rewrites. */
async function withModeFile(fn: (config: McpServerConfig, log: string, setMode: (m: string) => void) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "yada-reconnect-"));
  const modeFile = join(dir, "mode");
  const setMode = (m: string): void => writeFileSync(modeFile, m);
  setMode("correct");
  try {
    const log = join(dir, "log.jsonl");
    const base = contractStdio(log, { args: ["--mode-file", modeFile] });
    await fn({ ...base, confirmTools: ["delete_item"] } as McpServerConfig, log, setMode);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("W10: reconnectingMcp with write and confirmed tools", { concurrency: true }, () => {
  test("W10: tools keep name, effect and version; phases are delegated, reauthorized, and a dropped execute is resolved by receipt on a new connection, never resent", T, () =>
    withModeFile(async (config, log, setMode) => {
      const plain = await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => c.tools.map((t) => [t.name, t.effect, "version" in t ? t.version : ""]));
      const rec = recording();
      const asked: string[] = [];
      const authorize = (_: unknown, tool: string): boolean => (asked.push(tool), true);
      setMode("drop-after-perform");
      await using(await reconnectingMcp(config, { identity: alice, authorize }, { transportFactory: rec.factory }), async (c) => {
        assert.deepEqual(c.tools.map((t) => [t.name, t.effect, "version" in t ? t.version : ""]), plain);
        const rename = writeTool(c);
        const action = approve(await rename.prepare({ id: "A", name: "Once" }, { identity: alice }));
        const outcome = await rename.execute(action, { identity: alice });
        assert.equal(outcome.status, "unknown", "the server exited after writing");
        assert.equal(c.isConnected(), false);
        setMode("correct");
        assert.equal((await rename.reconcile(action, { identity: alice })).status, "succeeded");
        assert.equal(rec.built(), 2, "reconnected once");
        assert.deepEqual(asked, ["rename", "prepare_rename", "rename", "rename", "rename_receipt"]);
        // The confirmed tool runs on the new connection too.
        const del = confirmTool(c, "contract__delete_item");
        assert.equal((await del.execute(approve(await del.prepare({ id: "B" }, { identity: alice })), { identity: alice })).status, "succeeded");
      });
      assert.deepEqual(calls(rec.sent), ["prepare_rename", "rename", "rename_receipt", "delete_item"]);
      assert.equal(performed(log), 2);
    }),
  );

  test("W10: a new connection whose write contract differs is refused (stale_contract), and nothing is replayed", T, () =>
    withModeFile(async (config, log, setMode) => {
      const rec = recording();
      setMode("drop-after-perform");
      await using(await reconnectingMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
        const rename = writeTool(c);
        const action = approve(await rename.prepare({ id: "A", name: "x" }, { identity: alice }));
        assert.equal((await rename.execute(action, { identity: alice })).status, "unknown");
        setMode("rename-schema-v2");
        const e = await rejection(rename.reconcile(action, { identity: alice }));
        assert.equal(e.code, "stale_contract");
        // Within the back-off the same error comes back without a new launch, for every phase.
        assert.equal(await rejection(rename.execute(action, { identity: alice })), e);
        assert.equal(rec.built(), 2);
      });
      assert.deepEqual(calls(rec.sent), ["prepare_rename", "rename"]);
      assert.equal(performed(log), 1);
    }),
  );

  test("W10: the identity is checked before any reconnect, in every phase", T, () =>
    withModeFile(async (config) => {
      const rec = recording();
      await using(await reconnectingMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
        const rename = writeTool(c);
        const action = approve(await rename.prepare({ id: "A", name: "x" }, { identity: alice }));
        const eve = { actorId: "eve", tenantId: "acme" };
        for (const p of [rename.prepare({ id: "A", name: "x" }, { identity: eve }), rename.execute(action, { identity: eve }), rename.reconcile(action, { identity: eve })]) {
          assert.equal((await rejection(p)).code, "unauthorized");
        }
        assert.deepEqual(calls(rec.sent), ["prepare_rename"]);
      });
    }),
  );
});
