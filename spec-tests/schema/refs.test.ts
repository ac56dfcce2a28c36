// References never leave the schema: no fetch, no async, registry only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { compileSchema } from "../../src/schema/index.js";
import { SchemaError } from "../../src/errors.js";

const isSchemaError = (e: unknown) => e instanceof SchemaError && e.code === "schema";

test("T5: a $ref to a remote URI is a SchemaError at compile time, nothing is fetched", () => {
  let fetched = false;
  const saved = globalThis.fetch;
  globalThis.fetch = (() => {
    fetched = true;
    throw new Error("no");
  }) as typeof fetch;
  try {
    assert.throws(() => compileSchema({ $ref: "https://example.com/schema.json" }), (e) => isSchemaError(e) && /never fetched/.test((e as Error).message));
    assert.throws(() => compileSchema({ properties: { a: { $ref: "other.json#/x" } } }), isSchemaError);
  } finally {
    globalThis.fetch = saved;
  }
  assert.equal(fetched, false);
});

test("T5: a $ref to a missing pointer or anchor is a SchemaError", () => {
  assert.throws(() => compileSchema({ $ref: "#/$defs/missing" }), isSchemaError);
  assert.throws(() => compileSchema({ $ref: "#nowhere" }), isSchemaError);
});

test("T5: a $ref into the caller's registry resolves", () => {
  const registry = { "https://example.com/name.json": { type: "string", minLength: 2 } };
  const v = compileSchema({ properties: { name: { $ref: "https://example.com/name.json" } } }, { registry });
  assert.equal(v.validate({ name: "ok" }).valid, true);
  assert.equal(v.validate({ name: "x" }).valid, false);
});

test("T5: $async schemas are refused", () => {
  assert.throws(() => compileSchema({ $async: true, type: "object" }), (e) => isSchemaError(e) && /\$async/.test((e as Error).message));
  assert.throws(() => compileSchema({ properties: { a: { $async: true } } }), isSchemaError);
});

test("T5: every error is thrown by compileSchema, also in subschemas only built when first used", () => {
  const nested = (inner: unknown) => ({ oneOf: [{ type: "string" }, { type: "array", items: { properties: { deep: inner } } }] });
  assert.throws(() => compileSchema(nested({ $ref: "#/$defs/missing" })), isSchemaError);
  assert.throws(() => compileSchema(nested({ $ref: "https://example.com/x.json" })), (e) => isSchemaError(e) && /never fetched/.test((e as Error).message));
  assert.throws(() => compileSchema(nested({ $async: true })), (e) => isSchemaError(e) && /\$async/.test((e as Error).message));
  assert.throws(() => compileSchema(nested({ maxItems: 1.5 })), (e) => isSchemaError(e) && /\/oneOf\/1\/items\/properties\/deep\/maxItems/.test((e as Error).message));
  assert.throws(() => compileSchema(nested({ pattern: "(" })), isSchemaError);
  assert.throws(() => compileSchema(nested({ not: 3 })), isSchemaError);
  assert.throws(() => compileSchema(nested({ anyOf: [] })), isSchemaError);
  assert.throws(() => compileSchema(nested({ dependentRequired: { a: [1] } })), isSchemaError);
  assert.throws(() => compileSchema(nested({ if: true, then: "x" })), isSchemaError);
  assert.throws(() => compileSchema({ $defs: { a: { items: { $ref: "#/$defs/b" } }, b: { type: 7 } }, $ref: "#/$defs/a" }), isSchemaError);
  // Keywords the validator ignores are not checked: `then` without `if`, draft 7 `$ref` siblings.
  assert.doesNotThrow(() => compileSchema(nested({ then: "x" })));
  assert.doesNotThrow(() => compileSchema({ $ref: "#/definitions/a", definitions: { a: {} }, minLength: -1 }, { defaultDialect: "draft-07" }));
  const ok = compileSchema(nested({ type: "integer" }));
  assert.equal(ok.validate("s").valid, true);
  assert.equal(ok.validate([{ deep: 1 }]).valid, true);
  assert.deepEqual(ok.validate([{ deep: "x" }]), {
    valid: false,
    issues: [{ instancePath: "", schemaPath: "/oneOf", message: "must match exactly one schema in oneOf" }],
  });
});

test("T5: malformed keywords are SchemaErrors naming the location", () => {
  assert.throws(() => compileSchema({ properties: { a: { minLength: -1 } } }), (e) => isSchemaError(e) && /\/properties\/a\/minLength/.test((e as Error).message));
  assert.throws(() => compileSchema({ type: "int" }), isSchemaError);
  assert.throws(() => compileSchema({ required: "a" }), isSchemaError);
  assert.throws(() => compileSchema([] as unknown), isSchemaError);
});

test("T5: an unknown $schema dialect is treated as 2020-12", () => {
  const v = compileSchema({ $schema: "https://example.com/my-dialect", prefixItems: [{ type: "string" }], items: false });
  assert.equal(v.validate(["a"]).valid, true);
  assert.equal(v.validate(["a", 1]).valid, false);
});

test("T5: draft 7 ignores $ref siblings; 2020-12 applies them", () => {
  const schema = { $defs: { s: { type: "string" } }, definitions: { s: { type: "string" } }, $ref: "#/definitions/s", maxLength: 2 };
  const d7 = compileSchema({ ...schema, $schema: "http://json-schema.org/draft-07/schema#" });
  const d2020 = compileSchema(schema);
  assert.equal(d7.validate("long").valid, true);
  assert.equal(d2020.validate("long").valid, false);
});

test("T5: $dynamicRef resolves to the outermost dynamic anchor", () => {
  const registry = {
    "https://example.com/tree": {
      $id: "https://example.com/tree",
      $dynamicAnchor: "node",
      type: "object",
      properties: { data: true, children: { type: "array", items: { $dynamicRef: "#node" } } },
    },
  };
  const strict = compileSchema(
    { $id: "https://example.com/strict-tree", $dynamicAnchor: "node", $ref: "tree", unevaluatedProperties: false },
    { registry },
  );
  assert.equal(strict.validate({ children: [{ data: 1 }] }).valid, true);
  assert.equal(strict.validate({ children: [{ daat: 1 }] }).valid, false);
});

test("T5: 2019-09 $recursiveRef follows $recursiveAnchor to the outermost schema", () => {
  const registry = {
    "https://example.com/tree": {
      $schema: "https://json-schema.org/draft/2019-09/schema",
      $id: "https://example.com/tree",
      $recursiveAnchor: true,
      type: "object",
      properties: { children: { type: "array", items: { $recursiveRef: "#" } } },
    },
  };
  const strict = compileSchema(
    {
      $schema: "https://json-schema.org/draft/2019-09/schema",
      $id: "https://example.com/strict",
      $recursiveAnchor: true,
      $ref: "tree",
      unevaluatedProperties: false,
    },
    { registry },
  );
  assert.equal(strict.validate({ children: [{ children: [] }] }).valid, true);
  assert.equal(strict.validate({ children: [{ extra: 1 }] }).valid, false);
});

test("T5: a reference is resolved once: an anchor rebound by a later scan does not change what is validated", () => {
  // Resolving "#/x" scans x, whose $defs rebinds the anchor "foo" after "#foo" was walked.
  const v = compileSchema({
    allOf: [{ $ref: "#/x" }, { $ref: "#foo" }],
    $defs: { f: { $anchor: "foo", type: "string" } },
    x: { $defs: { g: { $anchor: "foo", enum: 5 } } },
  });
  for (let i = 0; i < 2; i++) {
    assert.equal(v.validate("abc").valid, true);
    assert.equal(v.validate(5).valid, false);
  }
});

test("T5: a reference is resolved once: a registry document loaded later does not replace its target", () => {
  // Resolving "http://x/d" loads the registry document, whose root $id rebinds "http://x/a".
  const v = compileSchema(
    { allOf: [{ $ref: "http://x/d" }, { $ref: "http://x/a" }], $defs: { a: { $id: "http://x/a", type: "string" } } },
    { registry: { "http://x/c": { $id: "http://x/a", enum: 5, $defs: { d: { $id: "http://x/d" } } } } },
  );
  for (let i = 0; i < 2; i++) {
    assert.equal(v.validate("abc").valid, true);
    assert.equal(v.validate(5).valid, false);
  }
});
