// A5: a login that asks for offline_access asks for it the way OpenID providers issue
// refresh tokens (OpenID Connect Core §11: with prompt=consent), where the provider's
// metadata advertises that prompt; and when no refresh token comes anyway, the stored
// tokens say so (refreshTokenMissing) and the host is told in the log. Against
// oidc-provider with its own refresh token rule (a refresh token only for a granted
// offline_access, which it grants only on a consent prompt).
import { test } from "node:test";
import assert from "node:assert/strict";
import { HttpTransport } from "../../src/transport/http.js";
import { McpClient } from "../../src/mcp/client.js";
import { OAuthClient } from "../../src/auth/client.js";
import { startOidc } from "./oidc.js";

const T = { timeout: 30_000 };
const REDIRECT = "http://127.0.0.1:8976/callback";

async function login(discovery?: Record<string, unknown>): Promise<{ url: URL; tokens: Awaited<ReturnType<OAuthClient["tokens"]>>; warnings: string[] }> {
  const world = await startOidc([], { offlineOnly: true, ...(discovery && { discovery }) });
  try {
    let url: URL | undefined;
    const warnings: string[] = [];
    const auth = new OAuthClient({
      redirectUri: REDIRECT,
      logger: (level, message) => void (level === "warn" && warnings.push(message)),
      authorize: async (step) => {
        url = new URL(step.url);
        return world.browser(step.url, REDIRECT);
      },
    });
    const client = await McpClient.connect(new HttpTransport(world.mcpUrl, { auth }), { clientInfo: { name: "offline", version: "1" } });
    await client.close();
    assert.ok(url);
    return { url, tokens: await auth.tokens(world.mcpUrl), warnings };
  } finally {
    await world.close();
  }
}

test("A5: offline_access is asked with prompt=consent where the provider advertises it, and the provider then issues a refresh token", T, async () => {
  const { url, tokens } = await login({ prompt_values_supported: ["none", "login", "consent"] });
  assert.ok(url.searchParams.get("scope")?.split(" ").includes("offline_access"));
  assert.equal(url.searchParams.get("prompt"), "consent");
  assert.ok(tokens?.refreshToken, "no refresh token was issued");
  assert.equal(tokens?.refreshTokenMissing, undefined);
});

test("A5: where the provider does not advertise prompt=consent it is not sent; the missing refresh token is said in the stored tokens and the log", T, async () => {
  const { url, tokens, warnings } = await login();
  assert.ok(url.searchParams.get("scope")?.split(" ").includes("offline_access"));
  assert.equal(url.searchParams.get("prompt"), null);
  assert.equal(tokens?.refreshToken, undefined);
  assert.equal(tokens?.refreshTokenMissing, true);
  assert.ok(warnings.some((w) => /no refresh token/.test(w)), warnings.join("\n"));
});
