// X4 with the dual-era server of the official SDK v2 packages: the sessions
// recorded in both eras (fixtures/transcripts/dual-*-stdio.jsonl, recorded by
// fixtures/replay/scenarios/modern.mjs) replay message for message.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { McpClient } from "../../src/node/client.js";
import type { ClientOptions, ListKind, ServerLogEntry } from "../../src/mcp/client.js";
import type { CallToolResult, GetPromptResult, ResourceContents } from "../../src/mcp/types.js";
import { repoPath } from "../helpers/paths.js";
import { checkClientMessage } from "../helpers/schema.js";
import { MODERN, PATIENT_DISCOVER_MS } from "./support.js";

type Era = "modern" | "legacy";
interface Outcome {
  era: Era;
  protocolVersion: string;
  serverInfo: { name: string; version: string };
  tools: string[];
  add: CallToolResult;
  greet: CallToolResult;
  summarize: CallToolResult;
  roots: CallToolResult;
  visit: CallToolResult;
  where: CallToolResult;
  log: CallToolResult;
  logs: ServerLogEntry[];
  resource: ResourceContents[];
  prompt: GetPromptResult;
  changes: ListKind[];
}
interface ScenarioModule {
  dualScenario(client: McpClient, logs: ServerLogEntry[]): Promise<Outcome>;
  scenarioOptions(era: Era): ClientOptions;
  TRANSCRIPTS: Record<Era, string>;
}
const scenarios = (await import(pathToFileURL(repoPath("fixtures", "replay", "scenarios", "modern.mjs")).href)) as ScenarioModule;

interface Replayed {
  out: Outcome;
  result: { ok: boolean; why: string | null; received: Record<string, unknown>[] };
}

async function replay(era: Era): Promise<Replayed> {
  const resultFile = join(mkdtempSync(join(tmpdir(), "yada-replay-")), "result.json");
  const logs: ServerLogEntry[] = [];
  const client = await McpClient.connectStdio(
    "node",
    [repoPath("fixtures", "replay", "stdio-replay.mjs"), repoPath(scenarios.TRANSCRIPTS[era]), "--result", resultFile],
    undefined,
    { ...scenarios.scenarioOptions(era), discoverTimeoutMs: PATIENT_DISCOVER_MS, onServerLog: (e) => logs.push(e) },
  );
  let out: Outcome;
  try {
    out = await scenarios.dualScenario(client, logs);
  } finally {
    await client.close();
  }
  return { out, result: JSON.parse(readFileSync(resultFile, "utf8")) as Replayed["result"] };
}

function checkOutcome(out: Outcome): void {
  assert.ok(out.tools.includes("greet"));
  assert.deepEqual(out.add.structuredContent, { sum: 42 });
  assert.equal((out.greet.structuredContent as { name: string }).name, "Ada");
  assert.equal((out.summarize.structuredContent as { model: string }).model, "replay-model");
  assert.deepEqual((out.roots.structuredContent as { uris: string[] }).uris, ["file:///work/project"]);
  assert.equal((out.visit.structuredContent as { action: string }).action, "accept");
  assert.equal((out.where.structuredContent as { region: string }).region, "eu-west");
  assert.deepEqual(out.logs, [{ level: "info", logger: "dual", data: "from the scenario" }]);
  assert.equal(out.resource[0]?.uri, "dual://readme");
  assert.equal(out.prompt.messages.length, 1);
  assert.deepEqual(out.changes, ["tools"]);
}

test("X4, V2, V5, V6, V7: the recorded modern-era session with the SDK v2 dual server replays message for message", { timeout: 30_000 }, async () => {
  const { out, result } = await replay("modern");
  assert.equal(result.why, null);
  assert.equal(result.ok, true);
  assert.equal(out.era, "modern");
  assert.equal(out.protocolVersion, MODERN);
  assert.deepEqual(out.serverInfo, { name: "yada-dual-fixture", version: "2.4.0-fixture" });
  checkOutcome(out);
  const methods = result.received.map((m) => m.method);
  assert.equal(methods[0], "server/discover");
  assert.ok(methods.includes("subscriptions/listen"));
  assert.ok(!methods.includes("initialize"));
  for (const message of result.received) checkClientMessage(MODERN, message);
});

test("X4, V1, V5, V6, V7: the recorded legacy-era session with the SDK v2 dual server replays message for message", { timeout: 30_000 }, async () => {
  const { out, result } = await replay("legacy");
  assert.equal(result.why, null);
  assert.equal(result.ok, true);
  assert.equal(out.era, "legacy");
  assert.equal(out.protocolVersion, "2025-11-25");
  checkOutcome(out);
  // The server's requests were answered by the same handlers: the answers are in the transcript.
  const answers = result.received.filter((m) => !("method" in m)).length;
  assert.equal(answers, 4, "elicitation (form), sampling, roots, elicitation (URL)");
  for (const message of result.received) checkClientMessage("2025-11-25", message);
});

test("X4: both transcripts name the server and the revision of their era", () => {
  for (const [era, revision] of [["modern", MODERN], ["legacy", "2025-11-25"]] as const) {
    const header = JSON.parse(readFileSync(repoPath(scenarios.TRANSCRIPTS[era]), "utf8").split("\n")[0] ?? "") as Record<string, unknown>;
    assert.equal(header.transcript, 1);
    assert.equal(header.revision, revision);
    assert.deepEqual(header.server, { name: "yada-dual-fixture", version: "2.4.0-fixture" });
  }
});

// The replay matcher, driven directly: a client whose ids differ from the recording.
test("X4: the replay maps a listen request's id into the subscription id of what the server sends", async () => {
  const { Replay } = (await import(pathToFileURL(repoPath("fixtures", "replay", "replay.mjs")).href)) as {
    Replay: new (entries: unknown[]) => { accept(msg: unknown): string[] };
  };
  const SID = "io.modelcontextprotocol/subscriptionId";
  const meta = (clientName: string) => ({
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: clientName, version: "1" },
  });
  const replay = new Replay([
    { dir: "c2s", msg: { jsonrpc: "2.0", id: 16, method: "subscriptions/listen", params: { notifications: { toolsListChanged: true }, _meta: meta("recorded") } } },
    { dir: "s2c", msg: { jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { notifications: { toolsListChanged: true }, _meta: { [SID]: 16 } } } },
    { dir: "s2c", msg: { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: { [SID]: 16 } } } },
    { dir: "s2c", msg: { jsonrpc: "2.0", id: 16, result: { resultType: "complete", _meta: { [SID]: 16 } } } },
  ]);
  // Another client name and another id: still the same message.
  const sent = replay.accept({ jsonrpc: "2.0", id: "listen-7", method: "subscriptions/listen", params: { notifications: { toolsListChanged: true }, _meta: meta("other") } });
  const released = sent.map((l) => JSON.parse(l) as { id?: unknown; params?: { _meta?: Record<string, unknown> }; result?: { _meta?: Record<string, unknown> } });
  assert.equal(released.length, 3);
  assert.equal(released[0]?.params?._meta?.[SID], "listen-7");
  assert.equal(released[1]?.params?._meta?.[SID], "listen-7");
  assert.equal(released[2]?.id, "listen-7");
  assert.equal(released[2]?.result?._meta?.[SID], "listen-7");
});
