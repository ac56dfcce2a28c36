/**
 * The one check every layer makes on untrusted JSON before reading its members.
 *
 * @module
 */

/** A JSON object as received: members not yet checked. */
export type Rec = Record<string, unknown>;

/** Is `v` a JSON object (not an array, not null)? */
export function isRec(v: unknown): v is Rec {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
