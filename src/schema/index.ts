/**
 * The JSON Schema validator: draft 7, 2019-09 and 2020-12, compiled to
 * closures (never `eval`), bounded in depth and work, and never fetching.
 *
 * @module
 */
export { compileSchema, type CompileOptions } from "./compile.js";
export { CompiledSchema, type ValidateOptions, type ValidationResult } from "./validate.js";
export type { Dialect } from "./types.js";
