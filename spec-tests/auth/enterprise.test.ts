// A7: enterprise-managed authorization (an identity assertion exchanged at the
// identity provider for an ID-JAG, then a JWT bearer grant) and workload identity
// federation (a platform JWT as a JWT bearer grant), against the loopback enterprise
// world of ./enterprise-world.ts, whose every party checks what the extension
// documents ask. Each refusal is checked to leave the receiving party untouched.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { HttpTransport } from "../../src/transport/http.js";
import { McpClient } from "../../src/mcp/client.js";
import { OAuthClient, type OAuthClientOptions } from "../../src/auth/client.js";
import { enterpriseSignIn } from "../../src/auth/enterprise.js";
import { workloadIdentity } from "../../src/auth/workload.js";
import { ConfigError, OAuthError, type OAuthErrorKind } from "../../src/errors.js";
import { AS_CLIENT, ID_JAG, IDP_CLIENT, JWT_BEARER, TOKEN_EXCHANGE, startEnterprise, type EnterpriseWorld } from "./enterprise-world.js";

const T = { timeout: 30_000 };

function enterprise(world: EnterpriseWorld, extra: Partial<OAuthClientOptions> = {}, idToken = () => world.idToken()): { auth: OAuthClient; asked: number[] } {
  const asked: number[] = [];
  const auth = new OAuthClient({
    grant: enterpriseSignIn({
      issuer: world.idpIssuer,
      client: IDP_CLIENT,
      identityAssertion: async () => {
        asked.push(Date.now());
        return { token: idToken(), type: "id_token" };
      },
    }),
    clients: [{ issuer: world.asIssuer, ...AS_CLIENT }],
    ...extra,
  });
  return { auth, asked };
}

function workload(world: EnterpriseWorld, jwt: () => string, extra: Partial<OAuthClientOptions> = {}): OAuthClient {
  return new OAuthClient({ grant: workloadIdentity(async () => jwt()), ...extra });
}

async function call(world: EnterpriseWorld, auth: OAuthClient): Promise<void> {
  const client = await McpClient.connect(new HttpTransport(world.mcpUrl, { auth }), { clientInfo: { name: "enterprise-test", version: "1" } });
  try {
    assert.equal((await client.callTool("whoami", {})).isError, false);
  } finally {
    await client.close();
  }
}

async function refusal(world: EnterpriseWorld, auth: OAuthClient, kind: OAuthErrorKind, field?: string): Promise<OAuthError> {
  const e = await call(world, auth).then(
    () => assert.fail("connected"),
    (err: unknown) => err,
  );
  assert.ok(e instanceof OAuthError, String(e));
  assert.equal(e.kind, kind, e.message);
  if (field !== undefined) assert.equal(e.field, field, e.message);
  assert.ok(!/eyJ/.test(e.message), "no assertion in the message");
  return e;
}

test("A7: enterprise sign-in: the ID token is exchanged at the IdP for an ID-JAG, the ID-JAG is a JWT bearer grant, the MCP call goes through", T, async () => {
  const world = await startEnterprise();
  try {
    const { auth, asked } = enterprise(world);
    await call(world, auth);
    // The token exchange (RFC 8693) at the IdP, authenticated as the host's IdP client.
    assert.equal(world.idp.length, 1);
    const x = world.idp[0]?.form;
    assert.equal(x?.get("grant_type"), TOKEN_EXCHANGE);
    assert.equal(x?.get("requested_token_type"), ID_JAG);
    assert.equal(x?.get("audience"), world.asIssuer);
    assert.equal(x?.get("resource"), world.mcpUrl);
    assert.equal(x?.get("subject_token_type"), "urn:ietf:params:oauth:token-type:id_token");
    assert.match(world.idp[0]?.authorization ?? "", /^Basic /);
    // The JWT bearer grant (RFC 7523) at the authorization server, as the pre-registered client.
    assert.equal(world.as.length, 1);
    assert.equal(world.as[0]?.form.get("grant_type"), JWT_BEARER);
    assert.equal(world.as[0]?.form.get("resource"), world.mcpUrl);
    assert.equal(world.as[0]?.authorization, `Basic ${Buffer.from(`${AS_CLIENT.clientId}:${AS_CLIENT.clientSecret}`).toString("base64")}`);
    assert.ok(world.mcp.at(-1)?.startsWith("Bearer at-"));
    assert.equal(asked.length, 1);
    const stored = await auth.tokens(world.mcpUrl);
    assert.equal(stored?.issuer, world.asIssuer);
    assert.equal(stored?.clientId, AS_CLIENT.clientId);
    // The access token expires (the MCP server refuses it): a new exchange, no user involved.
    world.expireAll();
    await call(world, auth);
    assert.equal(world.idp.length, 2, "the new token came from a new exchange");
    assert.equal(world.as.length, 2);
    assert.equal(asked.length, 2);
  } finally {
    await world.close();
  }
});

test("A7: an ID-JAG the IdP made for another authorization server, resource or client, or of another type, is never sent to the authorization server", T, async () => {
  const cases: Array<[string, (c: Record<string, unknown>) => Record<string, unknown>]> = [
    ["aud", (c) => ({ ...c, aud: "https://other-as.example" })],
    ["resource", (c) => ({ ...c, resource: "https://other-mcp.example/mcp" })],
    ["client_id", (c) => ({ ...c, client_id: "someone-else" })],
    ["iss", (c) => ({ ...c, iss: "https://other-idp.example" })],
    ["exp", (c) => ({ ...c, exp: Math.floor(Date.now() / 1000) - 600 })],
  ];
  for (const [field, jagClaims] of cases) {
    const world = await startEnterprise({ jagClaims });
    try {
      await refusal(world, enterprise(world).auth, "assertion_mismatch", field);
      assert.equal(world.idp.length, 1);
      assert.equal(world.as.length, 0, `${field}: the authorization server received the ID-JAG`);
    } finally {
      await world.close();
    }
  }
  // An answer that is not an ID-JAG (RFC 8693 issued_token_type), or an access token instead.
  for (const [field, exchange] of [
    ["issued_token_type", (b: Record<string, unknown>) => ({ ...b, issued_token_type: "urn:ietf:params:oauth:token-type:access_token" })],
    ["token_type", (b: Record<string, unknown>) => ({ ...b, token_type: "Bearer" })],
  ] as const) {
    const world = await startEnterprise({ exchange });
    try {
      await refusal(world, enterprise(world).auth, "bad_response", field);
      assert.equal(world.as.length, 0);
    } finally {
      await world.close();
    }
  }
});

test("A7: an expired ID token, or one for another client or issuer, is not sent to the IdP", T, async () => {
  const world = await startEnterprise();
  try {
    const now = Math.floor(Date.now() / 1000);
    for (const [field, token] of [
      ["exp", () => world.idToken("alice", { exp: now - 600 })],
      ["aud", () => world.idToken("alice", { aud: "another-client" })],
      ["iss", () => world.idToken("alice", { iss: "https://other-idp.example" })],
      ["jwt", () => "not-a-jwt"],
    ] as const) {
      await refusal(world, enterprise(world, {}, token).auth, "assertion_mismatch", field);
    }
    assert.equal(world.idp.length, 0);
  } finally {
    await world.close();
  }
});

test("A7: a hostile MCP server naming another authorization server gets neither the workload JWT nor an ID-JAG", T, async () => {
  // The other authorization server records everything it is sent.
  const received: string[] = [];
  const evil = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      received.push(`${req.url} ${body}`);
      const origin = `http://127.0.0.1:${(evil.address() as { port: number }).port}`;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(req.url?.startsWith("/.well-known/") ? { issuer: origin, token_endpoint: `${origin}/token`, grant_types_supported: [JWT_BEARER] } : { access_token: "stolen", token_type: "Bearer" }));
    });
  });
  await new Promise<void>((r) => evil.listen(0, "127.0.0.1", r));
  const evilOrigin = `http://127.0.0.1:${(evil.address() as { port: number }).port}`;
  const world = await startEnterprise({ prm: (p) => ({ ...p, authorization_servers: [evilOrigin] }) });
  try {
    // The workload's JWT names the real authorization server: refused before it leaves.
    await refusal(world, workload(world, () => world.workloadJwt()), "assertion_mismatch", "aud");
    assert.ok(!received.some((r) => r.startsWith("/token")), "the token endpoint of the other server was called");
    // Enterprise: the IdP's policy refuses an ID-JAG for that audience; the other server gets nothing.
    const e = await refusal(world, enterprise(world, { clients: [{ issuer: evilOrigin, ...AS_CLIENT }] }).auth, "token_error");
    assert.equal(e.oauthError, "invalid_target");
    assert.ok(!received.some((r) => r.startsWith("/token")));
    assert.ok(!received.some((r) => r.includes("eyJ")), "an assertion reached the other server");
  } finally {
    await world.close();
    evil.closeAllConnections();
    await new Promise((r) => evil.close(r));
  }
});

test("A7: workload identity: the platform JWT is the JWT bearer grant, with no browser and no client authentication", T, async () => {
  const world = await startEnterprise();
  try {
    let asked = 0;
    const auth = workload(world, () => (asked++, world.workloadJwt()));
    await call(world, auth);
    assert.equal(world.as.length, 1);
    const grant = world.as[0];
    assert.equal(grant?.form.get("grant_type"), JWT_BEARER);
    assert.equal(grant?.form.get("resource"), world.mcpUrl);
    assert.equal(grant?.authorization, "", "no client authentication");
    assert.equal(grant?.form.get("client_id"), null);
    assert.equal(world.idp.length, 0);
    assert.equal(asked, 1);
    // A JWT whose aud names the token endpoint is the spec's form and is sent too.
    await call(world, workload(world, () => world.workloadJwt({ aud: `${world.asIssuer}/token` })));
    assert.equal(world.as.length, 2);
  } finally {
    await world.close();
  }
});

test("A7: workload identity: an expired or audience-less JWT is not sent; a refused grant is surfaced once, not retried", T, async () => {
  const world = await startEnterprise();
  try {
    const now = Math.floor(Date.now() / 1000);
    await refusal(world, workload(world, () => world.workloadJwt({ exp: now - 600 })), "assertion_mismatch", "exp");
    await refusal(world, workload(world, () => world.workloadJwt({ exp: "soon" })), "assertion_mismatch", "exp");
    await refusal(world, workload(world, () => world.workloadJwt({ aud: "https://elsewhere.example" })), "assertion_mismatch", "aud");
    await refusal(world, workload(world, () => "x".repeat(20)), "assertion_mismatch", "jwt");
    assert.equal(world.as.length, 0);
    // A JWT signed by a key the authorization server does not trust: invalid_grant, once.
    const e = await refusal(world, workload(world, () => world.forged({ aud: world.asIssuer, exp: now + 60, jti: "j" })), "token_error");
    assert.equal(e.oauthError, "invalid_grant");
    assert.equal(world.as.length, 1, "the refused grant was retried");
  } finally {
    await world.close();
  }
});

test("A7: an authorization server whose metadata lists grant types without the JWT bearer grant is not asked for one", T, async () => {
  const world = await startEnterprise({ asMetadata: (m) => ({ ...m, grant_types_supported: ["authorization_code"] }) });
  try {
    await refusal(world, workload(world, () => world.workloadJwt()), "grant_unsupported", "grant_types_supported");
    await refusal(world, enterprise(world).auth, "grant_unsupported", "grant_types_supported");
    assert.equal(world.as.length + world.idp.length, 0);
  } finally {
    await world.close();
  }
});

test("A7: the identity provider's answers are bounded and never followed when they redirect", T, async () => {
  for (const [kind, exchange] of [
    ["redirect", () => ({ status: 307, headers: { location: "https://elsewhere.example/token" } })],
    ["bad_response", () => ({ status: 200, body: `{"access_token":"${"a".repeat(70_000)}"}` })],
  ] as const) {
    const world = await startEnterprise({ exchange });
    try {
      await refusal(world, enterprise(world).auth, kind);
      assert.equal(world.as.length, 0);
    } finally {
      await world.close();
    }
  }
});

test("A7: the enterprise and workload grants need their options (a config error when made)", () => {
  assert.throws(() => workloadIdentity(undefined as unknown as () => Promise<string>), ConfigError);
  assert.throws(() => enterpriseSignIn({} as never), ConfigError);
  assert.throws(() => new OAuthClient({ grant: "workload_identity" as never }), ConfigError);
  assert.throws(
    () => enterpriseSignIn({ issuer: "http://idp.example", client: { clientId: "c" }, identityAssertion: async () => ({ token: "t" }) }),
    (e: unknown) => e instanceof OAuthError && e.kind === "insecure_url",
  );
});
