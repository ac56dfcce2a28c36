// Y1: every validation call has a work budget (subschema visits, keys and items
// walked, pattern steps) and compile-time bounds keep each step small: the
// pattern program bound and the subschema count. The lazily built automaton must
// answer exactly as the engine's regexes, inside and past its state bound.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LimitError } from "../../src/errors.js";
import { MAX_REGEX_DFA_STATES, MAX_REGEX_PROGRAM, MAX_SCHEMA_SUBSCHEMAS, MAX_SCHEMA_WORK } from "../../src/limits.js";
import { compileSchema } from "../../src/schema/index.js";
import { compileLinearRegex } from "../../src/schema/regex.js";

const isLimit = (name: string) => (e: unknown) => e instanceof LimitError && e.code === "limit" && e.limit === name;

test("Y1: a validation past MAX_SCHEMA_WORK is a LimitError naming the bound, and the next call has a fresh budget", () => {
  const v = compileSchema({ type: "array", items: { allOf: Array.from({ length: 200 }, () => ({ anyOf: [{ type: "string" }, { type: "number", minimum: 0 }] })) } });
  const t0 = performance.now();
  assert.throws(() => v.validate(Array.from({ length: 10_000 }, () => 1)), isLimit("MAX_SCHEMA_WORK"));
  assert.ok(performance.now() - t0 < 2_000);
  assert.equal(v.validate([1, "a", 2]).valid, true);
  assert.equal(v.validate([1, -1]).valid, false);
});

test("Y1: pattern steps are charged: a costly pattern fanned out by allOf stops at the budget", () => {
  const pattern = "^(?:[\\s\\S]?){900}$";
  const v = compileSchema({ type: "string", allOf: Array.from({ length: 3000 }, () => ({ pattern })) });
  assert.throws(() => v.validate("hello world, hello world"), isLimit("MAX_SCHEMA_WORK"));
  // One copy is cheap enough.
  assert.equal(compileSchema({ type: "string", pattern }).validate("hello world").valid, true);
});

test("Y1: a long string scanned many times (minLength, format) is charged per 16 characters", () => {
  const long = "x".repeat(200_000);
  const v = compileSchema({ allOf: Array.from({ length: 1000 }, () => ({ minLength: 150_000, format: "uri-reference" })) }, { formats: "assert" });
  assert.throws(() => v.validate(long), isLimit("MAX_SCHEMA_WORK"));
});

test("Y1: a pattern past MAX_REGEX_PROGRAM instructions is refused at compile time", () => {
  assert.ok(MAX_REGEX_PROGRAM <= 2_000);
  assert.throws(() => compileSchema({ pattern: "^(?:a?){1000}$" }), isLimit("MAX_REGEX_PROGRAM"));
  assert.throws(() => compileSchema({ pattern: "(a{50}){50}" }), isLimit("MAX_REGEX_PROGRAM"));
  assert.doesNotThrow(() => compileSchema({ pattern: "^[a-zA-Z0-9._-]{1,255}$" }));
});

test("Y1: a schema with more than MAX_SCHEMA_SUBSCHEMAS subschemas is refused at compile time", () => {
  const properties = Object.fromEntries(Array.from({ length: MAX_SCHEMA_SUBSCHEMAS + 1 }, (_, i) => [`p${i}`, { type: "string" }]));
  assert.throws(() => compileSchema({ type: "object", properties }), isLimit("MAX_SCHEMA_SUBSCHEMAS"));
});

test("Y1: allIssues after a fast pass that used most of the budget still returns the issue found", () => {
  const v = compileSchema({ type: "array", items: { allOf: Array.from({ length: 100 }, () => ({ type: "number" })) } });
  const items: unknown[] = Array.from({ length: Math.floor(MAX_SCHEMA_WORK / 125) }, () => 1);
  items.push("x");
  const r = v.validate(items, { allIssues: true });
  assert.equal(r.valid, false);
  assert.ok(!r.valid && r.issues.length >= 1 && r.issues[0]?.instancePath === `/${items.length - 1}`);
});

/** A small seeded generator (mulberry32). */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test("Y1: the lazily built automaton agrees with the engine on random patterns and inputs", () => {
  const r = rng(15);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const atoms = ["a", "b", "[ab]", "[^a]", ".", "\\d", "(?:a|bc)", "(a|b)*", "é", "$", "^", "x?", "\\b", "\\B", " "];
  const quants = ["", "", "*", "+", "?", "{2}", "{1,3}"];
  let compared = 0;
  for (let p = 0; p < 300; p++) {
    let src = "";
    const len = 1 + Math.floor(r() * 5);
    for (let i = 0; i < len; i++) {
      const atom = pick(atoms);
      src += atom + (atom === "$" || atom === "^" || atom.startsWith("\\b") || atom === "\\B" ? "" : pick(quants));
    }
    if (r() < 0.5) src = "^" + src;
    if (r() < 0.5) src += "$";
    let native: RegExp;
    try {
      native = new RegExp(src, "u");
    } catch {
      continue;
    }
    const mine = compileLinearRegex(src);
    assert.ok(mine, src);
    for (let k = 0; k < 12; k++) {
      let input = "";
      const n = Math.floor(r() * 8);
      for (let i = 0; i < n; i++) input += pick(["a", "b", "c", "1", "é", "\n", "😀", " "]);
      assert.equal(mine.test(input), native.test(input), `${src} on ${JSON.stringify(input)}`);
      compared++;
    }
  }
  assert.ok(compared > 1000);
});

test("Y1: past MAX_REGEX_DFA_STATES the matcher hands its threads to the simulation and still answers right", () => {
  const n = MAX_REGEX_DFA_STATES + 200;
  const src = `^[a-c]{0,${Math.floor(n / 2)}}b[a-c]{0,${Math.floor(n / 2)}}$`;
  const mine = compileLinearRegex(src);
  assert.ok(mine);
  const native = new RegExp(src);
  const r = rng(7);
  for (let k = 0; k < 40; k++) {
    let input = "";
    const len = Math.floor(r() * n * 1.2);
    for (let i = 0; i < len; i++) input += "abc"[Math.floor(r() * 3)];
    assert.equal(mine.test(input), native.test(input), `length ${len}`);
  }
});
