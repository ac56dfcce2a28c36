// Builds dist/ (the vendorable bundles and their .d.ts) and build/ (the test tree).
// Usage: node scripts/build.mjs [--no-types] [--lenient]
import * as esbuild from "esbuild";
import { readdirSync, readFileSync, statSync, existsSync, rmSync, chmodSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { purityViolations } from "./purity.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
process.chdir(root);

function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (p.endsWith(".ts") && !p.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

const srcFiles = walk("src");
const problems = purityViolations(srcFiles);
if (problems.length) {
  console.error("build: purity check failed:\n  " + problems.join("\n  "));
  process.exit(1);
}

rmSync("build", { recursive: true, force: true });
// Test tree: every .ts of src/ and spec-tests/ transpiled one to one (no bundling), so
// tests import the modules they exercise.
const testTree = {
  outdir: "build",
  outbase: ".",
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: "inline",
  logLevel: "warning",
};
if (process.argv.includes("--lenient")) {
  // Transpile file by file and skip the ones that do not compile (work in progress
  // elsewhere in the tree); never used by `npm test`.
  const results = await Promise.allSettled(
    [...srcFiles, ...walk("spec-tests")].map((f) => esbuild.build({ ...testTree, entryPoints: [f], logLevel: "silent" })),
  );
  const failed = results.filter((r) => r.status === "rejected").length;
  if (failed) console.error(`build: ${failed} file(s) skipped (--lenient)`);
} else {
  await esbuild.build({ ...testTree, entryPoints: [...srcFiles, ...walk("spec-tests")] });
}

const bundles = [
  { entry: "src/index.ts", out: "dist/yada.js", platform: "neutral" },
  { entry: "src/limits.ts", out: "dist/limits.js", platform: "neutral" },
  { entry: "src/node.ts", out: "dist/yada-node.js", platform: "node" },
  { entry: "src/cli/main.ts", out: "dist/cli.js", platform: "node", banner: "#!/usr/bin/env node" },
  // The demo runs from the repository (it launches fixtures/servers/catalog), so it is
  // built outside dist/ and never shipped.
  { entry: "src/cli/demo.ts", out: "build/demo.js", platform: "node" },
];
for (const b of bundles) {
  if (!existsSync(b.entry) || process.argv.includes("--lenient")) continue;
  await esbuild.build({
    entryPoints: [b.entry],
    outfile: b.out,
    bundle: true,
    format: "esm",
    platform: b.platform,
    target: "es2022",
    mainFields: b.platform === "neutral" ? ["module", "main"] : undefined,
    banner: b.banner ? { js: b.banner } : undefined,
    legalComments: "none",
    logLevel: "warning",
  });
  if (b.banner) chmodSync(b.out, 0o755);
}

if (!process.argv.includes("--no-types")) {
  rmSync("dist/types", { recursive: true, force: true });
  execFileSync(join("node_modules", ".bin", "tsc"), ["-p", "tsconfig.types.json"], { stdio: "inherit" });
}
