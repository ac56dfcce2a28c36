// A loopback authorization server and MCP server in one, whose every answer a
// test can bend: the pitfall and bad-input tests (A3, A5) each break one rule.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

/** An answer override: status, headers and a raw body. */
export interface Raw {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
}

/** What a test can bend. Each hook returns undefined to keep the well-behaved answer. */
export interface Bends {
  prm?: (base: Record<string, unknown>) => Record<string, unknown> | Raw | undefined;
  metadata?: (base: Record<string, unknown>) => Record<string, unknown> | Raw | undefined;
  /** Changes the callback URL's query (state, iss, code, error). */
  callback?: (q: URLSearchParams) => void;
  token?: (base: Record<string, unknown>) => Record<string, unknown> | Raw | undefined;
  /** Never answer these paths (the socket stays open). */
  hang?: string[];
  /** The registration answer. */
  register?: (body: Record<string, unknown>) => Record<string, unknown> | undefined;
  /** The 401's WWW-Authenticate value. */
  challenge?: (base: string) => string;
  /** Answers an MCP request instead of the server (`auth`: its Authorization header; `n`: requests so far; its HTTP method and body); "hang" never answers it. */
  mcp?: (auth: string, n: number, method: string, body: string) => Raw | "hang" | undefined;
}

export interface FakeWorld {
  /** The origin its documents name (the public origin when one was given). */
  origin: string;
  /** A fetch that sends requests for the public origin to this server (the host's name resolution). */
  fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  mcpUrl: string;
  bends: Bends;
  /** Authorization headers the MCP endpoint received ("" when none). */
  seen: string[];
  /** Paths requested, in order. */
  paths: string[];
  /** Token request bodies. */
  tokenBodies: URLSearchParams[];
  /** The Authorization header of each token request ("" when none). */
  tokenAuth: string[];
  /** The query of each authorization request. */
  authorizeQueries: URLSearchParams[];
  /** Follows the authorize redirect once, like a browser that consents at once. */
  browser(url: string): Promise<string>;
  close(): Promise<void>;
}

const isRaw = (v: unknown): v is Raw => typeof v === "object" && v !== null && ("status" in v || "body" in v);

/**
 * Starts the fake on 127.0.0.1. With `publicOrigin` (e.g. `https://mcp.example`) its
 * documents name that origin instead of its loopback one, as a remote server's would;
 * `world.fetch` then routes requests for that origin to it.
 */
export async function startFake(bends: Bends = {}, publicOrigin?: string): Promise<FakeWorld> {
  const seen: string[] = [];
  const paths: string[] = [];
  const tokenBodies: URLSearchParams[] = [];
  const tokenAuth: string[] = [];
  const authorizeQueries: URLSearchParams[] = [];
  let origin = "";
  let local = "";
  const tokens = new Set<string>();
  let n = 0;
  const send = (res: ServerResponse, base: Record<string, unknown>, bend?: (b: Record<string, unknown>) => Record<string, unknown> | Raw | undefined): void => {
    const v = bend?.(base) ?? base;
    if (isRaw(v)) {
      res.writeHead(v.status ?? 200, { "content-type": "application/json", ...v.headers });
      res.end(v.body ?? "");
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(v));
  };
  // Headers as large as the longest token the client keeps (MAX_TOKEN_CHARS) fit.
  const server = createServer({ maxHeaderSize: 64 * 1024 }, (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", local);
    paths.push(url.pathname);
    if (bends.hang?.includes(url.pathname)) return;
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      switch (url.pathname) {
        case "/.well-known/oauth-protected-resource/mcp":
          return send(res, { resource: `${origin}/mcp`, authorization_servers: [origin] }, bends.prm);
        case "/.well-known/oauth-authorization-server":
          return send(
            res,
            {
              issuer: origin,
              authorization_endpoint: `${origin}/authorize`,
              token_endpoint: `${origin}/token`,
              registration_endpoint: `${origin}/register`,
              code_challenge_methods_supported: ["S256"],
              response_types_supported: ["code"],
              authorization_response_iss_parameter_supported: true,
            },
            bends.metadata,
          );
        case "/register": {
          const reg = bends.register?.(JSON.parse(body || "{}") as Record<string, unknown>) ?? { client_id: "fake-client", token_endpoint_auth_method: "none" };
          res.writeHead(201, { "content-type": "application/json" });
          return res.end(JSON.stringify(reg));
        }
        case "/authorize": {
          const q = url.searchParams;
          authorizeQueries.push(q);
          const cb = new URL(q.get("redirect_uri") ?? "");
          cb.searchParams.set("code", "the-code");
          cb.searchParams.set("state", q.get("state") ?? "");
          cb.searchParams.set("iss", origin);
          bends.callback?.(cb.searchParams);
          res.writeHead(302, { location: cb.href });
          return res.end();
        }
        case "/token": {
          const params = new URLSearchParams(body);
          tokenBodies.push(params);
          tokenAuth.push(req.headers.authorization ?? "");
          const token = `at-${++n}`;
          tokens.add(token);
          const bent = bends.token?.({ access_token: token, token_type: "Bearer", expires_in: 3600, refresh_token: `rt-${n}` });
          // A bent access token is one this server issued too.
          if (bent !== undefined && !isRaw(bent) && typeof bent.access_token === "string") tokens.add(bent.access_token);
          return send(res, { access_token: token, token_type: "Bearer", expires_in: 3600, refresh_token: `rt-${n}` }, bent === undefined ? undefined : () => bent);
        }
        case "/mcp": {
          const auth = req.headers.authorization ?? "";
          seen.push(auth);
          const bent = bends.mcp?.(auth, seen.length, req.method ?? "", body);
          if (bent === "hang") return;
          if (bent !== undefined) {
            res.writeHead(bent.status ?? 200, { "content-type": "application/json", ...bent.headers });
            return res.end(bent.body ?? "{}");
          }
          if (!tokens.has(auth.replace(/^Bearer /, ""))) {
            const base = `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`;
            res.writeHead(401, { "www-authenticate": bends.challenge?.(base) ?? base, "content-type": "application/json" });
            return res.end("{}");
          }
          if (req.method !== "POST") return void res.writeHead(405).end();
          const msg = JSON.parse(body) as { id?: number; method: string };
          if (msg.id === undefined) return void res.writeHead(202).end();
          const result =
            msg.method === "initialize"
              ? { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "fake", version: "1" } }
              : msg.method === "tools/list"
                ? { tools: [] }
                : undefined;
          res.writeHead(200, { "content-type": "application/json" });
          return res.end(JSON.stringify(result === undefined ? { jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "nope" } } : { jsonrpc: "2.0", id: msg.id, result }));
        }
        default:
          res.writeHead(404, { "content-type": "application/json" });
          return res.end("{}");
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  local = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  origin = publicOrigin ?? local;
  const network = globalThis.fetch; // the real network, whatever a test later puts in the global
  const route = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const u = new URL(input instanceof Request ? input.url : String(input));
    const target = u.origin === origin ? new URL(u.pathname + u.search, local) : u;
    return network(target, init);
  };
  return {
    origin,
    fetch: route,
    mcpUrl: `${origin}/mcp`,
    bends,
    seen,
    paths,
    tokenBodies,
    tokenAuth,
    authorizeQueries,
    browser: async (url: string) => {
      const res = await route(url, { redirect: "manual" });
      await res.body?.cancel();
      return res.headers.get("location") ?? "";
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
