// P5: the repository stands alone. A clone with nothing beside it must pass its
// tests, so nothing the tests, scripts or doc generator use may live beside the
// repository. Three guards, from cheap to real:
// - every test process runs under scripts/read-guard.mjs, which refuses reads
//   beside the repository as a lone clone would (and logs them, so a swallowed
//   failure still fails the run);
// - the sources of tests, scripts and fixtures are scanned for path expressions
//   that reach out of the repository;
// - a copy of the repository in a temporary folder of its own (nothing beside it)
//   regenerates its reference pages and runs the tests that read test data.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, extname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isolatedCopy } from "../helpers/isolated.js";
import { repoPath, repoRoot } from "../helpers/paths.js";

interface Guard {
  repo: string;
  beside: string;
  log: string;
  outsideRepository(path: unknown): boolean;
  probe<T>(fn: () => T): T;
}
const guard = (globalThis as Record<symbol, unknown>)[Symbol.for("yada.readGuard")] as Guard | undefined;
const beside = dirname(repoRoot);

test("P5: every test process runs under the read guard: a read beside the repository fails as in a lone clone", async () => {
  assert.ok(guard, "the read guard is not loaded: run the tests with node scripts/test.mjs (npm test)");
  assert.equal(resolve(guard.repo), repoRoot);
  if (beside === dirname(beside)) return; // a repository at the file system's root has nothing beside it
  // Any folder beside the repository: the guard refuses them all alike.
  const sibling = join(beside, "elsewhere", "design", "FEATURES.md");
  assert.equal(guard.outsideRepository(sibling), true);
  assert.equal(guard.outsideRepository(pathToFileURL(sibling)), true);
  assert.equal(guard.outsideRepository(repoPath("fixtures", "README.md")), false);
  assert.equal(guard.outsideRepository(join(tmpdir(), "yada-consumer-x", "a")), false);
  const refused = (e: unknown) => (e as { code?: string; guard?: string }).code === "ENOENT" && (e as { guard?: string }).guard === "ERR_OUTSIDE_REPOSITORY";
  guard.probe(() => {
    assert.throws(() => readFileSync(sibling), refused);
    assert.throws(() => readdirSync(beside), refused);
    assert.throws(() => statSync(join(beside, "elsewhere")), refused);
    assert.equal(existsSync(join(beside, "elsewhere")), false);
  });
  // The promise form, checked with logging off as well.
  const probing = guard.probe(() => readFile(relative(process.cwd(), sibling)));
  await assert.rejects(probing, refused);
  // Reads inside the repository are untouched.
  assert.match(readFileSync(repoPath("package.json"), "utf8"), /"name"/);
});

// ── the static scan ──────────────────────────────────────────────────────────

const SCANNED = ["spec-tests", "scripts", "fixtures", "examples", ".ci"];
const CODE = new Set([".ts", ".mts", ".mjs", ".js", ".cjs", ""]);

function sources(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    if (name === "node_modules") continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (CODE.has(extname(name)) && !name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

const within = (p: string) => p === repoRoot || p.startsWith(repoRoot + sep);
/** Where a source file runs from: itself, and for a spec-test its transpiled twin under build/. */
function locations(file: string): string[] {
  const rel = relative(repoRoot, file);
  return rel.startsWith(`spec-tests${sep}`) ? [file, join(repoRoot, "build", rel.replace(/\.m?ts$/, ".js"))] : [file];
}

/** The path expressions of one source that reach out of the repository, as "file:line: why". */
function reachingOut(file: string, text: string): string[] {
  const found: string[] = [];
  const rel = relative(repoRoot, file);
  const q = "[\"'`]";
  const dots = "\\.\\.";
  const stepUp = new RegExp(`(?:join|resolve)\\(\\s*(?:root|repoRoot|process\\.cwd\\(\\))\\s*,\\s*${q}${dots}(?:${q}|/)`);
  const urlOf = new RegExp(`new URL\\(\\s*${q}([^"'\`]*)${q}\\s*,\\s*import\\.meta\\.url`, "g");
  const fromFile = new RegExp(`resolve\\(\\s*fileURLToPath\\(import\\.meta\\.url\\)\\s*,\\s*${q}([^"'\`]*)${q}`, "g");
  const absolute = beside === dirname(beside) ? null : new RegExp(`${q}${beside.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/(?!${relative(beside, repoRoot).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b)`);
  for (const [i, line] of text.split("\n").entries()) {
    const at = `${rel}:${i + 1}`;
    if (stepUp.test(line)) found.push(`${at}: steps out of the repository root`);
    if (absolute?.test(line)) found.push(`${at}: an absolute path beside the repository`);
    for (const m of line.matchAll(urlOf)) {
      const spec = m[1] ?? "";
      if (/^[a-z]+:/i.test(spec)) continue;
      if (locations(file).every((l) => !within(fileURLToPath(new URL(spec, pathToFileURL(l)))))) found.push(`${at}: new URL(${JSON.stringify(spec)}) leaves the repository`);
    }
    for (const m of line.matchAll(fromFile)) {
      const spec = m[1] ?? "";
      if (locations(file).every((l) => !within(resolve(l, spec)))) found.push(`${at}: ${JSON.stringify(spec)} from the module leaves the repository`);
    }
  }
  return found;
}

test("P5: no test, script, fixture, example or CI step names a path beside the repository", () => {
  const files = SCANNED.flatMap((d) => sources(repoPath(d)));
  assert.ok(files.length > 200, `only ${files.length} sources scanned`);
  const found = files.flatMap((f) => reachingOut(f, readFileSync(f, "utf8")));
  const pkg = JSON.parse(readFileSync(repoPath("package.json"), "utf8")) as { scripts: Record<string, string> };
  for (const [name, script] of Object.entries(pkg.scripts)) found.push(...reachingOut(repoPath("package.json"), `"${script}"`).map((w) => w.replace(/:1:/, ` (scripts.${name}):`)));
  assert.deepEqual(found, []);
});

test("P5: the scan catches what used to reach out (each pattern seen to fire)", () => {
  const f = repoPath("spec-tests", "agent", "support.ts");
  // Built from pieces, so this file does not trip its own scan.
  const [s, up, q] = ["elsewhere", "..", '"'];
  const cases = [
    `export const STREAMS = resolve(process.cwd(), ${q}${up}/${s}/provider-streams${q});`,
    `const FEATURES = join(root, ${q}${up}${q}, ${q}${s}${q}, "design", "FEATURES.md");`,
    `const x = join(repoRoot, ${q}${up}${q}, "elsewhere");`,
    `const y = new URL(${q}${up}/${up}/${up}/${up}/elsewhere/${q}, import.meta.url);`,
    `const z = resolve(fileURLToPath(import.meta.url), ${q}${up}/${up}/${up}/${up}/${up}${q});`,
  ];
  for (const c of cases) assert.notDeepEqual(reachingOut(f, c), [], c);
  if (beside !== dirname(beside)) assert.notDeepEqual(reachingOut(f, `const w = "${beside}/${s}/x";`), []);
  assert.deepEqual(reachingOut(f, `const ok = new URL("../../src/limits.js", import.meta.url);`), []);
});

// ── the feature list ─────────────────────────────────────────────────────────

test("P5: the feature list is the repository's own source, and every ID a test title cites is in it", async () => {
  const docs = (await import(pathToFileURL(repoPath("scripts", "docs.mjs")).href)) as {
    featureRows: () => { title: string; rows: { id: string; requirement: string; from: string }[] }[];
    testsById: () => Map<string, Map<string, number>>;
  };
  const ids = new Set(docs.featureRows().flatMap((s) => s.rows.map((r) => r.id)));
  assert.ok(ids.size >= 116, `only ${ids.size} features listed`);
  for (const id of ["W13", "W14", "W15", "A7", "A8", "A9", "P5", "P6", "P7", "P8", "U1", "U8", "O1", "O3"]) assert.ok(ids.has(id), `${id} is not in docs/features.src.md`);
  const unknown = [...docs.testsById().keys()].filter((id) => !ids.has(id));
  assert.deepEqual(unknown, [], "test titles cite IDs the feature list does not have");
  const generated = readFileSync(repoPath("docs", "features.md"), "utf8");
  for (const id of ids) assert.match(generated, new RegExp(`^\\| ${id} \\|`, "m"), `${id} is missing from docs/features.md`);
});

// ── a copy with nothing beside it ───────────────────────────────────────────

test("P5: a copy of the repository with nothing beside it regenerates its reference pages and passes the tests that read test data", { timeout: 300_000 }, () => {
  const copy = isolatedCopy();
  try {
    assert.deepEqual(readdirSync(dirname(copy.dir)), ["yada"], "the copy has something beside it");
    // NODE_TEST_CONTEXT would make the inner test runner report to this one instead of printing.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "NODE_TEST_CONTEXT" && k !== "NODE_OPTIONS"));
    const run = (args: string[]) => spawnSync(process.execPath, args, { cwd: copy.dir, encoding: "utf8", timeout: 240_000, env, maxBuffer: 64 << 20 });
    const docs = run(["scripts/docs.mjs"]);
    assert.equal(docs.status, 0, `docs generator in the copy:\n${docs.stdout}\n${docs.stderr}`);
    const tests = run(["scripts/test.mjs", "spec-tests/schema/suite.test", "spec-tests/agent/openai-chat.test", "spec-tests/mcp/transcript.test"]);
    assert.equal(tests.status, 0, `tests in the copy:\n${tests.stdout.slice(-4000)}\n${tests.stderr.slice(-4000)}`);
    assert.match(tests.stdout, /^# pass [1-9]\d*$/m);
    assert.match(tests.stdout, /^# fail 0$/m);
    assert.equal(existsSync(join(copy.dir, "build", "outside-reads.log")), false);
  } finally {
    copy.remove();
  }
});
