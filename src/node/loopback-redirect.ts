/**
 * The loopback redirect listener of a native OAuth client (A6; RFC 8252 §7.3): an
 * HTTP server on 127.0.0.1 at a random port that takes one request at its path,
 * answers a short page and stops; bounded in time and in the URL's length. With
 * `reportOutcome`, the page waits for the login to finish and says whether it
 * succeeded.
 *
 * @module
 */
import { createServer, type ServerResponse } from "node:http";
import { OAuthError } from "../errors.js";
import { LOOPBACK_OUTCOME_WAIT_MS, MAX_CALLBACK_URL_CHARS, OAUTH_INTERACTION_TIMEOUT_MS } from "../limits.js";

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
  /**
   * With `reportOutcome`: answers the browser's page with how the login ended
   * (`message` is shown as text, escaped). Only the first call counts; without
   * one, the page is answered when `close()` is called or after `LOOPBACK_OUTCOME_WAIT_MS`.
   */
  report(outcome: { ok: boolean; message: string }): void;
  /** Stops listening (idempotent). */
  close(): void;
}

/** Options of {@link startLoopbackRedirect}. */
export interface LoopbackRedirectOptions {
  /** Default `/callback`. */
  path?: string;
  /** Default `OAUTH_INTERACTION_TIMEOUT_MS`. */
  timeoutMs?: number;
  /**
   * Hold the browser's page until {@link LoopbackRedirect.report} says whether the
   * login succeeded (at most `LOOPBACK_OUTCOME_WAIT_MS`). A callback that carries
   * an OAuth `error` is answered at once: the login was refused. Default false: the
   * page says only that the redirect arrived.
   */
  reportOutcome?: boolean;
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page the browser lands on: a title and one line of text, no script, no external resource. */
function page(title: string, text: string): string {
  return `<!doctype html><meta charset=utf-8><title>yada: ${escapeHtml(title)}</title><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>`;
}

const RECEIVED = page("Login received", "You can close this window.");

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
  // reportOutcome: the browser's response, held until the login's outcome is known.
  let held: ((html: string) => void) | undefined;
  let holdTimer: ReturnType<typeof setTimeout> | undefined;
  const answer = (res: ServerResponse, html: string): void => {
    res
      .writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "content-security-policy": "default-src 'none'", "x-content-type-options": "nosniff", "referrer-policy": "no-referrer", connection: "close" })
      .end(html);
  };
  const server = createServer((req, res) => {
    const target = req.url ?? "";
    if (done || req.method !== "GET" || target.length > MAX_CALLBACK_URL_CHARS || !(target === path || target.startsWith(`${path}?`))) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    done = true;
    const refused = new URL(target, "http://127.0.0.1").searchParams.get("error");
    if (!options.reportOutcome) answer(res, RECEIVED);
    else if (refused !== null) {
      // The authorization server sent the user back with an error: the login did not happen.
      const code = /^[\x20-\x7e]{1,64}$/.test(refused) ? refused : "error";
      answer(res, page("Login refused", `The authorization server answered "${code}". Nothing was stored; see the terminal.`));
    } else {
      held = (html) => {
        held = undefined;
        clearTimeout(holdTimer);
        answer(res, html);
        server.close();
        server.closeIdleConnections();
      };
      holdTimer = setTimeout(() => held?.(page("Login received", "The login is still being completed; see the terminal.")), LOOPBACK_OUTCOME_WAIT_MS);
      holdTimer.unref?.();
    }
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
    // A page still held is answered first: the connection it rides on stays until then.
    if (held === undefined) server.closeIdleConnections();
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
    report(outcome) {
      held?.(outcome.ok ? page("Logged in", outcome.message) : page("Login failed", outcome.message));
    },
    close() {
      held?.(page("Login ended", "The login ended without a result; see the terminal."));
      close();
    },
  };
}
