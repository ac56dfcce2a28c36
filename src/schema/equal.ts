/**
 * JSON value equality for `enum`, `const` and `uniqueItems` (2020-12 validation
 * §4.2.2: numbers compare mathematically, so 1 and 1.0 are equal; object key
 * order does not matter). Recursion is bounded by {@link MAX_INSTANCE_DEPTH}.
 *
 * @module
 */
import { LimitError } from "../errors.js";
import { MAX_INSTANCE_DEPTH } from "../limits.js";
import { overBudget, type Meter } from "./program.js";

/** The LimitError for a JSON value (an instance, a `const`) nested past the bound. */
export function tooDeep(): LimitError {
  return new LimitError("MAX_INSTANCE_DEPTH", MAX_INSTANCE_DEPTH, `JSON value nested deeper than ${MAX_INSTANCE_DEPTH} levels`);
}

/**
 * Is `a` the same JSON value as `b`? Each array or object compared costs `meter`
 * one unit per member (Y1). Throws LimitError (code `limit`) past the depth bound
 * or the budget.
 */
export function jsonEqual(a: unknown, b: unknown, meter: Meter, depth = 0): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (depth >= MAX_INSTANCE_DEPTH) throw tooDeep();
  if (--meter.work < 0) throw overBudget();
  const aa = Array.isArray(a);
  if (aa !== Array.isArray(b)) return false;
  if (aa) {
    const x = a as unknown[];
    const y = b as unknown[];
    if (x.length !== y.length) return false;
    if ((meter.work -= x.length) < 0) throw overBudget();
    for (let i = 0; i < x.length; i++) if (!jsonEqual(x[i], y[i], meter, depth + 1)) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const kx = Object.keys(x);
  if ((meter.work -= 2 * kx.length) < 0) throw overBudget();
  if (kx.length !== Object.keys(y).length) return false;
  for (const k of kx) {
    if (!Object.hasOwn(y, k) || !jsonEqual(x[k], y[k], meter, depth + 1)) return false;
  }
  return true;
}

/**
 * A string that is equal for equal JSON values (keys sorted, numbers by value),
 * so `uniqueItems` runs in linear time with a Set instead of pairwise compares.
 */
export function canonicalKey(v: unknown, depth = 0): string {
  switch (typeof v) {
    case "string":
      return JSON.stringify(v);
    case "number":
    case "boolean":
      // -0 and 0 are the same JSON number; String(-0) is "0".
      return String(v);
    case "object":
      break;
    default:
      return "?" + typeof v;
  }
  if (v === null) return "null";
  if (depth >= MAX_INSTANCE_DEPTH) throw tooDeep();
  if (Array.isArray(v)) {
    let s = "[";
    for (let i = 0; i < v.length; i++) s += (i ? "," : "") + canonicalKey(v[i], depth + 1);
    return s + "]";
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort();
  let s = "{";
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    s += (i ? "," : "") + JSON.stringify(k) + ":" + canonicalKey(o[k], depth + 1);
  }
  return s + "}";
}
