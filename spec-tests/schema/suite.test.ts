// T5: the official JSON-Schema-Test-Suite (draft 7 and draft 2020-12, required
// tests only) against a committed pass table that may only shrink.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { compileSchema } from "../../src/schema/index.js";

// Tests run from the repository root; the suite is test data of the repository.
const root = process.cwd();
const suite = join(root, "fixtures", "json-schema-test-suite");
const expectedFile = join(root, "spec-tests", "schema", "suite-expected.json");

interface Expected {
  total: number;
  passed: number;
  knownFailures: { test: string; reason: string }[];
}
interface SuiteTest {
  description: string;
  data: unknown;
  valid: boolean;
}
interface SuiteCase {
  description: string;
  schema: unknown;
  tests: SuiteTest[];
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, "utf8"));
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (p.endsWith(".json")) out.push(p);
  }
  return out;
}

/**
 * The suite's remotes, served from memory as http://localhost:1234/..., plus the
 * dialect's meta-schemas (the suite ships none; the ajv dev dependency does).
 */
function registry(dialect: "draft7" | "draft2020-12"): Map<string, unknown> {
  const reg = new Map<string, unknown>();
  const remotes = join(suite, "remotes");
  for (const file of walk(remotes)) {
    const rel = relative(remotes, file).split(sep).join("/");
    const top = rel.split("/")[0] ?? "";
    // Root-level files plus this dialect's folder (suite README).
    if (rel.includes("/") && top !== dialect && !top.startsWith("baseUriChange") && top !== "nested") continue;
    reg.set(`http://localhost:1234/${rel}`, readJson(file));
  }
  const refs = join(root, "node_modules", "ajv", "dist", "refs");
  const metas =
    dialect === "draft7"
      ? [join(refs, "json-schema-draft-07.json")]
      : [join(refs, "json-schema-2020-12", "schema.json"), ...walk(join(refs, "json-schema-2020-12", "meta"))];
  for (const file of metas) {
    if (!existsSync(file)) continue;
    const doc = readJson(file) as { $id?: unknown };
    if (typeof doc.$id === "string") reg.set(doc.$id, doc);
  }
  return reg;
}

/** Runs every required test of one dialect; returns the total and the names that failed. */
function run(dialect: "draft7" | "draft2020-12"): { total: number; failed: Map<string, string> } {
  const reg = registry(dialect);
  const dir = join(suite, "tests", dialect);
  const failed = new Map<string, string>();
  let total = 0;
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".json")).sort()) {
    for (const c of readJson(join(dir, file)) as SuiteCase[]) {
      let validate: ((v: unknown) => boolean) | null = null;
      let why = "";
      try {
        const s = compileSchema(c.schema, { registry: reg, defaultDialect: dialect === "draft7" ? "draft-07" : "2020-12" });
        validate = (v) => s.validate(v).valid;
      } catch (e) {
        why = `compile: ${(e as Error).message}`;
      }
      for (const t of c.tests) {
        total++;
        const name = `${file} / ${c.description} / ${t.description}`;
        if (validate === null) {
          failed.set(name, why);
          continue;
        }
        try {
          const got = validate(t.data);
          if (got !== t.valid) failed.set(name, `expected ${t.valid ? "valid" : "invalid"}`);
        } catch (e) {
          failed.set(name, `threw: ${(e as Error).message}`);
        }
      }
    }
  }
  return { total, failed };
}

function check(dialect: "draft7" | "draft2020-12"): void {
  assert.ok(existsSync(suite), `JSON-Schema-Test-Suite not found at ${suite}`);
  const expected = (readJson(expectedFile) as Record<string, Expected>)[dialect];
  assert.ok(expected, `suite-expected.json has no ${dialect} entry`);
  const { total, failed } = run(dialect);
  const known = new Set(expected.knownFailures.map((f) => f.test));
  const unexpected = [...failed].filter(([n]) => !known.has(n)).map(([n, why]) => `${n}: ${why}`);
  const nowPassing = [...known].filter((n) => !failed.has(n));
  assert.deepEqual(unexpected, [], "tests failing that the table does not list");
  assert.deepEqual(nowPassing, [], "listed failures now pass: remove them from suite-expected.json");
  assert.equal(total, expected.total, "number of tests in the suite");
  assert.equal(total - failed.size, expected.passed, "number of passing tests");
}

test("T5: draft 7 suite passes the committed table", () => {
  check("draft7");
});

test("T5: draft 2020-12 suite passes the committed table", () => {
  check("draft2020-12");
});
