// T5: the official JSON-Schema-Test-Suite (draft 7 and draft 2020-12, required
// tests only) against a committed pass table that may only shrink.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { compileSchema } from "../../src/schema/index.js";
import { readJson, registry, root, suite, type SuiteCase } from "./suite-data.js";

const expectedFile = join(root, "spec-tests", "schema", "suite-expected.json");

interface Expected {
  total: number;
  passed: number;
  knownFailures: { test: string; reason: string }[];
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
