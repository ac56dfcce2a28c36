/**
 * Argument checks of the Node built-in tools (R5): the model's arguments are
 * `unknown` until checked here; a bad one is reported to the model.
 *
 * @module
 */
import { PathRefused } from "./roots.js";

/** The arguments as an object. @throws PathRefused (reported to the model). */
export function argsObject(args: unknown): Record<string, unknown> {
  if (typeof args !== "object" || args === null || Array.isArray(args)) throw new PathRefused("arguments must be an object");
  return args as Record<string, unknown>;
}

/** An optional integer argument of at least `min`. @throws PathRefused. */
export function optionalInt(args: Record<string, unknown>, key: string, min: number): number | undefined {
  const v = args[key];
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min) throw new PathRefused(`${key} must be an integer of at least ${min}`);
  return v;
}

/** An optional boolean argument. @throws PathRefused. */
export function optionalBool(args: Record<string, unknown>, key: string): boolean | undefined {
  const v = args[key];
  if (v === undefined) return undefined;
  if (typeof v !== "boolean") throw new PathRefused(`${key} must be a boolean`);
  return v;
}
