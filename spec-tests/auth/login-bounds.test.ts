// A2, S5, S6: the user's time in an interactive login does not count against the
// handshake bound, connectMcp's setup bound or the bound of a call that steps up;
// the login keeps its own bound, and every other wait (a token endpoint or a
// server that stalls) still counts. Real loopback servers (fake-as.ts), small bounds.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { HttpTransport } from "../../src/transport/http.js";
import { McpClient } from "../../src/mcp/client.js";
import { connectMcp } from "../../src/tools/connect.js";
import { OAuthClient, type OAuthClientOptions } from "../../src/auth/client.js";
import { OAuthError, TimeoutError } from "../../src/errors.js";
import { startFake, type FakeWorld } from "./fake-as.js";
import { startOidc } from "./oidc.js";

const T = { timeout: 30_000 };
const REDIRECT = "http://127.0.0.1:8981/cb";
/** The handshake bound of these tests: loopback discovery, registration and token exchange fit in it. */
const BOUND_MS = 1_500;
/** A user who takes longer than the bound in the browser. */
const SLOW_USER_MS = 2_000;

/** An OAuthClient whose user consents after `ms`; `logins` counts the interactive steps. */
function slowUser(world: FakeWorld, ms: number, extra: Partial<OAuthClientOptions> = {}): { auth: OAuthClient; logins: () => number } {
  let logins = 0;
  const auth = new OAuthClient({
    redirectUri: REDIRECT,
    authorize: async ({ url, signal }) => {
      logins++;
      await sleep(ms, undefined, { signal });
      return world.browser(url);
    },
    ...extra,
  });
  return { auth, logins: () => logins };
}

const method = (body: string): string => {
  try {
    return String((JSON.parse(body) as { method?: unknown }).method);
  } catch {
    return "";
  }
};

test("A2, S5: a login that takes longer than handshakeTimeoutMs does not cut the handshake; connect succeeds", T, async () => {
  const world = await startFake();
  try {
    const { auth, logins } = slowUser(world, SLOW_USER_MS);
    const started = Date.now();
    const client = await McpClient.connect(new HttpTransport(world.mcpUrl, { auth }), { handshakeTimeoutMs: BOUND_MS });
    assert.ok(Date.now() - started >= SLOW_USER_MS, "the login really outlasted the bound");
    assert.equal(logins(), 1);
    assert.equal(client.serverInfo.name, "fake");
    assert.deepEqual(await client.listTools(), []);
    await client.close();
    assert.ok(world.seen.at(-1)?.startsWith("Bearer at-"));
  } finally {
    await world.close();
  }
});

test("A2, A6, S5: against oidc-provider, a login that outlasts the handshake bound connects and the call goes through", T, async () => {
  const world = await startOidc();
  try {
    let logins = 0;
    const auth = new OAuthClient({
      redirectUri: REDIRECT,
      authorize: async ({ url, signal }) => {
        logins++;
        // The provider's pages answer at once; the user reads them for a while.
        await sleep(2_500, undefined, { signal });
        return world.browser(url, REDIRECT);
      },
    });
    const started = Date.now();
    // Registration, discovery and the token exchange with the provider fit in 2 s on a loaded machine.
    const client = await McpClient.connect(new HttpTransport(world.mcpUrl, { auth }), { handshakeTimeoutMs: 2_000 });
    assert.ok(Date.now() - started >= 2_500);
    assert.equal(logins, 1);
    assert.equal((await client.callTool("read", {})).isError, false);
    await client.close();
  } finally {
    await world.close();
  }
});

test("A2, S5: a server that stalls initialize after the login times out within the handshake bound counted without the login", T, async () => {
  const world = await startFake({ mcp: (auth, _n, _m, body) => (auth.startsWith("Bearer at-") && method(body) === "initialize" ? "hang" : undefined) });
  try {
    const { auth, logins } = slowUser(world, SLOW_USER_MS);
    const started = Date.now();
    const err = await McpClient.connect(new HttpTransport(world.mcpUrl, { auth }), { handshakeTimeoutMs: BOUND_MS }).catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    assert.ok(err instanceof TimeoutError && err.code === "timeout", String(err));
    assert.equal(logins(), 1);
    // The bound ran outside the login only: after it, never before the login plus the bound,
    // and far from the 2-minute idle bound or the 5-minute login bound.
    assert.ok(elapsed >= SLOW_USER_MS + BOUND_MS - 50, `timed out after ${elapsed} ms`);
    assert.ok(elapsed < SLOW_USER_MS + BOUND_MS + 8_000, `timed out after ${elapsed} ms`);
  } finally {
    await world.close();
  }
});

test("A2, S5: a token endpoint that never answers still fails the handshake at its bound (only the login is held)", T, async () => {
  const world = await startFake({ hang: ["/token"] });
  try {
    const { auth, logins } = slowUser(world, 10);
    const started = Date.now();
    const err = await McpClient.connect(new HttpTransport(world.mcpUrl, { auth }), { handshakeTimeoutMs: BOUND_MS }).catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    assert.ok(err instanceof TimeoutError && err.code === "timeout", String(err));
    assert.equal(logins(), 1);
    assert.ok(elapsed >= BOUND_MS - 50 && elapsed < BOUND_MS + 8_000, `timed out after ${elapsed} ms`);
  } finally {
    await world.close();
  }
});

test("A2: the login keeps its own bound (interactionTimeoutMs) while the handshake bound is held", T, async () => {
  const world = await startFake();
  try {
    let logins = 0;
    const auth = new OAuthClient({
      redirectUri: REDIRECT,
      interactionTimeoutMs: 1_500,
      // A user who never comes back.
      authorize: ({ signal }) => {
        logins++;
        return new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));
      },
    });
    const started = Date.now();
    const err = await McpClient.connect(new HttpTransport(world.mcpUrl, { auth }), { handshakeTimeoutMs: 500 }).catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    assert.ok(err instanceof OAuthError && err.kind === "timeout", String(err));
    assert.ok(elapsed >= 1_450 && elapsed < 10_000, `failed after ${elapsed} ms`);
    // The failed login is the connect's answer: no fallback to initialize starts a second one.
    assert.equal(logins, 1);
  } finally {
    await world.close();
  }
});

test("A2, T10: connectMcp's setup bound does not count a login that takes longer than it", T, async () => {
  const world = await startFake();
  try {
    const { auth, logins } = slowUser(world, SLOW_USER_MS);
    const c = await connectMcp({ name: "fake", url: world.mcpUrl, auth }, { identity: { actorId: "alice", tenantId: "t1" }, authorize: async () => true }, { timeoutMs: BOUND_MS });
    assert.deepEqual(c.tools, []);
    assert.equal(logins(), 1);
    await c.close();
  } finally {
    await world.close();
  }
});

test("A2, S6: calls whose 403 insufficient_scope needs a step-up login (started by one, joined by the other) are not cut by their call bound during the login", T, async () => {
  // at-1 lacks the scope tools/call needs; the step-up's token (at-2 and later) has it.
  const world = await startFake({
    mcp: (auth, _n, _m, body) => {
      if (method(body) !== "tools/call") return undefined;
      if (auth === "Bearer at-1") return { status: 403, headers: { "www-authenticate": 'Bearer error="insufficient_scope", scope="write"' } };
      const id = (JSON.parse(body) as { id: number }).id;
      return { body: JSON.stringify({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "done" }] } }) };
    },
  });
  try {
    let delay = 10;
    let logins = 0;
    const auth = new OAuthClient({
      redirectUri: REDIRECT,
      authorize: async ({ url, signal }) => {
        logins++;
        await sleep(delay, undefined, { signal });
        return world.browser(url);
      },
    });
    const client = await McpClient.connect(new HttpTransport(world.mcpUrl, { auth }), { era: "legacy", callTimeoutMs: BOUND_MS });
    delay = SLOW_USER_MS;
    const started = Date.now();
    // The second call's 403 joins the step-up the first one started: it is held too.
    const [r, joined] = await Promise.all([client.callTool("write", {}), client.callTool("write", { n: 2 })]);
    assert.ok(Date.now() - started >= SLOW_USER_MS, "the step-up login really outlasted the call bound");
    for (const one of [r, joined]) {
      assert.equal(one.isError, false);
      assert.deepEqual(one.content, [{ type: "text", text: "done" }]);
    }
    assert.equal(logins, 2, "one login to connect, one step-up for both calls");
    assert.equal(world.seen.at(-1), "Bearer at-2", "the call went again with the step-up's token");
    await client.close();
  } finally {
    await world.close();
  }
});
