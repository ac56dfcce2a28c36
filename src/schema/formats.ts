/**
 * Checks for the common `format` values, used only when format assertion is
 * enabled (`formats: "assert"`). Every regex here is a fixed literal, written
 * to run in linear time. Unknown formats are not asserted (2020-12 validation
 * §7.2.3 allows ignoring them).
 *
 * @module
 */
import { MAX_SCHEMA_PATTERN_CHARS } from "../limits.js";

// RFC 3339 appendix A: units in order, none skipped between two present ones.
const DURATION =
  /^P(?:\d+W|(?:\d+Y(?:\d+M(?:\d+D)?)?|\d+M(?:\d+D)?|\d+D)(?:T(?:\d+H(?:\d+M(?:\d+S)?)?|\d+M(?:\d+S)?|\d+S))?|T(?:\d+H(?:\d+M(?:\d+S)?)?|\d+M(?:\d+S)?|\d+S))$/;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const JSON_POINTER = /^(?:\/(?:[^~/]|~[01])*)*$/;
const REL_JSON_POINTER = /^(?:0|[1-9]\d*)(?:#|(?:\/(?:[^~/]|~[01])*)*)$/;
// RFC 6570 §2 (level 4): literals (no control character, space, quote, "%" outside an
// escape, "<", ">", "\\", "^", "`", "{", "|" or "}"; "'" allowed, as the test suite has it) and
// expressions: an optional operator, then varspecs (names of letters, digits, "_" and
// escapes, dot-separated; a prefix of 1 to 9999 or an explode), comma-separated. Each
// alternative starts with its own character: nothing backtracks.
const VARSPEC = "(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*(?::[1-9][0-9]{0,3}|\\*)?";
const URI_TEMPLATE = new RegExp(`^(?:[^\\x00-\\x20"%<>\\\\^\`{|}\\x7f]|%[0-9A-Fa-f]{2}|\\{[+#./;?&=,!@|]?${VARSPEC}(?:,${VARSPEC})*\\})*$`);
const QUOTED_LOCAL = /^"(?:[^"\\\r\n]|\\.)*"$/;
const IRI_CHARS = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=\u00a0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]|%[0-9A-Fa-f]{2})*$/u;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

// RFC 3986 §2 character classes by ASCII code, read in place by the URI checks.
/** unreserved and sub-delims: the characters of a reg-name. */
const REG = 1;
/** A hexadecimal digit. */
const HEX = 2;
/** A scheme character after the first (letters, digits, "+", "-", "."). */
const SCH = 4;
const URI_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  URI_CLASS[c] = (/[A-Za-z0-9\-._~!$&'()*+,;=]/.test(ch) ? REG : 0) | (/[0-9A-Fa-f]/.test(ch) ? HEX : 0) | (/[A-Za-z0-9+.-]/.test(ch) ? SCH : 0);
}

/** Does `s` hold a percent-encoded octet ("%" and two hexadecimal digits) at `i`? */
function isEscape(s: string, i: number): boolean {
  const a = s.charCodeAt(i + 1);
  const b = s.charCodeAt(i + 2);
  return a < 128 && (URI_CLASS[a] as number) & HEX && b < 128 && (URI_CLASS[b] as number) & HEX ? true : false;
}

/** RFC 3986 §3.2.2 IP-literal between `from` and `to` (the brackets excluded): IPv6 or IPvFuture. */
function isIpLiteral(s: string, from: number, to: number): boolean {
  if ((s.charCodeAt(from) | 32) !== 118) return isIpv6(s.slice(from, to));
  // IPvFuture: "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ).
  let i = from + 1;
  while (i < to && s.charCodeAt(i) < 128 && (URI_CLASS[s.charCodeAt(i)] as number) & HEX) i++;
  if (i === from + 1 || s.charCodeAt(i) !== 46 || ++i === to) return false;
  for (; i < to; i++) {
    const c = s.charCodeAt(i);
    if (!(c === 58 || (c < 128 && (URI_CLASS[c] as number) & REG))) return false;
  }
  return true;
}

/**
 * RFC 3986 §3.2 authority from `from` of `s`: [ userinfo "@" ] host [ ":" port ].
 * Returns where it ends (at "/", "?", "#" or the end), or -1.
 */
function authorityEnd(s: string, from: number): number {
  const n = s.length;
  let end = from;
  let at = -1;
  for (; end < n; end++) {
    const c = s.charCodeAt(end);
    if (c === 47 || c === 63 || c === 35) break;
    if (c === 64 && at < 0) at = end;
  }
  // userinfo: unreserved, escapes, sub-delims and ":" (so no second "@").
  let i = from;
  if (at >= 0) {
    for (; i < at; i++) {
      const c = s.charCodeAt(i);
      if (c === 58 || (c < 128 && (URI_CLASS[c] as number) & REG)) continue;
      if (c === 37 && isEscape(s, i)) i += 2;
      else return -1;
    }
    i = at + 1;
  }
  if (s.charCodeAt(i) === 91) {
    const close = s.indexOf("]", i);
    if (close < 0 || close >= end || !isIpLiteral(s, i + 1, close)) return -1;
    i = close + 1;
  } else {
    // reg-name (an IPv4 address is one too).
    for (; i < end; i++) {
      const c = s.charCodeAt(i);
      if (c === 58) break;
      if (c < 128 && (URI_CLASS[c] as number) & REG) continue;
      if (c === 37 && isEscape(s, i)) i += 2;
      else return -1;
    }
  }
  if (i === end) return end;
  if (s.charCodeAt(i) !== 58) return -1;
  // port: digits only.
  for (i++; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
  }
  return end;
}

/**
 * RFC 3986 §4.1 URI-reference (`absolute`: §3 URI, with a scheme), read in place:
 * scheme, authority (user information, host with IP literals checked, numeric port),
 * path, query and fragment, each with its own characters; "%" only in escapes.
 */
function isUriReference(s: string, absolute: boolean): boolean {
  const n = s.length;
  let i = 0;
  let c = s.charCodeAt(0);
  // A scheme: a letter, then letters, digits, "+", "-", "." up to ":".
  if ((c | 32) >= 97 && (c | 32) <= 122) {
    i = 1;
    while (i < n && (c = s.charCodeAt(i)) < 128 && (URI_CLASS[c] as number) & SCH) i++;
    i = c === 58 && i < n ? i + 1 : 0;
  }
  if (i === 0 && absolute) return false;
  // A relative reference's first segment has no ":" (path-noscheme, §4.2).
  let noColon = i === 0;
  if (s.charCodeAt(i) === 47 && s.charCodeAt(i + 1) === 47) {
    i = authorityEnd(s, i + 2);
    if (i < 0) return false;
    noColon = false;
  }
  // The path: segments of pchar.
  for (; i < n; i++) {
    c = s.charCodeAt(i);
    if (c < 128 && (URI_CLASS[c] as number) & REG) continue;
    if (c === 47) noColon = false;
    else if (c === 58) {
      if (noColon) return false;
    } else if (c === 37 && isEscape(s, i)) i += 2;
    else if (c !== 64) break;
  }
  if (i === n) return true;
  // The query ("?") and the fragment ("#"): pchar, "/" and "?".
  if (c !== 63 && c !== 35) return false;
  let fragment = c === 35;
  for (i++; i < n; i++) {
    c = s.charCodeAt(i);
    if (c < 128 && (URI_CLASS[c] as number) & REG) continue;
    if (c === 47 || c === 63 || c === 58 || c === 64) continue;
    if (c === 37 && isEscape(s, i)) i += 2;
    else if (c === 35 && !fragment) fragment = true;
    else return false;
  }
  return true;
}

// RFC 5322 §3.2.3 atext by ASCII code, read in place by the email check (no slice, no regex run).
const ATEXT = new Uint8Array(128);
for (let c = 0; c < 128; c++) ATEXT[c] = /[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]/.test(String.fromCharCode(c)) ? 1 : 0;

/** RFC 5321 §4.1.2 Dot-string: atext runs joined by single dots, in `s` before `end` (> 0). */
function isDotString(s: string, end: number): boolean {
  let dot = true;
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === 46 && !dot) dot = true;
    else if (c < 128 && ATEXT[c] === 1) dot = false;
    else return false;
  }
  return !dot;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  // April, June, September, November.
  return (0xa50 >> month) & 1 ? 30 : 31;
}

/** The value of the two ASCII digits of `s` at `i`, or -1. */
function d2(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

// The date and time checks read character codes in place: no regex, slice or
// number parse (they run on every date-time of every validated value).

/** RFC 3339 §5.6 full-date at `at` of `s` (10 characters). */
function dateAt(s: string, at: number): boolean {
  const hi = d2(s, at);
  const lo = d2(s, at + 2);
  const month = d2(s, at + 5);
  const day = d2(s, at + 8);
  return (
    s.charCodeAt(at + 4) === 45 &&
    s.charCodeAt(at + 7) === 45 &&
    hi >= 0 &&
    lo >= 0 &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysIn(hi * 100 + lo, month)
  );
}

/** RFC 3339 §5.6 full-time from `at` to the end of `s`; a leap second is valid only at 23:59:60 UTC. */
function timeAt(s: string, at: number): boolean {
  const h = d2(s, at);
  const min = d2(s, at + 3);
  const sec = d2(s, at + 6);
  if (s.charCodeAt(at + 2) !== 58 || s.charCodeAt(at + 5) !== 58 || h < 0 || h > 23 || min < 0 || min > 59 || sec < 0 || sec > 60) return false;
  let i = at + 8;
  let c = s.charCodeAt(i);
  if (c === 46) {
    // "." and at least one digit.
    const first = ++i;
    while ((c = s.charCodeAt(i)) >= 48 && c <= 57) i++;
    if (i === first) return false;
  }
  let offset = 0;
  if (c === 90 || c === 122) i++;
  else if (c === 43 || c === 45) {
    const oh = d2(s, i + 1);
    const om = d2(s, i + 4);
    if (s.charCodeAt(i + 3) !== 58 || oh < 0 || oh > 23 || om < 0 || om > 59) return false;
    offset = (c === 45 ? -1 : 1) * (oh * 60 + om);
    i += 6;
  } else return false;
  if (i !== s.length) return false;
  if (sec < 60) return true;
  return (((h * 60 + min - offset) % 1440) + 1440) % 1440 === 23 * 60 + 59;
}

function isDate(s: string): boolean {
  return s.length === 10 && dateAt(s, 0);
}

function isTime(s: string): boolean {
  return timeAt(s, 0);
}

function isDateTime(s: string): boolean {
  const t = s.charCodeAt(10);
  return (t === 84 || t === 116) && dateAt(s, 0) && timeAt(s, 11);
}

/** RFC 1123 §2.1 host name (from `from` of `s`): labels of 1-63 letters, digits and inner hyphens, 253 characters at most. */
function isHostname(s: string, from = 0): boolean {
  const n = s.length;
  if (n === from || n - from > 253) return false;
  let start = from;
  for (let i = from; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (i === start || i - start > 63 || s.charCodeAt(i - 1) === 45) return false;
      start = i + 1;
    } else if (c === 45 ? i === start : !((c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122))) return false;
  }
  return n !== start && n - start <= 63 && s.charCodeAt(n - 1) !== 45;
}

function isIpv6(s: string): boolean {
  if (s.length > 45 || !/^[0-9A-Fa-f:.]+$/.test(s)) return false;
  // The WHATWG URL host parser implements RFC 4291 §2.2 text forms exactly.
  try {
    new URL(`http://[${s}]/`);
    return true;
  } catch {
    return false;
  }
}

/** RFC 5321 §4.1.2 mailbox, without comments or folding white space. */
function isEmail(s: string): boolean {
  // A quoted local part may hold an "@", a dot-atom may not (one found past it fails the host name).
  const quoted = s.charCodeAt(0) === 34;
  const at = quoted ? s.lastIndexOf("@") : s.indexOf("@");
  if (at <= 0 || s.length > 320 || !(quoted ? QUOTED_LOCAL.test(s.slice(0, at)) : isDotString(s, at))) return false;
  if (s.charCodeAt(at + 1) === 91 && s.endsWith("]")) {
    const lit = s.slice(at + 2, -1);
    return IPV4.test(lit) || (lit.startsWith("IPv6:") && isIpv6(lit.slice(5)));
  }
  return isHostname(s, at + 1);
}

// The "regex" format only asks whether the text is an ECMA-262 regular expression:
// the engine compiles it (compiling does not run it) and nothing matches with it.
// With the u flag, the grammar without the web-compatibility annex (Annex B), where
// an unknown escape such as "\a" is an error and not the letter.
function isRegex(s: string): boolean {
  if (s.length > MAX_SCHEMA_PATTERN_CHARS) return false;
  try {
    new RegExp(s, "u");
    return true;
  } catch {
    return false;
  }
}

// Format name to its check: a function, or a regex the whole value must match.
const CHECKS = new Map<string, ((s: string) => boolean) | RegExp>([
  ["date-time", isDateTime],
  ["date", isDate],
  ["time", isTime],
  ["duration", DURATION],
  ["email", isEmail],
  ["hostname", isHostname],
  ["ipv4", IPV4],
  ["ipv6", isIpv6],
  ["uri", (s: string) => isUriReference(s, true)],
  ["uri-reference", (s: string) => isUriReference(s, false)],
  ["iri", (s: string) => SCHEME.test(s) && IRI_CHARS.test(s)],
  ["iri-reference", IRI_CHARS],
  ["uuid", UUID],
  ["regex", isRegex],
  ["json-pointer", JSON_POINTER],
  ["relative-json-pointer", REL_JSON_POINTER],
  ["uri-template", URI_TEMPLATE],
]);

/** The checker for format `name`, or null when the format is not asserted. */
export function formatChecker(name: string): ((s: string) => boolean) | null {
  const check = CHECKS.get(name);
  return check instanceof RegExp ? (s) => check.test(s) : (check ?? null);
}
