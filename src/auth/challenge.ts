/**
 * `WWW-Authenticate` parsing (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9728 §5.1):
 * challenges with their auth-params, quoted strings unescaped. The header comes
 * from the server and is hostile: it is read once, left to right, bounded in
 * length (`MAX_WWW_AUTHENTICATE_CHARS`) and in params (`MAX_CHALLENGE_PARAMS`);
 * anything malformed ends the parse with what was read so far.
 *
 * @module
 */
import { MAX_CHALLENGE_PARAMS, MAX_WWW_AUTHENTICATE_CHARS } from "../limits.js";

/** One challenge: its scheme (lowercased) and params (names lowercased; a repeated name keeps the first). */
export interface Challenge {
  scheme: string;
  params: Record<string, string>;
  /** A token68 credential hint, when the challenge carries one instead of params. */
  token68?: string;
}

const TCHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;
const TOKEN68 = /[A-Za-z0-9\-._~+/]/;

/**
 * The challenges of a `WWW-Authenticate` value. Returns `[]` for null or an
 * oversized header; never throws.
 *
 * @example
 * ```ts
 * parseChallenges('Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource", scope="files:read"');
 * // [{ scheme: "bearer", params: { resource_metadata: "https://…", scope: "files:read" } }]
 * ```
 */
export function parseChallenges(header: string | null): Challenge[] {
  if (header === null || header.length > MAX_WWW_AUTHENTICATE_CHARS) return [];
  const s = header;
  const out: Challenge[] = [];
  let i = 0;
  let params = 0;
  const ws = (): void => {
    while (i < s.length && (s[i] === " " || s[i] === "\t")) i++;
  };
  const token = (): string => {
    const start = i;
    while (i < s.length && TCHAR.test(s[i] as string)) i++;
    return s.slice(start, i);
  };
  // A quoted-string (RFC 9110 §5.6.4): `\` escapes the next character. Undefined when unterminated.
  const quoted = (): string | undefined => {
    i++; // the opening quote
    let v = "";
    while (i < s.length) {
      const c = s[i] as string;
      if (c === '"') {
        i++;
        return v;
      }
      if (c === "\\") {
        i++;
        if (i >= s.length) return undefined;
      }
      const ch = s[i] as string;
      // qdtext and quoted-pair allow HTAB, SP, VCHAR and obs-text; control characters end the parse.
      if (ch !== "\t" && (ch < " " || ch === "\x7f")) return undefined;
      v += ch;
      i++;
    }
    return undefined;
  };
  for (;;) {
    // Empty list elements (",,") are allowed by RFC 9110 §5.6.1.
    while (i < s.length && (s[i] === "," || s[i] === " " || s[i] === "\t")) i++;
    if (i >= s.length) return out;
    const scheme = token();
    if (scheme === "") return out;
    // A null-prototype record: a "__proto__" param is an ordinary entry.
    const challenge: Challenge = { scheme: scheme.toLowerCase(), params: Object.create(null) as Record<string, string> };
    out.push(challenge);
    ws();
    // token68: the rest up to a comma is base64-ish, possibly ending in "=" padding.
    const save = i;
    const name = token();
    ws();
    if (name !== "" && s[i] !== "=") {
      // Either a token68 or the next challenge's scheme (this one had no params).
      i = save;
      let t = "";
      while (i < s.length && TOKEN68.test(s[i] as string)) t += s[i++];
      while (i < s.length && s[i] === "=") t += s[i++];
      ws();
      if (i >= s.length || s[i] === ",") {
        challenge.token68 = t;
        continue;
      }
      i = save;
      continue;
    }
    i = save;
    // auth-params: name = (token | quoted-string), separated by commas, until a
    // token not followed by "=" (the next challenge's scheme) or the end.
    for (;;) {
      ws();
      const at = i;
      const pname = token();
      if (pname === "") {
        if (i < s.length && s[i] !== ",") return out;
        break;
      }
      ws();
      if (s[i] !== "=") {
        i = at; // the next challenge
        break;
      }
      i++;
      ws();
      let value: string | undefined;
      if (s[i] === '"') value = quoted();
      else {
        value = token();
        // RFC 9110 allows only a token here, but servers send unquoted URLs; read to the next comma.
        while (i < s.length && s[i] !== "," && s[i] !== " " && s[i] !== "\t" && s[i] !== '"') value += s[i++];
      }
      if (value === undefined) return out;
      if (++params > MAX_CHALLENGE_PARAMS) return out;
      const key = pname.toLowerCase();
      if (!(key in challenge.params)) challenge.params[key] = value;
      ws();
      if (i >= s.length) return out;
      if (s[i] !== ",") return out;
      // Empty list elements between params are allowed too (RFC 9110 §5.6.1): "a=1,, b=2".
      while (i < s.length && (s[i] === "," || s[i] === " " || s[i] === "\t")) i++;
    }
  }
}

/**
 * The OAuth challenge of a 401 / 403 answer: the first `Bearer` or `DPoP`
 * challenge (RFC 6750 §3, RFC 9449 §7.1), or undefined.
 */
export function oauthChallenge(res: { headers: Headers }): Challenge | undefined {
  return parseChallenges(res.headers.get("www-authenticate")).find((c) => c.scheme === "bearer" || c.scheme === "dpop");
}
