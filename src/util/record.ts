/**
 * The one check every layer makes on untrusted JSON before reading its members.
 *
 * @module
 */
import { MAX_INSTANCE_DEPTH } from "../limits.js";

/** A JSON object as received: members not yet checked. */
export type Rec = Record<string, unknown>;

/** Is `v` a JSON object (not an array, not null)? */
export function isRec(v: unknown): v is Rec {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Does `v` nest no deeper than `MAX_INSTANCE_DEPTH` levels below `depth`? A walk
 * without copies: the bound of values kept as received (a tool result's
 * structuredContent, the tool specs of a contract).
 *
 * @example
 * ```ts
 * shallowEnough({ a: [1] }, 0); // true
 * ```
 */
export function shallowEnough(v: unknown, depth: number): boolean {
  if (typeof v !== "object" || v === null) return true;
  if (depth >= MAX_INSTANCE_DEPTH) return false;
  if (Array.isArray(v)) return v.every((item) => shallowEnough(item, depth + 1));
  for (const key in v) if (!shallowEnough((v as Rec)[key], depth + 1)) return false;
  return true;
}
