/**
 * The arguments hash an approval binds (W8): SHA-256 of the canonical JSON of the
 * arguments (keys sorted, depth bounded by `MAX_INSTANCE_DEPTH`), as lowercase hex.
 * Web-standard (`crypto.subtle`).
 *
 * Stored arguments are hashed again where an approval is checked and before the send
 * (W8), usually in the process that proposed them. Those checks ({@link rehash}) are
 * answered from the digests this process made, keyed by the whole canonical JSON (equal
 * text, equal digest), which spares each a digest: a thread-pool round trip in Node. A
 * proposal's own hash is always computed, so the time a proposal takes never tells
 * whether its arguments were seen before, and neither does a binding's arguments shown
 * (approvals.ts digests those anew).
 *
 * @module
 */
import { HASH_MEMO_ENTRIES, HASH_MEMO_MAX_CHARS } from "../limits.js";
import { canonicalKey } from "../schema/equal.js";

/** Canonical JSON → digest, of recent calls (bounded by count and by text; emptied when full). */
const recent = new Map<string, string>();

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
  const key = canonicalKey(args);
  const hash = toHex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)));
  if (key.length <= HASH_MEMO_MAX_CHARS) recent.set(key, hash);
  if (recent.size > HASH_MEMO_ENTRIES) recent.clear();
  return hash;
}

/**
 * @internal The {@link argumentsHash} of arguments read back from a store, to compare
 * with the hash stored beside them: the same digest, reused when this process hashed
 * the same canonical JSON.
 */
export async function rehash(args: unknown): Promise<string> {
  return recent.get(canonicalKey(args)) ?? argumentsHash(args);
}
