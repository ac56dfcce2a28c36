// Y1: the validator's shortcuts (property entries remembered by key position,
// arrays of simply typed items tested by their parent, a single type tested
// inline or by the string keywords' one closure, the automaton's deciding
// states) answer and report exactly as the long way, and are charged to the
// same work budget.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LimitError } from "../../src/errors.js";
import { MAX_SCHEMA_WORK } from "../../src/limits.js";
import { compileSchema } from "../../src/schema/index.js";
import { compileLinearRegex } from "../../src/schema/regex.js";

const isWork = (e: unknown) => e instanceof LimitError && e.limit === "MAX_SCHEMA_WORK";

test("Y1: the object walk's remembered key positions never confuse keys across instances", () => {
  const v = compileSchema({
    type: "object",
    properties: { a: { type: "string" }, b: { type: "number" }, c: { type: "boolean" } },
    required: ["a"],
    additionalProperties: false,
  });
  // Same keys in other orders, other keys at remembered positions, then the first shape again.
  const cases: [unknown, boolean, string][] = [
    [{ a: "x", b: 1, c: true }, true, ""],
    [{ b: 1, a: "x", c: true }, true, ""],
    [{ b: "x", a: 1 }, false, "/b"],
    [{ a: "x", d: 1 }, false, "/d"],
    [{ c: true, b: 2 }, false, ""],
    [{ a: "x", b: 1, c: "no" }, false, "/c"],
    [{ a: "x", b: 1, c: true }, true, ""],
  ];
  for (const [inst, valid, path] of cases) {
    const r = v.validate(inst);
    assert.equal(r.valid, valid, JSON.stringify(inst));
    if (!r.valid) assert.equal(r.issues[0]?.instancePath, path, JSON.stringify(inst));
  }
  // The empty key, with and without a property schema of its own.
  const empty = compileSchema({ properties: { "": { type: "number" } }, additionalProperties: { type: "string" } });
  assert.equal(empty.validate({ "": 1, a: "x" }).valid, true);
  assert.equal(empty.validate({ "": "x" }).valid, false);
  assert.equal(compileSchema({ properties: { a: true }, additionalProperties: false }).validate({ "": 1 }).valid, false);
  // More keys than positions remembered.
  const wide = compileSchema({ properties: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, { type: "integer" }])) });
  const inst = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${39 - i}`, i]));
  assert.equal(wide.validate(inst).valid, true);
  const bad = compileSchema({ properties: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, { type: "integer" }])) }).validate({ ...inst, k0: "x" });
  assert.deepEqual(bad, { valid: false, issues: [{ instancePath: "/k0", schemaPath: "/properties/k0/type", message: "must be integer" }] });
});

test("Y1: an array of simply typed items tested inline reports its failing item and is charged per item", () => {
  const v = compileSchema({ type: "object", properties: { tags: { type: "array", items: { type: "string" }, description: "labels" } } });
  assert.equal(v.validate({ tags: ["a", "b"] }).valid, true);
  assert.deepEqual(v.validate({ tags: ["a", 2] }), {
    valid: false,
    issues: [{ instancePath: "/tags/1", schemaPath: "/properties/tags/items/type", message: "must be string" }],
  });
  assert.equal(v.validate({ tags: "a" }).valid, false);
  // Each item costs a unit, inline or not: an array longer than the budget stops.
  assert.throws(() => v.validate({ tags: new Array<string>(MAX_SCHEMA_WORK + 1).fill("a") }), isWork);
  assert.equal(v.validate({ tags: new Array<string>(MAX_SCHEMA_WORK >> 2).fill("a") }).valid, true);
});

test("Y1: a leaf string schema checks type, lengths, pattern and format in order, and reports each with allIssues", () => {
  const v = compileSchema({ type: "string", maxLength: 3, minLength: 2, pattern: "^[a-z]+$", format: "email" }, { formats: "assert" });
  assert.deepEqual(v.validate(7), { valid: false, issues: [{ instancePath: "", schemaPath: "/type", message: "must be string" }] });
  assert.equal(v.validate("abcd1").valid, false);
  assert.equal((v.validate("abcd1") as { issues: { schemaPath: string }[] }).issues[0]?.schemaPath, "/maxLength");
  const all = v.validate("A", { allIssues: true });
  assert.deepEqual(all.valid ? [] : all.issues.map((i) => i.schemaPath), ["/minLength", "/pattern", "/format"]);
  // Without `type`, non-strings are not the string keywords' business.
  const untyped = compileSchema({ maxLength: 1, pattern: "^a$" });
  assert.equal(untyped.validate(12345).valid, true);
  assert.equal(untyped.validate("b").valid, false);
  // Code points, not UTF-16 units.
  assert.equal(compileSchema({ type: "string", maxLength: 2, minLength: 2 }).validate("😀😀").valid, true);
});

test("Y1: with type object and a property walk, non-objects fail with the type issue only", () => {
  const v = compileSchema({ type: "object", properties: { a: { type: "string" } } });
  for (const x of [null, [], "s", 1]) {
    assert.deepEqual(v.validate(x), { valid: false, issues: [{ instancePath: "", schemaPath: "/type", message: "must be object" }] });
  }
  assert.equal(compileSchema({ properties: { a: { type: "string" } } }).validate([1]).valid, true);
});

test("Y1: the automaton's deciding states hold past characters outside ASCII", () => {
  const cases: [string, string][] = [
    ["a", "xa😀é"],
    ["a", "😀é"],
    ["^a", "b😀a"],
    ["^a", "a😀"],
    ["^[a-z]{2}$", "ab😀"],
    ["b$", "é😀b"],
  ];
  for (const [p, s] of cases) {
    const re = compileLinearRegex(p);
    assert.ok(re !== null);
    for (let i = 0; i < 3; i++) assert.equal(re.test(s), new RegExp(p, "u").test(s), `${p} on ${s}`);
  }
});

test("Y1: an array schema's items and item counts in one closure report in keyword order, and non-arrays get the type issue only", () => {
  const v = compileSchema({ type: "array", items: { type: "integer", minimum: 0 }, maxItems: 2, minItems: 1 });
  for (const x of [{}, "s", null]) {
    assert.deepEqual(v.validate(x), { valid: false, issues: [{ instancePath: "", schemaPath: "/type", message: "must be array" }] });
  }
  assert.equal(v.validate([1, 2]).valid, true);
  const all = v.validate([1, -1, 2], { allIssues: true });
  assert.deepEqual(all.valid ? [] : all.issues.map((i) => [i.instancePath, i.schemaPath]), [["/1", "/items/minimum"], ["", "/maxItems"]]);
  assert.deepEqual(v.validate([]), { valid: false, issues: [{ instancePath: "", schemaPath: "/minItems", message: "must have at least 1 items" }] });
  // With contains between them, the counts keep their own place.
  const c = compileSchema({ type: "array", items: { type: "number" }, contains: { const: 5 }, maxItems: 1 });
  const both = c.validate([1, 2], { allIssues: true });
  assert.deepEqual(both.valid ? [] : both.issues.map((i) => i.schemaPath), ["/contains", "/maxItems"]);
});

test("Y1: type and enum alone run as one closure and report as the two keywords do", () => {
  const v = compileSchema({ type: "string", enum: ["a", "b"], description: "mode" });
  assert.equal(v.validate("a").valid, true);
  assert.deepEqual(v.validate("c"), { valid: false, issues: [{ instancePath: "", schemaPath: "/enum", message: "must be one of the allowed values" }] });
  assert.deepEqual(v.validate(1), { valid: false, issues: [{ instancePath: "", schemaPath: "/type", message: "must be string" }] });
  const all = v.validate(1, { allIssues: true });
  assert.deepEqual(all.valid ? [] : all.issues.map((i) => i.schemaPath), ["/type", "/enum"]);
  // An enum value without the type still fails on the type.
  const mixed = compileSchema({ type: "integer", enum: [1, "x"] });
  assert.deepEqual([1, "x", 2].map((x) => mixed.validate(x).valid), [true, false, false]);
});
