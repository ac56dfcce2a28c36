/**
 * A fetch-style handler on `node:http` (U7): `toNodeListener(handler)` is a request
 * listener for `http.createServer` (or `https`) that turns each `IncomingMessage` into
 * a web `Request`, awaits the handler and writes its `Response` back. It serves the
 * approval inbox on Node, and any other `(Request) => Promise<Response>` handler.
 *
 * Each request is bounded before the handler sees it: the number of requests held
 * at once, bodies still arriving included (503 past it, the body unread), the
 * number of headers (431 past it), the body (413 past it, declared or streamed),
 * and the whole exchange, body and answer included (408 while the body is still
 * arriving, 503 while the handler works, the connection cut when the answer is
 * under way). A method the web `Request` cannot carry (`TRACE`) is a 501. The
 * request's URL is built on the origin the host names, and a `Host` header that
 * names another host is refused (421): a page of another site that got a browser
 * to resolve its name to this server (DNS rebinding) reaches nothing.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ValidationError } from "../errors.js";
import { NODE_ADAPTER_MAX_BODY_BYTES, NODE_ADAPTER_MAX_HEADERS, NODE_ADAPTER_MAX_IN_FLIGHT, NODE_ADAPTER_TIMEOUT_MS } from "../limits.js";

/** Options of {@link toNodeListener}. */
export interface NodeListenerOptions {
  /**
   * The origin the handler is reached at, e.g. `http://127.0.0.1:8080` or
   * `https://approvals.example.com`: each request's URL is built on it, and a request
   * whose `Host` header names another host is answered 421. Without it the URL is
   * built from the `Host` header (checked to be a host name), over `https` when the
   * connection is TLS.
   */
  origin?: string;
  /** Largest request body, in bytes (default `NODE_ADAPTER_MAX_BODY_BYTES`). */
  maxBodyBytes?: number;
  /** Most request headers (default `NODE_ADAPTER_MAX_HEADERS`). */
  maxHeaders?: number;
  /** Longest one request may take, body and answer included, in ms (default `NODE_ADAPTER_TIMEOUT_MS`). */
  timeoutMs?: number;
  /** Most requests held at once, from their headers to the end of their answer (default `NODE_ADAPTER_MAX_IN_FLIGHT`); more are answered 503 at once. */
  maxInFlight?: number;
  /** Told of a handler that threw or rejected (answered 500). */
  onError?: (error: unknown) => void;
}

type Handler = (request: Request) => Response | Promise<Response>;

const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

function positive(v: unknown, name: string, fallback: number): number {
  if (v === undefined) return fallback;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 1) throw new ValidationError(`toNodeListener: ${name} must be a positive integer`);
  return v;
}

/** A short plain answer of the adapter itself. */
function plain(res: ServerResponse, status: number, text: string, close = false): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, {
    "content-type": "text/plain; charset=utf-8",
    "x-content-type-options": "nosniff",
    "cache-control": "no-store",
    ...(close ? { connection: "close" } : {}),
  });
  res.end(`${text}\n`);
}

/** The request body, at most `max` bytes; `undefined` once it went over (the request is then answered 413). */
function readBody(req: IncomingMessage, max: number): Promise<Uint8Array<ArrayBuffer> | undefined> {
  return new Promise((resolve, reject) => {
    const parts: Uint8Array[] = [];
    let size = 0;
    req.on("data", (chunk: Uint8Array) => {
      size += chunk.byteLength;
      if (size > max) {
        req.removeAllListeners("data");
        req.pause();
        resolve(undefined);
        return;
      }
      parts.push(chunk);
    });
    req.once("end", () => {
      const all = new Uint8Array(size);
      let at = 0;
      for (const p of parts) {
        all.set(p, at);
        at += p.byteLength;
      }
      resolve(all);
    });
    req.once("error", reject);
  });
}

/** Writes `response` to `res`, waiting for the socket when it is full; stops when `signal` aborts. */
async function write(res: ServerResponse, response: Response, head: boolean, signal: AbortSignal): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  res.writeHead(response.status, response.statusText || undefined, headers);
  if (head || !response.body) {
    res.end();
    await response.body?.cancel().catch(() => undefined);
    return;
  }
  const reader = response.body.getReader();
  try {
    for (;;) {
      if (signal.aborted) return;
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise<void>((resolve) => {
        const go = (): void => {
          res.off("drain", go);
          res.off("close", go);
          resolve();
        };
        res.on("drain", go);
        res.on("close", go);
      });
    }
    res.end();
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

/**
 * A `node:http` request listener serving `handler` (see the module comment). Never
 * throws: a handler that throws is answered 500 and reported to `onError`.
 *
 * @throws ValidationError (`validation`) for options out of range (when it is made).
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import { createApprovalInbox, MemoryActionStore, toNodeListener } from "yada-mcp/node";
 * const inbox = createApprovalInbox({ store: new MemoryActionStore(), authenticate: () => undefined, mayApprove: () => false });
 * const server = createServer(toNodeListener(inbox, { origin: "http://127.0.0.1:8080" }));
 * server.listen(8080, "127.0.0.1");
 * ```
 */
export function toNodeListener(handler: Handler, options: NodeListenerOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  if (typeof handler !== "function") throw new ValidationError("toNodeListener needs a handler function");
  const maxBody = positive(options.maxBodyBytes, "maxBodyBytes", NODE_ADAPTER_MAX_BODY_BYTES);
  const maxHeaders = positive(options.maxHeaders, "maxHeaders", NODE_ADAPTER_MAX_HEADERS);
  const timeoutMs = positive(options.timeoutMs, "timeoutMs", NODE_ADAPTER_TIMEOUT_MS);
  const maxInFlight = positive(options.maxInFlight, "maxInFlight", NODE_ADAPTER_MAX_IN_FLIGHT);
  let inFlight = 0;
  let origin: URL | undefined;
  if (options.origin !== undefined) {
    try {
      origin = new URL(options.origin);
    } catch {
      origin = undefined;
    }
    if (!origin || (origin.protocol !== "http:" && origin.protocol !== "https:") || origin.origin !== options.origin) {
      throw new ValidationError("toNodeListener: origin is an http(s) origin such as http://127.0.0.1:8080");
    }
  }

  return (req, res) => {
    // Counted from the headers to the end of the answer: a crowd of slow bodies holds at most maxInFlight buffers.
    if (inFlight >= maxInFlight) {
      res.setHeader("retry-after", "1");
      return plain(res, 503, "too many requests at once; try again in a moment", true);
    }
    inFlight++;
    const abort = new AbortController();
    let phase: "body" | "handler" | "answer" = "body";
    const timer = setTimeout(() => {
      abort.abort();
      if (phase === "answer") res.destroy();
      else plain(res, phase === "body" ? 408 : 503, phase === "body" ? "the request did not arrive in time" : "the answer took too long", true);
      req.destroy();
    }, timeoutMs);
    const done = (): void => {
      inFlight--;
      clearTimeout(timer);
      if (!abort.signal.aborted && !res.writableFinished) abort.abort();
    };
    res.once("close", done);

    void (async () => {
      if (req.rawHeaders.length / 2 > maxHeaders) return plain(res, 431, `more than ${maxHeaders} request headers`, true);
      const host = req.headers.host;
      if (typeof host !== "string" || !HOST.test(host)) return plain(res, 400, "the request names no valid Host", true);
      if (origin && host.toLowerCase() !== origin.host) return plain(res, 421, "this server does not answer for that host", true);
      const path = req.url ?? "";
      if (!path.startsWith("/")) return plain(res, 400, "the request target is not a path", true);
      const base = origin ? origin.origin : `${(req.socket as { encrypted?: boolean }).encrypted ? "https" : "http"}://${host}`;
      let url: URL;
      try {
        // Appended, not resolved: a target such as `//elsewhere.example/x` or `/\elsewhere` is a
        // path on this origin, never a URL of another host.
        url = new URL(`${base}${path}`);
      } catch {
        return plain(res, 400, "the request target does not parse", true);
      }
      if (url.origin !== new URL(base).origin) return plain(res, 400, "the request target does not parse", true);
      const method = req.method ?? "GET";
      const declared = Number(req.headers["content-length"] ?? 0);
      if (!(declared <= maxBody)) return plain(res, 413, `the body is larger than ${maxBody} bytes`, true);
      const hasBody = method !== "GET" && method !== "HEAD";
      const body = hasBody ? await readBody(req, maxBody) : undefined;
      if (hasBody && body === undefined) return plain(res, 413, `the body is larger than ${maxBody} bytes`, true);
      if (abort.signal.aborted) return;
      const headers = new Headers();
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
        const name = req.rawHeaders[i]!;
        // Connection-level headers are Node's business, and fetch's Request refuses some of them.
        if (/^(connection|keep-alive|transfer-encoding|upgrade|proxy-connection|http2-settings|te|trailer)$/i.test(name)) continue;
        try {
          headers.append(name, req.rawHeaders[i + 1]!);
        } catch {
          return plain(res, 400, "a request header is malformed", true);
        }
      }
      let request: Request;
      try {
        request = new Request(url, { method, headers, signal: abort.signal, ...(body ? { body } : {}) });
      } catch {
        return plain(res, 501, "this server does not answer that method", true);
      }
      phase = "handler";
      let response: Response;
      try {
        response = await handler(request);
        if (!(response instanceof Response)) throw new TypeError("the handler did not answer a Response");
      } catch (e) {
        try {
          options.onError?.(e);
        } catch {
          // a reporter that throws changes no answer
        }
        if (!abort.signal.aborted) plain(res, 500, "the server failed to answer");
        return;
      }
      if (abort.signal.aborted) return;
      phase = "answer";
      await write(res, response, method === "HEAD", abort.signal);
    })().catch(() => res.destroy());
  };
}
