// A3: open authorization flows in the token store are housekept: one nobody came
// back from is deleted once it expires, their number is bounded, a finished one leaves
// no trace. Against oidc-provider on loopback, with a store the test can list.
import { test, mock } from "node:test";
import assert from "node:assert/strict";
import { HttpTransport } from "../../src/transport/http.js";
import { McpClient } from "../../src/mcp/client.js";
import { OAuthClient } from "../../src/auth/client.js";
import type { StoredValue, TokenStore } from "../../src/auth/store.js";
import { OAuthError } from "../../src/errors.js";
import { MAX_OPEN_FLOWS, OAUTH_FLOW_TTL_MS } from "../../src/limits.js";
import { startOidc, type OidcWorld } from "./oidc.js";

const T = { timeout: 30_000 };
const REDIRECT = "http://127.0.0.1:8976/callback";

/** A token store over a Map the test can read. */
function listableStore(): TokenStore & { map: Map<string, StoredValue>; flows(): string[] } {
  const map = new Map<string, StoredValue>();
  let n = 0;
  return {
    map,
    flows: () => [...map.keys()].filter((k) => k.startsWith("flow ")).sort(),
    async get(key) {
      return map.get(key);
    },
    async set(key, value, ifVersion) {
      if (map.get(key)?.version !== ifVersion) return false;
      if (value === undefined) map.delete(key);
      else map.set(key, { value, version: String(++n) });
      return true;
    },
  };
}

/** Starts one flow (no interactive step: the login ends in interaction_required) and returns its state. */
async function startFlow(world: OidcWorld, auth: OAuthClient): Promise<{ state: string; url: string }> {
  const err = await McpClient.connect(new HttpTransport(world.mcpUrl, { auth })).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof OAuthError && err.kind === "interaction_required" && err.authorizationUrl, String(err));
  const state = new URL(err.authorizationUrl).searchParams.get("state");
  assert.ok(state);
  return { state, url: err.authorizationUrl };
}

test("A3: an abandoned authorization flow is deleted from the store once it expired; a finished one leaves nothing behind", T, async () => {
  const world = await startOidc();
  try {
    const store = listableStore();
    const auth = new OAuthClient({ redirectUri: REDIRECT, store });
    await startFlow(world, auth);
    const abandoned = store.flows();
    assert.ok(abandoned.length > 0, "no flow was stored");
    // The user never came back. Past the flows' lifetime, the next login sweeps them.
    mock.timers.enable({ apis: ["Date"], now: Date.now() + OAUTH_FLOW_TTL_MS + 1_000 });
    let b: { state: string; url: string };
    try {
      b = await startFlow(world, auth);
    } finally {
      mock.timers.reset();
    }
    const open = store.flows();
    assert.ok(open.includes(`flow ${b.state}`));
    for (const k of abandoned) assert.ok(!open.includes(k), "an expired flow is still in the store");
    // Finishing flow b deletes its record and its index entry.
    await auth.finishAuthorization(await world.browser(b.url, REDIRECT));
    const rest = open.filter((k) => k !== `flow ${b.state}`);
    assert.deepEqual(store.flows(), rest);
    const index = JSON.parse(store.map.get("flows")?.value ?? "[]") as Array<[string, number]>;
    assert.deepEqual(index.map((e) => `flow ${e[0]}`).sort(), rest);
    assert.ok((await auth.tokens(world.mcpUrl))?.accessToken);
  } finally {
    await world.close();
  }
});

test("A3: the open flows in a store are bounded by MAX_OPEN_FLOWS; the oldest is deleted first", T, async () => {
  const world = await startOidc();
  try {
    const store = listableStore();
    const auth = new OAuthClient({ redirectUri: REDIRECT, store });
    const first = (await startFlow(world, auth)).state;
    let last = first;
    for (let i = 0; i < MAX_OPEN_FLOWS; i++) last = (await startFlow(world, auth)).state;
    assert.equal(store.flows().length, MAX_OPEN_FLOWS);
    assert.ok(store.flows().includes(`flow ${last}`));
    assert.ok(!store.flows().includes(`flow ${first}`), "the oldest flow was kept past the bound");
    // A hostile index (not JSON, huge) is ignored, not trusted or thrown on.
    const cur = await store.get("flows");
    await store.set("flows", "x".repeat(1 << 20), cur?.version);
    await startFlow(world, auth);
    assert.ok(((await store.get("flows"))?.value.length ?? 0) < 4096);
  } finally {
    await world.close();
  }
});

test("A3: a login the user abandons (the interactive step fails, or outlasts its bound) deletes its flow at once, not only once it expires", T, async () => {
  const world = await startOidc();
  try {
    const store = listableStore();
    // The user closed the browser: the host's step rejects.
    const closed = new OAuthClient({ redirectUri: REDIRECT, store, authorize: async () => Promise.reject(new Error("the user closed the window")) });
    await assert.rejects(McpClient.connect(new HttpTransport(world.mcpUrl, { auth: closed })), /closed the window/);
    assert.deepEqual(store.flows(), [], "the abandoned flow is still in the store");
    assert.equal(store.map.get("flows"), undefined, "the index still names it");
    // The user never came back: the step outlasts interactionTimeoutMs.
    const slow = new OAuthClient({ redirectUri: REDIRECT, store, interactionTimeoutMs: 200, authorize: ({ signal }) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")))) });
    await assert.rejects(McpClient.connect(new HttpTransport(world.mcpUrl, { auth: slow })), (e: unknown) => e instanceof OAuthError && e.kind === "timeout");
    assert.deepEqual(store.flows(), []);
    // A flow left for a redirecting web app (no interactive step) stays open for its callback.
    const web = new OAuthClient({ redirectUri: REDIRECT, store });
    const { state } = await startFlow(world, web);
    assert.deepEqual(store.flows(), [`flow ${state}`]);
  } finally {
    await world.close();
  }
});
