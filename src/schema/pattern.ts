/**
 * Regexes for `pattern`, `patternProperties` and the `regex` format. Sources
 * come from schemas (untrusted), so their length is bounded before the engine
 * sees them, and each source is compiled once and cached.
 *
 * @module
 */
import { LimitError, SchemaError } from "../errors.js";
import { MAX_SCHEMA_PATTERN_CHARS } from "../limits.js";

// A bounded cache shared by every compile: tool lists repeat the same patterns.
const CACHE_MAX = 512;
const cache = new Map<string, RegExp | null>();

/**
 * Builds the ECMA-262 regex for `source` (2020-12 §6.4: patterns are ECMA-262,
 * not anchored). The `u` flag is tried first so `\p{...}` and astral characters
 * work; sources that are only valid without it (such as `[\w-]`, common in
 * generated schemas) fall back to the legacy syntax. Returns null when neither
 * compiles.
 */
export function tryRegex(source: string): RegExp | null {
  const hit = cache.get(source);
  if (hit !== undefined) return hit;
  if (source.length > MAX_SCHEMA_PATTERN_CHARS) {
    throw new LimitError(
      "MAX_SCHEMA_PATTERN_CHARS",
      MAX_SCHEMA_PATTERN_CHARS,
      `schema pattern longer than ${MAX_SCHEMA_PATTERN_CHARS} characters`,
    );
  }
  let re: RegExp | null = null;
  try {
    re = new RegExp(source, "u");
  } catch {
    try {
      re = new RegExp(source);
    } catch {
      re = null;
    }
  }
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(source, re);
  return re;
}

/** {@link tryRegex}, but an invalid source is a SchemaError naming the schema location. */
export function compileRegex(source: string, where: string): RegExp {
  const re = tryRegex(source);
  if (re === null) throw new SchemaError(`invalid regular expression at ${where || "/"}`);
  return re;
}
