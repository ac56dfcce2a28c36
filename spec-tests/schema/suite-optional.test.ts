// T5: the JSON-Schema-Test-Suite's optional draft 7 tests (formats asserted,
// float overflow, ECMAScript regexes, ...) against a committed table of the
// tests yada fails, and against @cfworker/json-schema (the other eval-free
// validator): yada passes at least as many in every file.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join, relative, sep } from "node:path";
import { Validator } from "@cfworker/json-schema";
import { compileSchema } from "../../src/schema/index.js";
import { readJson, registry, root, suite, walk, type SuiteCase } from "./suite-data.js";

const dir = join(suite, "tests", "draft7", "optional");
const expectedFile = join(root, "spec-tests", "schema", "suite-optional-expected.json");

interface Expected {
  total: number;
  passed: number;
  knownFailures: string[];
}

type Runner = (schema: unknown) => (data: unknown) => boolean;

/** Every optional test through `compile`: the names that failed, and the passes per file. */
function run(compile: Runner): { total: number; failed: Set<string>; passes: Map<string, number> } {
  const failed = new Set<string>();
  const passes = new Map<string, number>();
  let total = 0;
  for (const path of walk(dir)) {
    const file = relative(dir, path).split(sep).join("/");
    let n = 0;
    for (const c of readJson(path) as SuiteCase[]) {
      let validate: ((v: unknown) => boolean) | null = null;
      try {
        validate = compile(c.schema);
      } catch {
        // A schema it cannot compile fails each of its tests.
      }
      for (const t of c.tests) {
        total++;
        let ok = false;
        try {
          ok = validate !== null && validate(t.data) === t.valid;
        } catch {
          // A validation that throws fails the test.
        }
        if (ok) n++;
        else failed.add(`${file} / ${c.description} / ${t.description}`);
      }
    }
    passes.set(file, n);
  }
  return { total, failed, passes };
}

const yadaRegistry = registry("draft7");
const yada: Runner = (schema) => {
  const s = compileSchema(schema, { registry: yadaRegistry, defaultDialect: "draft-07", formats: "assert" });
  return (v) => s.validate(v).valid;
};
// cfworker knows the draft 7 meta-schema already; it gets the suite's remotes.
const cfRegistry = registry("draft7", false);
const cfworker: Runner = (schema) => {
  const v = new Validator(schema as object, "7");
  for (const [uri, doc] of cfRegistry) v.addSchema(doc as object, uri);
  return (data) => v.validate(data).valid;
};

test("T5: draft 7 optional suite (formats asserted) passes the committed table", () => {
  const expected = (readJson(expectedFile) as Record<string, Expected>)["draft7"] as Expected;
  const { total, failed } = run(yada);
  const known = new Set(expected.knownFailures);
  assert.deepEqual([...failed].filter((n) => !known.has(n)), [], "optional tests failing that the table does not list");
  assert.deepEqual([...known].filter((n) => !failed.has(n)), [], "listed failures now pass: remove them from suite-optional-expected.json");
  assert.equal(total, expected.total, "number of optional tests");
  assert.equal(total - failed.size, expected.passed, "number of passing optional tests");
});

test("T5: draft 7 optional suite: yada passes at least as many tests as cfworker in every file", () => {
  const ours = run(yada);
  const theirs = run(cfworker);
  assert.equal(ours.total, theirs.total);
  const behind = [...theirs.passes]
    .filter(([file, n]) => (ours.passes.get(file) ?? 0) < n)
    .map(([file, n]) => `${file}: yada ${ours.passes.get(file) ?? 0}, cfworker ${n}`);
  assert.deepEqual(behind, [], "files where cfworker passes more");
  assert.ok(ours.total - ours.failed.size >= theirs.total - theirs.failed.size);
});
