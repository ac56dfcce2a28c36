/**
 * Untrusted text shown inside a message: quoted, bounded.
 *
 * @module
 */
import { MAX_QUOTED_CHARS } from "../limits.js";

/** `text` as a JSON string literal, cut to `max` characters with "…" (server and config names in errors). */
export function quote(text: string, max = MAX_QUOTED_CHARS): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}
