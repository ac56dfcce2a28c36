// H14: the 2024-11-05 HTTP+SSE transport, against server-everything's `sse` mode
// and the hostile fixtures/http/legacy-sse.mjs.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { McpClient } from "../../src/mcp/client.js";
import { HttpTransport } from "../../src/transport/http.js";
import { HttpTransport as NodeHttpTransport } from "../../src/node/http.js";
import { LegacySseTransport } from "../../src/transport/legacy-sse.js";
import { legacySse } from "../../src/transport/legacy-fallback.js";
import type { LogLevel } from "../../src/log.js";
import { connectMcp } from "../../src/tools/connect.js";
import { alice, allowAll } from "../tools/helpers.js";
import { startEverything } from "../helpers/everything.js";
import { withFixture } from "./http-fixtures.js";

const T = { timeout: 30_000 };
type Coded = Error & { code?: string };
const coded = (code: string) => (e: Coded) => e.code === code;

describe("H14: HTTP+SSE (2024-11-05)", { concurrency: true }, () => {
  test("H14: a Streamable HTTP initialize answered 404 falls back to HTTP+SSE by itself with yada/node's HttpTransport (server-everything sse mode)", T, async () => {
    const server = await startEverything("sse");
    try {
      const transport = new NodeHttpTransport(server.url).withHeader("user-agent", "yada-test/1.0");
      assert.ok(transport instanceof NodeHttpTransport, "withHeader keeps yada/node's class");
      const client = await McpClient.connect(transport);
      try {
        assert.equal(client.era, "legacy");
        assert.match(client.name, /^HTTP\+SSE server /);
        assert.ok((await client.listTools()).some((t) => t.name === "echo"));
        const r = await client.callTool("echo", { message: "over sse" });
        assert.deepEqual(r.content, [{ type: "text", text: "Echo: over sse" }]);
      } finally {
        await client.close();
      }
    } finally {
      await server.stop();
    }
  });

  test("H14: connectMcp reaches a 2024-11-05 HTTP+SSE server through its HTTP transport's fallback (fallback: legacySse)", T, async () => {
    const server = await startEverything("sse");
    try {
      const connection = await connectMcp({ name: "old", url: server.url }, { identity: alice, authorize: allowAll }, { fallback: legacySse });
      try {
        assert.ok(connection.isConnected());
        assert.ok((await connection.prompts(alice)).length > 0, "the prompts were listed over HTTP+SSE");
      } finally {
        await connection.close();
      }
    } finally {
      await server.stop();
    }
  });

  test("H14: chosen explicitly, the transport POSTs to the announced endpoint with the custom headers on every request", T, () =>
    withFixture("legacy-sse", {}, async (server) => {
      const client = await McpClient.connect(new LegacySseTransport(server.url, { headers: { "x-tenant": "acme" } }), { era: "legacy" });
      try {
        const r = await client.callTool("echo", { text: "hi" });
        assert.deepEqual(r.content, [{ type: "text", text: "hi" }]);
      } finally {
        await client.close();
      }
      const seen = server.requests as Array<{ method: string; url?: string; headers: Record<string, unknown> }>;
      assert.equal(seen.filter((r) => r.method === "POST" && r.url === "/sse").length, 0, "nothing is POSTed to the stream URL");
      assert.ok(seen.filter((r) => r.method === "POST").every((r) => r.url === "/message?sessionId=s1"));
      assert.ok(seen.length >= 4 && seen.every((r) => r.headers["x-tenant"] === "acme"), "the header rides on the GET and every POST");
    }),
  );

  test("H14: the fallback also runs on 405 and 400 from the Streamable POST", T, async () => {
    for (const postStatus of [405, 400]) {
      await withFixture("legacy-sse", { postStatus }, async (server) => {
        const client = await McpClient.connect(new HttpTransport(server.url, { fallback: legacySse }), { era: "legacy" });
        try {
          assert.match(client.name, /HTTP\+SSE/);
        } finally {
          await client.close();
        }
      });
    }
  });

  test("H14, X3: without the fallback module a web HttpTransport reports the refusal, sends nothing over HTTP+SSE, and its log names legacySse", T, () =>
    withFixture("legacy-sse", { postStatus: 405 }, async (server) => {
      const logged: [LogLevel, string][] = [];
      const logger = (level: LogLevel, message: string): void => void logged.push([level, message]);
      await assert.rejects(McpClient.connect(new HttpTransport(server.url), { era: "legacy", logger }), (e: Coded & { status?: number }) => e.code === "http" && e.status === 405);
      assert.ok(logged.some(([level, m]) => level === "info" && /no HTTP\+SSE fallback.*legacySse/.test(m)), JSON.stringify(logged));
      assert.ok(!server.requests.some((r) => r.method === "GET"), "the event stream was never opened");
    }),
  );

  test("H14: an endpoint on another origin is refused and nothing is POSTed anywhere", T, () =>
    withFixture("legacy-sse", { mode: "foreign" }, async (server) => {
      await assert.rejects(McpClient.connect(new LegacySseTransport(server.url), { era: "legacy" }), (e: Coded) => e.code === "protocol" && /another origin/.test(e.message));
      assert.equal(server.requests.filter((r) => r.method === "POST").length, 0);
    }),
  );

  test("H14: a stream that never sends its endpoint fails within the endpoint bound", T, () =>
    withFixture("legacy-sse", { mode: "no-endpoint" }, async (server) => {
      const started = Date.now();
      await assert.rejects(McpClient.connect(new LegacySseTransport(server.url, { endpointTimeoutMs: 300 }), { era: "legacy" }), coded("timeout"));
      assert.ok(Date.now() - started < 10_000);
    }),
  );

  test("H14: a redirected event stream is refused", T, () =>
    withFixture("legacy-sse", { mode: "redirect" }, async (server) => {
      await assert.rejects(McpClient.connect(new LegacySseTransport(server.url), { era: "legacy" }), (e: Coded) => e.code === "http" && /redirect/.test(e.message));
      assert.equal(server.requests.filter((r) => (r as { url?: string }).url === "/elsewhere").length, 0);
    }),
  );

  test("H14: an event past maxEventBytes ends the connection with a limit error", T, () =>
    withFixture("legacy-sse", { mode: "huge", hugeBytes: 64 * 1024 }, async (server) => {
      await assert.rejects(McpClient.connect(new LegacySseTransport(server.url, { maxEventBytes: 16 * 1024 }), { era: "legacy" }), coded("limit"));
    }),
  );

  test("H14: a request whose answer never comes fails after the idle bound; the connection stays usable", T, () =>
    withFixture("legacy-sse", {}, async (server) => {
      const client = await McpClient.connect(new LegacySseTransport(server.url, { idleTimeoutMs: 1_500 }), { era: "legacy" });
      try {
        await assert.rejects(client.callTool("stall", {}), coded("timeout"));
        const r = await client.callTool("echo", { text: "still here" });
        assert.deepEqual(r.content, [{ type: "text", text: "still here" }]);
      } finally {
        await client.close();
      }
    }),
  );
});
