/**
 * Loop detection (R1): the same tool called with identical arguments N times in
 * a row, across turns, stops the run with `loop_detected`. Arguments compare by
 * value: key order does not matter.
 *
 * @module
 */
import type { ToolCallPart } from "./messages.js";

/** What was repeated, reported in the run result. */
export interface DetectedLoop {
  toolName: string;
  arguments: Record<string, unknown>;
  /** How many times in a row the call was made (the threshold). */
  count: number;
}

// Deeper than this the key falls back to a unique value: such a call is never
// counted as a repeat (arguments are bounded, but recursion depth must be too).
const MAX_KEY_DEPTH = 64;

function canonical(value: unknown, depth: number): string {
  if (depth > MAX_KEY_DEPTH) throw new RangeError("too deep");
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v, depth + 1)).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k], depth + 1)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Tracks consecutive identical calls. */
export class LoopGuard {
  readonly #threshold: number;
  #last = "";
  #run = 0;
  #unique = 0;

  constructor(threshold: number) {
    this.#threshold = threshold;
  }

  /** Records `call`; returns the loop when it makes `threshold` identical calls in a row. */
  record(call: ToolCallPart): DetectedLoop | undefined {
    let key: string;
    try {
      key = `${call.name}\u0000${canonical(call.arguments, 0)}`;
    } catch {
      key = `\u0001${++this.#unique}`;
    }
    if (key === this.#last) this.#run++;
    else {
      this.#last = key;
      this.#run = 1;
    }
    return this.#run >= this.#threshold ? { toolName: call.name, arguments: call.arguments, count: this.#run } : undefined;
  }
}
