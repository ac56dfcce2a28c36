// A2: the authorization request names the MCP server it is for (RFC 8707 `resource`,
// MCP authorization "Resource Parameter Implementation"): the URL the user's browser
// opens carries the server's canonical URI, the same one the token request carries.
// Against the loopback fake authorization server, whose /authorize the browser step
// really follows.
import { test } from "node:test";
import assert from "node:assert/strict";
import { HttpTransport } from "../../src/transport/http.js";
import { McpClient } from "../../src/mcp/client.js";
import { OAuthClient } from "../../src/auth/client.js";
import { startFake } from "./fake-as.js";

test("A2: the authorization request URL carries resource, the MCP server's canonical URI, as the token request does", { timeout: 20_000 }, async () => {
  const world = await startFake();
  try {
    const opened: string[] = [];
    const auth = new OAuthClient({
      redirectUri: "http://127.0.0.1:8978/callback",
      authorize: ({ url }) => {
        opened.push(url);
        return world.browser(url);
      },
    });
    const client = await McpClient.connect(new HttpTransport(world.mcpUrl, { auth }), { clientInfo: { name: "resource", version: "1" } });
    await client.close();
    assert.equal(opened.length, 1, "one login");
    const url = new URL(opened[0] ?? "");
    assert.equal(url.origin + url.pathname, `${world.origin}/authorize`);
    assert.deepEqual(url.searchParams.getAll("resource"), [world.mcpUrl], "exactly one resource, the server's");
    assert.equal(world.tokenBodies[0]?.get("resource"), world.mcpUrl, "the same on the token request");
  } finally {
    await world.close();
  }
});
