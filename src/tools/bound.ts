/**
 * Bounded text: UTF-8 byte counts and cuts that never split a character (T6, T8,
 * T11), and the image types a model accepts (T7). Everything the tool layer and
 * the agent loop hand to a model or a server passes here.
 *
 * @module
 */

/** Image types a model accepts as image parts (Anthropic and OpenAI vision inputs; T7). */
export const IMAGE_TYPES: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/webp", "image/gif"]);

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
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && isLow(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** The longest prefix of `text` of at most `maxBytes` UTF-8 bytes that ends on a character boundary. */
export function utf8Prefix(text: string, maxBytes: number): string {
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    let size: number;
    let units = 1;
    if (c < 0x80) size = 1;
    else if (c < 0x800) size = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && isLow(text.charCodeAt(i + 1))) {
      size = 4;
      units = 2;
    } else size = 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    i += units;
  }
  return text.slice(0, i);
}

/** The first `maxChars` UTF-16 code units of `text`, one fewer when that would split a surrogate pair. */
function charPrefix(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let end = Math.max(0, maxChars);
  if (end > 0 && isLow(text.charCodeAt(end)) && !isLow(text.charCodeAt(end - 1))) end--;
  return text.slice(0, end);
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
  return charPrefix(text, Math.max(0, maxChars - marker.length)) + marker;
}
