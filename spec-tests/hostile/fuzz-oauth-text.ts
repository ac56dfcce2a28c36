// Y6 (A2–A5): fuzzing what an OAuth or protected MCP server hands over as text:
// WWW-Authenticate challenges (a grammar round trip plus mutation and raw bytes),
// authorization callbacks (the browser brings back whatever the server put in the
// redirect), DPoP nonces, and the values read back from a token store. Each check
// restates the rule from the RFCs and the module's contract, not from its code.
import { OAuthError } from "../../src/errors.js";
import { MAX_CHALLENGE_PARAMS, MAX_OAUTH_STRING_CHARS, MAX_TOKEN_CHARS, MAX_WWW_AUTHENTICATE_CHARS, OAUTH_FLOW_TTL_MS } from "../../src/limits.js";
import { oauthChallenge, parseChallenges, type Challenge } from "../../src/auth/challenge.js";
import { callbackCode, callbackState } from "../../src/auth/flow.js";
import { DpopKey, readDpopJwk } from "../../src/auth/dpop.js";
import { readClient, readFlow, readTokens, type FlowRecord } from "../../src/auth/records.js";
import { check, enc, int, jsonValue, mutate, pick, randomBytes, type Rng } from "./fuzz-gen.js";

/** In every generated secret-like value, so a message that quotes one is seen. */
export const MARK = "Zq9";
const dec = new TextDecoder();
const TCHARS = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const isTchar = (c: string): boolean => TCHARS.includes(c);

function tokenOf(r: Rng, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += TCHARS[int(r, TCHARS.length)];
  return s;
}

// ── WWW-Authenticate ─────────────────────────────────────────────────────────
interface Gen {
  scheme: string;
  params: Array<[string, string]>;
  token68?: string;
}

function genChallenges(r: Rng): Gen[] {
  return Array.from({ length: 1 + int(r, 3) }, () => {
    const scheme = r() < 0.8 ? pick(r, ["Bearer", "DPoP", "bearer", "BEARER", "Basic", "Negotiate"]) : tokenOf(r, 1 + int(r, 8));
    const g: Gen = { scheme, params: [] };
    if (r() < 0.1) {
      // token68 without "=" padding: "abc=" is read as a param with an empty value.
      g.token68 = "a" + Array.from({ length: int(r, 20) }, () => pick(r, ["A", "z", "0", "-", ".", "_", "~", "+", "/"])).join("");
      return g;
    }
    for (let i = r() < 0.05 ? 40 : int(r, 5); i > 0; i--) {
      const name = r() < 0.8 ? pick(r, ["realm", "error", "scope", "resource_metadata", "error_description", "Realm", "__proto__", "constructor"]) : tokenOf(r, 1 + int(r, 6));
      const value =
        r() < 0.5
          ? pick(r, ["invalid_token", "insufficient_scope", "use_dpop_nonce", "https://a.example/.well-known/oauth-protected-resource", "files:read files:write", ""])
          : r() < 0.5
            ? tokenOf(r, int(r, 10))
            : MARK + Array.from({ length: int(r, 12) }, () => pick(r, ['"', "\\", " ", ",", "=", "é", "\t", "\u{1F680}", "x"])).join("");
      g.params.push([name, value]);
    }
    return g;
  });
}

const bws = (r: Rng): string => pick(r, ["", "", " ", "\t", "  "]);

function quoteValue(r: Rng, v: string): string {
  if (v !== "" && [...v].every(isTchar) && r() < 0.7) return v;
  let q = '"';
  for (const c of v) q += c === '"' || c === "\\" || r() < 0.1 ? `\\${c}` : c;
  return q + '"';
}

function serialize(r: Rng, gens: Gen[]): string {
  return gens
    .map((g) => {
      if (g.token68 !== undefined) return `${g.scheme} ${g.token68}`;
      const params = g.params.map(([n, v]) => `${n}${bws(r)}=${bws(r)}${quoteValue(r, v)}`);
      return params.length === 0 ? g.scheme : `${g.scheme} ${params.join(`${bws(r)},${r() < 0.1 ? "," : ""}${bws(r)}`)}`;
    })
    .join(pick(r, [", ", ",", " , ", ",, "]));
}

/** What parsing the serialization of `gens` must give (first name wins; the param bound cuts the rest). */
function expected(gens: Gen[]): Challenge[] {
  const out: Challenge[] = [];
  let count = 0;
  for (const g of gens) {
    const c: Challenge = { scheme: g.scheme.toLowerCase(), params: Object.create(null) as Record<string, string> };
    out.push(c);
    if (g.token68 !== undefined) c.token68 = g.token68;
    for (const [n, v] of g.params) {
      if (++count > MAX_CHALLENGE_PARAMS) return out;
      if (!Object.hasOwn(c.params, n.toLowerCase())) c.params[n.toLowerCase()] = v;
    }
  }
  return out;
}

const shape = (cs: Challenge[]): string => JSON.stringify(cs.map((c) => [c.scheme, Object.entries(c.params), c.token68 ?? null]));

export function fuzzChallenges(r: Rng): void {
  const gens = genChallenges(r);
  let header = serialize(r, gens);
  const k = int(r, 10);
  if (k === 0) header = dec.decode(mutate(r, enc.encode(header)));
  else if (k === 1) header = dec.decode(randomBytes(r, int(r, 200)));
  else if (k === 2) header = header + ", Bearer x=" + "a".repeat(MAX_WWW_AUTHENTICATE_CHARS - header.length - 12 + int(r, 3));
  else if (k === 3) header = `Bearer error="${"\\".repeat(int(r, 5000))}`;
  const got = parseChallenges(header);
  if (header.length > MAX_WWW_AUTHENTICATE_CHARS) check(got.length === 0, "an oversized WWW-Authenticate header was parsed");
  let params = 0;
  for (const c of got) {
    check(c.scheme !== "" && [...c.scheme].every(isTchar) && c.scheme === c.scheme.toLowerCase(), "a challenge scheme is not a lowercased token");
    check(Object.getPrototypeOf(c.params) === null, "challenge params are not a null-prototype record");
    for (const [n, v] of Object.entries(c.params)) {
      params++;
      check(n !== "" && [...n].every(isTchar) && n === n.toLowerCase(), "a param name is not a lowercased token");
      check(v.length <= header.length, "a param value is longer than the header");
    }
  }
  check(params <= MAX_CHALLENGE_PARAMS, `${params} params were read from one header`);
  check(({} as Record<string, unknown>).polluted === undefined, "Object.prototype was polluted");
  if (k >= 4) check(shape(got) === shape(expected(gens)), `the challenges differ from what was sent: ${header.slice(0, 200)} -> ${shape(got).slice(0, 200)}`);
  // The challenge reader: the first Bearer or DPoP challenge of a real Headers value, or none.
  let headers: Headers;
  try {
    headers = new Headers({ "www-authenticate": header });
  } catch {
    return; // a value fetch itself cannot carry
  }
  const c = oauthChallenge({ headers });
  const first = parseChallenges(headers.get("www-authenticate")).find((x) => x.scheme === "bearer" || x.scheme === "dpop");
  check(shape(c ? [c] : []) === shape(first ? [first] : []), "the OAuth challenge is not the first Bearer or DPoP challenge");
}

// ── Authorization callbacks ──────────────────────────────────────────────────
const ISSUERS = ["https://as.example", "https://as.example/", "https://evil.example", ""];

export function fuzzCallback(r: Rng): void {
  const flow: FlowRecord = {
    state: "st" + MARK,
    verifier: "v",
    issuer: pick(r, ISSUERS),
    issRequired: r() < 0.5,
    key: "k",
    resource: "https://mcp.example/mcp",
    redirectUri: "http://127.0.0.1:1/cb",
    clientId: "c",
    tokenEndpoint: "https://as.example/token",
    createdAt: 1_000_000_000_000 - (r() < 0.1 ? OAUTH_FLOW_TTL_MS + 1 + int(r, 2) : int(r, OAUTH_FLOW_TTL_MS)),
  };
  const parts: string[] = [];
  const add = (name: string, values: string[]): void => {
    const n = r() < 0.8 ? 1 : pick(r, [0, 2]);
    for (let i = 0; i < n; i++) parts.push(`${name}=${encodeURIComponent(pick(r, values))}`);
  };
  add("state", [flow.state, "", "other"]);
  add("iss", [flow.issuer, ...ISSUERS, "https://AS.example"]);
  // An error code is the server's word, named in the message by design: no MARK in it.
  if (r() < 0.3) add("error", ["access_denied", "", "x".repeat(65), 'bad"quote', "é", "e\u0000"]);
  add("code", ["c" + MARK, "", "=="]);
  let query = parts.sort(() => r() - 0.5).join("&");
  if (r() < 0.15) query = dec.decode(mutate(r, enc.encode(query)));
  let url: URL;
  try {
    url = new URL(`http://127.0.0.1:1/cb?${query}`);
  } catch {
    return;
  }
  const q = url.searchParams;
  const want = (() => {
    const states = q.getAll("state");
    if (states.length !== 1 || states[0] === "") return "state";
    if (1_000_000_000_000 - flow.createdAt > OAUTH_FLOW_TTL_MS) return "timeout";
    const iss = q.getAll("iss");
    if (iss.length > 1 || (iss.length === 1 && iss[0] !== flow.issuer) || (iss.length === 0 && flow.issRequired)) return "iss_mismatch";
    const errors = q.getAll("error");
    if (errors.length > 1) return "bad_response";
    if (errors.length === 1) return "authorization_denied";
    const codes = q.getAll("code");
    return codes.length !== 1 || codes[0] === "" ? "bad_response" : { code: codes[0] };
  })();
  let got: string | { code: string | undefined };
  try {
    callbackState(url);
    got = { code: callbackCode(url, flow, 1_000_000_000_000) };
  } catch (e) {
    check(e instanceof OAuthError, "a callback check threw something other than an OAuthError");
    const o = e as OAuthError;
    check(!o.message.includes(MARK), `a callback error quotes a value: ${o.message}`);
    if (o.kind === "authorization_denied") check(o.oauthError !== undefined && /^[\x20\x21\x23-\x5b\x5d-\x7e]{1,64}$/.test(o.oauthError), "an error code outside RFC 6749's characters was passed on");
    got = o.kind === "state_mismatch" ? "state" : o.kind;
  }
  check(JSON.stringify(got) === JSON.stringify(want), `callback ${query.slice(0, 200)}: got ${JSON.stringify(got)}, the rules say ${JSON.stringify(want)}`);
}

// ── DPoP nonces ──────────────────────────────────────────────────────────────
let dpop: Promise<DpopKey> | undefined;
/** One DPoP key for every input (generating one per input would be most of the work). */
export const dpopKey = (): Promise<DpopKey> => (dpop ??= DpopKey.generate());
const b64json = (part: string): Record<string, unknown> => JSON.parse(atob(part.replace(/-/g, "+").replace(/_/g, "/"))) as Record<string, unknown>;

export async function fuzzNonce(r: Rng): Promise<void> {
  const key = await dpopKey();
  const origin = pick(r, ["https://as.example", "https://mcp.example", "http://127.0.0.1:9"]);
  const value = pick(r, [MARK + int(r, 1e9), MARK + "a".repeat(MAX_OAUTH_STRING_CHARS - 3 + int(r, 3)), `${MARK}"q`, `${MARK}\\`, `${MARK} sp`, "", dec.decode(randomBytes(r, int(r, 20)))]);
  let headers: Headers;
  try {
    headers = new Headers(r() < 0.9 ? { "dpop-nonce": value } : {});
  } catch {
    return;
  }
  const seen = headers.get("dpop-nonce");
  const valid = seen !== null && seen.length >= 1 && seen.length <= MAX_OAUTH_STRING_CHARS && [...seen].every((c) => c >= "\x21" && c <= "\x7e" && c !== '"' && c !== "\\");
  const before = b64json((await key.proof("POST", `${origin}/token`)).split(".")[1] ?? "").nonce;
  const fresh = key.noteNonce(`${origin}/x`, headers);
  check(fresh === (valid && seen !== before), `noteNonce answered ${fresh} for a nonce that is ${valid ? "valid" : "invalid"}`);
  const after = b64json((await key.proof("POST", `${origin}/token`)).split(".")[1] ?? "").nonce;
  check(after === (fresh ? seen : before), "the next proof does not carry the latest valid nonce");
}

// ── Values read back from a token store ──────────────────────────────────────
const boundedStr = (v: unknown, max = MAX_OAUTH_STRING_CHARS): boolean => typeof v === "string" && v.length <= max;

export function fuzzRecords(r: Rng): void {
  const base: Record<string, unknown> = {
    issuer: "https://as.example", resource: "https://mcp.example/mcp", clientId: "c", accessToken: "at", tokenType: pick(r, ["bearer", "dpop", "Bearer", "mac"]),
    expiresAt: pick<unknown>(r, [undefined, 5, Infinity, "5", null]), tokenEndpoint: "https://as.example/token", authMethod: pick(r, ["none", "client_secret_post", "x"]),
    state: "s", verifier: "v", issRequired: pick<unknown>(r, [true, "yes"]), key: "k", redirectUri: "http://127.0.0.1/cb", createdAt: pick<unknown>(r, [1, NaN, "1"]),
    kty: "EC", crv: "P-256", x: "A".repeat(43), y: "B".repeat(43), d: "C".repeat(pick(r, [43, 42, 44])),
  };
  for (let i = int(r, 4); i > 0; i--) base[pick(r, Object.keys(base))] = r() < 0.5 ? jsonValue(r) : "a".repeat(pick(r, [MAX_OAUTH_STRING_CHARS, MAX_OAUTH_STRING_CHARS + 1, MAX_TOKEN_CHARS + 1]));
  let text = JSON.stringify(r() < 0.95 ? base : jsonValue(r));
  if (r() < 0.2) text = dec.decode(mutate(r, enc.encode(text)));
  const stored = { value: text, version: "1" };
  const t = readTokens(stored);
  if (t) check(boundedStr(t.issuer) && boundedStr(t.accessToken, MAX_TOKEN_CHARS) && (t.tokenType === "bearer" || t.tokenType === "dpop") && (t.expiresAt === undefined || Number.isFinite(t.expiresAt)), "a stored token record that breaks its rules was read");
  const c = readClient(stored);
  if (c) check(boundedStr(c.clientId) && ["none", "client_secret_basic", "client_secret_post", "private_key_jwt"].includes(c.authMethod), "a stored client record that breaks its rules was read");
  const f = readFlow(stored);
  if (f) check(boundedStr(f.state) && typeof f.issRequired === "boolean" && Number.isFinite(f.createdAt), "a stored flow record that breaks its rules was read");
  const j = readDpopJwk(text);
  if (j) check(j.kty === "EC" && j.crv === "P-256" && [j.x, j.y, j.d].every((v) => /^[A-Za-z0-9_-]{43}$/.test(v)), "a stored DPoP key that is not a P-256 JWK was read");
}
