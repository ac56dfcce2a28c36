// Y6 (A2–A5): fuzzing every OAuth answer: protected resource metadata,
// authorization server metadata, dynamic registration and token answers, through
// the real request layer (oauthRequest: URL rule, no redirects, size and time
// bounds) with a fetch that never leaves the process. Documents are valid ones,
// near-valid ones (a field dropped, retyped, oversized, an array over its bound,
// an endpoint that is not https outside loopback, an issuer that does not match)
// and raw bytes. A reference written here from the RFCs says what must be refused.
import { OAuthError } from "../../src/errors.js";
import { MAX_OAUTH_ARRAY_ITEMS, MAX_OAUTH_RESPONSE_BYTES, MAX_OAUTH_STRING_CHARS, MAX_TOKEN_CHARS } from "../../src/limits.js";
import { discoverResource, parseServerMetadata, type ServerMetadata } from "../../src/auth/discovery.js";
import { registerClient } from "../../src/auth/registration.js";
import { oauthRequest, withTimeout, type OAuthFetch } from "../../src/auth/request.js";
import { requestToken } from "../../src/auth/token.js";
import { check, chunked, enc, int, jsonValue, mutate, pick, randomBytes, rngFor, type FuzzTarget, type Rng } from "./fuzz-gen.js";
import { fuzzLogin } from "./fuzz-oauth-flow.js";
import { dpopKey, fuzzCallback, fuzzChallenges, fuzzNonce, fuzzRecords, MARK } from "./fuzz-oauth-text.js";

const URLS = [
  "https://as.example", "https://as.example/tenant", "https://as.example/", "http://127.0.0.1:8080/as", "http://localhost:1", "http://[::1]:2/",
  "http://as.example", "https://u:p@as.example", "https://as.example/#frag", "ftp://as.example", "", "not a url", "javascript:alert(1)",
  "http://127.0.0.1.evil.example", "http://localhost.evil.example", "http://0x7f000001/", "HTTPS://AS.EXAMPLE/T", "https://as.example:443/x",
  "data:,x", "https://as.example/" + "a".repeat(MAX_OAUTH_STRING_CHARS),
];

// ── The reference rules ───────────────────────────────────────────────────────
/** A URL an OAuth client may talk to (A3; OAuth 2.1 §1.5): https, or http on a loopback host; no credentials, no fragment. */
function secure(v: unknown): boolean {
  if (typeof v !== "string" || v.length === 0 || v.length > MAX_OAUTH_STRING_CHARS) return false;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return false;
  }
  const loopback = u.hostname === "localhost" || u.hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(u.hostname);
  return (u.protocol === "https:" || (u.protocol === "http:" && loopback)) && u.username === "" && u.password === "" && u.hash === "";
}
const text = (v: unknown, max = MAX_OAUTH_STRING_CHARS): v is string => typeof v === "string" && v.length >= 1 && v.length <= max;
const strings = (v: unknown): boolean => v === undefined || (Array.isArray(v) && v.length <= MAX_OAUTH_ARRAY_ITEMS && v.every((s) => typeof s === "string" && s.length <= MAX_OAUTH_STRING_CHARS));
const optText = (v: unknown, max = MAX_OAUTH_STRING_CHARS): boolean => v === undefined || text(v, max);
const record = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const visible = (s: string): boolean => [...s].every((c) => c >= "\x21" && c <= "\x7e");
const origin = (u: string): string | undefined => {
  try {
    return new URL(u).origin;
  } catch {
    return undefined;
  }
};

/**
 * A8 for the hosts the fuzzer uses: a loopback host (127/8, localhost, [::1]) is
 * reached only from a server on loopback; every other host of URLS is a name.
 */
function reachable(v: string, server: string): boolean {
  const loop = (u: string): boolean => {
    const h = new URL(u).hostname;
    return h === "localhost" || h === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(h);
  };
  return !loop(v) || loop(server);
}

/** RFC 8414 §3.3 and §2: the metadata of `issuer` (`legacy`: of its origin); its URLs reachable from the issuer's kind of host (A8). */
function serverMetadataOk(o: unknown, issuer: string, legacy: boolean): boolean {
  if (!record(o) || !text(o.issuer)) return false;
  if (legacy ? origin(o.issuer) !== origin(issuer) : o.issuer !== issuer) return false;
  if (!secure(o.issuer) || !reachable(o.issuer, issuer) || o.token_endpoint === undefined) return false;
  for (const k of ["authorization_endpoint", "token_endpoint", "registration_endpoint", "revocation_endpoint", "jwks_uri"]) if (o[k] !== undefined && !(text(o[k]) && secure(o[k]) && reachable(o[k], issuer))) return false;
  for (const k of ["scopes_supported", "code_challenge_methods_supported", "token_endpoint_auth_methods_supported", "grant_types_supported", "dpop_signing_alg_values_supported", "prompt_values_supported"]) if (!strings(o[k])) return false;
  for (const k of ["authorization_response_iss_parameter_supported", "client_id_metadata_document_supported"]) if (o[k] !== undefined && typeof o[k] !== "boolean") return false;
  return true;
}

/** RFC 9728 §3.3 and the MCP spec: the metadata names this endpoint (or a parent path on its origin). */
function resourceNames(resource: string, endpoint: string): boolean {
  let r: URL;
  try {
    r = new URL(resource);
  } catch {
    return false;
  }
  const e = new URL(endpoint);
  if (r.origin !== e.origin || r.search !== "" || r.hash !== "") return false;
  const segs = (p: string): string[] => (p.endsWith("/") ? p.slice(0, -1) : p).split("/");
  const rs = segs(r.pathname);
  const es = segs(e.pathname);
  return (rs.length === 1 && rs[0] === "") || (rs.length <= es.length && rs.every((s, i) => s === es[i]));
}

function tokenOk(o: unknown, dpop: boolean): boolean {
  if (!record(o) || !text(o.access_token, MAX_TOKEN_CHARS) || !visible(o.access_token) || !text(o.token_type, 32)) return false;
  const type = o.token_type.toLowerCase();
  if (type !== "bearer" && !(dpop && type === "dpop")) return false;
  if (o.expires_in !== undefined && !(typeof o.expires_in === "number" && Number.isSafeInteger(o.expires_in) && o.expires_in >= 0)) return false;
  if (o.refresh_token !== undefined && !(text(o.refresh_token, MAX_TOKEN_CHARS) && visible(o.refresh_token))) return false;
  return optText(o.scope);
}

// ── Documents ────────────────────────────────────────────────────────────────
const url = (r: Rng): string => (r() < 0.7 ? pick(r, URLS.slice(0, 6)) : pick(r, URLS));

/** Near-valid changes to a document: a member dropped, retyped, oversized, an array over its bound. */
function perturb(r: Rng, o: Record<string, unknown>): Record<string, unknown> {
  for (let i = r() < 0.5 ? 0 : 1 + int(r, 3); i > 0; i--) {
    const k = pick(r, Object.keys(o).concat(["extra", "__proto__"]));
    const op = int(r, 6);
    if (op === 0) delete o[k];
    else if (op === 1) o[k] = jsonValue(r);
    else if (op === 2) o[k] = MARK + "a".repeat(pick(r, [MAX_OAUTH_STRING_CHARS - 3, MAX_OAUTH_STRING_CHARS - 2, MAX_TOKEN_CHARS - 2]));
    else if (op === 3) o[k] = Array.from({ length: pick(r, [MAX_OAUTH_ARRAY_ITEMS, MAX_OAUTH_ARRAY_ITEMS + 1]) }, () => "s");
    else if (op === 4) o[k] = url(r);
    else o[k] = pick<unknown>(r, ["", null, 0, true, [], {}]);
  }
  return o;
}

const asDoc = (issuer: string): Record<string, unknown> => ({
  issuer,
  authorization_endpoint: `${issuer}/authorize`,
  token_endpoint: `${issuer}/token`,
  registration_endpoint: `${issuer}/register`,
  code_challenge_methods_supported: ["S256"],
  token_endpoint_auth_methods_supported: ["none", "client_secret_basic"],
  authorization_response_iss_parameter_supported: true,
});

/** A body as the server sends it: the document's JSON, sometimes broken, oversized or raw bytes. */
function body(r: Rng, doc: unknown): Uint8Array {
  const k = int(r, 30);
  if (k === 0) return randomBytes(r, int(r, 100));
  if (k === 1) return enc.encode(JSON.stringify({ pad: "a".repeat(MAX_OAUTH_RESPONSE_BYTES + int(r, 3) - 12), doc }));
  if (k === 2) return new Uint8Array([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d]); // {"<invalid UTF-8>":1}
  const bytes = enc.encode(JSON.stringify(doc));
  return k < 6 ? mutate(r, bytes) : bytes;
}

/** What a client may make of `bytes` at best: the JSON value, or undefined (not UTF-8 JSON, or over the size bound). */
function served(bytes: Uint8Array): unknown {
  if (bytes.length > MAX_OAUTH_RESPONSE_BYTES) return undefined;
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) as unknown;
  } catch {
    return undefined;
  }
}

/** What a fake fetch saw: each URL, and the JSON each answer carried on the wire (a mutation may keep it valid). */
interface Seen {
  urls: string[];
  docs: unknown[];
}
const newSeen = (): Seen => ({ urls: [], docs: [] });

/** A fetch that never leaves the process; it records each URL and answers with `answer(url)`. */
function fakeFetch(r: Rng, answer: (url: string) => { status: number; doc: unknown; headers?: Record<string, string> }, seen: Seen): OAuthFetch {
  // A stalled answer ends by the request layer's own time bound, made short here.
  return withTimeout((input, init) => {
    seen.urls.push(input);
    check(init.redirect === "manual", "an OAuth request follows redirects");
    const a = answer(input);
    if (a.status === 0) {
      seen.docs.push(undefined);
      return Promise.resolve(Response.error());
    }
    const bytes = body(r, a.doc);
    const parts = chunked(r, bytes);
    const stall = r() < 0.01;
    seen.docs.push(stall ? undefined : served(bytes));
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (stall) return new Promise<void>((_, reject) => init.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
        const p = parts.shift();
        if (p === undefined) c.close();
        else c.enqueue(p);
        return undefined;
      },
    });
    const noBody = a.status === 204 || a.status === 304;
    return Promise.resolve(new Response(noBody ? null : stream, { status: a.status, headers: { "content-type": pick(r, ["application/json", "text/html", "application/jwk+json"]), ...a.headers } }));
  }, 20);
}
const status = (r: Rng): number => (r() < 0.8 ? 200 : pick(r, [0, 201, 204, 301, 302, 307, 308, 304, 400, 401, 404, 500]));

/** OAuthErrors only; none quotes a value; the request layer never touched an insecure URL. */
function judge(e: unknown, seen: Seen): void {
  for (const u of seen.urls) check(secure(u), `an OAuth request went to a URL the rules refuse: ${u.slice(0, 100)}`);
  if (e === undefined) return;
  if (!(e instanceof OAuthError)) throw e;
  check(!e.message.includes(MARK), `an OAuth error quotes a value: ${e.message.slice(0, 200)}`);
}

async function fuzzRequest(r: Rng): Promise<void> {
  const seen = newSeen();
  const target = url(r);
  const st = status(r);
  const max = r() < 0.3 ? 1 + int(r, 200) : undefined;
  try {
    const a = await oauthRequest(fakeFetch(r, () => ({ status: st, doc: jsonValue(r) }), seen), target, "fuzz", { timeoutMs: 20, ...(max === undefined ? {} : { maxBytes: max }) });
    check(secure(target) && a.status === st && !(st >= 300 && st < 400) && st !== 0, "an answer was returned that the request layer must refuse");
    judge(undefined, seen);
  } catch (e) {
    judge(e, seen);
  }
}

async function fuzzServerMetadata(r: Rng): Promise<void> {
  const issuer = url(r);
  const legacy = r() < 0.2;
  const doc = r() < 0.9 ? perturb(r, asDoc(r() < 0.8 ? issuer : url(r))) : jsonValue(r);
  let meta: ServerMetadata;
  try {
    meta = parseServerMetadata(doc, issuer, "fuzz metadata", legacy);
  } catch (e) {
    judge(e, newSeen());
    check(!serverMetadataOk(doc, issuer, legacy), `valid authorization server metadata was refused: ${(e as Error).message}`);
    return;
  }
  check(serverMetadataOk(doc, issuer, legacy), `authorization server metadata the rules refuse was accepted: ${JSON.stringify(doc).slice(0, 300)}`);
  for (const u of [meta.tokenEndpoint, meta.authorizationEndpoint, meta.registrationEndpoint, meta.revocationEndpoint, meta.jwksUri]) {
    check(u === undefined || (secure(u) && reachable(u, issuer)), "an accepted endpoint is not https outside loopback, or aims at loopback for a server on a name");
  }
}

async function fuzzResource(r: Rng): Promise<void> {
  const endpoint = pick(r, ["https://mcp.example/mcp", "https://mcp.example/a/b/", "http://127.0.0.1:7/mcp", "https://mcp.example"]);
  const e = new URL(endpoint);
  const fromHeader = r() < 0.5 ? (r() < 0.7 ? `${e.origin}/.well-known/oauth-protected-resource` : url(r)) : undefined;
  const resource = r() < 0.7 ? endpoint : pick(r, [`${e.origin}/`, `${e.origin}/mc`, `${e.origin}/mcp/x`, "https://other.example/mcp", `${endpoint}?q=1`, `${endpoint}#f`, `${e.origin}/a`, `${e.origin}//mcp`]);
  const doc = r() < 0.9 ? perturb(r, { resource, authorization_servers: [pick(r, URLS)], scopes_supported: ["a"] }) : jsonValue(r);
  const statuses = [status(r), status(r), status(r)];
  const seen = newSeen();
  const fetcher = fakeFetch(r, () => ({ status: statuses[seen.urls.length - 1] ?? 404, doc }), seen);
  let got;
  try {
    got = await discoverResource(fetcher, endpoint, fromHeader);
  } catch (err) {
    judge(err, seen);
    return;
  }
  judge(undefined, seen);
  check(seen.urls.length <= 3, "discovery asked more than three URLs");
  if (got === undefined) return;
  const got200 = seen.docs[seen.docs.length - 1];
  check(record(got200) && typeof got200.resource === "string" && resourceNames(got200.resource, endpoint), `resource metadata for another resource was accepted: ${String(record(got200) ? got200.resource : "").slice(0, 100)} for ${endpoint}`);
  check(got.authorizationServers.length >= 1 && got.authorizationServers.every(secure) && strings(got.authorizationServers) && strings(got.scopesSupported), "accepted resource metadata breaks its bounds");
  check(got.authorizationServers.every((a) => reachable(a, endpoint)), "an accepted authorization server aims at loopback for a server on a name");
}

const META: ServerMetadata = {
  issuer: "https://as.example",
  tokenEndpoint: "https://as.example/token",
  registrationEndpoint: "https://as.example/register",
  issParameterSupported: true,
  clientIdMetadataDocumentSupported: false,
};

async function fuzzRegistration(r: Rng): Promise<void> {
  const st = status(r);
  const doc = r() < 0.9 ? perturb(r, { client_id: "c" + MARK, client_secret: "s" + MARK, token_endpoint_auth_method: pick(r, ["none", "client_secret_basic", "client_secret_post", "private_key_jwt", "tls_client_auth"]) }) : jsonValue(r);
  const seen = newSeen();
  const meta = { ...META, tokenEndpointAuthMethodsSupported: pick(r, [undefined, ["none"], ["client_secret_post"]]) };
  try {
    const got = await registerClient(fakeFetch(r, () => ({ status: st, doc }), seen), meta, { clientName: "y", redirectUri: "http://127.0.0.1/cb", applicationType: "native" });
    check(st === 200 || st === 201, `a registration answered HTTP ${st} was accepted`);
    const answer = seen.docs[0];
    check(record(answer) && text(answer.client_id), "a registration without a client_id was accepted");
    check(text(got.clientId) && optText(got.clientSecret), "an accepted registration breaks its bounds");
    check(["none", "client_secret_basic", "client_secret_post"].includes(got.authMethod) && (got.authMethod === "none" || got.clientSecret !== undefined), `an accepted registration has auth method ${got.authMethod} ${got.clientSecret === undefined ? "without" : "with"} a secret`);
    judge(undefined, seen);
  } catch (e) {
    judge(e, seen);
  }
}

async function fuzzToken(r: Rng): Promise<void> {
  const key = r() < 0.5 ? await dpopKey() : undefined;
  const doc = r() < 0.9 ? perturb(r, { access_token: "at" + MARK, token_type: pick(r, ["Bearer", "bearer", "DPoP", "dpop", "mac", "Bearer "]), expires_in: pick<unknown>(r, [3600, 0, -1, 1.5, "3600", 2 ** 53]), refresh_token: "rt" + MARK, scope: "a b" }) : jsonValue(r);
  const errorDoc = { error: pick<unknown>(r, ["invalid_grant", "use_dpop_nonce", "use_dpop_nonce", 'bad"code', "x".repeat(65), 5]) };
  // Unique per input, so a key shared across inputs always takes it as new.
  const nonce = pick(r, [`n${int(r, 1e9)}${int(r, 1e9)}`, "", 'bad"']);
  const statuses = [r() < 0.6 ? status(r) : 400, r() < 0.5 ? 200 : 400];
  const seen = newSeen();
  const fetcher = fakeFetch(r, () => {
    const st = statuses[seen.urls.length - 1] ?? 400;
    return { status: st, doc: st === 200 ? doc : errorDoc, headers: { "dpop-nonce": nonce } };
  }, seen);
  // RFC 9449 §8: one retry, only on use_dpop_nonce with a usable new nonce.
  const first = statuses[0] ?? 0;
  const retry = (): boolean => key !== undefined && first !== 200 && first !== 0 && !(first >= 300 && first < 400) && record(seen.docs[0]) && seen.docs[0].error === "use_dpop_nonce" && nonce.startsWith("n");
  try {
    const set = await requestToken({ fetch: fetcher, tokenEndpoint: "https://as.example/token", issuer: "https://as.example", client: { clientId: "c", authMethod: "none" }, dpop: key }, { grant_type: "authorization_code", code: "x" });
    const answered = statuses[seen.urls.length - 1];
    const answer = seen.docs[seen.docs.length - 1];
    check(answered === 200 && tokenOk(answer, key !== undefined), `a token answer the rules refuse was accepted: ${JSON.stringify(answer).slice(0, 200)}`);
    check(seen.urls.length === 1 || (seen.urls.length === 2 && retry()), "a token request was sent again without a fresh DPoP nonce");
    check(set.tokenType === "bearer" || key !== undefined, "a DPoP token was accepted by a client without DPoP");
    judge(undefined, seen);
  } catch (e) {
    judge(e, seen);
    if (e instanceof OAuthError && e.kind === "token_error") check(e.oauthError !== undefined && /^[\x20\x21\x23-\x5b\x5d-\x7e]{1,64}$/.test(e.oauthError), "an error code outside RFC 6749's characters was passed on");
    const last = seen.urls.length - 1;
    check(!(statuses[last] === 200 && tokenOk(seen.docs[last], key !== undefined)), `a valid token answer was refused: ${(e as Error).message}`);
  }
}

const PARTS: Array<(r: Rng) => void | Promise<void>> = [fuzzChallenges, fuzzChallenges, fuzzCallback, fuzzNonce, fuzzRecords, fuzzRequest, fuzzServerMetadata, fuzzServerMetadata, fuzzResource, fuzzRegistration, fuzzToken, fuzzToken, fuzzLogin, fuzzLogin];

export const oauth: FuzzTarget = {
  name: "oauth",
  async run(seed, index) {
    const r = rngFor(seed, index);
    await pick(r, PARTS)(r);
  },
};
