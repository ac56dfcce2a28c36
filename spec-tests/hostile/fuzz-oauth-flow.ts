// Y6 (A2–A5): a whole login, fuzzed. An OAuthClient meets a 401 from an MCP server
// and a world behind one in-process fetch: resource metadata, authorization server
// metadata, registration and token answers, each valid or bent (another resource,
// another issuer, an endpoint that is not https outside loopback, a bad token type,
// a broken body), and a browser that comes back with the right or a wrong `iss`.
// Whatever the world does, tokens are stored only for an issuer the resource
// metadata named and whose metadata echoed it, from that metadata's token endpoint.
import { OAuthClient } from "../../src/auth/client.js";
import { YadaError } from "../../src/errors.js";
import { MAX_SCOPES } from "../../src/limits.js";
import type { AuthRequest } from "../../src/transport/http-auth.js";
import { check, enc, jsonValue, mutate, pick, type Rng } from "./fuzz-gen.js";

const MCP = "https://mcp.example/mcp";
const AS_GOOD = ["https://as.example", "https://as.example/tenant", "http://127.0.0.1:9/as"];
const AS_BAD = ["http://as.example", "https://u:p@as.example", "https://evil.example", "ftp://as.example", "https://as.example/#f"];

function secure(v: string): boolean {
  const u = new URL(v);
  const loopback = u.hostname === "localhost" || u.hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(u.hostname);
  return (u.protocol === "https:" || (u.protocol === "http:" && loopback)) && u.username === "" && u.hash === "";
}

function bend(r: Rng, o: Record<string, unknown>, values: unknown[]): Record<string, unknown> {
  if (r() < 0.6) return o;
  const k = pick(r, Object.keys(o));
  if (r() < 0.2) delete o[k];
  else o[k] = r() < 0.7 ? pick(r, values) : jsonValue(r);
  return o;
}

export async function fuzzLogin(r: Rng): Promise<void> {
  const issuer = r() < 0.85 ? pick(r, AS_GOOD) : pick(r, AS_BAD);
  const prm = bend(r, { resource: MCP, authorization_servers: [issuer] }, ["https://mcp.example/other", "https://evil.example/mcp", "https://mcp.example", [pick(r, AS_BAD)], []]);
  const asMeta = bend(r, {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    registration_endpoint: `${issuer}/register`,
    code_challenge_methods_supported: ["S256"],
    authorization_response_iss_parameter_supported: r() < 0.5,
  }, ["https://evil.example", `${issuer}/`, "http://evil.example/token", ["plain"], true]);
  const reg = bend(r, { client_id: "cid", token_endpoint_auth_method: "none" }, ["", 5, "private_key_jwt"]);
  const token = bend(r, { access_token: "at1", token_type: "Bearer", expires_in: 3600, refresh_token: "rt1" }, ["mac", "DPoP", "a b", -1]);
  const fetched: Array<{ url: string; body: string }> = [];
  // What each kind of document last was on the wire, as JSON (a mutation may keep it valid).
  const served = new Map<string, Record<string, unknown>>();
  const fetch = (url: string, init: RequestInit): Promise<Response> => {
    fetched.push({ url, body: typeof init.body === "string" ? init.body : "" });
    const path = new URL(url).pathname;
    let doc: unknown;
    let what = "";
    if (path.startsWith("/.well-known/oauth-protected-resource")) [doc, what] = [prm, "prm"];
    else if (path.includes("/.well-known/oauth-authorization-server") || path.includes("/.well-known/openid-configuration")) [doc, what] = [asMeta, "as"];
    else if (path.endsWith("/register")) [doc, what] = [reg, "reg"];
    else if (path.endsWith("/token")) [doc, what] = [token, "token"];
    if (doc === undefined || r() < 0.05) return Promise.resolve(new Response("no", { status: 404 }));
    let bytes: Uint8Array = enc.encode(JSON.stringify(doc));
    if (r() < 0.05) bytes = mutate(r, bytes);
    served.delete(what);
    try {
      const v: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
      if (typeof v === "object" && v !== null && !Array.isArray(v)) served.set(what, v as Record<string, unknown>);
    } catch {
      // not JSON: nothing of it may be used
    }
    return Promise.resolve(new Response(bytes as Uint8Array<ArrayBuffer>, { status: what === "reg" ? 201 : 200, headers: { "content-type": "application/json" } }));
  };
  let authorizeUrl: URL | undefined;
  const client = new OAuthClient({
    redirectUri: "http://127.0.0.1:1/cb",
    fetch,
    requestTimeoutMs: 1_000,
    authorize: ({ url }) => {
      authorizeUrl = new URL(url);
      const q = authorizeUrl.searchParams;
      const cb = new URL("http://127.0.0.1:1/cb");
      if (r() < 0.95) cb.searchParams.set("state", q.get("state") ?? "");
      const iss = r() < 0.8 ? issuer : pick(r, [...AS_GOOD, ...AS_BAD]);
      if (r() < 0.8) cb.searchParams.set("iss", iss);
      if (r() < 0.05) cb.searchParams.set("error", "access_denied");
      cb.searchParams.set("code", "code1");
      return Promise.resolve(cb.href);
    },
  });
  const request: AuthRequest = { url: MCP, method: "POST", attempt: 0, signal: new AbortController().signal };
  const many = Array.from({ length: MAX_SCOPES * 2 }, (_, i) => `s${i}`).join(" ");
  const header = pick(r, [
    'Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp"',
    "Bearer",
    'Bearer resource_metadata="http://evil.example/prm"',
    'Bearer error="invalid_token", scope="a"',
    `Bearer error="insufficient_scope", scope="${many}"`,
  ]);
  // A 403 insufficient_scope is a step-up: a re-authorization with the union of scopes (A2).
  const status = header.includes("insufficient_scope") && r() < 0.7 ? 403 : 401;
  try {
    await client.challenge(new Response(null, { status, headers: { "www-authenticate": header } }), request);
  } catch (e) {
    if (!(e instanceof YadaError)) throw e;
  }
  for (const f of fetched) check(secure(f.url), `the login fetched ${f.url.slice(0, 80)}, which is not https outside loopback`);
  const mcpOrigin = new URL(MCP).origin;
  if (authorizeUrl !== undefined) {
    check(secure(authorizeUrl.href) && authorizeUrl.searchParams.get("code_challenge_method") === "S256", "the browser was sent to an insecure or non-PKCE authorization URL");
    // RFC 8707: the MCP server's resource, or the resource its metadata names verbatim (on its origin).
    // A2: the scope set is bounded (offline_access may be added to it).
    check(new Set((authorizeUrl.searchParams.get("scope") ?? "").split(" ")).size <= MAX_SCOPES + 1, "the authorization request asks for more scopes than MAX_SCOPES");
    const named = authorizeUrl.searchParams.get("resource");
    check(named === MCP || (named !== null && named === served.get("prm")?.resource && new URL(named).origin === mcpOrigin), `the authorization request names another resource: ${named}`);
  }
  const t = await client.tokens(MCP);
  if (t === undefined) return;
  // Tokens exist: every rule of the path to them must have held.
  const tok = served.get("token");
  check(tok !== undefined && t.tokenType === "bearer" && t.accessToken === tok.access_token && typeof tok.token_type === "string" && tok.token_type.toLowerCase() === "bearer", "stored tokens are not the token answer's bearer token");
  check(secure(t.tokenEndpoint), "tokens came from a token endpoint that is not https outside loopback");
  if (t.defaultEndpoints === true) {
    // Revision 2025-03-26 without any metadata: the server's origin is the issuer (A4), default endpoints.
    check(t.issuer === mcpOrigin && t.tokenEndpoint === `${mcpOrigin}/token`, "tokens of default endpoints came from another endpoint than the server's default, or name another issuer than its origin");
  } else {
    const as = served.get("as");
    check(as !== undefined && t.issuer === as.issuer && typeof as.token_endpoint === "string" && t.tokenEndpoint === new URL(as.token_endpoint).href, "tokens were stored for an issuer or endpoint the metadata did not establish");
    const p = served.get("prm");
    const viaPrm = p !== undefined && Array.isArray(p.authorization_servers) && p.authorization_servers[0] === t.issuer;
    check(viaPrm || new URL(t.issuer).origin === mcpOrigin, `tokens were stored for issuer ${t.issuer}, which neither the resource metadata nor the server's origin establishes`);
  }
  const exchange = fetched.filter((f) => f.url === t.tokenEndpoint);
  check(exchange.length >= 1 && exchange.every((f) => new URLSearchParams(f.body).get("resource") !== null), "the token request did not name the resource");
}
