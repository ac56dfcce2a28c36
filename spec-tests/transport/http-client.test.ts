// The HTTP transport under the real JSON-RPC session and McpClient: loopback
// fixtures (fixtures/http/) and interop with @modelcontextprotocol/server-everything
// in streamableHttp mode, held on 127.0.0.1 by fixtures/http/loopback-only.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { McpClient } from "../../src/mcp/client.js";
import { HttpTransport } from "../../src/transport/http.js";
import { SessionExpiredError } from "../../src/errors.js";
import { startEverything } from "../helpers/everything.js";
import { header, rpcMethods, withFixture } from "./http-fixtures.js";

const T = { timeout: 20_000 };

for (const fixture of ["json", "sse"]) {
  test(`H1, H6, H9: McpClient over HttpTransport (${fixture} answers): handshake, tools/list, tools/call, DELETE on close`, T, async () => {
    await withFixture(fixture, { sessionId: "client-session" }, async (server) => {
      const client = await McpClient.connect(new HttpTransport(server.url).withHeader("X-Client", "yada-test"));
      const tools = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ["echo"],
      );
      const result = await client.callTool("echo", { text: "over http" });
      assert.deepEqual(result.content, [{ type: "text", text: "over http" }]);
      await client.close();
      // The client first probes for the modern era (server/discover), then falls back.
      const methods = rpcMethods(server).filter((m) => m !== "GET");
      assert.deepEqual(methods, ["server/discover", "initialize", "notifications/initialized", "tools/list", "tools/call", "DELETE"]);
      const [probe, init, ...rest] = server.requests.filter((r) => r.method !== "GET");
      assert.equal(header(probe, "mcp-protocol-version"), "2026-07-28");
      assert.equal(header(probe, "mcp-method"), "server/discover");
      assert.equal(header(init, "mcp-protocol-version"), undefined, "the probe's revision was forgotten");
      for (const r of server.requests) assert.equal(header(r, "x-client"), "yada-test", `${r.method} ${String(r.message?.method)}`);
      for (const r of rest) {
        assert.equal(header(r, "mcp-session-id"), "client-session", `${r.method} ${String(r.message?.method)}`);
        assert.equal(header(r, "mcp-protocol-version"), client.protocolVersion);
        assert.equal(header(r, "mcp-method"), undefined, "legacy revisions carry no Mcp-Method");
      }
    });
  });
}

test("H3: progress frames on the POST stream reach the call's onProgress", T, async () => {
  await withFixture("progress", { count: 3 }, async (server) => {
    const client = await McpClient.connect(new HttpTransport(server.url));
    const seen: number[] = [];
    const result = await client.callTool("echo", { text: "p" }, { onProgress: (p) => void seen.push(p.progress) });
    assert.deepEqual(seen, [1, 2, 3]);
    assert.deepEqual(result.content, [{ type: "text", text: "p" }]);
    await client.close();
  });
});

test("H13: sampling and elicitation on the POST stream are answered by host handlers; roots/list is declined with -32601", T, async () => {
  await withFixture("server-requests", {}, async (server) => {
    const client = await McpClient.connect(new HttpTransport(server.url), {
      capabilities: { sampling: {}, elicitation: {} },
      requestHandlers: {
        "sampling/createMessage": () => ({ role: "assistant", content: { type: "text", text: "sampled" }, model: "m" }),
        "elicitation/create": () => ({ action: "accept", content: { name: "Ada" } }),
      },
    });
    const result = await client.callTool("ask", {});
    assert.deepEqual(
      result.content.map((c) => (c as { text: string }).text),
      [
        JSON.stringify({ role: "assistant", content: { type: "text", text: "sampled" }, model: "m" }),
        JSON.stringify({ action: "accept", content: { name: "Ada" } }),
        "error -32601",
      ],
    );
    await client.close();
  });
});

test("H7: a call on an expired session rejects with SessionExpiredError", T, async () => {
  await withFixture("session-404", {}, async (server) => {
    const client = await McpClient.connect(new HttpTransport(server.url));
    await assert.rejects(client.listTools(), (e: unknown) => e instanceof SessionExpiredError && e.code === "session_expired");
    await client.close();
  });
});

// ── Interop: server-everything over Streamable HTTP, on loopback only ─────────────

test("H1, H3, H6, H13: interop with server-everything (streamableHttp) on 127.0.0.1", { timeout: 30_000 }, async () => {
  const everything = await startEverything();
  try {
    const client = await McpClient.connect(new HttpTransport(everything.url), {
      capabilities: { sampling: {} },
      requestHandlers: {
        "sampling/createMessage": () => ({ role: "assistant", content: { type: "text", text: "from the host" }, model: "test" }),
      },
    });
    const tools = await client.listTools();
    const names = tools.map((t) => t.name);
    assert.ok(names.includes("echo"), names.join(", "));
    const echoed = await client.callTool("echo", { message: "hi over http" });
    assert.deepEqual(echoed.content, [{ type: "text", text: "Echo: hi over http" }]);
    // Progress frames ride on the call's SSE stream (H3).
    const steps: number[] = [];
    await client.callTool("trigger-long-running-operation", { duration: 0.3, steps: 3 }, { onProgress: (p) => void steps.push(p.progress) });
    assert.deepEqual(steps, [1, 2, 3]);
    // The server's sampling request arrives on the POST stream; the host handler answers (H13).
    assert.ok(names.includes("trigger-sampling-request"), "the server offers sampling once the client declares it");
    const sampled = await client.callTool("trigger-sampling-request", { prompt: "p", maxTokens: 5 });
    assert.match(JSON.stringify(sampled.content), /from the host/);
    await client.close();
  } finally {
    await everything.stop();
  }
});
