// H14: the endpoint event of a 2024-11-05 HTTP+SSE server (loopback fixture) at
// its bound is used; one character more is refused before anything is POSTed.
import assert from "node:assert/strict";
import { test } from "node:test";
import { McpClient } from "../../src/mcp/client.js";
import { LegacySseTransport } from "../../src/transport/legacy-sse.js";
import { MAX_LEGACY_ENDPOINT_CHARS } from "../../src/limits.js";
import { withFixture } from "../transport/http-fixtures.js";

const T = { timeout: 30_000 };

test("H14: an endpoint of MAX_LEGACY_ENDPOINT_CHARS characters is used; one character more is a protocol error and nothing is POSTed", T, async () => {
  await withFixture("legacy-sse", { endpointChars: MAX_LEGACY_ENDPOINT_CHARS }, async (server) => {
    const client = await McpClient.connect(new LegacySseTransport(server.url), { era: "legacy" });
    try {
      assert.deepEqual((await client.callTool("echo", { text: "hi" })).content, [{ type: "text", text: "hi" }]);
    } finally {
      await client.close();
    }
    const posts = (server.requests as Array<{ method: string; url?: string }>).filter((r) => r.method === "POST");
    assert.ok(posts.length >= 2 && posts.every((r) => r.url?.length === MAX_LEGACY_ENDPOINT_CHARS));
  });
  await withFixture("legacy-sse", { endpointChars: MAX_LEGACY_ENDPOINT_CHARS + 1 }, async (server) => {
    await assert.rejects(
      McpClient.connect(new LegacySseTransport(server.url), { era: "legacy" }),
      (e: Error & { code?: string }) => e.code === "protocol" && e.message.includes(`longer than ${MAX_LEGACY_ENDPOINT_CHARS} characters`),
    );
    assert.equal(server.requests.filter((r) => (r as { method: string }).method === "POST").length, 0);
  });
});
