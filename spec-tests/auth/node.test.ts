// A5, A6 (Node): the file token store (mode 0600, atomic replace, compare-and-swap
// across writers), the loopback redirect listener, and `yada login` / `yada tools`
// as real processes against a real OpenID provider.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileTokenStore } from "../../src/node/token-store.js";
import { startLoopbackRedirect } from "../../src/node/loopback-redirect.js";
import { OAuthError, StoreError } from "../../src/errors.js";
import { CLI, yada } from "../cli/support.js";
import { startOidc } from "./oidc.js";
import { startEnterprise } from "./enterprise-world.js";

const T = { timeout: 30_000 };

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "yada-oauth-"));
}

test("A5: the file token store writes mode 0600, replaces atomically and refuses a stale version", T, async () => {
  const dir = tempDir();
  try {
    const path = join(dir, "sub", "tokens.json");
    const store = new FileTokenStore(path);
    assert.equal(await store.set("k", "v1", undefined), true);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const first = await store.get("k");
    assert.equal(first?.value, "v1");
    assert.equal(await store.set("k", "v2", first?.version), true);
    // A writer holding the old version loses: the compare-and-swap of a refresh (A5).
    assert.equal(await store.set("k", "v3", first?.version), false);
    assert.equal((await new FileTokenStore(path).get("k"))?.value, "v2");
    assert.deepEqual(readdirSync(join(dir, "sub")), ["tokens.json"], "no temporary or lock file is left");
    // Two stores (two processes' worth) racing on one version: exactly one wins.
    const cur = await store.get("k");
    const results = await Promise.all([new FileTokenStore(path).set("k", "a", cur?.version), new FileTokenStore(path).set("k", "b", cur?.version)]);
    assert.deepEqual(results.sort(), [false, true]);
    writeFileSync(path, "not json");
    await assert.rejects(store.get("k"), (e: unknown) => e instanceof StoreError);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("A6: the loopback redirect listener takes one request at its path on 127.0.0.1, then stops; it times out when none comes", T, async () => {
  const listener = await startLoopbackRedirect({ timeoutMs: 5_000 });
  assert.match(listener.redirectUri, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  const waiting = listener.wait();
  assert.equal((await fetch(new URL("/other", listener.redirectUri))).status, 404);
  const page = await fetch(`${listener.redirectUri}?code=c&state=s`);
  assert.equal(page.status, 200);
  assert.ok(!(await page.text()).includes("code=c"), "the page does not echo the callback");
  assert.equal(await waiting, `${listener.redirectUri}?code=c&state=s`);
  await assert.rejects(fetch(listener.redirectUri), "the listener has stopped");
  const idle = await startLoopbackRedirect({ timeoutMs: 200 });
  await assert.rejects(idle.wait(), (e: unknown) => e instanceof OAuthError && e.kind === "timeout");
});

test("A6: yada login prints the authorization URL, waits for the redirect, stores the tokens; yada tools then uses them", { timeout: 60_000 }, async () => {
  const world = await startOidc();
  const dir = tempDir();
  const tokenFile = join(dir, "tokens.json");
  try {
    const env = { ...process.env, YADA_TOKEN_FILE: tokenFile };
    const child = spawn(process.execPath, [CLI, "login", "--url", world.mcpUrl], { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL printed: ${out} ${err}`)), 20_000);
      child.stdout.setEncoding("utf8").on("data", (d: string) => {
        out += d;
        const m = /^\s+(http\S+)$/m.exec(out);
        if (m?.[1]) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
    });
    const redirect = /redirect to (http:\/\/127\.0\.0\.1:\d+\/callback)/.exec(out)?.[1];
    assert.ok(redirect, out);
    assert.ok(url.startsWith(`${world.issuer}/`), url);
    const callback = await world.browser(url, redirect);
    await (await fetch(callback)).text(); // the browser lands on the listener
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    assert.equal(code, 0, `${out}\n${err}`);
    assert.match(out, /Logged in to/);
    assert.equal(statSync(tokenFile).mode & 0o777, 0o600);
    const tools = await yada(["tools", "--url", world.mcpUrl, "--json"], { env: { YADA_TOKEN_FILE: tokenFile } });
    assert.equal(tools.code, 0, tools.stderr);
    assert.deepEqual((JSON.parse(tools.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name), ["read", "write"]);
    assert.ok(!tools.stdout.includes(world.seen.at(-1)?.slice(7) ?? "-"), "no token in the output");
    // Without a login the server's 401 stays an error, and no login is started.
    const other = await yada(["tools", "--url", world.mcpUrl], { env: { YADA_TOKEN_FILE: join(dir, "none.json") } });
    assert.notEqual(other.code, 0);
  } finally {
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("A7: yada login --workload-token-file logs a workload in with its platform JWT (no browser); later commands obtain new tokens from the file, rotated in place", { timeout: 60_000 }, async () => {
  const world = await startEnterprise();
  const dir = tempDir();
  const tokenFile = join(dir, "tokens.json");
  const jwtFile = join(dir, "workload.jwt");
  try {
    const env = { YADA_TOKEN_FILE: tokenFile };
    writeFileSync(jwtFile, `${world.workloadJwt()}\n`);
    const login = await yada(["login", "--url", world.mcpUrl, "--workload-token-file", jwtFile], { env });
    assert.equal(login.code, 0, login.stderr);
    assert.match(login.stdout, /Logged in to .* as a workload/);
    assert.ok(!login.stdout.includes("eyJ"), "the JWT was printed");
    assert.equal(world.as.length, 1);
    assert.equal(world.as[0]?.form.get("grant_type"), "urn:ietf:params:oauth:grant-type:jwt-bearer");
    assert.equal(statSync(tokenFile).mode & 0o777, 0o600);
    const tools = await yada(["tools", "--url", world.mcpUrl, "--json"], { env });
    assert.equal(tools.code, 0, tools.stderr);
    assert.equal(world.as.length, 1, "the stored token was used");
    // The token expires and the platform rotated the file: the next command gets a new token from it.
    world.expireAll();
    writeFileSync(jwtFile, `${world.workloadJwt()}\n`);
    const again = await yada(["tools", "--url", world.mcpUrl, "--json"], { env });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(world.as.length, 2);
    // A missing file is a config error before anything is sent.
    const missing = await yada(["login", "--url", world.mcpUrl, "--workload-token-file", join(dir, "none.jwt")], { env });
    assert.notEqual(missing.code, 0);
    assert.equal(world.as.length, 2);
  } finally {
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
