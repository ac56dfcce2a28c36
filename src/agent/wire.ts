/**
 * Small checks shared by the provider adapters: every JSON value a provider
 * streams is `unknown` until one of these has looked at it (R3).
 *
 * @module
 */
import type { ImagePart, TextPart, ToolResultPart } from "../tools/types.js";
import { isRec, type Rec } from "../util/record.js";
import type { AssistantMessage, ModelStopReason, Usage } from "./messages.js";
import type { StreamFail } from "./sse-request.js";

/** Parses one streamed event's data as a JSON object, or fails with `bad_response`. */
export function parseEventObject(data: string, fail: StreamFail): Rec {
  let v: unknown;
  try {
    v = JSON.parse(data);
  } catch {
    // not JSON: refused below
  }
  return isRec(v) ? v : fail("streamed an event that is not a JSON object");
}

/**
 * `table[key]` when `key` is one of the table's own keys, else `undefined`: a
 * provider's string (a stop reason, an error type) can be any text, including
 * `constructor` or `__proto__`, which a plain lookup would resolve on the prototype.
 */
export function lookup<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** A token count from a usage object: a non-negative integer, else 0 (absent or null counts are common). */
export function tokens(v: unknown): number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : 0;
}

/** `v` when it is a string, else `undefined`. */
export function optString(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** The text parts of a tool result joined with blank lines (for wire formats whose tool results carry text only). */
export function joinedText(parts: readonly ToolResultPart[]): string {
  return parts
    .filter((p): p is TextPart => p.type === "text")
    .map((p) => p.text)
    .join("\n\n");
}

/** The image parts of a list of parts. */
export function imagesOf(parts: readonly ToolResultPart[]): ImagePart[] {
  return parts.filter((p): p is ImagePart => p.type === "image");
}

/** The entries of `map` sorted by their numeric keys (streamed blocks and calls arrive by index). */
export function byIndex<T>(map: Map<number, T>): Array<[number, T]> {
  return [...map].sort(([a], [b]) => a - b);
}

/** An assembled answer; `model` only when the provider named one. */
export function answer(content: AssistantMessage["content"], stopReason: ModelStopReason, model: string | undefined, usage: Usage): AssistantMessage {
  const message: AssistantMessage = { role: "assistant", content, stopReason, usage };
  if (model !== undefined) message.model = model;
  return message;
}
