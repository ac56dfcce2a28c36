/**
 * Host options are checked where they enter (ours): a wrong kind fails at once
 * with a `config` error naming the option, instead of a TypeError later from a
 * callback (a `logger` that is an object, a timeout that is a string). The
 * message names the option and the type given, never the value.
 *
 * @module
 */
import { ConfigError } from "../errors.js";

/** What each kind letter of a rule asks for. */
const KINDS: Record<string, string> = { f: "a function", o: "an object", n: "a number ≥ 0", a: "an AbortSignal" };

/**
 * Checks the options a host passed to `where` against `rules`: space-separated
 * `name:kind`, kind one of `f` (function, the default), `o` (object), `n` (a
 * finite number ≥ 0), `a` (AbortSignal); a trailing `?` also takes null. Absent
 * options (`undefined`) are fine. Only what would fail later, far from its cause,
 * is checked: callbacks, bounds, signals and nested option objects.
 *
 * @throws ConfigError (`config`) naming the first option of the wrong kind.
 *
 * @example
 * ```ts
 * checkOptions("McpClient.connect", { logger: { log() {} } }, "logger signal:a");
 * // ConfigError: McpClient.connect: option logger must be a function (got object)
 * ```
 */
export function checkOptions(where: string, options: unknown, rules: string): void {
  if (options === undefined) return;
  if (typeof options !== "object" || options === null) throw new ConfigError(`${where}: the options must be an object`);
  for (const rule of rules.split(" ")) {
    const [name = "", kind = "f"] = rule.split(":");
    const v = (options as Record<string, unknown>)[name];
    if (v === undefined || (v === null && kind.endsWith("?"))) continue;
    const k = kind.charAt(0);
    const ok =
      k === "f" ? typeof v === "function"
      : k === "n" ? typeof v === "number" && v >= 0 && v < Infinity
      : k === "a" ? v instanceof AbortSignal
      : typeof v === "object" && v !== null && !Array.isArray(v);
    if (!ok) throw new ConfigError(`${where}: option ${name} must be ${KINDS[k]} (got ${Array.isArray(v) ? "array" : v === null ? "null" : typeof v})`);
  }
}
