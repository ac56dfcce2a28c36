// Y6: what every fuzz target shares: the seeded generator (inputs are built from
// (seed, index) alone), grammar-aware byte mutation, hostile JSON values, and the
// report and target shapes with the invariant check.
/** A small fast PRNG (mulberry32) seeded from (seed, index). */
export function rngFor(seed: number, index: number): () => number {
  let a = (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35)) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Rng = () => number;
export const int = (r: Rng, n: number): number => Math.floor(r() * n);
export const pick = <T>(r: Rng, items: readonly T[]): T => items[int(r, items.length)] as T;
export const enc = new TextEncoder();

export function randomBytes(r: Rng, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = int(r, 256);
  return out;
}

export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** `bytes` cut at random places: single bytes, small slices, big ones. */
export function chunked(r: Rng, bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; ) {
    const n = 1 + int(r, pick(r, [1, 3, 16, 200, 5000]));
    // A fresh copy at an odd offset, as a network read might hand it over.
    const part = bytes.slice(i, i + n);
    out.push(part);
    i += n;
  }
  return out;
}

/** Grammar-aware mutation of bytes: flips, inserts of interesting bytes, cuts, duplication, raw noise. */
export function mutate(r: Rng, bytes: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [bytes];
  let b = bytes;
  const rounds = int(r, 4);
  for (let k = 0; k < rounds; k++) {
    const at = int(r, b.length + 1);
    const op = int(r, 6);
    if (op === 0 && b.length > 0) {
      b = b.slice();
      b[Math.min(at, b.length - 1)] = int(r, 256);
    } else if (op === 1) {
      b = concat([b.subarray(0, at), enc.encode(pick(r, ["\n", "\r", "\r\n", ":", " ", "\0", "\u{1F680}", "\ufeff", "\"", "{", "}", "[", "\\u0000", "__proto__"])), b.subarray(at)]);
    } else if (op === 2) {
      b = concat([b.subarray(0, at), b.subarray(Math.min(b.length, at + int(r, 16)))]);
    } else if (op === 3) {
      b = concat([b.subarray(0, at), b.subarray(at, at + int(r, 64)), b.subarray(at)]);
    } else if (op === 4) {
      b = concat([b.subarray(0, at), randomBytes(r, int(r, 8)), b.subarray(at)]);
    } else {
      b = concat([b.subarray(0, at), new Uint8Array([0xe2, 0x82, 0xf0, 0x9f, 0xc0, 0x80, 0xed, 0xa0, 0x80].slice(int(r, 9))), b.subarray(at)]);
    }
  }
  parts[0] = b;
  return b;
}

/** A random JSON-ish value with hostile corners (deep nesting, odd keys, huge numbers). */
export function jsonValue(r: Rng, depth = 0): unknown {
  const k = int(r, depth > 4 ? 6 : 9);
  if (k === 0) return null;
  if (k === 1) return r() < 0.5;
  if (k === 2) return pick(r, [0, -1, 1.5, 1e308, -0, 2 ** 53 + 1, 42]);
  if (k === 3) return pick(r, ["", "x", "é", "\u0000", "__proto__", "constructor", "a".repeat(int(r, 300)), "\ud800"]);
  if (k === 4) return int(r, 1000);
  if (k === 5) return "s" + int(r, 100);
  if (k === 6) return Array.from({ length: int(r, 4) }, () => jsonValue(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = int(r, 4); i > 0; i--) o[pick(r, ["a", "id", "method", "params", "result", "error", "__proto__", "code", "message", "jsonrpc"])] = jsonValue(r, depth + 1);
  return o;
}

/** A JSON-RPC-shaped message, often valid, often off by one field. */
export function rpcMessage(r: Rng): unknown {
  const m: Record<string, unknown> = {};
  if (r() < 0.9) m.jsonrpc = r() < 0.9 ? "2.0" : pick(r, ["1.0", 2, null]);
  const kind = int(r, 4);
  if (kind !== 2 && r() < 0.95) m.id = pick<unknown>(r, [int(r, 50), "s" + int(r, 5), null, 1.5, {}, [], true, String(int(r, 50))]);
  if (kind <= 1) m.method = r() < 0.9 ? pick(r, ["ping", "roots/list", "sampling/createMessage", "elicitation/create", "notifications/progress", "notifications/cancelled", "x/y"]) : jsonValue(r);
  if (kind === 2) m.method = pick(r, ["notifications/progress", "notifications/message", "notifications/cancelled"]);
  if (r() < 0.6) m.params = r() < 0.8 ? { progressToken: int(r, 5), progress: int(r, 100), requestId: int(r, 50), ...(jsonValue(r) as object) } : jsonValue(r);
  if (kind === 3) {
    if (r() < 0.7) m.result = r() < 0.8 ? { content: [] } : jsonValue(r);
    if (r() < 0.4) m.error = r() < 0.7 ? { code: pick(r, [-32601, -32600, 1.5, "x"]), message: pick(r, ["m", 5]) } : jsonValue(r);
  }
  return m;
}

/** One report of a target run. */
export interface FuzzReport {
  target: string;
  inputs: number;
  /** Invariant violations (wrong output, a non-Error thrown): index and what. */
  crashes: Array<{ index: number; what: string }>;
  /** Errors that are not YadaError: index and message. */
  untyped: Array<{ index: number; what: string }>;
  /** Inputs over the per-input time bound. */
  slow: Array<{ index: number; ms: number }>;
  maxMs: number;
  /** The input that took `maxMs`. */
  maxIndex: number;
}

/** A fuzz target: runs input `index` of `seed`; throws only what its parser may throw. */
export interface FuzzTarget {
  name: string;
  run(seed: number, index: number): void | Promise<void>;
}

export class Violation extends Error {}
export const check = (ok: boolean, what: string): void => {
  if (!ok) throw new Violation(what);
};
