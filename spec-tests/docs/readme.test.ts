import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, mkdirSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { repoPath } from "../helpers/paths.js";

import { existsSync, readdirSync } from "node:fs";

const readme = readFileSync(repoPath("README.md"), "utf8");
// The guides in docs/ are held to the same rules: their examples run, and they
// count as documentation of the exports they show.
const guides = existsSync(repoPath("docs"))
  ? readdirSync(repoPath("docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => readFileSync(repoPath("docs", f), "utf8"))
  : [];
const documentation = [readme, ...guides].join("\n");

// Every ```js block of the README is a runnable example: it runs from the
// repository (imports of "yada" / "yada/node" resolve to the built bundles through
// the package's own exports) and must exit 0.
const examples = [...documentation.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");

test("README: every js example runs", { timeout: 120_000 }, () => {
  assert.ok(examples.length >= 6, `only ${examples.length} examples`);
  const dir = repoPath("build", "readme-examples");
  mkdirSync(dir, { recursive: true });
  examples.forEach((code, i) => {
    const file = `${dir}/example-${i + 1}.mjs`;
    writeFileSync(file, code.replaceAll('from "./fixtures/', `from "${pathToFileURL(repoPath("fixtures")).href}/`));
    const r = spawnSync(process.execPath, [file], { cwd: repoPath(), encoding: "utf8", timeout: 30_000 });
    assert.equal(r.status, 0, `example ${i + 1} failed:\n${code}\n${r.stdout}\n${r.stderr}`);
  });
});

test("README: the limits and error-code tables and the CLI reference match the source", async () => {
  const { regenerate } = (await import(pathToFileURL(repoPath("scripts", "docs.mjs")).href)) as {
    regenerate: (text: string, only: string[]) => string;
  };
  assert.equal(regenerate(readme, ["limits", "errors", "cli"]), readme, "run node scripts/docs.mjs");
});

test("README: every public export is documented", () => {
  const names = new Set<string>();
  for (const entry of ["src/index.ts", "src/node.ts"]) {
    const src = readFileSync(repoPath(entry), "utf8");
    // Names re-exported wholesale (`export * from "./x.js"`) count too.
    for (const m of src.matchAll(/export \* from "\.\/(.+?)\.js"/g)) {
      const mod = readFileSync(repoPath("src", `${m[1]}.ts`), "utf8");
      for (const d of mod.matchAll(/^export (?:declare )?(?:abstract )?(?:class|function|const|type|interface|enum) (\w+)/gm)) if (d[1]) names.add(d[1]);
      for (const d of mod.matchAll(/^export (?:type )?\{([^}]*)\}/gm)) {
        for (const part of (d[1] ?? "").split(",")) {
          const name = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/).pop()?.trim();
          if (name) names.add(name);
        }
      }
    }
    for (const m of src.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
      for (const part of (m[1] ?? "").split(",")) {
        const name = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/).pop()?.trim();
        if (name) names.add(name);
      }
    }
  }
  const missing = [...names].filter((n) => !new RegExp(`\\b${n}\\b`).test(documentation));
  assert.deepEqual(missing, [], `not in README: ${missing.join(", ")}`);
});

test("README: every public function and class is used in a runnable example", async () => {
  const code = examples.join("\n");
  const names = new Set<string>();
  for (const bundle of ["yada.js", "yada-node.js"]) {
    const mod = (await import(pathToFileURL(repoPath("dist", bundle)).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(mod)) if (typeof value === "function") names.add(name);
  }
  assert.ok(names.size > 50, `only ${names.size} callable exports found`);
  const missing = [...names].filter((n) => !new RegExp(`\\b${n}\\b`).test(code));
  assert.deepEqual(missing, [], `in no js example: ${missing.join(", ")}`);
});
