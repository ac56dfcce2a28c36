/**
 * Assertions on a single value: `type`, `enum`, `const`, the numeric bounds,
 * the string bounds and `pattern`, and `format` (2020-12 validation §6.1-6.3,
 * §7; draft 7 validation §6.1-6.3, §7).
 *
 * @module
 */
import { SchemaError } from "../errors.js";
import { COMMON, NUMBER, STRING, TYPE_CODES, typeIs, type Build } from "./build.js";
import { jsonEqual } from "./equal.js";
import { compileRegex } from "./pattern.js";
import { spend } from "./runtime.js";
import type { Check, Ctx } from "./types.js";

/** Is `raw` a valid `type` value: a type name or a non-empty array of them? */
export function isTypeKeyword(raw: unknown): boolean {
  const isName = (n: unknown) => typeof n === "string" && Object.hasOwn(TYPE_CODES, n);
  return isName(raw) || (Array.isArray(raw) && raw.length !== 0 && raw.every(isName));
}

/** What a malformed `type` must be, for its SchemaError. */
export const TYPE_KEYWORD_SHAPE = `one of ${Object.keys(TYPE_CODES).join(", ")} or an array of them`;

function typeCheck(b: Build): void {
  const raw = b.get("type");
  const names = (typeof raw === "string" ? [raw] : raw) as string[];
  const codes = names.map((n) => TYPE_CODES[n] as number);
  const fail = b.fail("type", `must be ${names.join(" or ")}`);
  const code = codes[0] as number;
  // A single type is usually tested inline by `assemble`: this closure mostly reports.
  const check: Check = (v, ctx) => {
    for (let i = 0; i < codes.length; i++) if (typeIs(codes[i] as number, v)) return true;
    return fail(ctx);
  };
  b.add(COMMON, check);
  b.typeOk = check;
  if (codes.length === 1) b.typeCode = code;
}

function isPrimitive(v: unknown): boolean {
  return v === null || typeof v !== "object";
}

function enumCheck(b: Build): void {
  const values = b.get("enum") as unknown[];
  const fail = b.fail("enum", "must be one of the allowed values");
  const prims = new Set(values.filter(isPrimitive));
  const objects = values.filter((v) => !isPrimitive(v));
  if (objects.length === 0) {
    b.add(COMMON, (v, ctx) => prims.has(v) || fail(ctx));
    // `type` and `enum` alone, every value of the type (`{ "type": "string", "enum": [...] }`):
    // one closure for both; a value in the enum has the type (see `assemble`).
    const code = b.typeCode;
    const typeOk = b.typeOk;
    if (code !== 0 && typeOk !== null && values.every((x) => typeIs(code, x))) {
      b.typeEnum = (v, ctx, ev) => prims.has(v) || ((typeIs(code, v) || typeOk(v, ctx, ev) || ctx.errs !== null) && fail(ctx));
    }
  } else {
    b.add(COMMON, (v, ctx) => {
      if (isPrimitive(v)) return prims.has(v) || fail(ctx);
      spend(ctx, objects.length);
      return objects.some((o) => jsonEqual(v, o, ctx)) || fail(ctx);
    });
  }
}

function constCheck(b: Build): void {
  const c = b.get("const");
  const fail = b.fail("const", "must be equal to the constant");
  if (isPrimitive(c)) b.add(COMMON, (v, ctx) => v === c || fail(ctx));
  else b.add(COMMON, (v, ctx) => jsonEqual(v, c, ctx) || fail(ctx));
}

/** `instance op n` on numbers, one closure per operator. */
function bound(b: Build, kw: string, op: "<" | "<=" | ">" | ">=", n: number): void {
  const fail = b.fail(kw, `must be ${op} ${n}`);
  b.add(NUMBER, (v, ctx) => (op === "<" ? (v as number) < n : op === "<=" ? (v as number) <= n : op === ">" ? (v as number) > n : (v as number) >= n) || fail(ctx));
}

function numberChecks(b: Build): void {
  // Draft 4 spelled exclusive bounds as booleans beside maximum / minimum (the
  // compiler lets a boolean through in draft 7 schemas only).
  const exMax = b.get("exclusiveMaximum");
  const exMin = b.get("exclusiveMinimum");
  if (b.has("maximum")) bound(b, "maximum", exMax === true ? "<" : "<=", b.get("maximum") as number);
  if (b.has("minimum")) bound(b, "minimum", exMin === true ? ">" : ">=", b.get("minimum") as number);
  if (typeof exMax === "number" && b.has("exclusiveMaximum")) bound(b, "exclusiveMaximum", "<", exMax);
  if (typeof exMin === "number" && b.has("exclusiveMinimum")) bound(b, "exclusiveMinimum", ">", exMin);
  if (b.has("multipleOf")) {
    const m = b.get("multipleOf") as number;
    const fail = b.fail("multipleOf", `must be a multiple of ${m}`);
    b.add(NUMBER, (v, ctx) => {
      const q = (v as number) / m;
      // Binary floating point: 0.0075 / 0.0001 is 74.99999999999999. Accept a
      // quotient within a few ulps of an integer. A quotient past the largest double
      // (1e308 / 0.5) is judged by the remainder, which floating point computes exactly.
      return (
        Number.isInteger(q) ||
        (Number.isFinite(q) ? Math.abs(q - Math.round(q)) <= 4 * Number.EPSILON * Math.abs(q) : (v as number) % m === 0) ||
        fail(ctx)
      );
    });
  }
}

/** Length in Unicode code points (2020-12 validation §6.3.1), not UTF-16 units; a unit of work per 16 (Y1). */
function codePoints(s: string, ctx: Ctx): number {
  spend(ctx, s.length >> 4);
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** The check of format `name`, which assertion asks for; a compile without the format checks refuses. */
function formatTest(b: Build, name: string): ((s: string) => boolean) | null {
  const lookup = b.hooks.formats;
  if (lookup === null) throw new SchemaError(`format assertion (the format-assertion vocabulary) needs the format checks of compileSchema (at ${b.at("format")})`);
  return lookup(name);
}

/**
 * maxLength, minLength, pattern and format as one closure, run in that order.
 * When `type` is "string" the closure tests it too and stands for the whole
 * subschema (see `assemble`): a leaf string schema is one call.
 */
function stringChecks(b: Build): void {
  const max = b.has("maxLength") ? (b.get("maxLength") as number) : -1;
  const min = b.has("minLength") ? (b.get("minLength") as number) : -1;
  const re = b.has("pattern") ? compileRegex(b.get("pattern") as string, b.at("pattern")) : null;
  // 2020-12 validation §7.2.1: format is an annotation unless assertion is asked
  // for (the caller's option, or the format-assertion vocabulary).
  const name = b.get("format") as string;
  const test = b.has("format") && (b.hooks.assertFormats || b.place.res.vocab?.has("format-assertion") === true) ? formatTest(b, name) : null;
  if (max < 0 && min < 0 && re === null && test === null) return;
  const failMax = b.fail("maxLength", `must have at most ${max} characters`);
  const failMin = b.fail("minLength", `must have at least ${min} characters`);
  const failPattern = b.fail("pattern", "must match the pattern");
  const failFormat = b.fail("format", `must be a valid ${name}`);
  const typeOk = b.typeCode === 1 ? b.typeOk : null;
  if (typeOk !== null) b.selfTyped = true;
  b.add(STRING, (v, ctx, ev) => {
    if (typeof v !== "string") return typeOk === null || typeOk(v, ctx, ev);
    const n = v.length;
    // A string never has more code points than UTF-16 units, nor fewer than half
    // as many: count them only when the length cannot decide.
    let ok = max < 0 || n <= max || codePoints(v, ctx) <= max || failMax(ctx);
    if (!ok && ctx.errs === null) return false;
    if (min >= 0 && !(n >= min && (n >= 2 * min || codePoints(v, ctx) >= min))) {
      ok = failMin(ctx);
      if (ctx.errs === null) return false;
    }
    if (re !== null && !re.test(v, ctx)) {
      ok = failPattern(ctx);
      if (ctx.errs === null) return false;
    }
    if (test !== null) {
      // The format checks are linear in the string: a unit of work per 16 characters (Y1).
      spend(ctx, (n >> 4) + 1);
      if (!test(v)) ok = failFormat(ctx);
    }
    return ok;
  });
}

/** Adds the single-value assertions present in `b`. */
export function addCoreKeywords(b: Build): void {
  if (b.has("type")) typeCheck(b);
  if (b.has("const")) constCheck(b);
  if (b.has("enum")) enumCheck(b);
  numberChecks(b);
  stringChecks(b);
}
