// An example enterprise world on 127.0.0.1 (docs/oauth.md): an identity provider that exchanges a user's
// ID token for an ID-JAG, the MCP server's authorization server that takes ID-JAGs and workload JWTs as
// JWT bearer grants, and an MCP server with one tool. `startEnterprise()` returns { mcpUrl, idpIssuer,
// asIssuer, idToken(), workloadJwt(), close() }.
//
// One file with no dependency but Node's built-ins (Node 20 or later): copy it anywhere. It is built
// from the server the test suite runs (fixtures/oauth/enterprise.mjs) by scripts/docs.mjs; edit that one.
import { createServer } from "node:http";
import { generateKeyPairSync, randomUUID, sign, verify } from "node:crypto";
var JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
var TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
var ID_JAG = "urn:ietf:params:oauth:token-type:id-jag";
var IDP_CLIENT = { clientId: "host-at-idp", clientSecret: "idp-secret" };
var AS_CLIENT = { clientId: "host-at-as", clientSecret: "as-secret" };
var b64 = (o) => Buffer.from(JSON.stringify(o)).toString("base64url");
function signJwt(header, claims, key) {
  const input = `${b64({ alg: "ES256", ...header })}.${b64(claims)}`;
  return `${input}.${sign("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" }).toString("base64url")}`;
}
function verifyJwt(jwt, key) {
  const [h, p, s] = jwt.split(".");
  if (h === void 0 || p === void 0 || s === void 0) return void 0;
  try {
    if (!verify("sha256", Buffer.from(`${h}.${p}`), { key, dsaEncoding: "ieee-p1363" }, Buffer.from(s, "base64url"))) return void 0;
    return { header: JSON.parse(Buffer.from(h, "base64url").toString()), claims: JSON.parse(Buffer.from(p, "base64url").toString()) };
  } catch {
    return void 0;
  }
}
var keyPair = () => generateKeyPairSync("ec", { namedCurve: "P-256" });
var now = () => Math.floor(Date.now() / 1e3);
var isRaw = (v) => typeof v === "object" && v !== null && ("status" in v || "body" in v);
function send(res, status, body, headers = {}) {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers });
  res.end(JSON.stringify(body));
}
function answer(res, base, bend) {
  const v = bend?.(base) ?? base;
  if (isRaw(v)) {
    res.writeHead(v.status ?? 200, { "content-type": "application/json", ...v.headers });
    res.end(v.body ?? "");
  } else send(res, 200, v);
}
var readBody = (req) => new Promise((resolve) => {
  let b = "";
  req.on("data", (d) => b += d.toString());
  req.on("end", () => resolve(b));
});
function clientOf(authorization, form) {
  if (authorization.startsWith("Basic ")) {
    const [id2, secret] = Buffer.from(authorization.slice(6), "base64").toString().split(":").map((x) => decodeURIComponent(x.replace(/\+/g, " ")));
    return id2 === void 0 || secret === void 0 ? void 0 : { id: id2, secret };
  }
  const id = form.get("client_id");
  return id === null ? void 0 : { id, secret: form.get("client_secret") ?? "" };
}
async function listen(server) {
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${server.address().port}`;
}
async function startEnterprise(bends = {}) {
  const idpKey = keyPair();
  const platformKey = keyPair();
  const stranger = keyPair();
  const idp = [];
  const as = [];
  const mcp = [];
  const issued = /* @__PURE__ */ new Map();
  const usedJti = /* @__PURE__ */ new Set();
  const servers = [];
  let idpIssuer = "";
  let asIssuer = "";
  let mcpUrl = "";
  const world = { ttl: 3600 };
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
    if (client?.id !== IDP_CLIENT.clientId || client.secret !== IDP_CLIENT.clientSecret) return send(res, 401, { error: "invalid_client" });
    if (form.get("grant_type") !== TOKEN_EXCHANGE || form.get("requested_token_type") !== ID_JAG) return send(res, 400, { error: "unsupported_grant_type" });
    if (form.get("subject_token_type") !== "urn:ietf:params:oauth:token-type:id_token") return send(res, 400, { error: "invalid_request" });
    const subject = verifyJwt(form.get("subject_token") ?? "", idpKey.publicKey);
    if (subject === void 0 || subject.claims.iss !== idpIssuer || subject.claims.aud !== IDP_CLIENT.clientId || subject.claims.exp < now()) return send(res, 400, { error: "invalid_grant" });
    if (form.get("audience") !== asIssuer || form.get("resource") !== mcpUrl) return send(res, 400, { error: "invalid_target" });
    let claims = {
      iss: idpIssuer,
      sub: subject.claims.sub,
      aud: asIssuer,
      resource: mcpUrl,
      client_id: AS_CLIENT.clientId,
      jti: randomUUID(),
      iat: now(),
      exp: now() + 300,
      ...form.get("scope") !== null && { scope: form.get("scope") }
    };
    if (bends.jagClaims) claims = bends.jagClaims(claims);
    const jag = signJwt({ typ: "oauth-id-jag+jwt" }, claims, idpKey.privateKey);
    answer(res, { issued_token_type: ID_JAG, access_token: jag, token_type: "N_A", expires_in: 300 }, bends.exchange);
  });
  servers.push(idpServer);
  idpIssuer = await listen(idpServer);
  const asServer = createServer(async (req, res) => {
    const path = new URL(req.url ?? "/", asIssuer).pathname;
    if (path === "/.well-known/oauth-authorization-server") {
      const base = {
        issuer: asIssuer,
        token_endpoint: `${asIssuer}/token`,
        grant_types_supported: [JWT_BEARER],
        token_endpoint_auth_methods_supported: ["client_secret_basic"],
        response_types_supported: ["code"]
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
    const workload = jag === void 0 ? verifyJwt(assertion, platformKey.publicKey) : void 0;
    const grant = jag ?? workload;
    const c = grant?.claims;
    if (grant === void 0 || c === void 0 || typeof c.exp !== "number" || c.exp < now()) return send(res, 400, { error: "invalid_grant" });
    const aud = [].concat(c.aud);
    if (!aud.includes(asIssuer) && !aud.includes(`${asIssuer}/token`)) return send(res, 400, { error: "invalid_grant" });
    if (typeof c.jti !== "string" || usedJti.has(c.jti)) return send(res, 400, { error: "invalid_grant" });
    usedJti.add(c.jti);
    if (jag !== void 0) {
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
  const mcpServer = createServer(async (req, res) => {
    const path = new URL(req.url ?? "/", mcpUrl).pathname;
    if (path === "/.well-known/oauth-protected-resource/mcp") {
      const base = { resource: mcpUrl, authorization_servers: [asIssuer] };
      return send(res, 200, bends.prm?.(base) ?? base);
    }
    if (path !== "/mcp") return send(res, 404, {});
    const auth = req.headers.authorization ?? "";
    mcp.push(auth);
    const body = await readBody(req);
    const t = issued.get(auth.replace(/^Bearer /, ""));
    if (!auth.startsWith("Bearer ") || t === void 0 || t.resource !== mcpUrl || t.exp < now()) {
      return send(res, 401, { error: "invalid_token" }, { "www-authenticate": `Bearer resource_metadata="${new URL(mcpUrl).origin}/.well-known/oauth-protected-resource/mcp"` });
    }
    if (req.method !== "POST") return send(res, 405, {});
    const msg = JSON.parse(body);
    if (msg.id === void 0) return void res.writeHead(202).end();
    const result = msg.method === "initialize" ? { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "enterprise", version: "1" } } : msg.method === "tools/list" ? { tools: [{ name: "whoami", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }] } : msg.method === "tools/call" ? { content: [{ type: "text", text: "ok" }] } : void 0;
    send(res, 200, result === void 0 ? { jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "nope" } } : { jsonrpc: "2.0", id: msg.id, result });
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
    idToken: (sub = "alice", claims = {}) => signJwt({ typ: "JWT" }, { iss: idpIssuer, sub, aud: IDP_CLIENT.clientId, iat: now(), exp: now() + 600, ...claims }, idpKey.privateKey),
    workloadJwt: (claims = {}) => signJwt({ typ: "JWT" }, { iss: "https://platform.example", sub: "system:serviceaccount:agents:router", aud: asIssuer, jti: randomUUID(), iat: now(), exp: now() + 300, ...claims }, platformKey.privateKey),
    forged: (claims) => signJwt({ typ: "JWT" }, claims, stranger.privateKey),
    expireAll: () => {
      for (const t of issued.values()) t.exp = 0;
    },
    close: async () => {
      for (const s of servers) s.closeAllConnections();
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    }
  });
}
export {
  AS_CLIENT,
  IDP_CLIENT,
  ID_JAG,
  JWT_BEARER,
  TOKEN_EXCHANGE,
  startEnterprise
};
