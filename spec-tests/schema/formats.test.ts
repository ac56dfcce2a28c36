// format is an annotation by default (2020-12) and an assertion only when asked.
import { test } from "node:test";
import assert from "node:assert/strict";
import { compileSchema } from "../../src/schema/index.js";

test("T5: format is not asserted by default", () => {
  const v = compileSchema({ type: "string", format: "email" });
  assert.equal(v.validate("not an email").valid, true);
});

test("T5: formats: \"assert\" checks the common formats", () => {
  const cases: [string, string, string][] = [
    ["date-time", "2024-02-29T12:30:00Z", "2023-02-29T12:30:00Z"],
    ["date", "2024-01-31", "2024-13-01"],
    ["time", "23:59:60Z", "12:00:00"],
    ["email", "joe@example.com", "joe@@example.com"],
    ["hostname", "api.example.com", "-bad-.example.com"],
    ["ipv4", "192.168.0.1", "192.168.0.256"],
    ["ipv6", "::1", "1:::2"],
    ["uri", "https://example.com/a?b#c", "/relative/only"],
    ["uri-reference", "../a/b", "a b"],
    ["uuid", "123e4567-e89b-12d3-a456-426614174000", "123e4567e89b12d3a456426614174000"],
    ["regex", "^[a-z]+$", "(unclosed"],
    ["json-pointer", "/a/b~0c", "a/b"],
    ["duration", "P1Y2M3DT4H", "P1YT"],
  ];
  for (const [format, good, bad] of cases) {
    const v = compileSchema({ format }, { formats: "assert" });
    assert.equal(v.validate(good).valid, true, `${format} accepts ${good}`);
    const r = v.validate(bad);
    assert.equal(r.valid, false, `${format} rejects ${bad}`);
    if (!r.valid) assert.equal(r.issues[0]?.schemaPath, "/format");
  }
});

test("T5: asserted formats apply to strings only and unknown formats pass", () => {
  const v = compileSchema({ properties: { a: { format: "date" }, b: { format: "x-custom" } } }, { formats: "assert" });
  assert.equal(v.validate({ a: 20240101, b: "anything" }).valid, true);
});

// The date, time and hostname checks read characters in place (no regex); they must
// answer as the RFC 3339 / RFC 1123 grammars written as regexes do.
test("T5: date, time, date-time and hostname checks agree with their grammars on generated values", () => {
  const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
  const TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[zZ]|([+-])(\d{2}):(\d{2}))$/;
  const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
  const days = (y: number, m: number) => (m === 2 ? (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31);
  const date = (s: string) => {
    const m = DATE.exec(s);
    return m !== null && Number(m[2]) >= 1 && Number(m[2]) <= 12 && Number(m[3]) >= 1 && Number(m[3]) <= days(Number(m[1]), Number(m[2]));
  };
  const time = (s: string) => {
    const m = TIME.exec(s);
    if (m === null) return false;
    const [h, mi, se, oh, om] = [m[1], m[2], m[3], m[5] ?? "0", m[6] ?? "0"].map(Number) as [number, number, number, number, number];
    if (h > 23 || mi > 59 || se > 60 || oh > 23 || om > 59) return false;
    if (se < 60) return true;
    const off = (m[4] === "-" ? -1 : 1) * (oh * 60 + om);
    return (((h * 60 + mi - off) % 1440) + 1440) % 1440 === 23 * 60 + 59;
  };
  const host = (s: string) => s.length > 0 && s.length <= 253 && s.split(".").every((l) => LABEL.test(l));
  const check = (name: string) => compileSchema({ format: name }, { formats: "assert" });
  const [d, t, dt, hn] = ["date", "time", "date-time", "hostname"].map(check) as [ReturnType<typeof check>, ReturnType<typeof check>, ReturnType<typeof check>, ReturnType<typeof check>];
  let seed = 12;
  const r = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const pick = (xs: string) => xs[Math.floor(r() * xs.length)] as string;
  for (let i = 0; i < 3000; i++) {
    let s = "";
    // Mostly well-formed values with one character changed now and then.
    const y = String(1900 + Math.floor(r() * 200));
    const two = () => String(Math.floor(r() * 63)).padStart(2, "0");
    s = `${y}-${two()}-${two()}`;
    let tm = `${two()}:${two()}:${two()}${r() < 0.3 ? "." + "1234".slice(0, 1 + Math.floor(r() * 3)) : r() < 0.1 ? "." : ""}${pick("Zz++--x")}`;
    if (tm.endsWith("+") || tm.endsWith("-")) tm += `${two()}${pick("::;")}${two()}`;
    if (r() < 0.2) {
      const at = Math.floor(r() * tm.length);
      tm = tm.slice(0, at) + pick("0a:.Z-") + tm.slice(at + 1);
    }
    assert.equal(d.validate(s).valid, date(s), s);
    assert.equal(t.validate(tm).valid, time(tm), tm);
    const full = `${s}${pick("TtT ")}${tm}`;
    assert.equal(dt.validate(full).valid, date(full.slice(0, 10)) && /^[tT]$/.test(full[10] ?? "") && time(full.slice(11)), full);
    let h = "";
    const n = 1 + Math.floor(r() * 12);
    for (let k = 0; k < n; k++) h += pick("ab-.9Z_");
    assert.equal(hn.validate(h).valid, host(h), h);
  }
  assert.equal(hn.validate(`${"a".repeat(63)}.b`).valid, true);
  assert.equal(hn.validate(`${"a".repeat(64)}.b`).valid, false);
  assert.equal(t.validate("23:59:60Z").valid, true);
  assert.equal(t.validate("22:59:60-01:00").valid, true);
  assert.equal(t.validate("23:59:60+01:00").valid, false);
});

// The email local part and the URI checks read characters in place too; they must
// answer as the RFC 5321 / RFC 3986 grammars written as regexes do.
test("T5: email and URI checks agree with their grammars on generated values", () => {
  const LOCAL = /^(?:[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*|"(?:[^"\\\r\n]|\\.)*")$/;
  // RFC 3986 appendix A: URI and relative-ref; an IP literal's inside is checked apart.
  const h = "%[0-9A-Fa-f]{2}";
  const reg = "A-Za-z0-9\\-._~!$&'()*+,;=";
  const pchar = `(?:[${reg}:@]|${h})`;
  const authority = `(?:(?:[${reg}:]|${h})*@)?(?:\\[(?<lit>[^\\]/?#@]*)\\]|(?:[${reg}]|${h})*)(?::[0-9]*)?`;
  const segs = `(?:/${pchar}*)*`;
  const tail = `(?:\\?(?:${pchar}|[/?])*)?(?:#(?:${pchar}|[/?])*)?`;
  const URI = new RegExp(`^[A-Za-z][A-Za-z0-9+.-]*:(?://${authority}${segs}|/(?:${pchar}+${segs})?|${pchar}+${segs}|)${tail}$`);
  const RELATIVE = new RegExp(`^(?://${authority}${segs}|/(?:${pchar}+${segs})?|(?:[${reg}@]|${h})+${segs}|)${tail}$`);
  const ipv6 = compileSchema({ format: "ipv6" }, { formats: "assert" });
  const literalOk = (lit: string | undefined) =>
    lit === undefined || ipv6.validate(lit).valid || new RegExp(`^[vV][0-9A-Fa-f]+\\.[${reg}:]+$`).test(lit);
  const grammar = (re: RegExp, u: string) => {
    const m = re.exec(u);
    return m !== null && literalOk(m.groups?.["lit"]);
  };
  const [email, uri, ref] = ["email", "uri", "uri-reference"].map((format) => compileSchema({ format }, { formats: "assert" }));
  let seed = 7;
  const r = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const alphabet = 'aZ9.-+_:/%@"\\ #[]!~?éF0\u00a0😀';
  const word = (max: number) => Array.from({ length: Math.floor(r() * max) }, () => alphabet[Math.floor(r() * alphabet.length)]).join("");
  const hosts = ["example.com", "[::1]", "[v1.x:y]", "[1::2:3]", "[::ffff:1.2.3.4]", "[::ffff:01.2.3.4]", "u:p@h", "h:80", "h:8a", "a@b@c", ""];
  for (let i = 0; i < 4000; i++) {
    const local = r() < 0.8 ? word(8) : `"${word(6)}"`;
    const address = `${local}@${r() < 0.9 ? "example.com" : word(6)}`;
    const at = local.startsWith('"') ? address.lastIndexOf("@") : address.indexOf("@");
    const host = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
    const expected = at > 0 && LOCAL.test(address.slice(0, at)) && host.test(address.slice(at + 1));
    assert.equal(email?.validate(address).valid, expected, address);
    const authority = r() < 0.4 ? `//${r() < 0.6 ? (hosts[Math.floor(r() * hosts.length)] as string) : word(6)}` : "";
    const u = r() < 0.5 ? `${word(4)}:${authority}${word(10)}` : `${authority}${word(12)}`;
    assert.equal(uri?.validate(u).valid, grammar(URI, u), u);
    assert.equal(ref?.validate(u).valid, grammar(URI, u) || grammar(RELATIVE, u), u);
  }
});

test("T5: uri-template follows RFC 6570's grammar: operators, prefixes of 1 to 9999, explodes, escaped names; no stray brace, empty or malformed varspec", () => {
  const v = compileSchema({ format: "uri-template" }, { formats: "assert" });
  const good = [
    "", "https://api.example/{owner}/{repo}", "{+path}/here", "{#frag}", "{.ext}", "{/seg*}", "{;p}", "{?q,page}", "{&more}",
    "{list*}", "{var:3}", "{var:9999}", "{a.b}", "{%7Ename}", "caf\u00e9/{x}", "it's", "a%2Fb",
  ];
  const bad = [
    "{", "}", "{}", "{a,}", "{,+a}", "{a,,b}", "{a..b}", "{.a}{", "{v:0}", "{v:05}", "{v:10000}", "{v:}", "{var=x}", "{a b}",
    "has space", "tab\there", "quote\"d", "100%", "%zz", "<tag>", "a\\b", "pipe|", "x^y", "back`tick", "del\u007f",
  ];
  for (const s of good) assert.equal(v.validate(s).valid, true, `accepts ${JSON.stringify(s)}`);
  for (const s of bad) assert.equal(v.validate(s).valid, false, `rejects ${JSON.stringify(s)}`);
});

test("T5: the regex format is ECMA-262 without the web-compatibility annex: an unknown escape is refused", () => {
  const v = compileSchema({ format: "regex" }, { formats: "assert" });
  for (const s of ["\\cA", "[]", "[^]", "(?<n>a)\\k<n>", "(?<=a+)b", "\\p{L}+"]) assert.equal(v.validate(s).valid, true, `accepts ${s}`);
  for (const s of ["\\a", "\\q", "(?P<n>x)", "(?i)abc", "a{", "\\-"]) assert.equal(v.validate(s).valid, false, `rejects ${s}`);
});

test("T5: multipleOf past the largest quotient a double holds is judged by the exact remainder", () => {
  assert.equal(compileSchema({ type: "integer", multipleOf: 0.5 }).validate(1e308).valid, true);
  assert.equal(compileSchema({ multipleOf: 0.25 }).validate(Number.MAX_VALUE).valid, true);
  assert.equal(compileSchema({ multipleOf: 0.3 }).validate(1e308).valid, false);
  assert.equal(compileSchema({ multipleOf: 0.3 }).validate(-1e308).valid, false);
});
