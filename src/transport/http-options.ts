/**
 * The options of the Streamable HTTP transport (H1–H14) and the checks of its
 * bounds: what a host passes to {@link HttpTransport}.
 *
 * @module
 */
import { ConfigError } from "../errors.js";
import type { Logger } from "../log.js";
import type { HttpAuth } from "./http-auth.js";
import type { LegacySseOptions } from "./legacy-sse.js";
import type { Transport } from "./types.js";

/** The `fetch` the transport calls; the global one unless a host injects its own. */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** Options of {@link HttpTransport}. Every bound defaults to its value in `limits.ts`. */
export interface HttpTransportOptions {
  /** The fetch to use (tests, proxies, instrumented hosts). Default: `globalThis.fetch`. */
  fetch?: FetchFunction;
  /** Custom headers, checked by the same rules as {@link HttpTransport.withHeader}. */
  headers?: Iterable<readonly [string, string]> | Record<string, string>;
  /** Idle read bound of each exchange, reset on every read (H5). Default 120 000 ms. */
  idleTimeoutMs?: number;
  /** Receives diagnostics; never given header values. Default: silent. */
  logger?: Logger;
  /**
   * Authorization for every request (A5): e.g. an {@link OAuthClient}. Its headers
   * are added to each request; each 401 / 403 goes to it and the request is sent
   * again (at most `MAX_AUTH_RETRIES` times) when it says so.
   */
  auth?: HttpAuth;
  /** Largest application/json answer (default `MAX_HTTP_JSON_BYTES`). */
  maxJsonBytes?: number;
  /** Largest SSE event (default `MAX_SSE_EVENT_BYTES`). */
  maxEventBytes?: number;
  /** Consecutive re-GETs of a stream that deliver nothing before giving up (H12; default `MAX_SSE_RESUME_ATTEMPTS`). */
  maxResumeAttempts?: number;
  /**
   * Names the server in messages instead of its URL (Y5: a URL's path or query may
   * carry a key). Default: the URL's origin and path.
   */
  name?: string;
  /**
   * The HTTP+SSE fallback (H14): pass {@link legacySse}. With it, `McpClient.connect`
   * retries a 2024-11-05 server over HTTP+SSE when `initialize` is answered HTTP 400,
   * 404 or 405; without it that answer is the connect's error. `yada-mcp/node`'s
   * `HttpTransport`, `connectMcp`'s HTTP servers and the CLI pass it themselves.
   */
  fallback?: LegacyFallback;
}

/** What {@link HttpTransportOptions} `fallback` takes: {@link legacySse}, or a function of the same shape. */
export type LegacyFallback = (url: string, options: LegacySseOptions) => Transport;

/** The bound `options[name]`, checked, or its default. */
export function positive(options: HttpTransportOptions, name: "idleTimeoutMs" | "maxJsonBytes" | "maxEventBytes" | "maxResumeAttempts", dflt: number): number {
  const v = options[name];
  if (v === undefined) return dflt;
  if (!Number.isSafeInteger(v) || v <= 0) throw new ConfigError(`${name} must be a positive integer`);
  return v;
}
