// A4: credentials never cross servers. Servers of revision 2025-03-26 without any
// metadata use default endpoints at their own origin; the client they register, and
// the tokens they issue, belong to that origin. Two such servers share one OAuthClient
// and one token store here: B never sees A's client_id or secrets.
import { test } from "node:test";
import assert from "node:assert/strict";
import { HttpTransport } from "../../src/transport/http.js";
import { McpClient } from "../../src/mcp/client.js";
import { OAuthClient } from "../../src/auth/client.js";
import { MemoryTokenStore } from "../../src/auth/store.js";
import { startFake, type Bends, type FakeWorld } from "./fake-as.js";

const T = { timeout: 20_000 };
const REDIRECT = "http://127.0.0.1:8977/callback";

/** A server with no resource or authorization server metadata, whose registration hands out `name`'s client. */
function legacy(name: string): Bends {
  return {
    prm: () => ({ status: 404, body: "{}" }),
    metadata: () => ({ status: 404, body: "{}" }),
    challenge: () => "Bearer",
    // Servers of that revision send no iss on the callback.
    callback: (q) => q.delete("iss"),
    register: () => ({ client_id: `${name}-client`, client_secret: `${name}:SECRET`, token_endpoint_auth_method: "client_secret_basic" }),
  };
}

const basic = (id: string, secret: string): string => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;

async function call(world: FakeWorld, auth: OAuthClient): Promise<void> {
  const client = await McpClient.connect(new HttpTransport(world.mcpUrl, { auth }), { clientInfo: { name: "default-endpoints", version: "1" } });
  await client.listTools();
  await client.close();
}

test("A4: two servers without metadata sharing one OAuthClient and one token store: each registers its own client; B never sees A's client_id or secret", T, async () => {
  const a = await startFake(legacy("A"));
  const b = await startFake(legacy("B"));
  try {
    const store = new MemoryTokenStore();
    const worlds = new Map([
      [new URL(a.origin).host, a],
      [new URL(b.origin).host, b],
    ]);
    const auth = new OAuthClient({ redirectUri: REDIRECT, store, authorize: ({ url }) => (worlds.get(new URL(url).host) as FakeWorld).browser(url) });
    await call(a, auth);
    await call(b, auth);
    // Each server registered once, at its own default endpoint.
    assert.deepEqual(a.paths.filter((p) => p === "/register"), ["/register"]);
    assert.deepEqual(b.paths.filter((p) => p === "/register"), ["/register"]);
    // B's authorization and token requests carry B's client only.
    assert.equal(b.authorizeQueries[0]?.get("client_id"), "B-client");
    assert.deepEqual(b.tokenAuth, [basic("B-client", "B:SECRET")]);
    assert.ok(!b.authorizeQueries.some((q) => q.get("client_id") === "A-client"));
    assert.ok(!b.tokenAuth.some((h) => h === basic("A-client", "A:SECRET")));
    // Clients and tokens are recorded under each server's origin, not under one shared "no issuer".
    assert.equal((await auth.tokens(a.mcpUrl))?.issuer, a.origin);
    assert.equal((await auth.tokens(b.mcpUrl))?.issuer, b.origin);
    assert.ok(await store.get(`client ${a.origin}`));
    assert.ok(await store.get(`client ${b.origin}`));
    assert.equal(await store.get("client "), undefined);
    // Both stay usable side by side.
    await call(a, auth);
    await call(b, auth);
    assert.equal(a.tokenAuth.length + b.tokenAuth.length, 2, "a server asked for a new login");
  } finally {
    await a.close();
    await b.close();
  }
});
