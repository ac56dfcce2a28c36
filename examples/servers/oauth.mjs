// An example MCP server behind OAuth 2.1 on 127.0.0.1 (docs/oauth.md): it is its own authorization
// server (metadata, dynamic registration, PKCE S256, refresh, client_credentials) and serves one tool.
// `startOAuthServer()` returns { url, close() }.
//
// One file with no dependency but Node's built-ins (Node 20 or later): copy it anywhere. It is built
// from the server the test suite runs (fixtures/oauth/server.mjs) by scripts/docs.mjs; edit that one.
import { createServer } from "node:http";
import { createHash, randomBytes } from "node:crypto";
async function startOAuthServer() {
  let origin = "";
  const codes = /* @__PURE__ */ new Map();
  const tokens = /* @__PURE__ */ new Map();
  const refresh = /* @__PURE__ */ new Map();
  const issue = (who) => {
    const access = randomBytes(16).toString("hex");
    const rt = randomBytes(16).toString("hex");
    tokens.set(access, who);
    refresh.set(rt, who);
    return { access_token: access, token_type: "Bearer", expires_in: 3600, refresh_token: rt };
  };
  const json = (res, status, body, headers = {}) => {
    res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", origin);
    let body = "";
    req.on("data", (d) => body += d);
    req.on("end", () => {
      if (url.pathname === "/.well-known/oauth-protected-resource/mcp") return json(res, 200, { resource: `${origin}/mcp`, authorization_servers: [origin], scopes_supported: ["mcp"] });
      if (url.pathname === "/.well-known/oauth-authorization-server") {
        return json(res, 200, {
          issuer: origin,
          authorization_endpoint: `${origin}/authorize`,
          token_endpoint: `${origin}/token`,
          registration_endpoint: `${origin}/register`,
          response_types_supported: ["code"],
          code_challenge_methods_supported: ["S256"],
          authorization_response_iss_parameter_supported: true,
          token_endpoint_auth_methods_supported: ["none", "client_secret_basic"]
        });
      }
      if (url.pathname === "/register") return json(res, 201, { client_id: `client-${randomBytes(4).toString("hex")}`, token_endpoint_auth_method: "none" });
      if (url.pathname === "/authorize") {
        const q = url.searchParams;
        const code = randomBytes(12).toString("hex");
        codes.set(code, { challenge: q.get("code_challenge"), resource: q.get("resource") });
        const back = new URL(q.get("redirect_uri"));
        back.searchParams.set("code", code);
        back.searchParams.set("state", q.get("state") ?? "");
        back.searchParams.set("iss", origin);
        res.writeHead(302, { location: back.href });
        return res.end();
      }
      if (url.pathname === "/token") {
        const p = new URLSearchParams(body);
        if (p.get("grant_type") === "authorization_code") {
          const c = codes.get(p.get("code"));
          codes.delete(p.get("code"));
          const verifier = p.get("code_verifier") ?? "";
          const ok = c && createHash("sha256").update(verifier).digest("base64url") === c.challenge && c.resource === p.get("resource");
          return ok ? json(res, 200, issue("alice")) : json(res, 400, { error: "invalid_grant" });
        }
        if (p.get("grant_type") === "refresh_token") {
          const who = refresh.get(p.get("refresh_token"));
          refresh.delete(p.get("refresh_token"));
          return who ? json(res, 200, issue(who)) : json(res, 400, { error: "invalid_grant" });
        }
        if (p.get("grant_type") === "client_credentials") {
          const basic = Buffer.from((req.headers.authorization ?? "").replace(/^Basic /, ""), "base64").toString();
          return basic === "machine:machine-secret" ? json(res, 200, issue("machine")) : json(res, 401, { error: "invalid_client" });
        }
        return json(res, 400, { error: "unsupported_grant_type" });
      }
      if (url.pathname === "/mcp") {
        if (req.method !== "POST") return json(res, 405, {});
        const who = tokens.get((req.headers.authorization ?? "").replace(/^Bearer /, ""));
        if (!who) return json(res, 401, { error: "invalid_token" }, { "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", scope="mcp"` });
        const msg = JSON.parse(body);
        if (msg.id === void 0) return res.writeHead(202).end();
        const result = msg.method === "initialize" ? { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "oauth-demo", version: "1" } } : msg.method === "tools/list" ? { tools: [{ name: "whoami", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }] } : msg.method === "tools/call" ? { content: [{ type: "text", text: who }] } : void 0;
        return json(res, 200, result ? { jsonrpc: "2.0", id: msg.id, result } : { jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "Method not found" } });
      }
      json(res, 404, {});
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${server.address().port}`;
  return {
    url: `${origin}/mcp`,
    issuer: origin,
    /** The user's browser: opens the authorization URL, consents at once, returns where it was sent back to. */
    async browser(authorizationUrl) {
      const res = await fetch(authorizationUrl, { redirect: "manual" });
      await res.body?.cancel();
      return res.headers.get("location");
    },
    close() {
      server.closeAllConnections();
      server.close();
    }
  };
}
export {
  startOAuthServer
};
