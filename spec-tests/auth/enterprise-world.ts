// A7: a loopback enterprise world of ours, each party strict the way the extension
// documents ask: an identity provider that exchanges a signed ID token (RFC 8693) for
// a signed ID-JAG under an (audience, resource) policy; the MCP server's authorization
// server, which takes a JWT bearer grant (RFC 7523) of an ID-JAG (its signature, typ,
// aud, resource, client_id against the authenticated client, expiry, jti replay) or of
// a workload JWT from a trusted platform key; and an MCP server that accepts only that
// server's tokens for its own resource. Every request each party saw is recorded, and
// a test can bend any answer.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { generateKeyPairSync, randomUUID, sign, verify, type KeyObject } from "node:crypto";

export const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
export const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
export const ID_JAG = "urn:ietf:params:oauth:token-type:id-jag";
export const IDP_CLIENT = { clientId: "host-at-idp", clientSecret: "idp-secret" };
export const AS_CLIENT = { clientId: "host-at-as", clientSecret: "as-secret" };

type Json = Record<string, unknown>;
/** An answer override. */
export interface Raw {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
}

/** What a test can bend; each hook returns undefined to keep the well-behaved answer. */
export interface EnterpriseBends {
  /** The protected resource metadata (e.g. naming another authorization server). */
  prm?: (base: Json) => Json | undefined;
  /** The authorization server's metadata. */
  asMetadata?: (base: Json) => Json | undefined;
  /** The ID-JAG's claims before the IdP signs it. */
  jagClaims?: (claims: Json) => Json;
  /** The IdP's token exchange answer. */
  exchange?: (base: Json) => Json | Raw | undefined;
  /** The authorization server's token answer. */
  token?: (base: Json) => Json | Raw | undefined;
}

/** One request a party received. */
export interface Seen {
  path: string;
  authorization: string;
  form: URLSearchParams;
}

export interface EnterpriseWorld {
  idpIssuer: string;
  asIssuer: string;
  mcpUrl: string;
  bends: EnterpriseBends;
  /** Requests to the IdP's token endpoint. */
  idp: Seen[];
  /** Requests to the authorization server's token endpoint. */
  as: Seen[];
  /** Authorization headers the MCP endpoint received ("" for none). */
  mcp: string[];
  /** An ID token of the host's single sign-on at the IdP, for `sub`. */
  idToken(sub?: string, claims?: Json): string;
  /** A workload JWT from the trusted platform key (default aud: the authorization server's issuer). */
  workloadJwt(claims?: Json): string;
  /** Signs a JWT with a key nobody trusts. */
  forged(claims: Json): string;
  /** Access token lifetime in seconds. */
  ttl: number;
  /** Every access token issued so far expires now (the MCP server refuses them). */
  expireAll(): void;
  close(): Promise<void>;
}

const b64 = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString("base64url");

function signJwt(header: Json, claims: Json, key: KeyObject): string {
  const input = `${b64({ alg: "ES256", ...header })}.${b64(claims)}`;
  return `${input}.${sign("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" }).toString("base64url")}`;
}

/** The header and claims of `jwt` when its ES256 signature verifies with `key`. */
function verifyJwt(jwt: string, key: KeyObject): { header: Json; claims: Json } | undefined {
  const [h, p, s] = jwt.split(".");
  if (h === undefined || p === undefined || s === undefined) return undefined;
  try {
    if (!verify("sha256", Buffer.from(`${h}.${p}`), { key, dsaEncoding: "ieee-p1363" }, Buffer.from(s, "base64url"))) return undefined;
    return { header: JSON.parse(Buffer.from(h, "base64url").toString()) as Json, claims: JSON.parse(Buffer.from(p, "base64url").toString()) as Json };
  } catch {
    return undefined;
  }
}

const keyPair = (): { privateKey: KeyObject; publicKey: KeyObject } => generateKeyPairSync("ec", { namedCurve: "P-256" });
const now = (): number => Math.floor(Date.now() / 1000);
const isRaw = (v: unknown): v is Raw => typeof v === "object" && v !== null && ("status" in v || "body" in v);

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers });
  res.end(JSON.stringify(body));
}

function answer(res: ServerResponse, base: Json, bend: ((b: Json) => Json | Raw | undefined) | undefined): void {
  const v = bend?.(base) ?? base;
  if (isRaw(v)) {
    res.writeHead(v.status ?? 200, { "content-type": "application/json", ...v.headers });
    res.end(v.body ?? "");
  } else send(res, 200, v);
}

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    let b = "";
    req.on("data", (d: Buffer) => (b += d.toString()));
    req.on("end", () => resolve(b));
  });

/** The client of a request: Basic, or client_id / client_secret in the form. */
function clientOf(authorization: string, form: URLSearchParams): { id: string; secret: string } | undefined {
  if (authorization.startsWith("Basic ")) {
    const [id, secret] = Buffer.from(authorization.slice(6), "base64").toString().split(":").map((x) => decodeURIComponent(x.replace(/\+/g, " ")));
    return id === undefined || secret === undefined ? undefined : { id, secret };
  }
  const id = form.get("client_id");
  return id === null ? undefined : { id, secret: form.get("client_secret") ?? "" };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

export async function startEnterprise(bends: EnterpriseBends = {}): Promise<EnterpriseWorld> {
  const idpKey = keyPair();
  const platformKey = keyPair();
  const stranger = keyPair();
  const idp: Seen[] = [];
  const as: Seen[] = [];
  const mcp: string[] = [];
  const issued = new Map<string, { resource: string; exp: number }>();
  const usedJti = new Set<string>();
  const servers: Server[] = [];
  let idpIssuer = "";
  let asIssuer = "";
  let mcpUrl = "";
  const world = { ttl: 3600 };

  // ── the identity provider ──
  const idpServer = createServer(async (req, res) => {
    const path = new URL(req.url ?? "/", idpIssuer).pathname;
    if (path === "/.well-known/openid-configuration") {
      return send(res, 200, { issuer: idpIssuer, token_endpoint: `${idpIssuer}/token`, grant_types_supported: [TOKEN_EXCHANGE, "authorization_code"], token_endpoint_auth_methods_supported: ["client_secret_basic"] });
    }
    if (path !== "/token" || req.method !== "POST") return send(res, 404, {});
    const form = new URLSearchParams(await readBody(req));
    const authorization = req.headers.authorization ?? "";
    idp.push({ path, authorization, form });
    const client = clientOf(authorization, form);
    // Client authentication is enforced (the extension's "Token Exchange Security").
    if (client?.id !== IDP_CLIENT.clientId || client.secret !== IDP_CLIENT.clientSecret) return send(res, 401, { error: "invalid_client" });
    if (form.get("grant_type") !== TOKEN_EXCHANGE || form.get("requested_token_type") !== ID_JAG) return send(res, 400, { error: "unsupported_grant_type" });
    if (form.get("subject_token_type") !== "urn:ietf:params:oauth:token-type:id_token") return send(res, 400, { error: "invalid_request" });
    const subject = verifyJwt(form.get("subject_token") ?? "", idpKey.publicKey);
    if (subject === undefined || subject.claims.iss !== idpIssuer || subject.claims.aud !== IDP_CLIENT.clientId || (subject.claims.exp as number) < now()) return send(res, 400, { error: "invalid_grant" });
    // The policy: the (audience, resource) pairs of the MCP servers this organisation uses.
    if (form.get("audience") !== asIssuer || form.get("resource") !== mcpUrl) return send(res, 400, { error: "invalid_target" });
    let claims: Json = {
      iss: idpIssuer,
      sub: subject.claims.sub,
      aud: asIssuer,
      resource: mcpUrl,
      client_id: AS_CLIENT.clientId,
      jti: randomUUID(),
      iat: now(),
      exp: now() + 300,
      ...(form.get("scope") !== null && { scope: form.get("scope") }),
    };
    if (bends.jagClaims) claims = bends.jagClaims(claims);
    const jag = signJwt({ typ: "oauth-id-jag+jwt" }, claims, idpKey.privateKey);
    answer(res, { issued_token_type: ID_JAG, access_token: jag, token_type: "N_A", expires_in: 300 }, bends.exchange);
  });
  servers.push(idpServer);
  idpIssuer = await listen(idpServer);

  // ── the MCP server's authorization server ──
  const asServer = createServer(async (req, res) => {
    const path = new URL(req.url ?? "/", asIssuer).pathname;
    if (path === "/.well-known/oauth-authorization-server") {
      const base: Json = {
        issuer: asIssuer,
        token_endpoint: `${asIssuer}/token`,
        grant_types_supported: [JWT_BEARER],
        token_endpoint_auth_methods_supported: ["client_secret_basic"],
        response_types_supported: ["code"],
      };
      return send(res, 200, bends.asMetadata?.(base) ?? base);
    }
    if (path !== "/token" || req.method !== "POST") return send(res, 404, {});
    const form = new URLSearchParams(await readBody(req));
    const authorization = req.headers.authorization ?? "";
    as.push({ path, authorization, form });
    if (form.get("grant_type") !== JWT_BEARER) return send(res, 400, { error: "unsupported_grant_type" });
    const assertion = form.get("assertion") ?? "";
    const jag = verifyJwt(assertion, idpKey.publicKey);
    const workload = jag === undefined ? verifyJwt(assertion, platformKey.publicKey) : undefined;
    const grant = jag ?? workload;
    const c = grant?.claims;
    if (grant === undefined || c === undefined || typeof c.exp !== "number" || c.exp < now()) return send(res, 400, { error: "invalid_grant" });
    const aud = ([] as unknown[]).concat(c.aud);
    if (!aud.includes(asIssuer) && !aud.includes(`${asIssuer}/token`)) return send(res, 400, { error: "invalid_grant" });
    if (typeof c.jti !== "string" || usedJti.has(c.jti)) return send(res, 400, { error: "invalid_grant" });
    usedJti.add(c.jti);
    if (jag !== undefined) {
      // An ID-JAG: its type, the client it names against the authenticated one, the resource.
      const client = clientOf(authorization, form);
      if (client?.id !== AS_CLIENT.clientId || client.secret !== AS_CLIENT.clientSecret) return send(res, 401, { error: "invalid_client" });
      if (jag.header.typ !== "oauth-id-jag+jwt" || c.client_id !== client.id || c.iss !== idpIssuer || c.resource !== mcpUrl) return send(res, 400, { error: "invalid_grant" });
    }
    const token = `at-${randomUUID()}`;
    issued.set(token, { resource: form.get("resource") ?? "", exp: now() + world.ttl });
    answer(res, { access_token: token, token_type: "Bearer", expires_in: world.ttl }, bends.token);
  });
  servers.push(asServer);
  asIssuer = await listen(asServer);

  // ── the MCP server ──
  const mcpServer = createServer(async (req, res) => {
    const path = new URL(req.url ?? "/", mcpUrl).pathname;
    if (path === "/.well-known/oauth-protected-resource/mcp") {
      const base: Json = { resource: mcpUrl, authorization_servers: [asIssuer] };
      return send(res, 200, bends.prm?.(base) ?? base);
    }
    if (path !== "/mcp") return send(res, 404, {});
    const auth = req.headers.authorization ?? "";
    mcp.push(auth);
    const body = await readBody(req);
    const t = issued.get(auth.replace(/^Bearer /, ""));
    if (!auth.startsWith("Bearer ") || t === undefined || t.resource !== mcpUrl || t.exp < now()) {
      return send(res, 401, { error: "invalid_token" }, { "www-authenticate": `Bearer resource_metadata="${new URL(mcpUrl).origin}/.well-known/oauth-protected-resource/mcp"` });
    }
    if (req.method !== "POST") return send(res, 405, {});
    const msg = JSON.parse(body) as { id?: number; method: string };
    if (msg.id === undefined) return void res.writeHead(202).end();
    const result =
      msg.method === "initialize"
        ? { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "enterprise", version: "1" } }
        : msg.method === "tools/list"
          ? { tools: [{ name: "whoami", inputSchema: { type: "object" } }] }
          : msg.method === "tools/call"
            ? { content: [{ type: "text", text: "ok" }] }
            : undefined;
    send(res, 200, result === undefined ? { jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "nope" } } : { jsonrpc: "2.0", id: msg.id, result });
  });
  servers.push(mcpServer);
  mcpUrl = `${await listen(mcpServer)}/mcp`;

  return Object.assign(world, {
    idpIssuer,
    asIssuer,
    mcpUrl,
    bends,
    idp,
    as,
    mcp,
    idToken: (sub = "alice", claims: Json = {}) => signJwt({ typ: "JWT" }, { iss: idpIssuer, sub, aud: IDP_CLIENT.clientId, iat: now(), exp: now() + 600, ...claims }, idpKey.privateKey),
    workloadJwt: (claims: Json = {}) =>
      signJwt({ typ: "JWT" }, { iss: "https://platform.example", sub: "system:serviceaccount:agents:router", aud: asIssuer, jti: randomUUID(), iat: now(), exp: now() + 300, ...claims }, platformKey.privateKey),
    forged: (claims: Json) => signJwt({ typ: "JWT" }, claims, stranger.privateKey),
    expireAll: () => {
      for (const t of issued.values()) t.exp = 0;
    },
    close: async () => {
      for (const s of servers) s.closeAllConnections();
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    },
  });
}
