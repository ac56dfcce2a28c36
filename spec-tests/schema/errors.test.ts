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

test("T4: issues carry the instance path and the schema path of the failing keyword", () => {
  const r = tool.validate({ labels: ["ok", "secret-token-value"], "a/b~c": 1.5, extra: "x" });
  assert.equal(r.valid, false);
  if (r.valid) return;
  const byPath = new Map(r.issues.map((i) => [i.instancePath, i]));
  assert.equal(byPath.get("/labels/1")?.schemaPath, "/properties/labels/items/maxLength");
  assert.equal(byPath.get("/a~1b~0c")?.schemaPath, "/properties/a~1b~0c/type");
  assert.equal(byPath.get("/extra")?.schemaPath, "/additionalProperties");
  assert.ok(r.issues.some((i) => i.instancePath === "" && i.schemaPath === "/required" && /'owner'/.test(i.message)));
});

test("T4: messages never contain instance values", () => {
  const r = tool.validate({ owner: "SECRET-VALUE", labels: ["SECRET-LABEL-TOO-LONG"], "a/b~c": "SECRET-NUM" });
  assert.equal(r.valid, false);
  if (r.valid) return;
  for (const i of r.issues) assert.doesNotMatch(i.message, /SECRET/);
});

test("T4: issues through $ref point at the referenced keyword", () => {
  const v = compileSchema({ $defs: { name: { type: "string" } }, properties: { n: { $ref: "#/$defs/name" } } });
  const r = v.validate({ n: 1 });
  assert.deepEqual(r, { valid: false, issues: [{ instancePath: "/n", schemaPath: "/$defs/name/type", message: "must be string" }] });
});

test("T4: assert() throws ValidationError naming what was validated and the first issue's paths", () => {
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

test("T4: valid instances return the shared valid result", () => {
  assert.deepEqual(tool.validate({ owner: "me" }), { valid: true });
});

test("T4: string lengths count code points, not UTF-16 units", () => {
  const v = compileSchema({ type: "string", minLength: 2, maxLength: 2 });
  assert.equal(v.validate("\u{1F600}\u{1F600}").valid, true);
  assert.equal(v.validate("\u{1F600}").valid, false);
});

test("T4: enum, const and uniqueItems treat 1 and 1.0 as equal and ignore key order", () => {
  assert.equal(compileSchema({ enum: [{ a: 1, b: [1] }] }).validate({ b: [1.0], a: 1 }).valid, true);
  assert.equal(compileSchema({ const: 1 }).validate(1.0).valid, true);
  assert.equal(compileSchema({ uniqueItems: true }).validate([{ a: 1, b: 2 }, { b: 2, a: 1 }]).valid, false);
  assert.equal(compileSchema({ uniqueItems: true }).validate([1, "1", true, null, [1], { "1": 1 }]).valid, true);
});
