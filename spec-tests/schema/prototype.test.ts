// Property names such as __proto__ and constructor are plain data, in instances and schemas.
import { test } from "node:test";
import assert from "node:assert/strict";
import { compileSchema } from "../../src/schema/index.js";

test("T5: required 'constructor' / 'toString' is not satisfied by Object.prototype", () => {
  const v = compileSchema({ type: "object", required: ["constructor", "toString"] });
  assert.equal(v.validate({}).valid, false);
  assert.equal(v.validate(JSON.parse('{"constructor": 1, "toString": 2}')).valid, true);
});

test("T5: a __proto__ key in instance data is validated as an own property", () => {
  const v = compileSchema(JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}},"additionalProperties":false}'));
  assert.equal(v.validate(JSON.parse('{"__proto__": "x"}')).valid, true);
  assert.equal(v.validate(JSON.parse('{"__proto__": 1}')).valid, false);
  assert.equal(v.validate({}).valid, true);
});

test("T5: additionalProperties: false rejects __proto__ and constructor keys", () => {
  const v = compileSchema({ type: "object", properties: { a: true }, additionalProperties: false });
  assert.equal(v.validate(JSON.parse('{"__proto__": {"polluted": true}}')).valid, false);
  assert.equal(v.validate(JSON.parse('{"constructor": {}}')).valid, false);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test("T5: schema maps keyed by prototype names do not reach Object.prototype", () => {
  const v = compileSchema(JSON.parse('{"properties":{"constructor":{"type":"number"},"hasOwnProperty":{"type":"number"}},"dependentRequired":{"toString":["valueOf"]}}'));
  assert.equal(v.validate({ other: 1 }).valid, true);
  assert.equal(v.validate(JSON.parse('{"constructor":"x"}')).valid, false);
  assert.equal(v.validate(JSON.parse('{"toString":1}')).valid, false);
  assert.equal(v.validate(JSON.parse('{"toString":1,"valueOf":2}')).valid, true);
});

test("T5: a polluted Object.prototype does not hide or add instance keys", () => {
  const v = compileSchema({ type: "object", properties: { a: { type: "number" } }, additionalProperties: false });
  const proto = Object.prototype as Record<string, unknown>;
  proto.injected = "x";
  try {
    assert.equal(v.validate({ a: 1 }).valid, true);
    assert.equal(v.validate({ a: 1, b: 2 }).valid, false);
  } finally {
    delete proto.injected;
  }
});

test("T5: schema keywords, formats and type names spelled like Object.prototype members are unknown, not inherited", () => {
  for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
    // An unknown keyword is ignored, an unknown format is not asserted.
    const kw = compileSchema(JSON.parse(`{"type":"number","${name}":{"type":"string"}}`));
    assert.equal(kw.validate(1).valid, true, name);
    const format = compileSchema({ type: "string", format: name }, { formats: "assert" });
    assert.equal(format.validate("x").valid, true, name);
    // A type name is looked up as an own name only.
    assert.throws(() => compileSchema({ type: name }), (e: unknown) => e instanceof Error && (e as { code?: string }).code === "schema", name);
    assert.throws(() => compileSchema({ properties: { a: { type: name } } }), (e: unknown) => e instanceof Error && (e as { code?: string }).code === "schema", name);
  }
});

test("T5: enumerable keys inherited from a custom prototype are not instance properties", () => {
  const v = compileSchema({ type: "object", properties: { a: { type: "number" }, b: { type: "string" } }, required: ["b"], additionalProperties: false });
  const proto = { b: "inherited", c: 1 };
  const inst = Object.create(proto) as Record<string, unknown>;
  inst.a = 1;
  // `b` is only inherited: required fails; the inherited `c` is no additional property.
  assert.deepEqual(v.validate(inst), { valid: false, issues: [{ instancePath: "", schemaPath: "/required", message: "must have required property 'b'" }] });
  inst.b = "own";
  assert.equal(v.validate(inst).valid, true);
  assert.equal(compileSchema({ maxProperties: 1 }).validate(Object.assign(Object.create(proto), { a: 1 })).valid, true);
});
