import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { repoPath } from "../helpers/paths.js";

// A6: the auth scenarios of the official conformance suite that pin the pitfalls
// (mix-up, missing iss, issuer echo, resource mismatch, step-up and its limit,
// client authentication, machine clients, DPoP nonces, metadata documents), run by
// scripts/conformance/run.mjs. `npm run conformance` runs every auth scenario.
const RUNS = [
  "next:auth/iss-wrong-issuer",
  "next:auth/metadata-issuer-mismatch",
  "next:auth/resource-mismatch",
  "next:auth/scope-retry-limit@2026-07-28",
  "next:auth/client-credentials-jwt",
  "next:auth/dpop-nonce",
  "next:auth/authorization-server-migration",
];

test("A6: the official conformance suite's auth scenarios for each pitfall pass", { timeout: 300_000 }, () => {
  const r = spawnSync(process.execPath, [repoPath("scripts", "conformance", "run.mjs"), ...RUNS], { encoding: "utf8", timeout: 290_000 });
  const out = `${r.stdout}${r.stderr}`;
  const summary = /conformance: (\d+) of (\d+) scenario runs passed with checks/.exec(out);
  assert.ok(summary, out.slice(-3000));
  assert.equal(Number(summary[1]), RUNS.length, out.slice(-3000));
  assert.equal(r.status, 0, out.slice(-3000));
});
