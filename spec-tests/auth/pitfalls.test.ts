// A3, A4: one test per pitfall of the spec's security considerations and of the
// list in FEATURES.md A3, each against a loopback server that breaks one rule,
// each refused with a typed `oauth` error before anything is sent on.
import { test } from "node:test";
import assert from "node:assert/strict";
import { HttpTransport } from "../../src/transport/http.js";
import { McpClient } from "../../src/mcp/client.js";
import { OAuthClient, type OAuthClientOptions } from "../../src/auth/client.js";
import { MemoryTokenStore } from "../../src/auth/store.js";
import { OAuthError, type OAuthErrorKind } from "../../src/errors.js";
import { startFake, type Bends, type FakeWorld } from "./fake-as.js";

const T = { timeout: 20_000 };
const REDIRECT = "http://127.0.0.1:8977/callback";

function authFor(world: FakeWorld, extra: Partial<OAuthClientOptions> = {}): OAuthClient {
  return new OAuthClient({ redirectUri: REDIRECT, authorize: ({ url }) => world.browser(url), ...extra });
}

async function connect(world: FakeWorld, auth: OAuthClient): Promise<McpClient> {
  return McpClient.connect(new HttpTransport(world.mcpUrl, { auth }), { clientInfo: { name: "pitfalls", version: "1" } });
}

/** Connecting fails with an OAuthError of `kind`, and no token request carried the code past the check. */
async function refused(bends: Bends, kind: OAuthErrorKind, extra: Partial<OAuthClientOptions> = {}): Promise<FakeWorld> {
  const world = await startFake(bends);
  try {
    const e = await connect(world, authFor(world, extra)).then(
      () => assert.fail("connected"),
      (err: unknown) => err,
    );
    assert.ok(e instanceof OAuthError, String(e));
    assert.equal(e.code, "oauth");
    assert.equal(e.kind, kind, e.message);
    assert.ok(!/the-code|at-\d|rt-\d/.test(e.message), "no code or token in the message");
    return world;
  } finally {
    await world.close();
  }
}

test("A3: the well-behaved fake server is reached with a token (the baseline the pitfalls break)", T, async () => {
  const world = await startFake();
  try {
    const client = await connect(world, authFor(world));
    await client.listTools();
    await client.close();
    assert.ok(world.seen.at(-1)?.startsWith("Bearer at-"));
    const body = world.tokenBodies[0];
    assert.equal(body?.get("resource"), world.mcpUrl, "resource on the token request");
    assert.ok(body?.get("code_verifier"));
  } finally {
    await world.close();
  }
});

test("A3: mix-up: a callback whose iss names another issuer is refused before the code is exchanged", T, async () => {
  const w = await refused({ callback: (q) => q.set("iss", "https://evil.example") }, "iss_mismatch");
  assert.equal(w.tokenBodies.length, 0);
});

test("A3: a callback without iss is refused when the server advertises iss support", T, async () => {
  const w = await refused({ callback: (q) => q.delete("iss") }, "iss_mismatch");
  assert.equal(w.tokenBodies.length, 0);
});

test("A3: a callback without state is refused", T, async () => {
  const w = await refused({ callback: (q) => q.delete("state") }, "state_mismatch");
  assert.equal(w.tokenBodies.length, 0);
});

test("A3: a callback with another state is refused, even when it also carries an error", T, async () => {
  await refused({ callback: (q) => (q.set("state", "forged"), q.set("error", "access_denied")) }, "state_mismatch");
});

test("A3: state replay: the same callback a second time is refused", T, async () => {
  const world = await startFake();
  try {
    const auth = new OAuthClient({ redirectUri: REDIRECT, store: new MemoryTokenStore() });
    const e = await connect(world, auth).then(
      () => assert.fail("connected"),
      (err: unknown) => err,
    );
    assert.ok(e instanceof OAuthError && e.kind === "interaction_required");
    const callback = await world.browser(e.authorizationUrl ?? "");
    await auth.finishAuthorization(callback);
    const again = await auth.finishAuthorization(callback).then(
      () => assert.fail("replayed"),
      (err: unknown) => err,
    );
    assert.ok(again instanceof OAuthError && again.kind === "state_mismatch", String(again));
    assert.equal(world.tokenBodies.length, 1);
  } finally {
    await world.close();
  }
});

test("A3: an authorization server that does not advertise PKCE S256 is refused; a named opt-out for its issuer proceeds", T, async () => {
  const noPkce: Bends = { metadata: (m) => ({ ...m, code_challenge_methods_supported: undefined }) };
  const w = await refused(noPkce, "pkce_unsupported");
  assert.ok(!w.paths.includes("/authorize"));
  const world = await startFake(noPkce);
  try {
    const client = await connect(world, authFor(world, { pkceWithoutMetadata: [world.origin] }));
    await client.close();
    assert.ok(world.tokenBodies[0]?.get("code_verifier"), "PKCE is still used");
  } finally {
    await world.close();
  }
});

test("A3: metadata whose issuer differs from the one it was fetched for is not used", T, async () => {
  const w = await refused({ metadata: (m) => ({ ...m, issuer: "https://evil.example" }) }, "issuer_mismatch");
  assert.ok(!w.paths.includes("/authorize"));
});

test("A3: protected resource metadata for another resource is not used", T, async () => {
  await refused({ prm: (p) => ({ ...p, resource: "https://other.example/mcp" }) }, "resource_mismatch");
});

test("A3: a token endpoint on plain http (not loopback) is refused", T, async () => {
  await refused({ metadata: (m) => ({ ...m, token_endpoint: "http://as.example/token" }) }, "insecure_url");
});

test("A3: an authorization server on plain http (not loopback) is refused", T, async () => {
  await refused({ prm: (p) => ({ ...p, authorization_servers: ["http://as.example"] }) }, "insecure_url");
});

test("A3: a redirect answering an OAuth request is refused, never followed", T, async () => {
  const w = await refused({ metadata: () => ({ status: 302, headers: { location: "https://evil.example/meta" } }) }, "redirect");
  assert.ok(!w.paths.includes("/authorize"));
});

test("A4: a token from another issuer is never sent to the server; a new login at its own issuer is", T, async () => {
  const world = await startFake();
  try {
    const store = new MemoryTokenStore();
    const foreign = { issuer: "https://other-as.example", resource: world.mcpUrl, clientId: "x", accessToken: "foreign-token", tokenType: "bearer", tokenEndpoint: "https://other-as.example/token" };
    await store.set(`tokens ${world.mcpUrl}`, JSON.stringify(foreign), undefined);
    const client = await connect(world, authFor(world, { store }));
    await client.listTools();
    await client.close();
    assert.ok(world.seen.length > 0);
    assert.ok(!world.seen.some((h) => h.includes("foreign-token")), world.seen.join(","));
    assert.ok(world.seen.at(-1)?.startsWith("Bearer at-"));
  } finally {
    await world.close();
  }
});

test("A4: a client registered at one issuer is not used at another; the new issuer gets its own registration", T, async () => {
  const world = await startFake();
  try {
    const store = new MemoryTokenStore();
    await store.set("client https://other-as.example", JSON.stringify({ issuer: "https://other-as.example", clientId: "other", authMethod: "none", redirectUri: REDIRECT }), undefined);
    const client = await connect(world, authFor(world, { store }));
    await client.close();
    assert.ok(world.paths.includes("/register"));
    assert.equal(world.tokenBodies[0]?.get("client_id"), "fake-client");
  } finally {
    await world.close();
  }
});
