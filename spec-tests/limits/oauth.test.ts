// A2 / A5 / A6 bounds of the OAuth client, crossed against the loopback fake
// authorization server (spec-tests/auth/fake-as.ts) and real files and sockets:
// an answer at each bound is used, one past it is refused (or cut, where the
// code cuts).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpClient } from "../../src/mcp/client.js";
import { HttpTransport } from "../../src/transport/http.js";
import type { HttpAuth } from "../../src/transport/http-auth.js";
import { OAuthClient, type OAuthClientOptions } from "../../src/auth/client.js";
import { OAuthError } from "../../src/errors.js";
import { FileTokenStore } from "../../src/node/token-store.js";
import { startLoopbackRedirect } from "../../src/node/loopback-redirect.js";
import {
  CLIENT_ASSERTION_TTL_S,
  MAX_AUTH_RETRIES,
  MAX_CALLBACK_URL_CHARS,
  MAX_OAUTH_ARRAY_ITEMS,
  MAX_OAUTH_STRING_CHARS,
  MAX_SCOPES,
  MAX_STEP_UPS,
  MAX_TOKEN_CHARS,
  MAX_TOKEN_FILE_BYTES,
} from "../../src/limits.js";
import { startFake, type Bends, type FakeWorld } from "../auth/fake-as.js";
import { initializeResult, startRpcServer } from "../helpers/http.js";

const T = { timeout: 30_000 };
const REDIRECT = "http://127.0.0.1:8977/callback";

/** Connects through the fake with `bends`; resolves to the error, or "connected". */
async function attempt(bends: Bends, extra: Partial<OAuthClientOptions> = {}, check?: (world: FakeWorld) => void): Promise<unknown> {
  const world = await startFake(bends);
  try {
    const auth = new OAuthClient({ redirectUri: REDIRECT, authorize: ({ url }) => world.browser(url), ...extra });
    const outcome = await McpClient.connect(new HttpTransport(world.mcpUrl, { auth }), { clientInfo: { name: "bounds", version: "1" } }).then(
      async (c) => {
        await c.close();
        return "connected";
      },
      (e: unknown) => e,
    );
    check?.(world);
    return outcome;
  } finally {
    await world.close();
  }
}
const badResponse = (e: unknown): boolean => e instanceof OAuthError && e.kind === "bad_response";

describe("A2, A5: OAuth answers at their bounds (loopback fake authorization server)", { concurrency: true }, () => {
  test("A5: an access token of MAX_TOKEN_CHARS characters is used; one character more is refused as bad_response", T, async () => {
    const long = (n: number): Bends => ({ token: (t) => ({ ...t, access_token: "t".repeat(n) }) });
    assert.equal(await attempt(long(MAX_TOKEN_CHARS), {}, (w) => assert.ok(w.seen.includes(`Bearer ${"t".repeat(MAX_TOKEN_CHARS)}`), "the token reached the server")), "connected");
    assert.ok(badResponse(await attempt(long(MAX_TOKEN_CHARS + 1))));
  });

  test("A2: a metadata URL of MAX_OAUTH_STRING_CHARS characters is used; one character more is refused as bad_response", T, async () => {
    const padded = (n: number): Bends => ({
      metadata: (m) => {
        const base = `${String(m.token_endpoint)}?pad=`;
        return { ...m, token_endpoint: base + "p".repeat(n - base.length) };
      },
    });
    assert.equal(await attempt(padded(MAX_OAUTH_STRING_CHARS), {}, (w) => assert.equal(w.tokenBodies.length, 1)), "connected");
    assert.ok(badResponse(await attempt(padded(MAX_OAUTH_STRING_CHARS + 1))));
  });

  test("A2: a metadata array of MAX_OAUTH_ARRAY_ITEMS entries is read; one entry more is refused as bad_response", T, async () => {
    const many = (n: number): Bends => ({ metadata: (m) => ({ ...m, code_challenge_methods_supported: ["S256", ...Array.from({ length: n - 1 }, (_, i) => `m${i}`)] }) });
    assert.equal(await attempt(many(MAX_OAUTH_ARRAY_ITEMS)), "connected");
    assert.ok(badResponse(await attempt(many(MAX_OAUTH_ARRAY_ITEMS + 1))));
  });

  test("A2: a requested scope set is cut to MAX_SCOPES scopes", T, async () => {
    const scopesAsked = async (n: number): Promise<number> => {
      let asked = -1;
      const world = await startFake({ prm: (p) => ({ ...p, scopes_supported: Array.from({ length: n }, (_, i) => `s${i}`) }) });
      try {
        const auth = new OAuthClient({
          redirectUri: REDIRECT,
          authorize: ({ url }) => {
            asked = (new URL(url).searchParams.get("scope") ?? "").split(" ").length;
            return world.browser(url);
          },
        });
        await (await McpClient.connect(new HttpTransport(world.mcpUrl, { auth }))).close();
      } finally {
        await world.close();
      }
      return asked;
    };
    assert.equal(await scopesAsked(MAX_SCOPES), MAX_SCOPES);
    assert.equal(await scopesAsked(MAX_SCOPES + 5), MAX_SCOPES);
  });

  test("A2: a server asking for more scope MAX_STEP_UPS times is followed; once more ends in step_up_limit", T, async () => {
    // Once connected, the server asks `times` times for one more scope on the next request.
    const stepUps = async (times: number): Promise<{ outcome: unknown; logins: number }> => {
      let asked = 0;
      let active = false;
      const world = await startFake({
        mcp: (auth, _n, method, body) => {
          if (!active || method !== "POST" || !body.includes('"tools/list"') || asked >= times) return undefined;
          asked++;
          return { status: 403, headers: { "www-authenticate": `Bearer error="insufficient_scope", scope="extra${asked}"` }, body: "{}" };
        },
      });
      try {
        const auth = new OAuthClient({ redirectUri: REDIRECT, authorize: ({ url }) => world.browser(url) });
        const client = await McpClient.connect(new HttpTransport(world.mcpUrl, { auth }));
        try {
          active = true;
          const outcome = await client.listTools().then(
            () => "listed",
            (e: unknown) => e,
          );
          return { outcome, logins: world.tokenBodies.length };
        } finally {
          await client.close();
        }
      } finally {
        await world.close();
      }
    };
    assert.deepEqual(await stepUps(MAX_STEP_UPS), { outcome: "listed", logins: 1 + MAX_STEP_UPS });
    const over = await stepUps(MAX_STEP_UPS + 1);
    assert.ok(over.outcome instanceof OAuthError && over.outcome.kind === "step_up_limit", String(over.outcome));
    assert.equal(over.logins, 1 + MAX_STEP_UPS, "no login past the bound");
  });

  test("A5: a private_key_jwt client assertion lives CLIENT_ASSERTION_TTL_S seconds", T, async () => {
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const outcome = await attempt(
      { metadata: (m) => ({ ...m, token_endpoint_auth_methods_supported: ["private_key_jwt"], grant_types_supported: ["client_credentials"] }) },
      { grant: "client_credentials", clients: [{ clientId: "machine", authMethod: "private_key_jwt", privateKeyPem: pem }] },
      (w) => {
        const jwt = w.tokenBodies.at(-1)?.get("client_assertion") ?? "";
        const claims = JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString()) as { iat: number; exp: number };
        assert.equal(claims.exp - claims.iat, CLIENT_ASSERTION_TTL_S);
      },
    );
    assert.equal(outcome, "connected");
  });
});

test("A5: one request is sent again at most MAX_AUTH_RETRIES times after its 401 was handled", T, async () => {
  const refusing = async (times: number): Promise<{ outcome: unknown; sends: number }> => {
    let sends = 0;
    const server = await startRpcServer((m, res) => {
      if (m.method === "initialize" && ++sends <= times) return void res.writeHead(401, { "content-type": "application/json" }).end("{}");
      if (m.method === "initialize") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: initializeResult({}) }));
      res.writeHead(202).end();
    });
    // An auth that always claims to have fixed the 401: only the transport's bound stops the re-sends.
    const auth: HttpAuth = { headers: async () => ({ authorization: "Bearer x" }), challenge: async () => true };
    try {
      const outcome = await McpClient.connect(new HttpTransport(server.url, { auth }), { era: "legacy" }).then(
        async (c) => (await c.close(), "connected"),
        (e: unknown) => e,
      );
      return { outcome, sends };
    } finally {
      server.close();
    }
  };
  assert.deepEqual(await refusing(MAX_AUTH_RETRIES), { outcome: "connected", sends: MAX_AUTH_RETRIES + 1 });
  const over = await refusing(MAX_AUTH_RETRIES + 1);
  assert.equal(over.sends, MAX_AUTH_RETRIES + 1, "no send past the bound");
  assert.notEqual(over.outcome, "connected");
});

test("A5: a token file of MAX_TOKEN_FILE_BYTES bytes is read; one byte more is a store error", T, async () => {
  const dir = mkdtempSync(join(tmpdir(), "yada-bounds-"));
  try {
    const path = join(dir, "tokens.json");
    const doc = JSON.stringify({ yada: "tokens", entries: { k: { value: "v", version: "1" } } });
    writeFileSync(path, doc + " ".repeat(MAX_TOKEN_FILE_BYTES - doc.length));
    assert.equal((await new FileTokenStore(path).get("k"))?.value, "v");
    writeFileSync(path, doc + " ".repeat(MAX_TOKEN_FILE_BYTES + 1 - doc.length));
    await assert.rejects(new FileTokenStore(path).get("k"), (e: Error & { code?: string }) => e.code === "store" && e.message.includes(`larger than ${MAX_TOKEN_FILE_BYTES} bytes`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("A6: the redirect listener takes a callback URL of MAX_CALLBACK_URL_CHARS characters; a longer one is refused and it keeps waiting", T, async () => {
  const listener = await startLoopbackRedirect({ timeoutMs: 20_000 });
  try {
    const waiting = listener.wait();
    const path = new URL(listener.redirectUri).pathname;
    const target = (n: number): string => {
      const head = `${path}?code=c&state=s&pad=`;
      return head + "p".repeat(n - head.length);
    };
    assert.equal((await fetch(new URL(target(MAX_CALLBACK_URL_CHARS + 1), listener.redirectUri))).status, 404);
    assert.equal((await fetch(new URL(target(MAX_CALLBACK_URL_CHARS), listener.redirectUri))).status, 200);
    assert.equal(await waiting, new URL(target(MAX_CALLBACK_URL_CHARS), listener.redirectUri).href);
  } finally {
    listener.close();
  }
});
