// A2, A5: hostile input from the server and the authorization server: malformed
// or oversized metadata, hostile WWW-Authenticate quoting, token responses with
// missing, extra or wrong-typed fields, a server that never answers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { HttpTransport } from "../../src/transport/http.js";
import { McpClient } from "../../src/mcp/client.js";
import { OAuthClient, type OAuthClientOptions } from "../../src/auth/client.js";
import { parseChallenges } from "../../src/auth/challenge.js";
import { parseTokenResponse } from "../../src/auth/token.js";
import { OAuthError, type OAuthErrorKind } from "../../src/errors.js";
import { MAX_CHALLENGE_PARAMS, MAX_OAUTH_RESPONSE_BYTES, MAX_WWW_AUTHENTICATE_CHARS } from "../../src/limits.js";
import { startFake, type Bends, type FakeWorld } from "./fake-as.js";

const T = { timeout: 20_000 };
const REDIRECT = "http://127.0.0.1:8978/callback";

async function failure(bends: Bends, extra: Partial<OAuthClientOptions> = {}): Promise<{ error: unknown; world: FakeWorld; ms: number }> {
  const world = await startFake(bends);
  const started = Date.now();
  try {
    const auth = new OAuthClient({ redirectUri: REDIRECT, authorize: ({ url }) => world.browser(url), ...extra });
    const error = await McpClient.connect(new HttpTransport(world.mcpUrl, { auth }), { clientInfo: { name: "bad", version: "1" } }).then(
      () => assert.fail("connected"),
      (e: unknown) => e,
    );
    return { error, world, ms: Date.now() - started };
  } finally {
    await world.close();
  }
}

function isKind(e: unknown, kind: OAuthErrorKind): void {
  assert.ok(e instanceof OAuthError, String(e));
  assert.equal(e.kind, kind, e.message);
}

test("A2: WWW-Authenticate: quoted strings with escapes, commas and several challenges are read exactly", () => {
  const c = parseChallenges('Basic realm="x", Bearer resource_metadata="https://a.example/p?x=1,2", scope="a \\"b\\" c", error=insufficient_scope, DPoP algs="ES256"');
  assert.deepEqual(
    c.map((x) => x.scheme),
    ["basic", "bearer", "dpop"],
  );
  assert.equal(c[1]?.params.resource_metadata, "https://a.example/p?x=1,2");
  assert.equal(c[1]?.params.scope, 'a "b" c');
  assert.equal(c[1]?.params.error, "insufficient_scope");
  assert.equal(c[2]?.params.algs, "ES256");
});

test("A2: WWW-Authenticate: hostile quoting ends the parse without throwing or leaking into other params", () => {
  // A quote inside a quoted value ends it there: the rest is not a param of its own.
  const a = parseChallenges('Bearer scope="read, resource_metadata="https://evil.example"');
  assert.equal(a[0]?.params.resource_metadata, undefined);
  assert.equal(a[0]?.params.scope, "read, resource_metadata=");
  // An unterminated quote yields nothing.
  assert.equal(parseChallenges('Bearer scope="read, more')[0]?.params.scope, undefined);
  // A control character inside a quoted string ends the parse.
  assert.equal(parseChallenges('Bearer scope="a\u0000b"')[0]?.params.scope, undefined);
  // A backslash at the very end.
  assert.equal(parseChallenges('Bearer scope="abc\\')[0]?.params.scope, undefined);
  // A repeated param keeps the first; __proto__ is an ordinary entry.
  const b = parseChallenges('Bearer scope="one", scope="two", __proto__="x"')[0];
  assert.equal(b?.params.scope, "one");
  assert.equal(Object.getPrototypeOf(b?.params ?? {}), null);
  // Oversized headers are not parsed at all; params past the bound are dropped.
  assert.deepEqual(parseChallenges(`Bearer scope="${"a".repeat(MAX_WWW_AUTHENTICATE_CHARS)}"`), []);
  const many = parseChallenges(`Bearer ${Array.from({ length: MAX_CHALLENGE_PARAMS + 10 }, (_, i) => `p${i}=v`).join(", ")}`);
  assert.equal(Object.keys(many[0]?.params ?? {}).length, MAX_CHALLENGE_PARAMS);
  // Quadratic-looking input stays linear: 8 KB of backslashes and quotes parses at once.
  const t = performance.now();
  parseChallenges(`Bearer a="${'\\"'.repeat(MAX_WWW_AUTHENTICATE_CHARS / 2 - 20)}`);
  assert.ok(performance.now() - t < 1_000);
});

test("A2: metadata that is not JSON, not an object, or has wrong-typed fields is refused as bad_response", T, async () => {
  for (const metadata of [
    () => ({ body: "<html>not json</html>" }),
    () => ({ body: "[1,2,3]" }),
    (m: Record<string, unknown>) => ({ ...m, token_endpoint: 42 }),
    (m: Record<string, unknown>) => ({ ...m, code_challenge_methods_supported: "S256" }),
    (m: Record<string, unknown>) => ({ ...m, authorization_response_iss_parameter_supported: "yes" }),
  ]) {
    const { error } = await failure({ metadata });
    isKind(error, "bad_response");
  }
  const { error } = await failure({ prm: (p) => ({ ...p, authorization_servers: [] }) });
  isKind(error, "bad_response");
});

test("A2: oversized metadata is refused past MAX_OAUTH_RESPONSE_BYTES", T, async () => {
  const { error } = await failure({ metadata: (m) => ({ ...m, padding: "x".repeat(MAX_OAUTH_RESPONSE_BYTES) }) });
  isKind(error, "bad_response");
  assert.match((error as Error).message, /more than/);
});

test("A5: token responses with missing or wrong-typed fields are refused; extra fields are ignored", () => {
  const what = "the token answer";
  const bad = [
    {},
    { token_type: "Bearer" },
    { access_token: "a", token_type: "mac" },
    { access_token: 7, token_type: "Bearer" },
    { access_token: "a", token_type: "Bearer", expires_in: "3600" },
    { access_token: "a", token_type: "Bearer", expires_in: -1 },
    { access_token: "a b", token_type: "Bearer" },
    { access_token: "a", token_type: "Bearer", refresh_token: ["r"] },
    { access_token: "a", token_type: "DPoP" },
    [],
  ];
  for (const b of bad) {
    assert.throws(() => parseTokenResponse(b, what, false), (e: unknown) => e instanceof OAuthError && e.kind === "bad_response", JSON.stringify(b));
  }
  const ok = parseTokenResponse({ access_token: "a", token_type: "bearer", expires_in: 10, id_token: "x", extra: { deep: true } }, what, false, 1_000);
  assert.deepEqual(ok, { accessToken: "a", tokenType: "bearer", expiresAt: 11_000 });
});

test("A5: a token answer with a wrong-typed field fails the connection with bad_response, naming no token", T, async () => {
  const { error } = await failure({ token: (t) => ({ ...t, expires_in: "soon" }) });
  isKind(error, "bad_response");
  assert.ok(!/at-\d|rt-\d/.test((error as Error).message));
});

test("A5: a token endpoint OAuth error is a token_error carrying the error code, not the description", T, async () => {
  const { error } = await failure({ token: () => ({ status: 400, body: JSON.stringify({ error: "invalid_grant", error_description: "secret detail" }) }) });
  isKind(error, "token_error");
  assert.equal((error as OAuthError).oauthError, "invalid_grant");
  assert.ok(!(error as Error).message.includes("secret detail"));
});

test("A2: an authorization server that never answers fails within the request bound", T, async () => {
  const { error, ms } = await failure({ hang: ["/.well-known/oauth-authorization-server"] }, { requestTimeoutMs: 300 });
  isKind(error, "timeout");
  assert.ok(ms < 10_000, `${ms} ms`);
});

test("A3: an interactive step that never returns fails within its bound", T, async () => {
  const { error, ms } = await failure({}, { authorize: () => new Promise<string>(() => {}), interactionTimeoutMs: 300 });
  isKind(error, "timeout");
  assert.ok(ms < 10_000, `${ms} ms`);
});
