// A6: a real OpenID provider (panva's oidc-provider, certified) on loopback as the
// authorization server in front of a small MCP server that checks every token with
// the provider itself (audience = its resource, scope per tool). Login and consent
// are automated: the interaction endpoint logs "alice" in and grants what is asked.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createHash, createPublicKey, verify, type JsonWebKey } from "node:crypto";
import Provider from "oidc-provider";

/** What a test can change while the provider runs. */
export interface OidcSettings {
  /** Access token lifetime in seconds. */
  accessTtl: number;
  /** Scope the `write` tool needs. */
  writeScope: string;
}

export interface OidcWorld {
  issuer: string;
  /** The MCP endpoint. */
  mcpUrl: string;
  provider: Provider;
  settings: OidcSettings;
  /** Authorization headers the MCP server received, in order ("" when none). */
  seen: string[];
  /** The JWK thumbprint of each DPoP proof the MCP server accepted (RFC 9449 §7.1), in order. */
  dpopKeys: string[];
  /** Token endpoint requests by grant type. */
  grants: string[];
  /** The automated browser: follows the authorization server's redirects with a cookie jar up to the redirect URI. */
  browser(url: string, redirectUri: string): Promise<string>;
  close(): Promise<void>;
}

const listen = async (server: Server): Promise<number> => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return (server.address() as { port: number }).port;
};

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    let b = "";
    req.on("data", (d: Buffer) => (b += d.toString()));
    req.on("end", () => resolve(b));
  });

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/**
 * Starts the provider and the MCP server; `clients` are static clients (e.g. a
 * machine client). With `legacy`, the MCP server speaks 2024-11-05 HTTP+SSE (H14):
 * a Streamable POST to /mcp is answered 405 once its token passes, GET /mcp opens
 * the event stream, whose endpoint is /messages; every request needs the token.
 */
export async function startOidc(
  clients: Array<Record<string, unknown>> = [],
  options: {
    legacy?: boolean;
    /** The provider's own refresh token rule (a refresh token only for a granted offline_access), not "always". */
    offlineOnly?: boolean;
    /** Extra discovery metadata (e.g. prompt_values_supported). */
    discovery?: Record<string, unknown>;
  } = {},
): Promise<OidcWorld> {
  const settings: OidcSettings = { accessTtl: 600, writeScope: "mcp:write" };
  const seen: string[] = [];
  const dpopKeys: string[] = [];
  const grants: string[] = [];
  let provider: Provider | undefined;
  const asServer = createServer((req, res) => {
    if (provider === undefined) return json(res, 503, {});
    if (req.url?.startsWith("/interaction/")) return void interact(provider, req, res).catch(() => json(res, 500, {}));
    provider.callback()(req, res);
  });
  const asPort = await listen(asServer);
  const issuer = `http://127.0.0.1:${asPort}`;
  const mcpServer = createServer((req, res) => void mcp(req, res));
  const mcpPort = await listen(mcpServer);
  const mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
  provider = new Provider(issuer, {
    clients,
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => mcpUrl,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => {
          if (resource !== mcpUrl) throw new Error("unknown resource");
          return { scope: "mcp:read mcp:write", audience: mcpUrl, accessTokenTTL: settings.accessTtl, accessTokenFormat: "opaque" };
        },
      },
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    scopes: ["openid", "offline_access"],
    ...(options.discovery && { discovery: options.discovery }),
    ...(!options.offlineOnly && { issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(g: string): boolean }) => client.grantTypeAllowed("refresh_token") }),
    rotateRefreshToken: true,
    cookies: { keys: ["a-test-only-cookie-key"] },
    pkce: { required: () => true },
  });
  provider.on("grant.success", (ctx: unknown) => {
    const c = ctx as { oidc?: { params?: { grant_type?: string } } };
    grants.push(c.oidc?.params?.grant_type ?? "?");
  });

  let stream: ServerResponse | undefined; // the HTTP+SSE event stream, in legacy mode
  async function mcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = req.url ?? "";
    // CORS, for the browser leg of the runtime matrix (a page on another origin).
    res.setHeader("access-control-allow-origin", "*");
    res.setHeader("access-control-expose-headers", "www-authenticate, mcp-session-id");
    if (req.method === "OPTIONS") {
      res.writeHead(204, { "access-control-allow-methods": "GET, POST, DELETE", "access-control-allow-headers": "authorization, content-type, dpop, mcp-protocol-version, mcp-session-id, last-event-id", "access-control-max-age": "600" });
      return void res.end();
    }
    if (path === "/.well-known/oauth-protected-resource/mcp" || path === "/.well-known/oauth-protected-resource") {
      return json(res, 200, { resource: mcpUrl, authorization_servers: [issuer], scopes_supported: ["mcp:read"] });
    }
    const legacy = options.legacy === true;
    const messages = legacy && path === "/messages" && req.method === "POST";
    if (path !== "/mcp" && !messages) return json(res, 404, {});
    if (req.method !== "POST" && !(legacy && req.method === "GET")) return json(res, 405, {});
    const auth = req.headers.authorization ?? "";
    seen.push(auth);
    const challenge = (extra = ""): Record<string, string> => ({
      "www-authenticate": `Bearer resource_metadata="${issuer.replace(String(asPort), String(mcpPort))}/.well-known/oauth-protected-resource/mcp"${extra}`,
    });
    const body = req.method === "POST" ? await readBody(req) : "{}";
    const msg = JSON.parse(body) as { id?: number; method: string; params?: { name?: string } };
    const value = auth.startsWith("Bearer ") ? auth.slice(7) : auth.startsWith("DPoP ") ? auth.slice(5) : undefined;
    const token = value === undefined ? undefined : ((await provider?.AccessToken.find(value)) ?? (await provider?.ClientCredentials.find(value)));
    const aud = token?.aud === undefined ? [] : ([] as string[]).concat(token.aud);
    // A DPoP-bound token (RFC 9449 §7.1): the DPoP scheme and a proof by the bound key.
    const jkt = (token as { jkt?: string } | undefined)?.jkt;
    const htu = messages ? `${new URL(mcpUrl).origin}/messages` : mcpUrl;
    const bound = jkt === undefined ? auth.startsWith("Bearer ") : auth.startsWith("DPoP ") && dpopThumbprint(req.headers.dpop, req.method ?? "", htu) === jkt;
    if (token === undefined || token.isExpired || !aud.includes(mcpUrl) || !bound) return json(res, 401, { error: "invalid_token" }, challenge(', scope="mcp:read"'));
    if (jkt !== undefined) dpopKeys.push(jkt);
    const scopes = (token.scope ?? "").split(" ");
    if (msg.method === "tools/call" && msg.params?.name === "write" && !scopes.includes(settings.writeScope)) {
      return json(res, 403, { error: "insufficient_scope" }, challenge(`, error="insufficient_scope", scope="${settings.writeScope}"`));
    }
    if (legacy && !messages) {
      if (req.method === "POST") return json(res, 405, {}); // a Streamable HTTP client: this server is older
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write("event: endpoint\ndata: /messages\n\n");
      stream = res;
      return;
    }
    if (messages) res.writeHead(202).end();
    const reply = (answer: unknown): void => (messages ? void stream?.write(`event: message\ndata: ${JSON.stringify(answer)}\n\n`) : json(res, 200, answer));
    if (msg.id === undefined) return void (messages || res.writeHead(202).end());
    const result =
      msg.method === "initialize"
        ? { protocolVersion: legacy ? "2024-11-05" : "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "oidc-fixture", version: "1" } }
        : msg.method === "tools/list"
          ? { tools: [{ name: "read", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }, { name: "write", inputSchema: { type: "object" } }] }
          : msg.method === "tools/call"
            ? { content: [{ type: "text", text: `did ${msg.params?.name ?? "?"}` }] }
            : undefined;
    if (result === undefined) return reply({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "Method not found" } });
    reply({ jsonrpc: "2.0", id: msg.id, result });
  }

  async function browser(url: string, redirectUri: string): Promise<string> {
    const jar = new Map<string, string>();
    let next = url;
    for (let hops = 0; hops < 20; hops++) {
      if (next.startsWith(redirectUri)) return next;
      const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
      const res = await fetch(next, { redirect: "manual", headers: cookie ? { cookie } : {} });
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(";");
        const eq = pair?.indexOf("=") ?? -1;
        if (pair && eq > 0) jar.set(pair.slice(0, eq), pair.slice(eq + 1));
      }
      await res.body?.cancel();
      const location = res.headers.get("location");
      if (location === null) throw new Error(`the authorization server answered ${res.status} without a redirect`);
      next = new URL(location, next).href;
    }
    throw new Error("too many redirects");
  }

  return {
    issuer,
    mcpUrl,
    provider,
    settings,
    seen,
    dpopKeys,
    grants,
    browser,
    close: async () => {
      asServer.closeAllConnections();
      mcpServer.closeAllConnections();
      await Promise.all([new Promise((r) => asServer.close(r)), new Promise((r) => mcpServer.close(r))]);
    },
  };
}

async function interact(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === "login") {
    return provider.interactionFinished(req, res, { login: { accountId: "alice" } }, { mergeWithLastSubmission: false });
  }
  const accountId = details.session?.accountId ?? "alice";
  const grant = (details.grantId !== undefined ? await provider.Grant.find(details.grantId) : undefined) ?? new provider.Grant({ accountId, clientId: details.params.client_id ?? "" });
  const d = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
  if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(" "));
  for (const [resource, scopes] of Object.entries(d.missingResourceScopes ?? {})) grant.addResourceScope(resource, scopes.join(" "));
  await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
}

/** The JWK thumbprint of a valid ES256 DPoP proof for `method url`, else undefined (signature, typ, htm, htu checked). */
function dpopThumbprint(proof: string | string[] | undefined, method: string, url: string): string | undefined {
  if (typeof proof !== "string") return undefined;
  const [h, p, sig] = proof.split(".");
  if (h === undefined || p === undefined || sig === undefined) return undefined;
  try {
    const header = JSON.parse(Buffer.from(h, "base64url").toString()) as { typ?: string; alg?: string; jwk?: JsonWebKey };
    const payload = JSON.parse(Buffer.from(p, "base64url").toString()) as { htm?: string; htu?: string };
    if (header.typ !== "dpop+jwt" || header.alg !== "ES256" || header.jwk?.kty !== "EC" || payload.htm !== method || payload.htu !== url) return undefined;
    const { crv, kty, x, y } = header.jwk;
    const ok = verify("sha256", Buffer.from(`${h}.${p}`), { key: createPublicKey({ key: { crv, kty, x, y }, format: "jwk" }), dsaEncoding: "ieee-p1363" }, Buffer.from(sig, "base64url"));
    return ok ? createHash("sha256").update(JSON.stringify({ crv, kty, x, y })).digest("base64url") : undefined;
  } catch {
    return undefined;
  }
}
