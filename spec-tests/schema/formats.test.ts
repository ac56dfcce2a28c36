// format is an annotation by default (2020-12) and an assertion only when asked.
import { test } from "node:test";
import assert from "node:assert/strict";
import { compileSchema } from "../../src/schema/index.js";

test("T5: format is not asserted by default", () => {
  const v = compileSchema({ type: "string", format: "email" });
  assert.equal(v.validate("not an email").valid, true);
});

test("T5: formats: \"assert\" checks the common formats", () => {
  const cases: [string, string, string][] = [
    ["date-time", "2024-02-29T12:30:00Z", "2023-02-29T12:30:00Z"],
    ["date", "2024-01-31", "2024-13-01"],
    ["time", "23:59:60Z", "12:00:00"],
    ["email", "joe@example.com", "joe@@example.com"],
    ["hostname", "api.example.com", "-bad-.example.com"],
    ["ipv4", "192.168.0.1", "192.168.0.256"],
    ["ipv6", "::1", "1:::2"],
    ["uri", "https://example.com/a?b#c", "/relative/only"],
    ["uri-reference", "../a/b", "a b"],
    ["uuid", "123e4567-e89b-12d3-a456-426614174000", "123e4567e89b12d3a456426614174000"],
    ["regex", "^[a-z]+$", "(unclosed"],
    ["json-pointer", "/a/b~0c", "a/b"],
    ["duration", "P1Y2M3DT4H", "P1YT"],
  ];
  for (const [format, good, bad] of cases) {
    const v = compileSchema({ format }, { formats: "assert" });
    assert.equal(v.validate(good).valid, true, `${format} accepts ${good}`);
    const r = v.validate(bad);
    assert.equal(r.valid, false, `${format} rejects ${bad}`);
    if (!r.valid) assert.equal(r.issues[0]?.schemaPath, "/format");
  }
});

test("T5: asserted formats apply to strings only and unknown formats pass", () => {
  const v = compileSchema({ properties: { a: { format: "date" }, b: { format: "x-custom" } } }, { formats: "assert" });
  assert.equal(v.validate({ a: 20240101, b: "anything" }).valid, true);
});
