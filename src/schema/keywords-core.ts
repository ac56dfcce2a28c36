/**
 * Assertions on a single value: `type`, `enum`, `const`, the numeric bounds,
 * the string bounds and `pattern`, and `format` (2020-12 validation §6.1-6.3,
 * §7; draft 7 validation §6.1-6.3, §7).
 *
 * @module
 */
import { ARRAY, COMMON, NUMBER, OBJECT, STRING, type Build, type Kind } from "./build.js";
import { isRec } from "../util/record.js";
import { jsonEqual } from "./equal.js";
import { formatChecker } from "./formats.js";
import { compileRegex } from "./pattern.js";
import { report } from "./runtime.js";
import type { Check } from "./types.js";

const TYPES = ["null", "boolean", "object", "array", "number", "integer", "string"] as const;
type TypeName = (typeof TYPES)[number];

function isType(t: TypeName, v: unknown): boolean {
  switch (t) {
    case "string":
      return typeof v === "string";
    case "number":
      return typeof v === "number";
    // 2020-12 validation §6.1.1: any number with a zero fractional part is an integer.
    case "integer":
      return Number.isInteger(v);
    case "boolean":
      return typeof v === "boolean";
    case "null":
      return v === null;
    case "array":
      return Array.isArray(v);
    case "object":
      return isRec(v);
  }
}

/** Is `raw` a valid `type` value: a type name or a non-empty array of them? */
export function isTypeKeyword(raw: unknown): boolean {
  if (typeof raw === "string") return TYPES.includes(raw as TypeName);
  return Array.isArray(raw) && raw.length !== 0 && raw.every((n) => TYPES.includes(n as TypeName));
}

/** What a malformed `type` must be, for its SchemaError. */
export const TYPE_KEYWORD_SHAPE = `one of ${TYPES.join(", ")} or an array of them`;

function typeCheck(b: Build): void {
  const raw = b.get("type");
  const types = (typeof raw === "string" ? [raw] : raw) as TypeName[];
  const at = b.at("type");
  const msg = `must be ${types.join(" or ")}`;
  let check: Check;
  if (types.length === 1) {
    const t = types[0] as TypeName;
    switch (t) {
      case "string":
        check = (v, ctx) => typeof v === "string" || report(ctx, at, msg);
        break;
      case "object":
        check = (v, ctx) => isRec(v) || report(ctx, at, msg);
        break;
      case "number":
        check = (v, ctx) => typeof v === "number" || report(ctx, at, msg);
        break;
      default:
        check = (v, ctx) => isType(t, v) || report(ctx, at, msg);
    }
  } else {
    check = (v, ctx) => {
      for (let i = 0; i < types.length; i++) if (isType(types[i] as TypeName, v)) return true;
      return report(ctx, at, msg);
    };
  }
  b.add(COMMON, check);
  if (types.length === 1) b.singleKind = KIND_OF[types[0] as TypeName];
}

const KIND_OF: Record<TypeName, Kind> = {
  string: STRING,
  number: NUMBER,
  integer: NUMBER,
  object: OBJECT,
  array: ARRAY,
  boolean: COMMON,
  null: COMMON,
};

function isPrimitive(v: unknown): boolean {
  return v === null || typeof v !== "object";
}

function enumCheck(b: Build): void {
  const values = b.get("enum") as unknown[];
  const at = b.at("enum");
  const msg = "must be one of the allowed values";
  const prims = new Set(values.filter(isPrimitive));
  const objects = values.filter((v) => !isPrimitive(v));
  if (objects.length === 0) {
    b.add(COMMON, (v, ctx) => prims.has(v) || report(ctx, at, msg));
    return;
  }
  b.add(COMMON, (v, ctx) => {
    if (isPrimitive(v)) return prims.has(v) || report(ctx, at, msg);
    for (let i = 0; i < objects.length; i++) if (jsonEqual(v, objects[i])) return true;
    return report(ctx, at, msg);
  });
}

function constCheck(b: Build): void {
  const c = b.get("const");
  const at = b.at("const");
  const msg = "must be equal to the constant";
  if (isPrimitive(c)) b.add(COMMON, (v, ctx) => v === c || report(ctx, at, msg));
  else b.add(COMMON, (v, ctx) => jsonEqual(v, c) || report(ctx, at, msg));
}

function numberChecks(b: Build): void {
  // Draft 4 spelled exclusive bounds as booleans beside maximum / minimum.
  const exMaxFlag = b.dialect === "draft-07" && typeof b.get("exclusiveMaximum") === "boolean";
  const exMinFlag = b.dialect === "draft-07" && typeof b.get("exclusiveMinimum") === "boolean";
  if (b.has("maximum")) {
    const max = b.get("maximum") as number;
    const at = b.at("maximum");
    if (exMaxFlag && b.get("exclusiveMaximum") === true) {
      const msg = `must be < ${max}`;
      b.add(NUMBER, (v, ctx) => (v as number) < max || report(ctx, at, msg));
    } else {
      const msg = `must be <= ${max}`;
      b.add(NUMBER, (v, ctx) => (v as number) <= max || report(ctx, at, msg));
    }
  }
  if (b.has("minimum")) {
    const min = b.get("minimum") as number;
    const at = b.at("minimum");
    if (exMinFlag && b.get("exclusiveMinimum") === true) {
      const msg = `must be > ${min}`;
      b.add(NUMBER, (v, ctx) => (v as number) > min || report(ctx, at, msg));
    } else {
      const msg = `must be >= ${min}`;
      b.add(NUMBER, (v, ctx) => (v as number) >= min || report(ctx, at, msg));
    }
  }
  if (b.has("exclusiveMaximum") && !exMaxFlag) {
    const max = b.get("exclusiveMaximum") as number;
    const at = b.at("exclusiveMaximum");
    const msg = `must be < ${max}`;
    b.add(NUMBER, (v, ctx) => (v as number) < max || report(ctx, at, msg));
  }
  if (b.has("exclusiveMinimum") && !exMinFlag) {
    const min = b.get("exclusiveMinimum") as number;
    const at = b.at("exclusiveMinimum");
    const msg = `must be > ${min}`;
    b.add(NUMBER, (v, ctx) => (v as number) > min || report(ctx, at, msg));
  }
  if (b.has("multipleOf")) {
    const m = b.get("multipleOf") as number;
    const at = b.at("multipleOf");
    const msg = `must be a multiple of ${m}`;
    b.add(NUMBER, (v, ctx) => {
      const q = (v as number) / m;
      if (Number.isInteger(q)) return true;
      // Binary floating point: 0.0075 / 0.0001 is 74.99999999999999. Accept a
      // quotient within a few ulps of an integer; an infinite quotient is not one.
      if (Number.isFinite(q) && Math.abs(q - Math.round(q)) <= 4 * Number.EPSILON * Math.abs(q)) return true;
      return report(ctx, at, msg);
    });
  }
}

/** Length in Unicode code points (2020-12 validation §6.3.1), not UTF-16 units. */
function codePoints(s: string): number {
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

function stringChecks(b: Build): void {
  if (b.has("maxLength")) {
    const max = b.get("maxLength") as number;
    const at = b.at("maxLength");
    const msg = `must have at most ${max} characters`;
    // A string never has more code points than UTF-16 units: count only when needed.
    b.add(STRING, (v, ctx) => (v as string).length <= max || codePoints(v as string) <= max || report(ctx, at, msg));
  }
  if (b.has("minLength")) {
    const min = b.get("minLength") as number;
    const at = b.at("minLength");
    const msg = `must have at least ${min} characters`;
    // At most two UTF-16 units per code point.
    b.add(STRING, (v, ctx) => {
      const n = (v as string).length;
      return (n >= min && (n >= 2 * min || codePoints(v as string) >= min)) || report(ctx, at, msg);
    });
  }
  if (b.has("pattern")) {
    const src = b.get("pattern") as string;
    const at = b.at("pattern");
    const re = compileRegex(src, at);
    b.add(STRING, (v, ctx) => re.test(v as string) || report(ctx, at, "must match the pattern"));
  }
}

function formatCheck(b: Build): void {
  const name = b.get("format") as string;
  // 2020-12 validation §7.2.1: format is an annotation unless assertion is asked
  // for (the caller's option, or the format-assertion vocabulary).
  const assert = b.hooks.assertFormats || b.place.res.vocab?.has("format-assertion") === true;
  if (!assert) return;
  const test = formatChecker(name);
  if (test === null) return;
  const at = b.at("format");
  const msg = `must be a valid ${name}`;
  b.add(STRING, (v, ctx) => test(v as string) || report(ctx, at, msg));
}

/** Adds the single-value assertions present in `b`. */
export function addCoreKeywords(b: Build): void {
  if (b.has("type")) typeCheck(b);
  if (b.has("const")) constCheck(b);
  if (b.has("enum")) enumCheck(b);
  numberChecks(b);
  stringChecks(b);
  if (b.has("format")) formatCheck(b);
}
