/**
 * Regexes for `pattern`, `patternProperties` and the `regex` format. Sources
 * come from schemas (untrusted), so their length is bounded before the engine
 * sees them, and each source is compiled once and cached.
 *
 * @module
 */
import { LimitError, SchemaError } from "../errors.js";
import { MAX_SCHEMA_PATTERN_CHARS } from "../limits.js";
import { compileLinearRegex, type LinearRegex } from "./regex.js";

// A bounded cache shared by every compile: tool lists repeat the same patterns.
const CACHE_MAX = 512;
const cache = new Map<string, LinearRegex | null>();

/**
 * Builds the matcher for `source` at schema location `where` (2020-12 §6.4:
 * patterns are ECMA-262, not anchored). Patterns come from servers, so they run
 * on the linear-time matcher of `regex.ts`, never on the backtracking engine: a
 * crafted pattern cannot freeze the host. Character classes accept `\p{...}`
 * and, when only valid there, the legacy syntax (such as `[\w-]`, common in
 * generated schemas).
 *
 * @throws SchemaError (`schema`) for an invalid source, backreferences and
 *   lookaround; LimitError (`limit`).
 */
export function compileRegex(source: string, where: string): LinearRegex {
  let re = cache.get(source);
  if (re === undefined) {
    if (source.length > MAX_SCHEMA_PATTERN_CHARS) {
      throw new LimitError(
        "MAX_SCHEMA_PATTERN_CHARS",
        MAX_SCHEMA_PATTERN_CHARS,
        `schema pattern longer than ${MAX_SCHEMA_PATTERN_CHARS} characters`,
      );
    }
    re = compileLinearRegex(source);
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(source, re);
  }
  if (re === null) throw new SchemaError(`invalid regular expression at ${where || "/"}`);
  return re;
}
