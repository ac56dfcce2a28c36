// A5 (DPoP, RFC 9449): with persistDpopKey the DPoP key lives in the token store, so a
// restarted client (a new OAuthClient over the same FileTokenStore) proves possession
// of the same key: the MCP server accepts its DPoP-bound access token, and
// oidc-provider accepts its DPoP-bound refresh token, with no new login. Without the
// option the restarted client has a new key: the provider refuses the refresh (jkt)
// and a new login is needed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HttpTransport } from "../../src/transport/http.js";
import { McpClient } from "../../src/mcp/client.js";
import { OAuthClient, type OAuthClientOptions } from "../../src/auth/client.js";
import { FileTokenStore } from "../../src/node/token-store.js";
import type { TokenStore } from "../../src/auth/store.js";
import { startOidc, type OidcWorld } from "./oidc.js";

const T = { timeout: 30_000 };
const REDIRECT = "http://127.0.0.1:8976/callback";

async function call(world: OidcWorld, auth: OAuthClient): Promise<void> {
  const client = await McpClient.connect(new HttpTransport(world.mcpUrl, { auth }), { clientInfo: { name: "dpop-test", version: "1" } });
  try {
    assert.equal((await client.callTool("read", {})).isError, false);
  } finally {
    await client.close();
  }
}

/** The stored tokens are about to expire (the host's clock moved on): the next request refreshes. */
async function ageTokens(store: TokenStore, world: OidcWorld): Promise<void> {
  const key = `tokens ${world.mcpUrl}`;
  const cur = await store.get(key);
  assert.ok(cur, "no tokens stored");
  assert.ok(await store.set(key, JSON.stringify({ ...(JSON.parse(cur.value) as object), expiresAt: Date.now() + 1_000 }), cur.version));
}

test("A5: with persistDpopKey a restarted client binds to the same DPoP key: its bound token and refresh token keep working; without it a new login is needed", T, async () => {
  const world = await startOidc();
  const dir = mkdtempSync(join(tmpdir(), "yada-dpop-"));
  try {
    let logins = 0;
    const options = (file: string, persist: boolean): OAuthClientOptions => ({
      redirectUri: REDIRECT,
      dpop: true,
      persistDpopKey: persist,
      store: new FileTokenStore(join(dir, file)),
      authorize: async ({ url }) => {
        logins++;
        return world.browser(url, REDIRECT);
      },
    });

    // First run: log in; the token is DPoP-bound to the stored key.
    const first = new OAuthClient(options("tokens.json", true));
    await call(world, first);
    assert.equal(logins, 1);
    assert.equal((await first.tokens(world.mcpUrl))?.tokenType, "dpop");
    const jkt = world.dpopKeys.at(-1);
    assert.ok(jkt, "the MCP server accepted no DPoP proof");
    assert.equal((statSync(join(dir, "tokens.json")).mode & 0o777).toString(8), "600");

    // Restart: a new client over the same file. Same key, no login; then a refresh.
    const store = new FileTokenStore(join(dir, "tokens.json"));
    const second = new OAuthClient({ ...options("tokens.json", true), store });
    await call(world, second);
    assert.equal(world.dpopKeys.at(-1), jkt, "the restarted client proved another key");
    const grants = world.grants.length;
    await ageTokens(store, world);
    await call(world, second);
    assert.deepEqual(world.grants.slice(grants), ["refresh_token"], "the provider did not refresh the bound token");
    assert.equal(world.dpopKeys.at(-1), jkt);
    assert.equal(logins, 1, "the restarted client needed a new login");

    // The control: the same restart without persistDpopKey proves a new key, so the
    // provider refuses the bound refresh token and the user logs in again.
    const copy = new FileTokenStore(join(dir, "tokens.json"));
    const third = new OAuthClient({ ...options("tokens.json", false), store: copy });
    await ageTokens(copy, world);
    await call(world, third);
    assert.equal(logins, 2);
    assert.notEqual(world.dpopKeys.at(-1), jkt);
  } finally {
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("A5: a stored DPoP key that is not a P-256 private JWK is replaced, never used", T, async () => {
  const world = await startOidc();
  const dir = mkdtempSync(join(tmpdir(), "yada-dpop-"));
  try {
    const store = new FileTokenStore(join(dir, "tokens.json"));
    const hostile = JSON.stringify({ kty: "EC", crv: "P-256", x: "A".repeat(43), y: "B".repeat(43), d: "C".repeat(43) });
    assert.ok(await store.set("dpop", hostile, undefined));
    const auth = new OAuthClient({ redirectUri: REDIRECT, dpop: true, persistDpopKey: true, store, authorize: async ({ url }) => world.browser(url, REDIRECT) });
    await call(world, auth);
    const now = await store.get("dpop");
    assert.ok(now && now.value !== hostile, "the unusable key was kept");
    assert.ok(world.dpopKeys.length > 0);
  } finally {
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
