import { test } from "node:test";
import assert from "node:assert/strict";
import { compileLinearRegex } from "../../src/schema/regex.js";
import { compileSchema } from "../../src/schema/index.js";
import { YadaError } from "../../src/errors.js";

// The linear-time matcher must agree with the engine's regexes on what they both accept.
const CASES: Array<[string, string[]]> = [
  ["^[A-Z]{3}-\\d{3}$", ["ABC-123", "abc-123", "ABC-12", "xABC-123", ""]],
  ["^a*$", ["", "a", "aaa", "ab"]],
  ["a+", ["", "bab", "b"]],
  ["^\\p{Letter}+$", ["héllo", "abc1", "日本", ""]],
  ["^(?:https?|ftp)://[^\\s/$.?#].[^\\s]*$", ["https://example.com/x", "ftp://a.b", "http:/bad", "https://"]],
  ["^(\\w+\\.)*\\w+$", ["a.b.c", "abc", "a..b", ".a"]],
  ["colou?r", ["color", "colour", "colr"]],
  ["^\\d{2,4}$", ["1", "12", "1234", "12345"]],
  ["^x{3,}$", ["xx", "xxx", "xxxxxx"]],
  ["\\bcat\\b", ["cat", "a cat!", "concat", "cats"]],
  ["\\Bcat", ["concat", "cat"]],
  ["^[\\w-]+$", ["a-b_c", "a b"]],
  ["^(a|b|cd)+$", ["abcd", "abc", "cdcd"]],
  ["^.$", ["a", "\n", "😀", "ab"]],
  ["^[^a-c]+$", ["xyz", "xaz"]],
  ["^\\u0041\\x42\\t?$", ["AB", "AB\t", "ab"]],
  ["^(?<year>\\d{4})-\\d{2}$", ["2026-11", "26-11"]],
  ["a{,2}", ["a{,2}", "aa"]],
  ["^$", ["", "a"]],
  ["^(a*)*$", ["aaaa", "aab"]],
  ["^(a+?)b$", ["aab", "b"]],
];

test("T5, T9: the linear-time pattern matcher agrees with the engine on common patterns", () => {
  for (const [source, inputs] of CASES) {
    const mine = compileLinearRegex(source);
    assert.ok(mine, `${source} did not compile`);
    let native: RegExp;
    try {
      native = new RegExp(source, "u");
    } catch {
      native = new RegExp(source);
    }
    for (const input of inputs) assert.equal(mine.test(input), native.test(input), `${source} on ${JSON.stringify(input)}`);
  }
});

test("T9: a catastrophic pattern from a server runs in linear time", () => {
  // Backtracking takes seconds at 27 characters and hours at 40; the matcher stays linear.
  const schema = compileSchema({ type: "object", properties: { s: { type: "string", pattern: "^(a|a)*$" } } });
  const t0 = performance.now();
  const r = schema.validate({ s: "a".repeat(5000) + "!" });
  assert.equal(r.valid, false);
  const r2 = compileSchema({ type: "string", pattern: "^(a+)+$" }).validate("a".repeat(5000) + "b");
  assert.equal(r2.valid, false);
  assert.ok(performance.now() - t0 < 5000);
});

test("T5: backreferences and lookaround are refused at compile time; invalid patterns are schema errors", () => {
  for (const source of ["(a)\\1", "(?=a)b", "(?!a)", "(?<=a)b", "(?<n>a)\\k<n>"]) {
    assert.throws(() => compileSchema({ type: "string", pattern: source }), (e: unknown) => e instanceof YadaError && e.code === "schema", source);
  }
  for (const source of ["(", "a)", "[a", "*a", "x{3,2}"]) {
    assert.equal(compileLinearRegex(source), null, source);
    assert.throws(() => compileSchema({ pattern: source }), (e: unknown) => e instanceof YadaError && e.code === "schema", source);
  }
});

test("T5: counted repetitions are bounded", () => {
  assert.throws(() => compileLinearRegex("(a{1000}){1000}"), (e: unknown) => e instanceof YadaError && e.code === "limit");
});

test("T5: an empty group under a huge count is compiled once, not repeated", () => {
  const t0 = performance.now();
  for (const source of ["^(){999999999999}a$", "^(?:){999999999999,}a$", "^(?:(?:){999999999999}){3}a$"]) {
    const re = compileLinearRegex(source);
    assert.ok(re, source);
    assert.equal(re.test("a"), true, source);
    assert.equal(re.test("b"), false, source);
  }
  // An optional empty group still emits its branch: counted, so bounded by MAX_REGEX_PROGRAM.
  assert.throws(() => compileLinearRegex("(?:(?:){0,1}){999999999999}"), (e: unknown) => e instanceof YadaError && e.code === "limit");
  assert.ok(performance.now() - t0 < 2000);
});
