import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { McpClient } from "../../src/node/client.js";
import type { CallToolResult, ImageContent, ResourceLink, EmbeddedResource } from "../../src/mcp/types.js";
import { repoPath } from "../helpers/paths.js";
import { checkClientMessage } from "../helpers/schema.js";

type Scenario = (client: McpClient) => Promise<Record<string, unknown>>;
const { everythingScenario } = (await import(pathToFileURL(repoPath("fixtures", "replay", "scenarios", "everything.mjs")).href)) as {
  everythingScenario: Scenario;
};

async function replay(transcript: string, scenario: Scenario) {
  const dir = mkdtempSync(join(tmpdir(), "yada-replay-"));
  const resultFile = join(dir, "result.json");
  const client = await McpClient.connectStdio("node", [repoPath("fixtures", "replay", "stdio-replay.mjs"), repoPath("fixtures", "transcripts", transcript), "--result", resultFile]);
  let out: Record<string, unknown>;
  try {
    out = await scenario(client);
  } finally {
    await client.close();
  }
  const result = JSON.parse(readFileSync(resultFile, "utf8")) as { ok: boolean; why: string | null; received: unknown[] };
  return { out, result };
}

test("X4, V1, V4, T15: the recorded server-everything session replays message for message", async () => {
  const { out, result } = await replay("everything-stdio.jsonl", everythingScenario);
  assert.equal(result.why, null);
  assert.equal(result.ok, true);
  assert.ok((out.tools as string[]).includes("get-structured-content"));
  const image = (out.image as CallToolResult).content.find((c) => c.type === "image") as ImageContent;
  assert.equal(image.mimeType, "image/png");
  const links = (out.links as CallToolResult).content.filter((c) => c.type === "resource_link") as ResourceLink[];
  assert.equal(links.length, 2);
  const reference = (out.reference as CallToolResult).content.find((c) => c.type === "resource") as EmbeddedResource;
  assert.ok(reference.resource.uri.length > 0);
  assert.equal(typeof (out.structured as CallToolResult).structuredContent, "object");
  assert.equal(((out.unknown as { ok: CallToolResult }).ok).isError, true);
  assert.equal(((out.badArgument as { ok: CallToolResult }).ok).isError, true);
  assert.equal((out.progress as unknown[]).length, 3);
  assert.equal((out.cancelled as { error: { code: string } }).error.code, "cancelled");
});

test("X4: every client message of the replay is valid against the MCP schema of its revision", async () => {
  const { result } = await replay("everything-stdio.jsonl", everythingScenario);
  assert.ok(result.received.length >= 14);
  for (const message of result.received) checkClientMessage("2025-11-25", message);
});

test("X4: a client that strays from the transcript fails the replay", async () => {
  const { result } = await replay("everything-stdio.jsonl", async (client) => {
    await client.listTools();
    await client.callTool("echo", { message: "something else" }).catch(() => undefined);
    return {};
  });
  assert.equal(result.ok, false);
  assert.match(result.why ?? "", /differs from the transcript/);
});

test("X4: the schema check rejects a malformed client message", () => {
  assert.throws(() => checkClientMessage("2025-11-25", { jsonrpc: "2.0", id: 1, method: "tools/call", params: { arguments: {} } }));
  assert.throws(() => checkClientMessage("2025-11-25", { jsonrpc: "2.0", id: 1, method: "initialize", params: { capabilities: {} } }));
  assert.throws(() => checkClientMessage("2025-11-25", { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: null } }));
  assert.throws(() => checkClientMessage("2025-11-25", { jsonrpc: "2.0", method: "notifications/no-such-thing" }));
  checkClientMessage("2025-11-25", { jsonrpc: "2.0", id: 1, method: "ping" });
});

test("X4, H1, H3: the recorded server-everything session over Streamable HTTP replays through an HTTP replay server", async () => {
  const { startHttpReplay } = (await import(pathToFileURL(repoPath("fixtures", "replay", "http-replay.mjs")).href)) as {
    startHttpReplay: (path: string) => Promise<{ url: string; result: () => { ok: boolean; why: string | null; received: unknown[] }; close: () => Promise<void> }>;
  };
  const { HttpTransport } = await import("../../src/transport/http.js");
  const replay = await startHttpReplay(repoPath("fixtures", "transcripts", "everything-http.jsonl"));
  try {
    const client = await McpClient.connect(new HttpTransport(replay.url));
    let out: Record<string, unknown>;
    try {
      out = await everythingScenario(client);
    } finally {
      await client.close();
    }
    const result = replay.result();
    assert.equal(result.why, null);
    assert.equal(result.ok, true);
    assert.equal((out.progress as unknown[]).length, 3);
    assert.equal((out.cancelled as { error: { code: string } }).error.code, "cancelled");
    for (const message of result.received) checkClientMessage("2025-11-25", message);
  } finally {
    await replay.close();
  }
});
