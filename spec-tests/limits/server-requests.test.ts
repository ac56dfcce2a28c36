// Y2: error replies waiting to be sent are bounded. A loopback server sends one
// batch of requests for a method the client does not serve and holds every answer
// POST: MAX_QUEUED_REFUSALS refusals are answered, the rest dropped and logged.
import assert from "node:assert/strict";
import { test } from "node:test";
import { McpClient } from "../../src/mcp/client.js";
import { HttpTransport } from "../../src/transport/http.js";
import { MAX_QUEUED_REFUSALS } from "../../src/limits.js";
import { captureLogs } from "../helpers/clients.js";
import { startFixture } from "../transport/http-fixtures.js";
import type { TextContent } from "../../src/mcp/types.js";

const T = { timeout: 60_000 };

async function refusalsAnswered(count: number): Promise<{ answers: number; dropped: boolean }> {
  const server = await startFixture("batch-requests", { count, method: "x/not-served", holdMs: 20 });
  const { logs, logger } = captureLogs();
  const client = await McpClient.connect(new HttpTransport(server.url), { name: "batch", logger });
  try {
    const r = await client.callTool("flood", {}, { timeoutMs: 50_000 });
    const seen = JSON.parse((r.content[0] as TextContent).text) as { answers: number };
    return { answers: seen.answers, dropped: logs.some((l) => l.message.startsWith("dropped server requests unanswered")) };
  } finally {
    await client.close();
    await server.close();
  }
}

test("Y2: MAX_QUEUED_REFUSALS refusals waiting for a send are all answered; one more request is dropped unanswered and logged", T, async () => {
  const [at, over] = await Promise.all([refusalsAnswered(MAX_QUEUED_REFUSALS), refusalsAnswered(MAX_QUEUED_REFUSALS + 1)]);
  assert.deepEqual(at, { answers: MAX_QUEUED_REFUSALS, dropped: false });
  assert.deepEqual(over, { answers: MAX_QUEUED_REFUSALS, dropped: true });
});
