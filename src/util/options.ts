/**
 * Host options are checked where they enter (ours): a wrong type fails at once
 * with a `config` error naming the option, instead of a TypeError later from a
 * callback (a `logger` that is an object, a timeout that is a string). The
 * message names the option and the kind of value given, never the value.
 *
 * @module
 */
import { ConfigError } from "../errors.js";

/** What an option must be. `ms` is a finite number ≥ 0; `ms|null` also takes null. */
export type OptionKind = "function" | "string" | "boolean" | "object" | "ms" | "ms|null" | "signal" | "count";

/** The kind of a value, for a message (never the value itself). */
function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "number" && !Number.isFinite(v)) return String(v);
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

function fits(v: unknown, kind: OptionKind): boolean {
  switch (kind) {
    case "function":
      return typeof v === "function";
    case "string":
      return typeof v === "string";
    case "boolean":
      return typeof v === "boolean";
    case "object":
      return typeof v === "object" && v !== null && !Array.isArray(v);
    case "ms|null":
      if (v === null) return true;
      return typeof v === "number" && Number.isFinite(v) && v >= 0;
    case "ms":
      return typeof v === "number" && Number.isFinite(v) && v >= 0;
    case "count":
      return typeof v === "number" && Number.isInteger(v) && v >= 0;
    case "signal":
      return typeof AbortSignal !== "undefined" && v instanceof AbortSignal;
  }
}

const WANTED: Record<OptionKind, string> = {
  function: "a function",
  string: "a string",
  boolean: "a boolean",
  object: "an object",
  ms: "a number of milliseconds ≥ 0",
  "ms|null": "a number of milliseconds ≥ 0 or null",
  count: "an integer ≥ 0",
  signal: "an AbortSignal",
};

/**
 * Checks the options a host passed to `where` against `rules`; absent options
 * (`undefined`) are fine.
 *
 * @throws ConfigError (`config`) naming the first option of the wrong kind.
 *
 * @example
 * ```ts
 * checkOptions("McpClient.connect", { logger: { log() {} } }, { logger: "function" });
 * // ConfigError: McpClient.connect: option logger must be a function, not an object
 * ```
 */
export function checkOptions(where: string, options: unknown, rules: Readonly<Record<string, OptionKind>>): void {
  if (options === undefined) return;
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new ConfigError(`${where}: the options must be an object, not ${kindOf(options)}`);
  }
  const given = options as Record<string, unknown>;
  for (const name in rules) {
    const kind = rules[name];
    const v = given[name];
    if (v === undefined || kind === undefined || fits(v, kind)) continue;
    throw new ConfigError(`${where}: option ${name} must be ${WANTED[kind]}, not ${kindOf(v)}`);
  }
}
