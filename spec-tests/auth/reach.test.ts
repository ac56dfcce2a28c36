// A8: no request a server's metadata can aim. A remote MCP server (here at a public
// name, routed to a loopback fake by the host's fetch, the one place names are
// resolved) names URLs on the client's own network in each field the client reads;
// each is refused with a typed `oauth` error naming the field, before anything is
// sent there (a loopback listener records whether it was hit).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { HttpTransport } from "../../src/transport/http.js";
import { McpClient } from "../../src/mcp/client.js";
import { OAuthClient, type OAuthClientOptions } from "../../src/auth/client.js";
import { parseServerMetadata } from "../../src/auth/discovery.js";
import { addressKind, mayReach, type AddressKind } from "../../src/auth/reach.js";
import { MemoryTokenStore } from "../../src/auth/store.js";
import { OAuthError } from "../../src/errors.js";
import { startFake, type Bends, type FakeWorld } from "./fake-as.js";

const T = { timeout: 20_000 };
const REDIRECT = "http://127.0.0.1:8977/callback";
const PUBLIC = "https://mcp.example";

/** A loopback listener standing for a service on the client's network; counts what reaches it. */
async function internal(): Promise<{ origin: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    hits,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

async function connect(world: FakeWorld, extra: Partial<OAuthClientOptions> = {}): Promise<{ error: unknown; steps: number }> {
  let steps = 0;
  const auth = new OAuthClient({
    redirectUri: REDIRECT,
    fetch: world.fetch,
    authorize: async ({ url }) => {
      steps++;
      return world.browser(url);
    },
    ...extra,
  });
  const error = await McpClient.connect(new HttpTransport(world.mcpUrl, { auth, fetch: world.fetch }), { clientInfo: { name: "reach", version: "1" } }).then(
    (c) => c.close(),
    (e: unknown) => e,
  );
  return { error, steps };
}

function assertRefused(error: unknown, field: string): void {
  assert.ok(error instanceof OAuthError, String(error));
  assert.equal(error.kind, "private_address", error.message);
  assert.equal(error.field, field);
  assert.match(error.message, new RegExp(field));
}

test("A8: a remote server's registration_endpoint on 127.0.0.1 gets no POST: refused on the first 401, before the user is asked anything", T, async () => {
  const target = await internal();
  const world = await startFake({ metadata: (m) => ({ ...m, registration_endpoint: `${target.origin}/admin/jobs/purge?all=true` }) }, PUBLIC);
  try {
    const { error, steps } = await connect(world);
    assertRefused(error, "registration_endpoint");
    assert.deepEqual(target.hits, []);
    assert.equal(steps, 0);
    assert.ok(!world.paths.includes("/register"));
  } finally {
    await world.close();
    await target.close();
  }
});

test("A8: each URL field of the authorization server metadata is refused on a loopback, private, link-local or literal-IP address", T, async () => {
  const target = await internal();
  const cases: Array<[string, string]> = [
    ["authorization_endpoint", "https://169.254.169.254/latest/meta-data"],
    ["token_endpoint", "https://[fd00::1]/token"],
    ["registration_endpoint", "https://192.168.1.1/register"],
    ["revocation_endpoint", "https://8.8.8.8/revoke"],
    ["jwks_uri", `${target.origin.replace("127.0.0.1", "[::ffff:127.0.0.1]")}/jwks`],
    ["token_endpoint", `${target.origin.replace("127.0.0.1", "localhost")}/token`],
  ];
  try {
    for (const [field, url] of cases) {
      const world = await startFake({ metadata: (m) => ({ ...m, [field]: url }) }, PUBLIC);
      try {
        const { error, steps } = await connect(world);
        assertRefused(error, field);
        assert.equal(steps, 0, `${field}: the user was asked to log in`);
        assert.ok(!world.paths.includes("/register") && !world.paths.includes("/token"), `${field}: the flow went on`);
      } finally {
        await world.close();
      }
    }
    assert.deepEqual(target.hits, []);
  } finally {
    await target.close();
  }
});

test("A8: the challenge's resource_metadata and the resource metadata's authorization_servers may not aim at the client's network", T, async () => {
  const target = await internal();
  try {
    const cases: Array<[string, Bends]> = [
      ["resource_metadata", { challenge: () => `Bearer resource_metadata="${target.origin}/.well-known/oauth-protected-resource"` }],
      ["resource_metadata", { challenge: () => 'Bearer resource_metadata="https://10.0.0.7/.well-known/oauth-protected-resource"' }],
      ["authorization_servers", { prm: (p) => ({ ...p, authorization_servers: [target.origin] }) }],
      ["authorization_servers", { prm: (p) => ({ ...p, authorization_servers: ["https://[fe80::1]"] }) }],
    ];
    for (const [field, bends] of cases) {
      const world = await startFake(bends, PUBLIC);
      try {
        assertRefused((await connect(world)).error, field);
        assert.ok(!world.paths.includes("/.well-known/oauth-authorization-server"));
      } finally {
        await world.close();
      }
    }
    assert.deepEqual(target.hits, []);
  } finally {
    await target.close();
  }
});

test("A8: the client ID metadata document is not offered on a local address to a remote server's authorization server", T, async () => {
  const world = await startFake({ metadata: (m) => ({ ...m, client_id_metadata_document_supported: true }) }, PUBLIC);
  try {
    const { error } = await connect(world, { clientMetadataUrl: "https://127.0.0.1/client.json" });
    assertRefused(error, "client_id");
    assert.ok(!world.paths.includes("/authorize"));
  } finally {
    await world.close();
  }
});

test("A8: a stored token endpoint on the client's network is not used for a refresh (the store is outside input too)", T, async () => {
  const target = await internal();
  const world = await startFake({}, PUBLIC);
  try {
    const store = new MemoryTokenStore();
    const record = { issuer: PUBLIC, resource: world.mcpUrl, clientId: "c", accessToken: "old", tokenType: "bearer", refreshToken: "rt", expiresAt: Date.now() + 1_000, tokenEndpoint: `${target.origin}/token` };
    await store.set(`tokens ${world.mcpUrl}`, JSON.stringify(record), undefined);
    const { error } = await connect(world, { store });
    assertRefused(error, "token_endpoint");
    assert.deepEqual(target.hits, []);
  } finally {
    await world.close();
    await target.close();
  }
});

test("A8: metadata whose issuer is on a local address is refused for a server on a name (issuer field)", () => {
  const doc = { issuer: "https://10.1.1.1", token_endpoint: "https://10.1.1.1/token" };
  assert.throws(
    () => parseServerMetadata(doc, "https://10.1.1.1", "metadata", false, "name"),
    (e: unknown) => e instanceof OAuthError && e.kind === "private_address" && e.field === "issuer",
  );
  // The same document for a server on the same private network is read.
  assert.equal(parseServerMetadata(doc, "https://10.1.1.1", "metadata", false, "private").tokenEndpoint, "https://10.1.1.1/token");
});

test("A8: addresses are classified from the URL's canonical host (every IPv4 spelling, IPv6, mapped and NAT64 forms, localhost names)", () => {
  const kind = (url: string): AddressKind => addressKind(new URL(url).hostname);
  const cases: Array<[string, AddressKind]> = [
    ["http://127.0.0.1/", "loopback"],
    ["http://2130706433/", "loopback"],
    ["http://0x7f.1/", "loopback"],
    ["http://0177.0.0.1/", "loopback"],
    ["http://0.0.0.0/", "loopback"],
    ["http://[::1]/", "loopback"],
    ["http://[::]/", "loopback"],
    ["http://[::ffff:127.0.0.1]/", "loopback"],
    ["http://[::ffff:10.0.0.1]/", "private"],
    ["http://[64:ff9b::a9fe:a9fe]/", "link-local"],
    ["http://localhost/", "loopback"],
    ["http://LOCALHOST./", "loopback"],
    ["http://api.localhost/", "loopback"],
    ["https://10.200.0.1/", "private"],
    ["https://172.16.0.1/", "private"],
    ["https://172.31.255.255/", "private"],
    ["https://172.32.0.1/", "ip"],
    ["https://192.168.0.10/", "private"],
    ["https://100.64.0.1/", "private"],
    ["https://[fc00::1]/", "private"],
    ["https://[fd12:3456::1]/", "private"],
    ["https://[fec0::1]/", "private"],
    ["https://169.254.169.254/", "link-local"],
    ["https://[fe80::1]/", "link-local"],
    ["https://8.8.8.8/", "ip"],
    ["https://[2001:db8::1]/", "ip"],
    ["https://[ff02::1]/", "ip"],
    ["https://224.0.0.1/", "ip"],
    ["https://mcp.example.com/", "name"],
    ["https://127.0.0.1.nip.io/", "name"],
    ["https://localhost.example/", "name"],
  ];
  for (const [url, expected] of cases) assert.equal(kind(url), expected, url);
  // A name may always be reached; another kind only from a server of the same kind, or from loopback.
  assert.equal(mayReach("name", "name"), true);
  assert.equal(mayReach("loopback", "name"), false);
  assert.equal(mayReach("private", "name"), false);
  assert.equal(mayReach("ip", "name"), false);
  assert.equal(mayReach("private", "private"), true);
  assert.equal(mayReach("loopback", "private"), false);
  assert.equal(mayReach("link-local", "link-local"), true);
  assert.equal(mayReach("ip", "ip"), true);
  assert.equal(mayReach("private", "ip"), false);
  for (const k of ["name", "loopback", "private", "link-local", "ip"] as const) assert.equal(mayReach(k, "loopback"), true);
});

test("A8: the host's fetch is the only way names are resolved: a whole login against a remote name goes through it, never through the global fetch", T, async () => {
  const world = await startFake({}, PUBLIC);
  const original = globalThis.fetch;
  const seen: string[] = [];
  const hostFetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    seen.push(new URL(input instanceof Request ? input.url : String(input)).pathname);
    return world.fetch(input, init);
  };
  // Anything that calls the global fetch now fails loudly.
  globalThis.fetch = (() => Promise.reject(new Error("the global fetch was called"))) as typeof fetch;
  try {
    const auth = new OAuthClient({ redirectUri: REDIRECT, fetch: hostFetch, authorize: async ({ url }) => (await hostFetch(url, { redirect: "manual" })).headers.get("location") ?? "" });
    const client = await McpClient.connect(new HttpTransport(world.mcpUrl, { auth, fetch: hostFetch }), { clientInfo: { name: "reach", version: "1" } });
    await client.listTools();
    await client.close();
    for (const p of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server", "/register", "/token"]) assert.ok(seen.includes(p), `${p} did not go through the host's fetch`);
    assert.ok(world.seen.at(-1)?.startsWith("Bearer at-"));
  } finally {
    globalThis.fetch = original;
    await world.close();
  }
});
