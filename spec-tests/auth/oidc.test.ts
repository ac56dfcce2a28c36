// A2, A4, A5, A6: the OAuth client against a real OpenID provider on loopback
// (oidc-provider), with an MCP server that checks each token with that provider.
import { test } from "node:test";
import assert from "node:assert/strict";
import { HttpTransport } from "../../src/transport/http.js";
import { McpClient } from "../../src/mcp/client.js";
import { OAuthClient, type OAuthClientOptions } from "../../src/auth/client.js";
import { MemoryTokenStore } from "../../src/auth/store.js";
import { OAuthError } from "../../src/errors.js";
import { startOidc, type OidcWorld } from "./oidc.js";

const T = { timeout: 30_000 };
const REDIRECT = "http://127.0.0.1:8976/callback";

/** An OAuthClient whose interactive step is the automated browser; `logins` counts the steps. */
function userAuth(world: OidcWorld, extra: Partial<OAuthClientOptions> = {}): { auth: OAuthClient; logins: () => number } {
  let logins = 0;
  const auth = new OAuthClient({
    redirectUri: REDIRECT,
    authorize: async ({ url }) => {
      logins++;
      return world.browser(url, REDIRECT);
    },
    ...extra,
  });
  return { auth, logins: () => logins };
}

async function connect(world: OidcWorld, auth: OAuthClient): Promise<McpClient> {
  return McpClient.connect(new HttpTransport(world.mcpUrl, { auth }), { clientInfo: { name: "oidc-test", version: "1" } });
}

test("A2, A4, A6: authorization code + PKCE with dynamic registration (application_type native) against oidc-provider; the token reaches the server", T, async () => {
  const world = await startOidc();
  try {
    const store = new MemoryTokenStore();
    const logged: string[] = [];
    const { auth, logins } = userAuth(world, { store, logger: (level, message, data) => logged.push(`${level} ${message} ${JSON.stringify(data ?? {})}`) });
    const client = await McpClient.connect(new HttpTransport(world.mcpUrl, { auth, logger: (l, m, d) => logged.push(`${l} ${m} ${JSON.stringify(d ?? {})}`) }), {
      clientInfo: { name: "oidc-test", version: "1" },
    });
    const tools = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["read", "write"]);
    const r = await client.callTool("read", {});
    assert.equal(r.isError, false);
    await client.close();
    assert.equal(logins(), 1);
    assert.ok(world.seen.at(-1)?.startsWith("Bearer "));
    const client2 = await store.get(`client ${world.issuer}`);
    assert.ok(client2, "the registered client is stored under its issuer");
    const tokens = await auth.tokens(world.mcpUrl);
    assert.equal(tokens?.issuer, world.issuer);
    assert.equal(tokens?.resource, world.mcpUrl);
    assert.ok(tokens?.refreshToken, "a refresh token was issued");
    // A5: tokens never reach the logs.
    assert.ok(logged.length > 0);
    for (const line of logged) {
      assert.ok(!line.includes(tokens.accessToken) && !line.includes(tokens.refreshToken), line);
    }
  } finally {
    await world.close();
  }
});

test("A5, A6: a token near its expiry is refreshed before the request; the provider rotates the refresh token", T, async () => {
  const world = await startOidc();
  try {
    world.settings.accessTtl = 30; // inside TOKEN_REFRESH_SKEW_MS: the next request refreshes first
    const { auth, logins } = userAuth(world);
    const client = await connect(world, auth);
    await client.listTools();
    const before = await auth.tokens(world.mcpUrl);
    world.settings.accessTtl = 600;
    await client.callTool("read", {});
    const after = await auth.tokens(world.mcpUrl);
    await client.close();
    assert.equal(logins(), 1);
    assert.ok(world.grants.includes("refresh_token"), world.grants.join(","));
    assert.notEqual(after?.accessToken, before?.accessToken);
    assert.ok(after?.refreshToken && before?.refreshToken && after.refreshToken !== before.refreshToken, "rotated");
    // Rotation: the old refresh token is spent at the provider.
    const old = await world.provider.RefreshToken.find(before.refreshToken);
    assert.ok(old === undefined || old.consumed, "the old refresh token is consumed");
  } finally {
    await world.close();
  }
});

test("A5, A6: a refresh token revoked mid-session leads to one new login, and the call succeeds", T, async () => {
  const world = await startOidc();
  try {
    const { auth, logins } = userAuth(world);
    const client = await connect(world, auth);
    await client.listTools();
    const t = await auth.tokens(world.mcpUrl);
    assert.ok(t?.refreshToken);
    await (await world.provider.AccessToken.find(t.accessToken))?.destroy();
    await (await world.provider.RefreshToken.find(t.refreshToken))?.destroy();
    const r = await client.callTool("read", {});
    assert.equal(r.isError, false);
    await client.close();
    assert.equal(logins(), 2);
  } finally {
    await world.close();
  }
});

test("A5: two concurrent 401s cause one refresh", T, async () => {
  const world = await startOidc();
  try {
    const { auth, logins } = userAuth(world);
    const client = await connect(world, auth);
    await client.listTools();
    const t = await auth.tokens(world.mcpUrl);
    assert.ok(t);
    await (await world.provider.AccessToken.find(t.accessToken))?.destroy(); // the server now answers 401
    const refreshesBefore = world.grants.filter((g) => g === "refresh_token").length;
    const [a, b] = await Promise.all([client.callTool("read", {}), client.callTool("read", {})]);
    await client.close();
    assert.equal(a.isError, false);
    assert.equal(b.isError, false);
    assert.equal(world.grants.filter((g) => g === "refresh_token").length - refreshesBefore, 1);
    assert.equal(logins(), 1);
  } finally {
    await world.close();
  }
});

test("A2: 403 insufficient_scope steps up with the union of scopes, then the call succeeds", T, async () => {
  const world = await startOidc();
  try {
    const scopes: string[] = [];
    const { auth, logins } = userAuth(world, {});
    const client = await McpClient.connect(
      new HttpTransport(world.mcpUrl, {
        auth,
        fetch: (input, init) => fetch(input, init),
      }),
      { clientInfo: { name: "oidc-test", version: "1" } },
    );
    await client.listTools();
    scopes.push((await auth.tokens(world.mcpUrl))?.scope ?? "");
    const r = await client.callTool("write", {});
    scopes.push((await auth.tokens(world.mcpUrl))?.scope ?? "");
    await client.close();
    assert.equal(r.isError, false);
    assert.equal(logins(), 2);
    assert.ok(!scopes[0]?.split(" ").includes("mcp:write"));
    const granted = scopes[1]?.split(" ") ?? [];
    assert.ok(granted.includes("mcp:read") && granted.includes("mcp:write"), scopes[1]);
  } finally {
    await world.close();
  }
});

test("A2: a server that keeps asking for more scope ends in step_up_limit", T, async () => {
  const world = await startOidc();
  try {
    world.settings.writeScope = "mcp:admin"; // never grantable
    const { auth } = userAuth(world);
    const client = await connect(world, auth);
    await client.listTools();
    const e = await client.callTool("write", {}).then(
      () => assert.fail("no error"),
      (err: unknown) => err,
    );
    await client.close();
    assert.ok(e instanceof OAuthError, String(e));
    assert.equal(e.kind, "step_up_limit");
  } finally {
    await world.close();
  }
});

test("A5, A6: client_credentials with client_secret_basic for a machine client", T, async () => {
  const world = await startOidc([
    { client_id: "machine", client_secret: "machine-secret", grant_types: ["client_credentials"], redirect_uris: [], response_types: [], token_endpoint_auth_method: "client_secret_basic" },
  ]);
  try {
    const auth = new OAuthClient({ grant: "client_credentials", clients: [{ issuer: world.issuer, clientId: "machine", clientSecret: "machine-secret" }] });
    const client = await connect(world, auth);
    const r = await client.callTool("read", {});
    await client.close();
    assert.equal(r.isError, false);
    assert.deepEqual(world.grants, ["client_credentials"]);
  } finally {
    await world.close();
  }
});

test("A5: without an interactive step a needed login is an interaction_required error carrying the URL; finishAuthorization completes it", T, async () => {
  const world = await startOidc();
  try {
    const auth = new OAuthClient({ redirectUri: REDIRECT });
    const e = await connect(world, auth).then(
      () => assert.fail("connected"),
      (err: unknown) => err,
    );
    assert.ok(e instanceof OAuthError && e.kind === "interaction_required", String(e));
    assert.ok(e.authorizationUrl?.startsWith(`${world.issuer}/`));
    assert.ok(!e.message.includes("state="), "the message carries no URL parameters");
    await auth.finishAuthorization(await world.browser(e.authorizationUrl ?? "", REDIRECT));
    const client = await connect(world, auth);
    assert.equal((await client.callTool("read", {})).isError, false);
    await client.close();
  } finally {
    await world.close();
  }
});
