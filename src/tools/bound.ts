/**
 * Bounded text: UTF-8 byte counts and cuts that never split a character (T6, T8,
 * T11), and the image types a model accepts (T7). Everything the tool layer and
 * the agent loop hand to a model or a server passes here.
 *
 * @module
 */

/** Image types a model accepts as image parts (Anthropic and OpenAI vision inputs; T7). */
export const IMAGE_TYPES: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/webp", "image/gif"]);

const encoder = new TextEncoder();
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/**
 * The UTF-8 length of `text` in bytes, counted without encoding it. A lone
 * surrogate counts 3 bytes, as TextEncoder writes it (U+FFFD).
 *
 * @example
 * ```ts
 * utf8Length("é"); // 2
 * ```
 */
export function utf8Length(text: string): number {
  // One byte per UTF-16 unit, plus what each wider character adds.
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    bytes += c < 0x800 ? 1 : 2;
    // A surrogate pair is two units and four bytes: skip its low half.
    if (c >= 0xd800 && c <= 0xdbff && isLow(text.charCodeAt(i + 1))) i++;
  }
  return bytes;
}

/** The longest prefix of `text` of at most `maxBytes` UTF-8 bytes that ends on a character boundary. */
export function utf8Prefix(text: string, maxBytes: number): string {
  // encodeInto writes whole characters only; `read` counts the UTF-16 units it took.
  // The buffer is never longer than the text can need (3 bytes per unit), nor negative.
  const buffer = new Uint8Array(Math.max(0, Math.min(maxBytes, text.length * 3)));
  return text.slice(0, encoder.encodeInto(text, buffer).read);
}

/**
 * `text` if it fits in `maxBytes` UTF-8 bytes; otherwise its longest prefix that,
 * followed by a marker saying how long the whole was, fits (T6). The cut is on a
 * character boundary.
 *
 * @example
 * ```ts
 * cutUtf8("x".repeat(40_000), 32_000).length; // 32000, ending in "[truncated: …]"
 * ```
 */
export function cutUtf8(text: string, maxBytes: number): string {
  const total = utf8Length(text);
  if (total <= maxBytes) return text;
  const marker = `\n[truncated: ${total} UTF-8 bytes, shown up to ${maxBytes}]`;
  return utf8Prefix(text, Math.max(0, maxBytes - utf8Length(marker))) + marker;
}

/**
 * `text` if it has at most `maxChars` characters (UTF-16 code units); otherwise a
 * prefix followed by a marker, `maxChars` long in all, never splitting a
 * surrogate pair (T8, T11).
 *
 * @example
 * ```ts
 * cutChars("e".repeat(10_000), 4_000).length; // 4000
 * ```
 */
export function cutChars(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const marker = `\n[truncated: ${text.length} characters, shown up to ${maxChars}]`;
  let end = Math.max(0, maxChars - marker.length);
  if (end > 0 && isLow(text.charCodeAt(end)) && !isLow(text.charCodeAt(end - 1))) end--;
  return text.slice(0, end) + marker;
}
