// Builds dist/ (the vendorable bundles and their .d.ts) and build/ (the test tree).
// Usage: node scripts/build.mjs [--no-types]
import * as esbuild from "esbuild";
import { readdirSync, readFileSync, statSync, existsSync, rmSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

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

// X1: the web entry is web-standard. Everything under src/ except src/node/, src/cli/
// and src/node.ts must not import node:* nor touch process / Buffer; nothing may eval.
const WEB_FORBIDDEN = [
  [/\bfrom\s+["']node:/, "imports a node: module"],
  [/\bimport\s*\(\s*["']node:/, "imports a node: module"],
  [/\brequire\s*\(/, "calls require"],
  [/(?<![.\w])process\s*\./, "touches process"],
  [/(?<![.\w])Buffer\s*[.(]/, "touches Buffer"],
];
const EVERYWHERE_FORBIDDEN = [
  [/(?<![.\w])eval\s*\(/, "calls eval"],
  [/\bnew\s+Function\s*\(/, "calls new Function"],
];
export function purityViolations(files) {
  const problems = [];
  for (const file of files) {
    const rel = relative("src", file).split(sep).join("/");
    const nodeSide = rel.startsWith("node/") || rel.startsWith("cli/") || rel === "node.ts";
    const text = readFileSync(file, "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
    const rules = nodeSide ? EVERYWHERE_FORBIDDEN : [...WEB_FORBIDDEN, ...EVERYWHERE_FORBIDDEN];
    for (const [re, why] of rules) if (re.test(text)) problems.push(`${file} ${why}`);
  }
  return problems;
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
await esbuild.build({
  entryPoints: [...srcFiles, ...walk("spec-tests")],
  outdir: "build",
  outbase: ".",
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: "inline",
  logLevel: "warning",
});

const bundles = [
  { entry: "src/index.ts", out: "dist/yada.js", platform: "neutral" },
  { entry: "src/node.ts", out: "dist/yada-node.js", platform: "node" },
  { entry: "src/cli/main.ts", out: "dist/cli.js", platform: "node", banner: "#!/usr/bin/env node" },
  { entry: "src/cli/demo.ts", out: "dist/demo.js", platform: "node" },
];
for (const b of bundles) {
  if (!existsSync(b.entry)) continue;
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
}

if (!process.argv.includes("--no-types")) {
  rmSync("dist/types", { recursive: true, force: true });
  execFileSync(join("node_modules", ".bin", "tsc"), ["-p", "tsconfig.types.json"], { stdio: "inherit" });
}
