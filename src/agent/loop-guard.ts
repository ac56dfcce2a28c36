/**
 * Loop detection (R1): the same tool called with identical arguments N times in
 * a row, across turns, stops the run with `loop_detected`. Arguments compare by
 * value: key order does not matter.
 *
 * @module
 */
import { canonicalKey } from "../schema/equal.js";
import type { ToolCallPart } from "./messages.js";

/** What was repeated, reported in the run result. */
export interface DetectedLoop {
  toolName: string;
  arguments: Record<string, unknown>;
  /** How many times in a row the call was made (the threshold). */
  count: number;
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
      // Too deep a value (MAX_INSTANCE_DEPTH) gets a unique key: never counted as a repeat.
      key = `${call.name}\u0000${canonicalKey(call.arguments)}`;
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
