/**
 * The loopback redirect listener of a native OAuth client (A6; RFC 8252 §7.3): an
 * HTTP server on 127.0.0.1 at a random port that takes one request at its path,
 * answers a short page and stops; bounded in time and in the URL's length.
 *
 * @module
 */
import { createServer } from "node:http";
import { OAuthError } from "../errors.js";
import { MAX_CALLBACK_URL_CHARS, OAUTH_INTERACTION_TIMEOUT_MS } from "../limits.js";

/** A listening redirect endpoint. */
export interface LoopbackRedirect {
  /** `http://127.0.0.1:<port><path>`: give it to the OAuthClient as `redirectUri`. */
  readonly redirectUri: string;
  /**
   * Resolves with the callback URL of the first request at the path (the server
   * then stops).
   *
   * @throws OAuthError (`oauth`, kind `timeout`) after `timeoutMs`, or when `signal` aborts.
   */
  wait(signal?: AbortSignal): Promise<string>;
  /** Stops listening (idempotent). */
  close(): void;
}

/** Options of {@link startLoopbackRedirect}. */
export interface LoopbackRedirectOptions {
  /** Default `/callback`. */
  path?: string;
  /** Default `OAUTH_INTERACTION_TIMEOUT_MS`. */
  timeoutMs?: number;
}

const PAGE = "<!doctype html><meta charset=utf-8><title>yada</title><p>Login received. You can close this window.</p>";

/**
 * Starts a one-shot redirect listener on 127.0.0.1, port chosen by the system.
 *
 * @example
 * ```ts
 * import { OAuthClient, startLoopbackRedirect } from "yada-mcp/node";
 * const listener = await startLoopbackRedirect();
 * const auth = new OAuthClient({
 *   redirectUri: listener.redirectUri,
 *   authorize: async ({ url, signal }) => { console.log(`Open ${url}`); return listener.wait(signal); },
 * });
 * ```
 */
export async function startLoopbackRedirect(options: LoopbackRedirectOptions = {}): Promise<LoopbackRedirect> {
  const path = options.path ?? "/callback";
  const timeoutMs = options.timeoutMs ?? OAUTH_INTERACTION_TIMEOUT_MS;
  let resolve: (url: string) => void = () => {};
  let reject: (e: unknown) => void = () => {};
  const arrived = new Promise<string>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  arrived.catch(() => {});
  let port = 0;
  let done = false;
  const server = createServer((req, res) => {
    const target = req.url ?? "";
    if (done || req.method !== "GET" || target.length > MAX_CALLBACK_URL_CHARS || !(target === path || target.startsWith(`${path}?`))) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    done = true;
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", connection: "close" }).end(PAGE);
    resolve(`http://127.0.0.1:${port}${target}`);
    close();
  });
  server.requestTimeout = 10_000;
  await new Promise<void>((r, j) => {
    server.once("error", j);
    server.listen(0, "127.0.0.1", () => r());
  });
  port = (server.address() as { port: number }).port;
  const timer = setTimeout(() => reject(new OAuthError("timeout", `no login redirect arrived within ${timeoutMs} ms`)), timeoutMs);
  timer.unref?.();
  function close(): void {
    clearTimeout(timer);
    server.close();
    server.closeIdleConnections();
  }
  return {
    redirectUri: `http://127.0.0.1:${port}${path}`,
    wait(signal?: AbortSignal): Promise<string> {
      if (signal !== undefined) {
        const onAbort = (): void => reject(new OAuthError("timeout", "the login was cancelled"));
        if (signal.aborted) onAbort();
        else signal.addEventListener("abort", onAbort, { once: true });
      }
      return arrived.finally(close);
    },
    close,
  };
}
