// A2: what fuzzing the OAuth answers found (Y6), one regression test per finding.
import { test } from "node:test";
import assert from "node:assert/strict";
import { oauthChallenge, parseChallenges } from "../../src/auth/challenge.js";

test("A2: WWW-Authenticate: an empty list element between auth-params keeps the params after it in their challenge", () => {
  // RFC 9110 §5.6.1: a recipient accepts empty list elements, inside a challenge's params too.
  const c = parseChallenges('Bearer realm="mcp",, error="insufficient_scope" , ,scope="files:write", Basic realm="x"');
  assert.deepEqual(
    c.map((x) => [x.scheme, { ...x.params }]),
    [
      ["bearer", { realm: "mcp", error: "insufficient_scope", scope: "files:write" }],
      ["basic", { realm: "x" }],
    ],
  );
  // What the client acts on: the step-up scope and the metadata URL are not lost to a bogus scheme.
  const headers = new Headers({ "www-authenticate": 'Bearer error="insufficient_scope",,resource_metadata="https://a.example/.well-known/oauth-protected-resource"' });
  assert.equal(oauthChallenge({ headers })?.params.resource_metadata, "https://a.example/.well-known/oauth-protected-resource");
});
