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
