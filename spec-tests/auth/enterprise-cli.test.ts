// A7: `yada login --id-token-file` (enterprise-managed authorization from a terminal)
// as real processes against the loopback identity provider and authorization server
// of fixtures/oauth/enterprise.mjs: the ID token the host's sign-on tool wrote is
// exchanged for an ID-JAG, the ID-JAG is the JWT bearer grant, and later commands
// obtain new tokens from the file. Each refusal happens before anything is sent.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_ID_TOKEN_FILE_BYTES } from "../../src/limits.js";
import { errorCodes, yada } from "../cli/support.js";
import { AS_CLIENT, IDP_CLIENT, JWT_BEARER, startEnterprise, TOKEN_EXCHANGE } from "./enterprise-world.js";

const T = { timeout: 90_000 };

async function withWorld(body: (w: Awaited<ReturnType<typeof startEnterprise>>, dir: string) => Promise<void>): Promise<void> {
  const world = await startEnterprise();
  const dir = mkdtempSync(join(tmpdir(), "yada-enterprise-"));
  try {
    await body(world, dir);
  } finally {
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const loginArgs = (w: { mcpUrl: string; idpIssuer: string }, idTokenFile: string): string[] => [
  "login",
  "--url",
  w.mcpUrl,
  "--id-token-file",
  idTokenFile,
  "--idp-issuer",
  w.idpIssuer,
  "--idp-client-id",
  IDP_CLIENT.clientId,
  "--client-id",
  AS_CLIENT.clientId,
];

test("A7: yada login --id-token-file exchanges the sign-on tool's ID token for an ID-JAG and logs in with it (no browser); later commands use the tokens, then a renewed file", T, async () => {
  await withWorld(async (world, dir) => {
    const tokenFile = join(dir, "tokens.json");
    const idTokenFile = join(dir, "id.jwt");
    const env = { YADA_TOKEN_FILE: tokenFile, YADA_IDP_CLIENT_SECRET: IDP_CLIENT.clientSecret, YADA_CLIENT_SECRET: AS_CLIENT.clientSecret };
    writeFileSync(idTokenFile, `${world.idToken()}\n`);
    const login = await yada(loginArgs(world, idTokenFile), { env });
    assert.equal(login.code, 0, login.stderr);
    assert.match(login.stdout, /Logged in to .* with the enterprise sign-in in /);
    assert.ok(!/eyJ|secret/.test(login.stdout + login.stderr), "a token or secret was printed");
    assert.equal(world.idp.length, 1);
    assert.equal(world.idp[0]?.form.get("grant_type"), TOKEN_EXCHANGE);
    assert.equal(world.as.length, 1);
    assert.equal(world.as[0]?.form.get("grant_type"), JWT_BEARER);
    assert.equal(statSync(tokenFile).mode & 0o777, 0o600);
    // Later commands present the client to the authorization server the login found, only.
    assert.match(readFileSync(tokenFile, "utf8"), new RegExp(`cli enterprise .*${world.asIssuer.replace(/[.:/]/g, "\\$&")}`));

    // The stored token is used; no environment needed any more.
    const laterEnv = { YADA_TOKEN_FILE: tokenFile };
    const tools = await yada(["tools", "--url", world.mcpUrl, "--json"], { env: laterEnv });
    assert.equal(tools.code, 0, tools.stderr);
    assert.equal(world.idp.length, 1, "the stored token was used");

    // The token expired; the sign-on tool renewed the file in place: the next command signs in with it.
    world.expireAll();
    writeFileSync(idTokenFile, `${world.idToken()}\n`);
    const again = await yada(["tools", "--url", world.mcpUrl, "--json"], { env: laterEnv });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(world.idp.length, 2);
    assert.equal(world.as.length, 2);

    // The file holds an expired ID token when a new token is needed: a login to redo (exit 8), nothing sent.
    world.expireAll();
    writeFileSync(idTokenFile, world.idToken("alice", { exp: Math.floor(Date.now() / 1000) - 3600 }));
    const expired = await yada(["tools", "--url", world.mcpUrl, "--json"], { env: laterEnv });
    assert.equal(expired.code, 8, expired.stderr);
    assert.equal(world.idp.length, 2, "an expired ID token was sent");
  });
});

test("A7: yada login --id-token-file refuses before anything is sent: an expired ID token (exit 8), one for another client or issuer (exit 9), an oversized or missing file, missing flags (exit 2)", T, async () => {
  await withWorld(async (world, dir) => {
    const env = { YADA_TOKEN_FILE: join(dir, "tokens.json"), YADA_IDP_CLIENT_SECRET: IDP_CLIENT.clientSecret, YADA_CLIENT_SECRET: AS_CLIENT.clientSecret };
    const idTokenFile = join(dir, "id.jwt");
    const now = Math.floor(Date.now() / 1000);

    writeFileSync(idTokenFile, world.idToken("alice", { exp: now - 3600 }));
    const expired = await yada(loginArgs(world, idTokenFile), { env });
    assert.equal(expired.code, 8, expired.stderr);
    assert.match(expired.stderr, /has expired/);

    writeFileSync(idTokenFile, world.idToken("alice", { aud: "someone-else" }));
    const otherClient = await yada(loginArgs(world, idTokenFile), { env });
    assert.equal(otherClient.code, 9, otherClient.stderr);
    assert.deepEqual(errorCodes(otherClient.stderr), ["oauth"]);

    writeFileSync(idTokenFile, world.idToken("alice", { iss: "https://other-idp.example" }));
    const otherIssuer = await yada(loginArgs(world, idTokenFile), { env });
    assert.equal(otherIssuer.code, 9, otherIssuer.stderr);

    writeFileSync(idTokenFile, "a".repeat(MAX_ID_TOKEN_FILE_BYTES + 1));
    const big = await yada(loginArgs(world, idTokenFile), { env });
    assert.equal(big.code, 2, big.stderr);
    assert.match(big.stderr, /larger than/);

    const missing = await yada(loginArgs(world, join(dir, "none.jwt")), { env });
    assert.equal(missing.code, 2, missing.stderr);

    const noClient = await yada(loginArgs(world, idTokenFile).slice(0, -2), { env });
    assert.equal(noClient.code, 2, noClient.stderr);
    const stray = await yada(["login", "--url", world.mcpUrl, "--client-id", "x"], { env });
    assert.equal(stray.code, 2, stray.stderr);

    assert.equal(world.idp.length, 0, "something was sent to the identity provider");
    assert.equal(world.as.length, 0, "something was sent to the authorization server");
  });
});
