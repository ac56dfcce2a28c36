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
 * How {@link readFields} treats one field. A `string` or `object` is required, or
 * optional with `?`, and a wrong type is an error. A `number` or `boolean` field
 * is an optional hint, kept only when it has that type (a wrong one is dropped).
 */
export type FieldRule = "string" | "string?" | "object" | "object?" | "number" | "boolean";

/** The rules of a table, in the order the fields are checked and copied. */
export type FieldRules = Readonly<Record<string, FieldRule>>;

/**
 * Copies the fields `rules` names from `v` into `out`, in the table's order.
 *
 * @throws ProtocolError (`protocol`) for a missing required field or a mistyped string or object.
 */
export function readFields<T>(v: JsonRecord, where: string, rules: FieldRules, out: JsonRecord = {}): T {
  for (const [key, rule] of Object.entries(rules)) {
    const value = v[key];
    const type = rule.replace("?", "");
    if (type === "object" ? isRecord(value) : typeof value === type) out[key] = value;
    else if ((type === "string" || type === "object") && (value !== undefined || rule === type)) {
      throw new ProtocolError(`${where}: "${key}" must be ${type === "string" ? "a string" : "an object"}`);
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
  return items.map((item, i) => parse(item, `${where} ${key}[${i}]`));
}
