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

/**
 * Tracks consecutive identical calls: the returned function records a call and
 * returns the loop when it makes `threshold` identical calls in a row.
 */
export function loopGuard(threshold: number): (call: ToolCallPart) => DetectedLoop | undefined {
  let last = "";
  let run = 0;
  let unique = 0;
  return (call) => {
    let key: string;
    try {
      // Too deep a value (MAX_INSTANCE_DEPTH) gets a unique key: never counted as a repeat.
      key = `${call.name}\u0000${canonicalKey(call.arguments)}`;
    } catch {
      key = `\u0001${++unique}`;
    }
    run = key === last ? run + 1 : 1;
    last = key;
    return run >= threshold ? { toolName: call.name, arguments: call.arguments, count: run } : undefined;
  };
}
