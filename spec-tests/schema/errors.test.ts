// Issues: instance path and schema path as JSON pointers, no instance values.
import { test } from "node:test";
import assert from "node:assert/strict";
import { compileSchema } from "../../src/schema/index.js";
import { ValidationError } from "../../src/errors.js";

const tool = compileSchema({
  type: "object",
  properties: {
    owner: { type: "string" },
    labels: { type: "array", items: { type: "string", maxLength: 5 } },
    "a/b~c": { type: "integer" },
  },
  required: ["owner"],
  additionalProperties: false,
});

test("T5: issues carry the instance path and the schema path of the failing keyword", () => {
  const r = tool.validate({ labels: ["ok", "secret-token-value"], "a/b~c": 1.5, extra: "x" }, { allIssues: true });
  assert.equal(r.valid, false);
  if (r.valid) return;
  const byPath = new Map(r.issues.map((i) => [i.instancePath, i]));
  assert.equal(byPath.get("/labels/1")?.schemaPath, "/properties/labels/items/maxLength");
  assert.equal(byPath.get("/a~1b~0c")?.schemaPath, "/properties/a~1b~0c/type");
  assert.equal(byPath.get("/extra")?.schemaPath, "/additionalProperties");
  assert.ok(r.issues.some((i) => i.instancePath === "" && i.schemaPath === "/required" && /'owner'/.test(i.message)));
});

test("T5: messages never contain instance values", () => {
  const r = tool.validate({ owner: "SECRET-VALUE", labels: ["SECRET-LABEL-TOO-LONG"], "a/b~c": "SECRET-NUM" }, { allIssues: true });
  assert.equal(r.valid, false);
  if (r.valid) return;
  for (const i of r.issues) assert.doesNotMatch(i.message, /SECRET/);
});

test("T5: issues through $ref point at the referenced keyword", () => {
  const v = compileSchema({ $defs: { name: { type: "string" } }, properties: { n: { $ref: "#/$defs/name" } } });
  const r = v.validate({ n: 1 });
  assert.deepEqual(r, { valid: false, issues: [{ instancePath: "/n", schemaPath: "/$defs/name/type", message: "must be string" }] });
});

test("T5: assert() throws ValidationError naming what was validated and the first issue's paths", () => {
  try {
    tool.assert({ owner: "me", labels: ["much-too-long-TOKEN"] }, "arguments of tool create_issue");
    assert.fail("expected a ValidationError");
  } catch (e) {
    assert.ok(e instanceof ValidationError);
    assert.equal(e.code, "validation");
    assert.match(e.message, /^arguments of tool create_issue/);
    assert.match(e.message, /\/labels\/0/);
    assert.match(e.message, /\/properties\/labels\/items\/maxLength/);
    assert.doesNotMatch(e.message, /TOKEN/);
    assert.equal(e.issues.length, 1);
  }
  assert.doesNotThrow(() => tool.assert({ owner: "me" }, "arguments"));
});

test("T5: by default validation stops at the first failing keyword and reports it with its paths", () => {
  const cases: [unknown, string, string][] = [
    [{ labels: ["ok", "secret-token-value"] }, "/labels/1", "/properties/labels/items/maxLength"],
    [{ owner: "me", "a/b~c": 1.5 }, "/a~1b~0c", "/properties/a~1b~0c/type"],
    [{ owner: "me", extra: "x" }, "/extra", "/additionalProperties"],
    [{ labels: [] }, "", "/required"],
    [[], "", "/type"],
  ];
  for (const [inst, instancePath, schemaPath] of cases) {
    const r = tool.validate(inst);
    assert.equal(r.valid, false);
    if (r.valid) continue;
    assert.equal(r.issues.length, 1);
    assert.deepEqual({ instancePath: r.issues[0]?.instancePath, schemaPath: r.issues[0]?.schemaPath }, { instancePath, schemaPath });
    // The same failure leads the full list.
    const all = tool.validate(inst, { allIssues: true });
    assert.ok(!all.valid && all.issues.some((i) => i.instancePath === instancePath && i.schemaPath === schemaPath));
  }
});

test("T5: failures inside anyOf / oneOf / not / if / contains branches do not leak into the reported issue", () => {
  const v = compileSchema({
    type: "object",
    properties: {
      q: { anyOf: [{ type: "string" }, { type: "object", properties: { deep: { type: "integer" } } }] },
      r: { oneOf: [{ type: "array", items: { type: "string" } }, { type: "null" }] },
      s: { not: { type: "string" }, if: { properties: { x: { type: "string" } } }, then: { required: ["x"] }, else: { maxProperties: 1 } },
      t: { type: "array", contains: { type: "object", properties: { id: { const: 1 } }, required: ["id"] } },
    },
  });
  assert.deepEqual(v.validate({ q: { deep: "x" } }), {
    valid: false,
    issues: [{ instancePath: "/q", schemaPath: "/properties/q/anyOf", message: "must match at least one schema in anyOf" }],
  });
  assert.deepEqual(v.validate({ q: 1, r: [1] }), {
    valid: false,
    issues: [{ instancePath: "/q", schemaPath: "/properties/q/anyOf", message: "must match at least one schema in anyOf" }],
  });
  assert.deepEqual(v.validate({ r: [1] }), {
    valid: false,
    issues: [{ instancePath: "/r", schemaPath: "/properties/r/oneOf", message: "must match exactly one schema in oneOf" }],
  });
  assert.deepEqual(v.validate({ s: { x: 1, y: 2 } }), {
    valid: false,
    issues: [{ instancePath: "/s", schemaPath: "/properties/s/else/maxProperties", message: "must have at most 1 properties" }],
  });
  assert.deepEqual(v.validate({ t: [{ id: 2 }, {}, { id: 1 }] }).valid, true);
  assert.deepEqual(v.validate({ t: [{ id: 2 }, {}] }), {
    valid: false,
    issues: [{ instancePath: "/t", schemaPath: "/properties/t/contains", message: "must contain at least 1 matching item" }],
  });
});

test("T5: first-failure issues name the offending key or item", () => {
  const v = compileSchema({
    type: "object",
    properties: { list: { type: "array", uniqueItems: true }, names: { type: "object", propertyNames: { maxLength: 2 } } },
    additionalProperties: false,
  });
  assert.deepEqual(v.validate({ list: [1, 2, 1] }), {
    valid: false,
    issues: [{ instancePath: "/list/2", schemaPath: "/properties/list/uniqueItems", message: "must not have duplicate items" }],
  });
  assert.deepEqual(v.validate({ names: { ok: 1, "too/long": 2 } }), {
    valid: false,
    issues: [{ instancePath: "/names/too~1long", schemaPath: "/properties/names/propertyNames", message: "property name must match the propertyNames schema" }],
  });
  assert.deepEqual(v.validate({ "x~y": 1 }), {
    valid: false,
    issues: [{ instancePath: "/x~0y", schemaPath: "/additionalProperties", message: "must not have additional properties" }],
  });
  assert.deepEqual(compileSchema(false).validate(1), {
    valid: false,
    issues: [{ instancePath: "", schemaPath: "", message: "no value is allowed here" }],
  });
});

test("T5: assert() with allIssues carries every collected issue", () => {
  try {
    tool.assert({ labels: ["much-too-long-TOKEN"], extra: 1 }, "arguments", { allIssues: true });
    assert.fail("expected a ValidationError");
  } catch (e) {
    assert.ok(e instanceof ValidationError);
    assert.equal(e.issues.length, 3);
    assert.match(e.message, /\(\+2 more\)$/);
  }
});

test("T5: valid instances return the shared valid result", () => {
  assert.deepEqual(tool.validate({ owner: "me" }), { valid: true });
});

test("T5: string lengths count code points, not UTF-16 units", () => {
  const v = compileSchema({ type: "string", minLength: 2, maxLength: 2 });
  assert.equal(v.validate("\u{1F600}\u{1F600}").valid, true);
  assert.equal(v.validate("\u{1F600}").valid, false);
});

test("T5: enum, const and uniqueItems treat 1 and 1.0 as equal and ignore key order", () => {
  assert.equal(compileSchema({ enum: [{ a: 1, b: [1] }] }).validate({ b: [1.0], a: 1 }).valid, true);
  assert.equal(compileSchema({ const: 1 }).validate(1.0).valid, true);
  assert.equal(compileSchema({ uniqueItems: true }).validate([{ a: 1, b: 2 }, { b: 2, a: 1 }]).valid, false);
  assert.equal(compileSchema({ uniqueItems: true }).validate([1, "1", true, null, [1], { "1": 1 }]).valid, true);
  // Short arrays of primitives are compared pairwise, longer ones through a set: same answers.
  const u = compileSchema({ uniqueItems: true });
  assert.equal(u.validate(["a", "b", 1, true, null]).valid, true);
  assert.deepEqual(u.validate(["a", 2, "b", 2.0]), { valid: false, issues: [{ instancePath: "/3", schemaPath: "/uniqueItems", message: "must not have duplicate items" }] });
  const long = Array.from({ length: 40 }, (_, i) => i);
  assert.equal(u.validate(long).valid, true);
  assert.deepEqual(u.validate([...long, 7]), { valid: false, issues: [{ instancePath: "/40", schemaPath: "/uniqueItems", message: "must not have duplicate items" }] });
});
