// P6: a package that says where it comes from. The manifest names the repository,
// its home page and where to report bugs, all the same GitHub repository; the
// README, which the registry shows as the package's page, links the guides and the
// examples by absolute URLs into that repository; `npm pack` builds what it packs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isolatedCopy } from "../helpers/isolated.js";
import { repoPath } from "../helpers/paths.js";

interface Manifest {
  name: string;
  repository?: { type?: string; url?: string };
  homepage?: string;
  bugs?: { url?: string };
  scripts: Record<string, string>;
}
const manifest = JSON.parse(readFileSync(repoPath("package.json"), "utf8")) as Manifest;
const REPO = /^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/;

/** The repository's web address, from `repository.url`. */
function repository(): string {
  const url = manifest.repository?.url ?? "";
  return url.replace(/^git\+/, "").replace(/\.git$/, "");
}

test("P6: package.json names the repository, its home page and its issue tracker, one GitHub repository for all three", () => {
  assert.equal(manifest.name, "yada-mcp");
  assert.equal(manifest.repository?.type, "git");
  assert.match(manifest.repository?.url ?? "", /^git\+https:\/\/github\.com\/[\w.-]+\/[\w.-]+\.git$/);
  const repo = repository();
  assert.match(repo, REPO);
  assert.equal(manifest.homepage, `${repo}#readme`);
  assert.equal(manifest.bugs?.url, `${repo}/issues`);
});

test("P6: every link of the README works from the registry's page: absolute, into the repository, to a file that exists", () => {
  const readme = readFileSync(repoPath("README.md"), "utf8").replace(/```[\s\S]*?```/g, "");
  const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? "");
  assert.ok(links.length >= 15, `only ${links.length} links`);
  const repo = repository();
  const relative = links.filter((l) => !/^(https?:|mailto:|#)/.test(l));
  assert.deepEqual(relative, [], "relative links break on the registry's page");
  for (const link of links.filter((l) => l.startsWith(`${repo}/`))) {
    const m = /^[^#]+?\/(?:blob|tree)\/main\/([^#?]+)/.exec(link);
    assert.ok(m, `${link}: not a link to a file or folder of the main branch`);
    assert.ok(existsSync(repoPath(m[1] ?? "")), `${link}: no ${m[1]} in the repository`);
  }
  for (const guide of ["docs/client.md", "docs/api.md", "docs/features.md"]) assert.ok(links.includes(`${repo}/blob/main/${guide}`), `the README does not link ${guide}`);
  assert.ok(links.includes(`${repo}/tree/main/examples`), "the README does not link the examples");
});

test("P6: npm pack builds what it packs (prepack), from a copy with no dist/", { timeout: 300_000 }, () => {
  assert.equal(manifest.scripts.prepack, "node scripts/build.mjs");
  const copy = isolatedCopy({ withBuilt: false });
  const out = mkdtempSync(join(tmpdir(), "yada-pack-"));
  try {
    assert.equal(existsSync(join(copy.dir, "dist")), false);
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("npm_") && k !== "NODE_TEST_CONTEXT"));
    const r = spawnSync("npm", ["pack", "--json", "--pack-destination", out], { cwd: copy.dir, env, encoding: "utf8", timeout: 240_000, maxBuffer: 16 << 20 });
    assert.equal(r.status, 0, `npm pack:\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}`);
    const [info] = JSON.parse(r.stdout.slice(r.stdout.indexOf("["))) as { files: { path: string }[] }[];
    const files = (info?.files ?? []).map((f) => f.path);
    for (const f of ["dist/yada.js", "dist/yada-node.js", "dist/limits.js", "dist/cli.js", "dist/types/index.d.ts", "dist/types/node.d.ts", "dist/types/limits.d.ts"]) {
      assert.ok(files.includes(f), `the tarball has no ${f}`);
    }
  } finally {
    copy.remove();
    rmSync(out, { recursive: true, force: true });
  }
});
