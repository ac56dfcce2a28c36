/**
 * The arguments hash an approval binds (W8): SHA-256 of the canonical JSON of the
 * arguments (keys sorted, depth bounded by `MAX_INSTANCE_DEPTH`), as lowercase hex.
 * Web-standard (`crypto.subtle`).
 *
 * @module
 */
import { canonicalKey } from "../schema/equal.js";

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Lowercase hex of bytes. */
export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let s = "";
  for (let i = 0; i < b.length; i++) s += HEX[b[i] as number];
  return s;
}

/**
 * SHA-256 (hex) of the canonical JSON of `args`: equal for equal JSON values,
 * whatever their key order.
 *
 * @throws LimitError (`limit`) for values nested past `MAX_INSTANCE_DEPTH`.
 *
 * @example
 * ```ts
 * import { argumentsHash } from "yada-mcp";
 * console.log(await argumentsHash({ b: 1, a: 2 }) === await argumentsHash({ a: 2, b: 1 })); // true
 * ```
 */
export async function argumentsHash(args: unknown): Promise<string> {
  const data = new TextEncoder().encode(canonicalKey(args));
  return toHex(await crypto.subtle.digest("SHA-256", data));
}
