/**
 * The table-driven reader of server objects: each parser of `types.ts` (and the
 * client's list pages) names the fields it reads and their types, and this one
 * reader checks them, so every field gets the same check and the same message.
 *
 * @module
 */
import { ProtocolError } from "../errors.js";

/** A JSON object as received. */
export type JsonRecord = Record<string, unknown>;

/** Is `v` a plain JSON object? */
export function isRecord(v: unknown): v is JsonRecord {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * How {@link readFields} treats one field: a `string` or `object` is required; with
 * `?` (also `boolean?`) it is optional; either way a wrong type is an error. A
 * `hint` is optional and kept only when it has its type (a wrong one is dropped,
 * as the spec makes it advisory).
 */
export type FieldRule = "string" | "string?" | "object" | "object?" | "boolean?" | "number hint" | "boolean hint";

/** The JSON type each rule reads (precomputed: this runs for every field of every server object). */
const RULE_TYPES: Readonly<Record<FieldRule, string>> = {
  string: "string",
  "string?": "string",
  object: "object",
  "object?": "object",
  "boolean?": "boolean",
  "number hint": "number",
  "boolean hint": "boolean",
};

/** The rules of a table, in the order the fields are checked and copied. */
export type FieldRules = Readonly<Record<string, FieldRule>>;

/**
 * Copies the fields `rules` names from `v` into `out`, in the table's order.
 *
 * @throws ProtocolError (`protocol`) for a missing required field or a mistyped one that is not a hint.
 */
export function readFields<T>(v: JsonRecord, where: string, rules: FieldRules, out: JsonRecord = {}): T {
  // for…in, not Object.entries: this runs for every field of every server object,
  // and the tables are plain object literals (own keys only).
  for (const key in rules) {
    const rule = rules[key] as FieldRule;
    const value = v[key];
    const type = RULE_TYPES[rule];
    if (type === "object" ? isRecord(value) : typeof value === type) out[key] = value;
    else if (rule === type || (value !== undefined && rule.endsWith("?"))) {
      throw new ProtocolError(`${where}: "${key}" must be ${type === "object" ? "an object" : `a ${type}`}`);
    }
  }
  return out as T;
}

/** `v` as an object. @throws ProtocolError (`protocol`) when it is not one. */
export function asRecord(v: unknown, where: string, what: string): JsonRecord {
  if (!isRecord(v)) throw new ProtocolError(`${where}: ${what} is not an object`);
  return v;
}

/** Parses the array `v[key]` item by item, each named `key[i]` in errors. @throws ProtocolError (`protocol`) */
export function readList<T>(v: JsonRecord, key: string, where: string, parse: (item: unknown, where: string) => T): T[] {
  const items = v[key];
  if (!Array.isArray(items)) throw new ProtocolError(`${where}: "${key}" must be an array`);
  // A loop, not map with a closure: this runs for every list of every server answer.
  const out: T[] = [];
  for (let i = 0; i < items.length; i++) out.push(parse(items[i], `${where} ${key}[${i}]`));
  return out;
}
