/**
 * Untrusted text on the inbox's pages (U2): every string that came from a server, a
 * model, a store or the host is escaped for where it goes, and nothing in it can
 * hide, reorder or overlay the page around it.
 *
 * - HTML text and double-quoted attribute values escape `& < > " '`.
 * - Characters that do not show as themselves (controls, format characters such as
 *   the bidi overrides U+202E and isolates U+2066–U+2069, zero-width and other
 *   default-ignorable code points, Unicode tags, lone surrogates, private use, line
 *   and paragraph separators) are shown as a visible `U+XXXX` marker; in JSON they
 *   are written as `\uXXXX` escapes, which is the same JSON.
 * - A run of more than three combining marks (text stacked above and below its
 *   line, over its neighbours) is shown as a marker too.
 * - A link is only ever one of the inbox's own routes with its segments
 *   percent-encoded: no untrusted string becomes a URL, so `javascript:` never
 *   becomes a link.
 *
 * Each piece of untrusted text is also put in its own isolated box by the page
 * (`<bdi>` and CSS `unicode-bidi: isolate; contain: paint`), see style.ts.
 *
 * @module
 */
import { MAX_INBOX_CELL_CHARS } from "../limits.js";

const HTML: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const SPECIAL = /[&<>"']/g;

/** `s` escaped for HTML text and for a double-quoted attribute value. */
export function escapeHtml(s: string): string {
  return s.replace(SPECIAL, (c) => HTML[c]!);
}

// What never shows as itself, except tab and newline (kept in multi-line blocks) and the
// emoji presentation selectors U+FE0E / U+FE0F (harmless, and common).
const HIDDEN = /(?![\t\n\uFE0E\uFE0F])[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]|\p{M}{4,}/gu;
const HIDDEN_INLINE = /(?![\uFE0E\uFE0F])[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]|\p{M}{4,}/gu;

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

const hex = (cp: number): string => cp.toString(16).toUpperCase().padStart(4, "0");

/** The visible marker of a hidden character or of a long run of combining marks. */
function marker(match: string): string {
  const cp = match.codePointAt(0)!;
  const label = match.length > 2 && /^\p{M}/u.test(match) ? `${[...match].length} combining marks` : `U+${hex(cp)}`;
  return `<span class="cc">${label}</span>`;
}

/**
 * `s` as HTML text that shows what it is: escaped, with every hidden character as a
 * `U+XXXX` marker. `multiline` keeps tabs and newlines (for a `<pre>`).
 */
export function showText(s: string, multiline = false): string {
  // Printable ASCII hides nothing: only the HTML specials to escape.
  if (PRINTABLE_ASCII.test(s)) return escapeHtml(s);
  const pattern = multiline ? HIDDEN : HIDDEN_INLINE;
  pattern.lastIndex = 0;
  let out = "";
  let at = 0;
  for (let m = pattern.exec(s); m !== null; m = pattern.exec(s)) {
    out += escapeHtml(s.slice(at, m.index)) + marker(m[0]);
    at = m.index + m[0].length;
  }
  return at === 0 ? escapeHtml(s) : out + escapeHtml(s.slice(at));
}

/** `s` cut to `max` code points with "…" when longer, then as {@link showText}: a list row's cell. */
export function showCell(s: string, max = MAX_INBOX_CELL_CHARS): string {
  if (s.length <= max) return showText(s);
  const points = [...s];
  return points.length <= max ? showText(s) : `${showText(points.slice(0, max).join(""))}…`;
}

/** A string of JSON text, quotes included (JSON.stringify writes no raw quote or newline inside one). */
const JSON_STRING = /"[^"\\]*(?:\\.[^"\\]*)*"/g;

/**
 * `value` as indented JSON with every hidden character (and long mark run) written as
 * `\uXXXX` escapes, then escaped for HTML: the same JSON, every character visible.
 * Each string (key or value) sits inside its quotes in an isolate of its own
 * (`<bdi>`): right-to-left text in a key cannot carry the key's value, or the JSON's
 * punctuation, to the other side of it.
 */
export function showJson(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value, null, 2) ?? "null";
  } catch {
    return "(these arguments cannot be shown)";
  }
  // The layout's newlines stay; inside strings JSON.stringify has escaped every newline and tab already.
  HIDDEN.lastIndex = 0;
  text = text.replace(HIDDEN, (m) => {
    let out = "";
    for (let i = 0; i < m.length; i++) out += `\\u${hex(m.charCodeAt(i)).toLowerCase()}`;
    return out;
  });
  let out = "";
  let at = 0;
  for (const m of text.matchAll(JSON_STRING)) {
    out += `${escapeHtml(text.slice(at, m.index))}&quot;<bdi>${escapeHtml(m[0].slice(1, -1))}</bdi>&quot;`;
    at = m.index + m[0].length;
  }
  return out + escapeHtml(text.slice(at));
}

/** A count as a page writes it: `10,000` (without building a number formatter per call). */
export const formatCount = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/** A time as `datetime` attributes hold it (ISO 8601, UTC); `""` for a time no date can hold. */
export function isoTime(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : "";
}

/** How a time is written on a page: `2026-05-01 12:34:56 UTC` (from its {@link isoTime} when at hand). */
export function formatTime(ms: number, iso = isoTime(ms)): string {
  return iso === "" ? "an impossible time" : `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

/** A duration as a person reads it: `45 s`, `12 min`, `3 h 5 min`, `2 d 4 h`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return min % 60 ? `${h} h ${min % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}
