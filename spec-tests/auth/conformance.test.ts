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

// A7: the enterprise extensions, each scenario of both suites: the token exchange for an
// ID-JAG and the JWT bearer grant (stable and next), and the workload's JWT bearer grant.
const ENTERPRISE = ["stable:auth/cross-app-access-complete-flow", "next:auth/enterprise-managed-authorization", "next:auth/wif-jwt-bearer"];

/** Runs `ids` with the conformance runner: every one passes with scored checks, none failed or warned. */
function passes(ids: readonly string[], timeoutMs: number): void {
  const r = spawnSync(process.execPath, [repoPath("scripts", "conformance", "run.mjs"), ...ids], { encoding: "utf8", timeout: timeoutMs });
  const out = `${r.stdout}${r.stderr}`;
  const summary = /conformance: (\d+) of (\d+) scenario runs passed with checks/.exec(out);
  assert.ok(summary, out.slice(-3000));
  assert.equal(Number(summary[1]), ids.length, out.slice(-3000));
  assert.match(out, /\(\d+ checks passed, 0 failed, 0 warnings\)/);
  assert.equal(r.status, 0, out.slice(-3000));
}

test("A7: the conformance suites' enterprise-managed authorization and workload identity scenarios pass", { timeout: 200_000 }, () => passes(ENTERPRISE, 190_000));

test("A6: the official conformance suite's auth scenarios for each pitfall pass", { timeout: 300_000 }, () => passes(RUNS, 290_000));
