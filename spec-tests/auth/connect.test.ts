// A5: connectMcp configurations take an `auth` object from host code; JSON from the
// environment cannot carry one. Tokens never reach the model's view.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connectMcp } from "../../src/tools/connect.js";
import { mcpServersFromEnv, MCP_SERVERS_ENV } from "../../src/tools/env.js";
import { OAuthClient } from "../../src/auth/client.js";
import { ConfigError } from "../../src/errors.js";
import { startFake } from "./fake-as.js";

test("A5: connectMcp with an OAuthClient as auth logs in and lists the server's tools", { timeout: 20_000 }, async () => {
  const world = await startFake();
  try {
    const auth = new OAuthClient({ redirectUri: "http://127.0.0.1:8979/cb", authorize: ({ url }) => world.browser(url) });
    const c = await connectMcp({ name: "fake", url: world.mcpUrl, auth }, { identity: { actorId: "alice", tenantId: "t1" }, authorize: async () => true });
    assert.deepEqual(c.tools, []);
    await c.close();
    assert.ok(world.seen.at(-1)?.startsWith("Bearer at-"));
  } finally {
    await world.close();
  }
});

test("A5: an auth field in YADA_MCP_SERVERS JSON, or one without headers() and challenge(), is a config error", () => {
  const env = { [MCP_SERVERS_ENV]: JSON.stringify([{ name: "x", url: "https://x.example/mcp", auth: { headers: "Bearer t", challenge: true } }]) };
  assert.throws(() => mcpServersFromEnv(env), (e: unknown) => e instanceof ConfigError && /auth must be/.test(e.message) && !e.message.includes("Bearer t"));
});
