// Bounds of the JSON Schema validator: every limit is a typed error, never a
// stack overflow or a hang.
import { test } from "node:test";
import assert from "node:assert/strict";
import { compileSchema } from "../../src/schema/index.js";
import { LimitError, SchemaError } from "../../src/errors.js";
import {
  MAX_INSTANCE_DEPTH,
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_PATTERN_CHARS,
  MAX_SCHEMA_ISSUES,
} from "../../src/limits.js";

function nestedSchema(levels: number): unknown {
  let s: unknown = { type: "string" };
  for (let i = 0; i < levels; i++) s = { properties: { a: s } };
  return s;
}

function nestedInstance(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

function isLimit(name: string) {
  return (e: unknown) => e instanceof LimitError && e.code === "limit" && e.limit === name;
}

test("T5: a schema nested deeper than MAX_SCHEMA_DEPTH is a LimitError at compile time", () => {
  assert.throws(() => compileSchema(nestedSchema(MAX_SCHEMA_DEPTH + 5)), isLimit("MAX_SCHEMA_DEPTH"));
  assert.throws(() => compileSchema(nestedSchema(100_000)), isLimit("MAX_SCHEMA_DEPTH"));
});

test("T5: a schema that contains itself (object cycle) compiles without looping", () => {
  const s: Record<string, unknown> = { type: "object" };
  s.properties = { self: s };
  const v = compileSchema(s);
  assert.equal(v.validate({ self: { self: {} } }).valid, true);
  assert.equal(v.validate({ self: { self: 1 } }).valid, false);
});

test("T5: an instance nested deeper than MAX_INSTANCE_DEPTH is a LimitError", () => {
  const v = compileSchema({ $defs: { n: { properties: { a: { $ref: "#/$defs/n" } } } }, $ref: "#/$defs/n" });
  assert.equal(v.validate(nestedInstance(MAX_INSTANCE_DEPTH - 1)).valid, true);
  assert.throws(() => v.validate(nestedInstance(100_000)), isLimit("MAX_INSTANCE_DEPTH"));
});

test("T5: a $ref loop ({\"$ref\":\"#\"}) is a LimitError, not a stack overflow", () => {
  const v = compileSchema({ $ref: "#" });
  assert.throws(() => v.validate(nestedInstance(100_000)), isLimit("MAX_SCHEMA_EVAL_NESTING"));
  assert.throws(() => v.validate(1), isLimit("MAX_SCHEMA_EVAL_NESTING"));
  const d7 = compileSchema({ definitions: { a: { $ref: "#/definitions/b" }, b: { $ref: "#/definitions/a" } }, $ref: "#/definitions/a" }, { defaultDialect: "draft-07" });
  assert.throws(() => d7.validate("x"), isLimit("MAX_SCHEMA_EVAL_NESTING"));
});

test("T5: exponential $ref fan-out stops at MAX_SCHEMA_REF_EXPANSIONS", () => {
  const defs: Record<string, unknown> = { d30: { type: "number" } };
  for (let i = 0; i < 30; i++) defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
  const v = compileSchema({ $defs: defs, $ref: "#/$defs/d0" });
  const t0 = Date.now();
  assert.throws(() => v.validate(1), isLimit("MAX_SCHEMA_REF_EXPANSIONS"));
  assert.ok(Date.now() - t0 < 5_000);
});

test("T5: a pattern longer than MAX_SCHEMA_PATTERN_CHARS is refused at compile time", () => {
  const long = "a".repeat(MAX_SCHEMA_PATTERN_CHARS + 1);
  assert.throws(() => compileSchema({ pattern: long }), isLimit("MAX_SCHEMA_PATTERN_CHARS"));
  assert.throws(() => compileSchema({ patternProperties: { [long]: true } }), isLimit("MAX_SCHEMA_PATTERN_CHARS"));
  assert.throws(() => compileSchema({ pattern: "(" }), (e) => e instanceof SchemaError && e.code === "schema");
});

test("T5: deep const / enum / uniqueItems values are bounded too", () => {
  const deep = nestedInstance(10_000);
  assert.throws(() => compileSchema({ const: nestedInstance(10_000) }).validate(deep), isLimit("MAX_INSTANCE_DEPTH"));
  assert.throws(() => compileSchema({ enum: [nestedInstance(10_000)] }).validate(deep), isLimit("MAX_INSTANCE_DEPTH"));
  assert.throws(() => compileSchema({ uniqueItems: true }).validate([deep, 1]), isLimit("MAX_INSTANCE_DEPTH"));
});

test("T5: at most MAX_SCHEMA_ISSUES issues are collected", () => {
  const v = compileSchema({ type: "array", items: { type: "string" } });
  const many = Array.from({ length: 1000 }, (_, i) => i);
  const r = v.validate(many, { allIssues: true });
  assert.equal(r.valid, false);
  if (!r.valid) assert.equal(r.issues.length, MAX_SCHEMA_ISSUES);
  const all = compileSchema({ type: "array", items: { type: "string" } }, { allIssues: true }).validate(many);
  assert.equal(all.valid, false);
  if (!all.valid) assert.equal(all.issues.length, MAX_SCHEMA_ISSUES);
  // By default validation stops at the first failure.
  const first = v.validate(many);
  assert.equal(first.valid, false);
  if (!first.valid) assert.deepEqual(first.issues, [{ instancePath: "/0", schemaPath: "/items/type", message: "must be string" }]);
});

test("T5: deep failures swallowed by contains do not leak into the reported path", () => {
  // `contains` probes every item (each failing deep inside); the reported path is the contains keyword's.
  let item: unknown = 1;
  for (let i = 0; i < MAX_INSTANCE_DEPTH - 3; i++) item = [item];
  let deep: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < 40; i++) deep = { items: deep };
  const v = compileSchema({ contains: deep });
  const r = v.validate(Array.from({ length: 50 }, () => item));
  assert.deepEqual(r, { valid: false, issues: [{ instancePath: "", schemaPath: "/contains", message: "must contain at least 1 matching item" }] });
});
