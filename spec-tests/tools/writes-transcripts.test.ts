// W1–W7 (X4): the recorded sessions of the reference contract server, one per
// mode and transport, replay message for message through connectMcp's write and
// confirmed tools; every client message is valid against the MCP schema, and each
// mode's outcomes are the ones the contract demands (not merely the recorded ones).
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { connectMcp } from "../../src/node/tools.js";
import type { McpConnection } from "../../src/tools/connect.js";
import type { Tool } from "../../src/tools/types.js";
import { repoPath } from "../helpers/paths.js";
import { checkClientMessage } from "../helpers/schema.js";

interface ScenarioModule {
  ALICE: { actorId: string; tenantId: string };
  MAPPING: Record<string, { version: string; prepareTool: string; receiptTool: string }>;
  RECORDED_MODES: Record<string, string[]>;
  contractScenario(c: McpConnection<Tool>): Promise<Record<string, unknown>>;
}
interface ReplayResult {
  ok: boolean;
  why: string | null;
  received: unknown[];
}
const scenario = (await import(pathToFileURL(repoPath("fixtures", "replay", "scenarios", "contract.mjs")).href)) as ScenarioModule;
const { startHttpReplay } = (await import(pathToFileURL(repoPath("fixtures", "replay", "http-replay.mjs")).href)) as {
  startHttpReplay: (path: string) => Promise<{ url: string; result: () => ReplayResult; close: () => Promise<void> }>;
};

/** What the contract demands of each mode: execute, reconcile, repeated execute (or the prepare error). */
const DEMANDED: Record<string, Record<string, unknown>> = {
  correct: { execute: "succeeded", reconcile: "succeeded", repeat: "succeeded" },
  "unknown-status": { execute: "unknown", reconcile: "succeeded" },
  "timeout-after-perform": { execute: "unknown", reconcile: "succeeded" },
  "text-only": { execute: "unknown", reconcile: "succeeded" },
  "extra-fields": { execute: "unknown", reconcile: "succeeded" },
  "missing-fields": { execute: "unknown", reconcile: "succeeded" },
  "wrong-operation-id": { execute: "unknown", reconcile: "succeeded" },
  "empty-receipt": { execute: "unknown", reconcile: "unknown" },
  "receipt-unknown": { execute: "unknown", reconcile: "unknown" },
  "mutating-prepare": { execute: "failed" },
  "prepare-text-only": { prepare: "contract" },
  "prepare-extra-fields": { prepare: "contract" },
  "prepare-long-state": { prepare: "contract" },
};

const config = { writeTools: scenario.MAPPING, confirmTools: ["delete_item"], timeoutMs: 10_000 };
// The timeout mode's call must time out within this bound (which bounds its setup too).
const TIMEOUT_MODE_MS = 2_000;
const access = { identity: scenario.ALICE, authorize: () => true };

async function replayStdio(file: string, timeoutMs: number): Promise<{ out: Record<string, unknown>; result: ReplayResult }> {
  const dir = mkdtempSync(join(tmpdir(), "yada-contract-replay-"));
  try {
    const resultFile = join(dir, "result.json");
    const c = await connectMcp({ name: "contract", command: process.execPath, args: [repoPath("fixtures", "replay", "stdio-replay.mjs"), file, "--result", resultFile], ...config, timeoutMs }, access);
    let out: Record<string, unknown>;
    try {
      out = await scenario.contractScenario(c);
    } finally {
      await c.close();
    }
    // The replay server writes its result as it exits, after the connection closed.
    for (let i = 0; i < 200; i++) {
      try {
        return { out, result: JSON.parse(readFileSync(resultFile, "utf8")) as ReplayResult };
      } catch {
        await new Promise((r) => setTimeout(r, 25));
      }
    }
    throw new Error("the replay server wrote no result");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function replayHttp(file: string): Promise<{ out: Record<string, unknown>; result: ReplayResult }> {
  const replay = await startHttpReplay(file);
  try {
    const c = await connectMcp({ name: "contract", url: replay.url, ...config }, access);
    try {
      return { out: await scenario.contractScenario(c), result: replay.result() };
    } finally {
      await c.close();
    }
  } finally {
    await replay.close();
  }
}

describe("W1–W7: recorded sessions of the reference contract server", { concurrency: 4 }, () => {
  for (const [mode, transports] of Object.entries(scenario.RECORDED_MODES)) {
    for (const transport of transports) {
      test(`W3, W5, W7: the ${mode} session over ${transport} replays with the outcomes the contract demands`, { timeout: 30_000 }, async () => {
        const file = repoPath("fixtures", "transcripts", `contract-${mode}-${transport}.jsonl`);
        const header = JSON.parse(readFileSync(file, "utf8").split("\n")[0] ?? "{}") as { outcomes: Record<string, unknown> };
        const { out, result } = transport === "stdio" ? await replayStdio(file, mode === "timeout-after-perform" ? TIMEOUT_MODE_MS : config.timeoutMs) : await replayHttp(file);
        assert.equal(result.why, null);
        assert.equal(result.ok, true);
        assert.deepEqual(out, header.outcomes);
        for (const [phase, status] of Object.entries(DEMANDED[mode] ?? {})) assert.equal(out[phase], status, `${mode}: ${phase}`);
        assert.equal(out.confirm, "succeeded");
        const calls = result.received.filter((m) => (m as { method?: string }).method === "tools/call");
        assert.ok(calls.length >= 2);
        for (const message of result.received) checkClientMessage("2025-11-25", message);
      });
    }
  }

  test("W2: a replay whose client sends another envelope fails", { timeout: 30_000 }, async () => {
    const file = repoPath("fixtures", "transcripts", "contract-correct-stdio.jsonl");
    const dir = mkdtempSync(join(tmpdir(), "yada-contract-replay-"));
    try {
      const resultFile = join(dir, "result.json");
      // Another actor: same tools, same arguments, a different envelope.
      const c = await connectMcp(
        { name: "contract", command: process.execPath, args: [repoPath("fixtures", "replay", "stdio-replay.mjs"), file, "--result", resultFile], ...config },
        { identity: { actorId: "bob", tenantId: "acme" }, authorize: () => true },
      );
      const rename = c.tools.find((t) => t.name === "contract__rename");
      await assert.rejects(rename?.effect === "write" ? rename.prepare({ id: "A", name: "Renamed A" }, { identity: { actorId: "bob", tenantId: "acme" } }) : Promise.reject(new Error("no write tool")));
      await c.close().catch(() => {});
      for (let i = 0; i < 200 && !readable(resultFile); i++) await new Promise((r) => setTimeout(r, 25));
      const result = JSON.parse(readFileSync(resultFile, "utf8")) as ReplayResult;
      assert.equal(result.ok, false);
      assert.match(result.why ?? "", /differs from the transcript/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function readable(path: string): boolean {
  try {
    readFileSync(path);
    return true;
  } catch {
    return false;
  }
}
