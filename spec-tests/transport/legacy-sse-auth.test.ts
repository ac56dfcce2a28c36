// A5, A2, Y5 on the 2024-11-05 HTTP+SSE transport (H14): the auth layer takes part
// in the GET and every POST, also when McpClient.connect falls back to it from an
// HttpTransport; a login holds the endpoint bound; the configured name is kept.
// Against a real OpenID provider (oidc-provider) in front of an HTTP+SSE server,
// and the bearer-token mode of fixtures/http/legacy-sse.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { McpClient } from "../../src/mcp/client.js";
import { HttpTransport } from "../../src/transport/http.js";
import { LegacySseTransport } from "../../src/transport/legacy-sse.js";
import { legacySse } from "../../src/transport/legacy-fallback.js";
import type { AuthRequest, HttpAuth } from "../../src/transport/http-auth.js";
import { OAuthClient } from "../../src/auth/client.js";
import { MAX_AUTH_RETRIES } from "../../src/limits.js";
import { startOidc } from "../auth/oidc.js";
import { withFixture } from "./http-fixtures.js";

const T = { timeout: 30_000 };
const REDIRECT = "http://127.0.0.1:8976/callback";
type Coded = Error & { code?: string; status?: number };

/** A bearer-token auth layer: `token` until a challenge, then `next` (when given). */
function bearer(token: string, next?: string): HttpAuth & { challenges: Array<{ status: number; method: string; url: string; target?: string }>; current: string } {
  const auth = {
    current: token,
    challenges: [] as Array<{ status: number; method: string; url: string; target?: string }>,
    async headers(): Promise<Record<string, string>> {
      return { authorization: `Bearer ${auth.current}` };
    },
    async challenge(res: Response, request: AuthRequest): Promise<boolean> {
      auth.challenges.push({ status: res.status, method: request.method, url: request.url, target: request.target });
      if (next === undefined) return false;
      auth.current = next;
      return true;
    },
  };
  return auth;
}

const authorizations = (requests: Array<{ headers: Record<string, unknown> }>): unknown[] => requests.map((r) => r.headers.authorization);

test("A5, H14: an HttpTransport's auth rides on the HTTP+SSE fallback: the Streamable probe, the GET and every POST carry it", T, () =>
  withFixture("legacy-sse", { token: "t1" }, async (server) => {
    const auth = bearer("t1");
    const client = await McpClient.connect(new HttpTransport(server.url, { fallback: legacySse, auth }));
    try {
      assert.equal(client.era, "legacy");
      assert.deepEqual((await client.callTool("echo", { text: "with a token" })).content, [{ type: "text", text: "with a token" }]);
    } finally {
      await client.close();
    }
    const seen = server.requests as Array<{ method: string; url?: string; headers: Record<string, unknown> }>;
    assert.ok(seen.some((r) => r.method === "GET" && r.url === "/sse"), "the stream was opened");
    assert.ok(seen.filter((r) => r.url?.startsWith("/message")).length >= 3, "initialize, initialized and the call were POSTed");
    assert.deepEqual([...new Set(authorizations(seen))], ["Bearer t1"], "every request carried the token");
    assert.equal(auth.challenges.length, 0);
  }),
);

test("A5, H14: a 401 on a message POST goes to the auth layer with the endpoint as its target; the POST is sent again with the new token", T, () =>
  withFixture("legacy-sse", { token: "t1", rotateAfter: 2 }, async (server) => {
    const auth = bearer("t1", "t1-2");
    const transport = new LegacySseTransport(server.url, { auth });
    const client = await McpClient.connect(transport, { era: "legacy" });
    try {
      assert.deepEqual((await client.callTool("echo", { text: "after a refresh" })).content, [{ type: "text", text: "after a refresh" }]);
    } finally {
      await client.close();
    }
    assert.equal(auth.challenges.length, 1, "one challenge: the call's first POST");
    const [c] = auth.challenges;
    assert.equal(c?.status, 401);
    assert.equal(c?.method, "POST");
    assert.equal(c?.url, server.url, "tokens are those of the stream's URL");
    assert.match(c?.target ?? "", /\/message\?sessionId=s1$/, "the request went to the announced endpoint");
    const sessions = (server as unknown as { sessions: Record<string, string[]> }).sessions;
    assert.deepEqual(sessions.s1?.filter((m) => m.startsWith("tools/call")), ["tools/call echo"], "the server ran the call once");
  }),
);

test("A5, H14: a challenge that declines leaves the 401 to fail the request: a refused GET fails the connect with its status", T, () =>
  withFixture("legacy-sse", { token: "right" }, async (server) => {
    const auth = bearer("wrong");
    await assert.rejects(McpClient.connect(new LegacySseTransport(server.url, { auth }), { era: "legacy" }), (e: Coded) => e.code === "http" && e.status === 401);
    assert.deepEqual(auth.challenges.map((c) => [c.method, c.status, c.target]), [["GET", 401, undefined]]);
  }),
);

test("A5, H14: an auth layer that always asks again gets the GET sent at most MAX_AUTH_RETRIES more times", T, () =>
  withFixture("legacy-sse", { token: "right" }, async (server) => {
    const auth: HttpAuth = { headers: async () => ({ authorization: "Bearer wrong" }), challenge: async () => true };
    await assert.rejects(McpClient.connect(new LegacySseTransport(server.url, { auth }), { era: "legacy" }), (e: Coded) => e.code === "http" && e.status === 401);
    assert.equal(server.requests.filter((r) => r.method === "GET").length, MAX_AUTH_RETRIES + 1);
  }),
);

test("A2, H14: a login the auth layer runs for the GET holds the endpoint bound", T, () =>
  withFixture("legacy-sse", { token: "t1" }, async (server) => {
    let held = 0;
    const auth: HttpAuth = {
      async headers(request) {
        if (request.method === "GET" && held++ === 0) {
          const release = request.hold?.();
          await new Promise((r) => setTimeout(r, 2_500)); // the user at the login page
          release?.();
        }
        return { authorization: "Bearer t1" };
      },
      challenge: async () => false,
    };
    const client = await McpClient.connect(new LegacySseTransport(server.url, { auth, endpointTimeoutMs: 1_000 }), { era: "legacy", handshakeTimeoutMs: 2_000 });
    try {
      assert.equal(held, 1);
      assert.ok((await client.listTools()).some((t) => t.name === "echo"));
    } finally {
      await client.close();
    }
  }),
);

test("Y5, H14: the fallback keeps the HttpTransport's configured name, never the URL's path", T, () =>
  withFixture("legacy-sse", {}, async (server) => {
    const client = await McpClient.connect(new HttpTransport(server.url, { fallback: legacySse, name: "tracker" }));
    try {
      assert.equal(client.name, "HTTP+SSE server 'tracker'");
    } finally {
      await client.close();
    }
  }),
);

test("A2, A5, A6, H14: OAuth against a real OpenID provider reaches an HTTP+SSE server through the fallback; DPoP proofs name each request's own URL", T, async () => {
  const world = await startOidc([], { legacy: true });
  try {
    let logins = 0;
    const auth = new OAuthClient({
      redirectUri: REDIRECT,
      dpop: true,
      authorize: async ({ url }) => {
        logins++;
        return world.browser(url, REDIRECT);
      },
    });
    const client = await McpClient.connect(new HttpTransport(world.mcpUrl, { auth, fallback: legacySse }), { clientInfo: { name: "legacy-oauth", version: "1" } });
    try {
      assert.equal(client.era, "legacy");
      assert.deepEqual((await client.callTool("read", {})).content, [{ type: "text", text: "did read" }]);
    } finally {
      await client.close();
    }
    assert.equal(logins, 1, "one login for the probe, the GET and the POSTs");
    const dpop = world.seen.filter((a) => a.startsWith("DPoP "));
    assert.ok(dpop.length >= 4, `the GET and the message POSTs carried the DPoP-bound token (${dpop.length})`);
    assert.ok(world.dpopKeys.length >= 4 && new Set(world.dpopKeys).size === 1, "every proof was checked against its own method and URL, by one key");
  } finally {
    await world.close();
  }
});
