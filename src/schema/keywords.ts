/**
 * The keyword table: for each keyword with a meaning here, the shape its value
 * must have (checked once by the compile-time walk), where it holds subschemas
 * (scanned by the resource index, refs.ts) and its 2020-12 vocabulary (validation §6,
 * core §10 and §11), for meta-schemas that declare `$vocabulary`.
 *
 * @module
 */
import type { Place } from "./refs.js";

// Shapes (the low bits of an entry).
/** No shape to check (`const`). */
export const ANY = 0;
/** One subschema. */
export const SCHEMA = 1;
/** A non-empty array of subschemas. */
export const SCHEMAS = 2;
/** An object of subschemas. */
export const SCHEMA_MAP = 3;
/** An object of subschemas only indexed, never applied (`$defs`, `definitions`). */
export const DEFS = 4;
/** An object of subschemas or property-name arrays (draft 7 `dependencies`). */
export const DEPENDENCIES = 5;
/** A subschema, or draft 7's tuple: an array of them. */
export const ITEMS = 6;
/** An object of property-name arrays (`dependentRequired`). */
export const NAME_LISTS = 7;
export const TYPE = 8;
/** An array (`enum`). */
export const ARRAY = 9;
/** A finite number. */
export const NUMBER = 10;
/** A number greater than 0 (`multipleOf`). */
export const POSITIVE = 11;
/** A non-negative integer (2020-12 validation §6: "MUST be a non-negative integer"). */
export const COUNT = 12;
export const STRING = 13;
export const BOOLEAN = 14;
/** An array of strings (`required`). */
export const STRINGS = 15;
/** Masks the shape of an entry. */
export const SHAPE = 15;

// Flags.
const VALIDATION = 16;
const APPLICATOR = 32;
const UNEVALUATED = 64;
/** Only 2019-09 and 2020-12 give the keyword a meaning. */
export const MODERN = 128;

/** Keyword to its shape and flags. */
export const KEYWORDS = new Map<string, number>();
for (const [entry, names] of [
  [VALIDATION | TYPE, "type"],
  [VALIDATION | ARRAY, "enum"],
  [VALIDATION | ANY, "const"],
  [VALIDATION | NUMBER, "maximum minimum exclusiveMaximum exclusiveMinimum"],
  [VALIDATION | POSITIVE, "multipleOf"],
  [VALIDATION | COUNT, "maxLength minLength maxItems minItems maxProperties minProperties"],
  [VALIDATION | COUNT | MODERN, "maxContains minContains"],
  [VALIDATION | STRING, "pattern"],
  [VALIDATION | BOOLEAN, "uniqueItems"],
  [VALIDATION | STRINGS, "required"],
  [VALIDATION | NAME_LISTS, "dependentRequired"],
  [APPLICATOR | SCHEMA, "additionalItems additionalProperties contains propertyNames not if then else"],
  [APPLICATOR | SCHEMAS, "allOf anyOf oneOf"],
  [APPLICATOR | SCHEMAS | MODERN, "prefixItems"],
  [APPLICATOR | SCHEMA_MAP, "properties patternProperties dependentSchemas"],
  [APPLICATOR | ITEMS, "items"],
  [UNEVALUATED | SCHEMA | MODERN, "unevaluatedItems unevaluatedProperties"],
  [DEFS, "$defs definitions"],
  [DEPENDENCIES, "dependencies"],
  [STRING, "format $ref"],
  [STRING | MODERN, "$dynamicRef $recursiveRef"],
] as const) {
  for (const name of names.split(" ")) KEYWORDS.set(name, entry);
}

/** Is keyword `kw` enabled by the vocabularies of `place` (all are, without `$vocabulary`)? */
export function enabled(place: Place, kw: string): boolean {
  const vocab = place.res.vocab;
  if (vocab === null) return true;
  const entry = KEYWORDS.get(kw) ?? 0;
  if (entry & VALIDATION) return vocab.has("validation");
  if (entry & APPLICATOR) return vocab.has("applicator");
  if (entry & UNEVALUATED) return vocab.has("unevaluated") || vocab.has("applicator");
  return true;
}
