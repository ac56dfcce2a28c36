/**
 * Small checks shared by the provider adapters: every JSON value a provider
 * streams is `unknown` until one of these has looked at it (R3).
 *
 * @module
 */
import { ProviderError } from "../errors.js";
import type { ImagePart, TextPart, ToolResultPart } from "../tools/types.js";
import { isRec, type Rec } from "../util/record.js";

/** Parses one streamed event's data as a JSON object, or throws `bad_response`. */
export function parseEventObject(provider: string, data: string): Rec {
  let v: unknown;
  try {
    v = JSON.parse(data);
  } catch {
    badResponse(provider, "streamed an event that is not JSON");
  }
  return isRec(v) ? v : badResponse(provider, "streamed an event that is not a JSON object");
}

/** A token count from a usage object: a non-negative integer, else 0 (absent or null counts are common). */
export function tokens(v: unknown): number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : 0;
}

/** `v` when it is a string, else `undefined`. */
export function optString(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** Throws `bad_response` with `message`. */
export function badResponse(provider: string, message: string): never {
  throw new ProviderError("bad_response", provider, message);
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
