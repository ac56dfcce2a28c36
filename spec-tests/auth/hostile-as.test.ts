// A2, A3, A8 under a hostile authorization server, MCP server or token store, as
// found by reviewing src/auth/ from their side: each test names the contract, and
// each was seen failing before its fix.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { OAuthClient } from "../../src/auth/client.js";
import { addressKind } from "../../src/auth/reach.js";
import { oauthRequest, type OAuthFetch } from "../../src/auth/request.js";
import { MemoryTokenStore } from "../../src/auth/store.js";
import { workloadIdentity } from "../../src/auth/workload.js";
import { OAuthError } from "../../src/errors.js";
import { McpClient } from "../../src/mcp/client.js";
import { HttpTransport } from "../../src/transport/http.js";
import { JWT_BEARER, startEnterprise } from "./enterprise-world.js";
import { startFake } from "./fake-as.js";

const T = { timeout: 30_000 };
const REDIRECT = "http://127.0.0.1:8977/callback";
const PUBLIC = "https://mcp.example";

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const a = server.address();
  return `http://127.0.0.1:${typeof a === "object" && a !== null ? a.port : 0}`;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
}

/** A host's fetch (one that pins DNS, say) that does not pass the signal on: the bound must hold anyway. */
const deaf: OAuthFetch = (input, init) => globalThis.fetch(input, { ...init, signal: null });

test("A2: the request bound holds when the host's fetch ignores the abort signal: an answer that never starts, or stalls midway, fails as timeout", T, async () => {
  const server = createServer((req, res) => {
    if (req.url === "/stall") {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"issuer":');
    }
    // "/silent": never answers at all.
  });
  const base = await listen(server);
  try {
    for (const path of ["/silent", "/stall"]) {
      const t0 = Date.now();
      const e = await oauthRequest(deaf, `${base}${path}`, "the probe", { timeoutMs: 300 }).then(
        () => undefined,
        (err: unknown) => err,
      );
      assert.ok(e instanceof OAuthError && e.kind === "timeout", `${path}: ${String(e)}`);
      assert.ok(Date.now() - t0 < 5_000, `${path}: took ${Date.now() - t0} ms`);
    }
    // The caller's cancellation is honoured the same way.
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const e = await oauthRequest(deaf, `${base}/silent`, "the probe", { timeoutMs: 20_000, signal: controller.signal }).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(e instanceof OAuthError && e.kind === "timeout" && /cancelled/.test(e.message), String(e));
  } finally {
    await close(server);
  }
});

test("A8: the loopback names hosts files ship (ip6-localhost, localhost6, localhost.localdomain, ...) are loopback, also with trailing dots; metadata naming one is refused for a remote server", T, async () => {
  const kind = (url: string): string => addressKind(new URL(url).hostname);
  for (const name of ["localhost.localdomain", "localhost4", "localhost4.localdomain4", "localhost6", "localhost6.localdomain6", "ip6-localhost", "ip6-loopback", "IP6-LOCALHOST."]) {
    assert.equal(kind(`https://${name}:10250/pods`), "loopback", name);
  }
  assert.equal(kind("https://localhost../"), "loopback");
  assert.equal(kind("https://localdomain.example/"), "name");
  // End to end: a server on a public name whose registration endpoint is such a name gets no registration there.
  const world = await startFake({ metadata: (m) => ({ ...m, registration_endpoint: "https://ip6-localhost:10250/run" }) }, PUBLIC);
  try {
    const auth = new OAuthClient({ redirectUri: REDIRECT, fetch: world.fetch, authorize: async ({ url }) => world.browser(url) });
    const error = await McpClient.connect(new HttpTransport(world.mcpUrl, { auth, fetch: world.fetch }), { clientInfo: { name: "hostile", version: "1" } }).then(
      (c) => c.close(),
      (e: unknown) => e,
    );
    assert.ok(error instanceof OAuthError && error.kind === "private_address" && error.field === "registration_endpoint", String(error));
  } finally {
    await world.close();
  }
});

test("A8: a stored flow's token endpoint on the client's network gets no code, verifier or secret when its callback arrives (the store is outside input too)", T, async () => {
  const hits: string[] = [];
  const internal = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { "content-type": "application/json" }).end('{"access_token":"x","token_type":"Bearer"}');
  });
  const origin = await listen(internal);
  try {
    const store = new MemoryTokenStore();
    const flow = {
      state: "s".repeat(43),
      verifier: "v".repeat(43),
      issuer: PUBLIC,
      issRequired: false,
      key: `${PUBLIC}/mcp`,
      resource: `${PUBLIC}/mcp`,
      redirectUri: REDIRECT,
      clientId: "c",
      tokenEndpoint: `${origin}/token`,
      createdAt: Date.now(),
    };
    await store.set(`flow ${flow.state}`, JSON.stringify(flow), undefined);
    const auth = new OAuthClient({ store, redirectUri: REDIRECT, clients: [{ issuer: PUBLIC, clientId: "c", clientSecret: "SECRET" }] });
    const error = await auth.finishAuthorization(`${REDIRECT}?state=${flow.state}&code=abc`).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(error instanceof OAuthError && error.kind === "private_address" && error.field === "token_endpoint", String(error));
    assert.deepEqual(hits, []);
    // A stored token endpoint that is not a URL is a typed refusal too, not a crash.
    await store.set(`tokens ${PUBLIC}/mcp`, JSON.stringify({ issuer: PUBLIC, resource: `${PUBLIC}/mcp`, clientId: "c", accessToken: "a", tokenType: "bearer", refreshToken: "r", expiresAt: 0, tokenEndpoint: "not a url" }), undefined);
    const confirmed = new OAuthClient({ store, fetch: async () => new Response("{}", { status: 404 }) });
    const e2 = await confirmed.headers({ url: `${PUBLIC}/mcp`, method: "POST", signal: new AbortController().signal } as never).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(e2 instanceof OAuthError, String(e2));
  } finally {
    await close(internal);
  }
});

test("A4: tokens from a login whose resource metadata only the challenge named are sent by a later session (a new process) without a new login", T, async () => {
  const AS = "https://as.example";
  const world = await startFake(
    {
      challenge: () => `Bearer resource_metadata="${PUBLIC}/prm"`,
      prm: (p) => ({ ...p, authorization_servers: [AS] }),
      metadata: (m) => ({ ...m, issuer: AS }),
      callback: (q) => q.set("iss", AS),
    },
    PUBLIC,
  );
  // The host's name resolution: the authorization server's name and the server's document URL reach the fake;
  // the MCP server publishes nothing at any well-known URL (the challenge is its only discovery).
  const hostFetch: OAuthFetch = (input, init) => {
    const u = new URL(input);
    if (u.origin === AS) return world.fetch(`${PUBLIC}${u.pathname}${u.search}`, init);
    if (u.pathname.startsWith("/.well-known/")) return Promise.resolve(new Response("{}", { status: 404, headers: { "content-type": "application/json" } }));
    if (u.pathname === "/prm") return world.fetch(`${PUBLIC}/.well-known/oauth-protected-resource/mcp`, init);
    return world.fetch(input, init);
  };
  try {
    const store = new MemoryTokenStore();
    const connect = async (auth: OAuthClient): Promise<void> => (await McpClient.connect(new HttpTransport(world.mcpUrl, { auth, fetch: world.fetch }), { clientInfo: { name: "hostile", version: "1" } })).close();
    await connect(new OAuthClient({ store, redirectUri: REDIRECT, fetch: hostFetch, authorize: async ({ url }) => world.browser(url) }));
    assert.equal(world.tokenBodies.length, 1);
    // A later process: the same store, no interactive step (a CLI command after yada login).
    const later = new OAuthClient({ store, fetch: hostFetch });
    await connect(later);
    assert.equal(world.tokenBodies.length, 1, "the later session obtained new tokens instead of using the stored ones");
    assert.equal((await later.tokens(world.mcpUrl))?.issuer, AS);
  } finally {
    await world.close();
  }
});

test("A7: a hostile MCP server whose own authorization server's metadata names the real server's token endpoint does not get the workload JWT sent there for it", T, async () => {
  // The real authorization server: a workload JWT whose aud is its token endpoint is accepted there.
  const world = await startEnterprise();
  // The hostile one: its own issuer, but the real server's token endpoint (so a token minted there would come back to it).
  const evil = createServer((req, res) => {
    const origin = `http://127.0.0.1:${(evil.address() as { port: number }).port}`;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ issuer: origin, token_endpoint: `${world.asIssuer}/token`, grant_types_supported: [JWT_BEARER] }));
  });
  const evilOrigin = await listen(evil);
  world.bends.prm = (p) => ({ ...p, authorization_servers: [evilOrigin] });
  try {
    const auth = new OAuthClient({ grant: workloadIdentity(async () => world.workloadJwt({ aud: `${world.asIssuer}/token` })) });
    const error = await McpClient.connect(new HttpTransport(world.mcpUrl, { auth }), { clientInfo: { name: "hostile", version: "1" } }).then(
      (c) => c.close(),
      (e: unknown) => e,
    );
    assert.ok(error instanceof OAuthError && error.kind === "assertion_mismatch" && error.field === "aud", String(error));
    assert.equal(world.as.length, 0, "the workload JWT went to the token endpoint on another issuer's word");
    // The same JWT for the real server's own metadata (token endpoint on its issuer's origin) is used.
    world.bends.prm = undefined;
    const ok = new OAuthClient({ grant: workloadIdentity(async () => world.workloadJwt({ aud: `${world.asIssuer}/token` })) });
    await (await McpClient.connect(new HttpTransport(world.mcpUrl, { auth: ok }), { clientInfo: { name: "hostile", version: "1" } })).close();
    assert.equal(world.as.length, 1);
  } finally {
    await world.close();
    await close(evil);
  }
});
