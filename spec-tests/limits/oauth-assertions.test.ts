// A7 bounds of the enterprise and workload grants, crossed against the loopback
// enterprise world (fixtures/oauth/enterprise.mjs) and real files: a value at each
// bound is used (sent, or read), one past it is refused before anything is sent.
import assert from "node:assert/strict";
import { test } from "node:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HttpTransport } from "../../src/transport/http.js";
import { McpClient } from "../../src/mcp/client.js";
import { OAuthClient } from "../../src/auth/client.js";
import { checkAssertion } from "../../src/auth/assertion.js";
import { enterpriseSignIn } from "../../src/auth/enterprise.js";
import { readWorkloadToken } from "../../src/cli/login.js";
import { ConfigError, OAuthError } from "../../src/errors.js";
import { ASSERTION_CLOCK_SKEW_S, MAX_SUBJECT_TOKEN_CHARS, MAX_WORKLOAD_TOKEN_FILE_BYTES } from "../../src/limits.js";
import { AS_CLIENT, IDP_CLIENT, startEnterprise } from "../auth/enterprise-world.js";

const T = { timeout: 30_000 };

test("A7: an assertion expired by ASSERTION_CLOCK_SKEW_S seconds is still sent; one second more and it is refused", () => {
  const now = Date.now();
  const jwt = (exp: number): string => `${Buffer.from('{"alg":"ES256"}').toString("base64url")}.${Buffer.from(JSON.stringify({ aud: "https://as.example", exp })).toString("base64url")}.c2ln`;
  const at = Math.floor(now / 1000) - ASSERTION_CLOCK_SKEW_S;
  assert.ok(checkAssertion(jwt(at), { what: "t", audience: ["https://as.example"], now }));
  assert.throws(() => checkAssertion(jwt(at - 1), { what: "t", audience: ["https://as.example"], now }), (e: unknown) => e instanceof OAuthError && e.kind === "assertion_mismatch" && e.field === "exp");
});

test("A7: an identity assertion of MAX_SUBJECT_TOKEN_CHARS characters is sent to the IdP; one character more is refused before it", T, async () => {
  const world = await startEnterprise();
  try {
    const attempt = async (chars: number): Promise<OAuthError> => {
      const auth = new OAuthClient({
        grant: enterpriseSignIn({ issuer: world.idpIssuer, client: IDP_CLIENT, identityAssertion: async () => ({ token: "s".repeat(chars), type: "saml2" }) }),
        clients: [{ issuer: world.asIssuer, ...AS_CLIENT }],
      });
      const e = await McpClient.connect(new HttpTransport(world.mcpUrl, { auth })).then(
        () => assert.fail("connected"),
        (err: unknown) => err,
      );
      assert.ok(e instanceof OAuthError, String(e));
      return e;
    };
    // The demo IdP takes ID tokens only: a SAML assertion it received is refused there (invalid_request).
    const at = await attempt(MAX_SUBJECT_TOKEN_CHARS);
    assert.equal(at.oauthError, "invalid_request", at.message);
    assert.equal(world.idp.at(-1)?.form.get("subject_token")?.length, MAX_SUBJECT_TOKEN_CHARS);
    const over = await attempt(MAX_SUBJECT_TOKEN_CHARS + 1);
    assert.equal(over.kind, "assertion_mismatch");
    assert.equal(world.idp.length, 1, "the oversized assertion reached the IdP");
  } finally {
    await world.close();
  }
});

test("A7: a workload token file of MAX_WORKLOAD_TOKEN_FILE_BYTES bytes is read; one byte more is a config error", async () => {
  const dir = mkdtempSync(join(tmpdir(), "yada-workload-"));
  try {
    const file = join(dir, "token");
    writeFileSync(file, "a".repeat(MAX_WORKLOAD_TOKEN_FILE_BYTES - 1) + "\n");
    assert.equal((await readWorkloadToken(file)).length, MAX_WORKLOAD_TOKEN_FILE_BYTES - 1);
    writeFileSync(file, "a".repeat(MAX_WORKLOAD_TOKEN_FILE_BYTES + 1));
    await assert.rejects(readWorkloadToken(file), (e: unknown) => e instanceof ConfigError && /larger than/.test(e.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
