/**
 * The Streamable HTTP transport over web-standard `fetch` (H1–H13): each message
 * is a POST, answered with JSON or an SSE stream; a session id is captured and
 * released; a GET stream carries server-initiated messages and resumes broken
 * streams with `Last-Event-ID`.
 *
 * @module
 */
import {
  CancelledError,
  ConfigError,
  ConnectionClosedError,
  ProtocolError,
  SessionExpiredError,
  TimeoutError,
  TransportError,
  YadaError,
} from "../errors.js";
import { decodeJson, encodeMessage, type JsonRpcMessage, type JsonRpcRequest, type RequestId } from "../jsonrpc/messages.js";
import {
  DEFAULT_HTTP_IDLE_TIMEOUT_MS,
  HTTP_DELETE_TIMEOUT_MS,
  MAX_HTTP_ERROR_BODY_BYTES,
  MAX_HTTP_JSON_BYTES,
  MAX_SESSION_ID_CHARS,
  MAX_SSE_EVENT_BYTES,
  MAX_SSE_RESUME_ATTEMPTS,
} from "../limits.js";
import { silentLogger, type Logger } from "../log.js";
import {
  cancelBody,
  deliverFrames,
  isResponseTo,
  proxyError,
  readEventStream,
  statusError,
  streamState,
} from "./http-answer.js";
import { Exchange, mediaType, readBody } from "./http-exchange.js";
import {
  encodeHeaderValue,
  httpUrl,
  isModernRevision,
  isPlainHeaderValue,
  mcpNameOf,
  withCustomHeader,
  type HeaderList,
} from "./http-headers.js";
import { resumeStream, runInboundStream, type StreamContext } from "./http-resume.js";
import type { SendOptions, Transport, TransportSink } from "./types.js";

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
  /** Largest application/json answer (default `MAX_HTTP_JSON_BYTES`). */
  maxJsonBytes?: number;
  /** Largest SSE event (default `MAX_SSE_EVENT_BYTES`). */
  maxEventBytes?: number;
  /** Consecutive re-GETs of a stream that deliver nothing before giving up (H12; default `MAX_SSE_RESUME_ATTEMPTS`). */
  maxResumeAttempts?: number;
}

function positive(name: string, v: number | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  if (!Number.isSafeInteger(v) || v <= 0) throw new ConfigError(`${name} must be a positive integer`);
  return v;
}

const SESSION_ID = /^[\x21-\x7e]+$/;

/**
 * A {@link Transport} to one MCP server over Streamable HTTP, on web-standard
 * `fetch` only (runs on Node, Deno, Bun, workerd, browsers).
 *
 * - H1: every message is a POST with `Accept: application/json, text/event-stream`
 *   and `Content-Type: application/json`; JSON and SSE answers are both read.
 * - H3/H4: an SSE answer is read until the frame carrying this request's response;
 *   frames before it (progress, log messages, server requests, H13) go to the sink.
 *   The call returns there; the rest of the stream is read for at most
 *   `HTTP_TRAILING_READ_MS`, then cancelled.
 * - H5: each exchange has an idle read bound, reset on every read.
 * - H6/H7: `Mcp-Session-Id` from the initialize answer is replayed and released with
 *   DELETE on close (refusal tolerated); a 404 to a session-bearing request clears
 *   the session and fails that request with `session_expired`.
 * - H8: 202 / 204 acknowledge notifications and responses; another empty 2xx is an
 *   error ("a proxy answered, not the MCP server").
 * - H9: `MCP-Protocol-Version` once {@link HttpTransport.setProtocolVersion} ran;
 *   from revision 2026-07-28 also `Mcp-Method` and `Mcp-Name`.
 * - H10: custom headers through {@link HttpTransport.withHeader}.
 * - H11: redirects are refused (`redirect: "manual"`).
 * - H12: {@link HttpTransport.openInbound} opens the GET stream (405 tolerated); a
 *   stream that ends before its response is resumed with `Last-Event-ID`.
 *
 * Failures of one request reach `sink.requestError` with code `http`,
 * `session_expired`, `timeout`, `limit`, `protocol`, `serialization` or `transport`.
 *
 * @example
 * ```ts
 * const transport = new HttpTransport("https://mcp.example.com/mcp", { idleTimeoutMs: 60_000 })
 *   .withHeader("Authorization", `Bearer ${token}`);
 * ```
 */
export class HttpTransport implements Transport {
  /** "HTTP server <origin><path>": never the query string, which may carry secrets. */
  readonly description: string;
  /** Identifies the server across connections (`<origin><path>`), for the remembered era (V2). */
  readonly serverKey: string;
  /** This transport reads response streams and stops when a request settles: it wants `SendOptions.signal`. */
  readonly needsRequestSignal = true;
  /** Enables the HTTP rules of the modern era in the layers above. */
  readonly kind = "http";
  readonly #url: string;
  readonly #options: HttpTransportOptions;
  readonly #headers: HeaderList;
  readonly #fetch: FetchFunction;
  readonly #idleMs: number;
  readonly #maxJson: number;
  readonly #log: Logger;
  readonly #decoder = new TextDecoder();
  readonly #closer = new AbortController();
  readonly #tasks = new Set<Promise<void>>();
  readonly #ctx: StreamContext;
  #sink: TransportSink | undefined;
  #sessionId: string | undefined;
  #version: string | undefined;
  #modern = false;
  #base: Record<string, string> | undefined;
  #inbound: AbortController | undefined;
  #closing: Promise<void> | undefined;

  /**
   * @param url The MCP endpoint (`http:` or `https:`, no user:password part).
   * @throws ConfigError (`config`) for an invalid URL, a URL with credentials, an
   * invalid bound, or a header refused by the H10 rules.
   */
  constructor(url: string | URL, options: HttpTransportOptions = {}) {
    const u = httpUrl(url, "HTTP server URL", "pass them with withHeader()");
    this.#url = u.href;
    this.description = `HTTP server ${u.origin}${u.pathname}`;
    this.serverKey = `${u.origin}${u.pathname}`;
    this.#options = options;
    let list: HeaderList = [];
    const given = options.headers ?? [];
    const pairs = Symbol.iterator in given ? (given as Iterable<readonly [string, string]>) : Object.entries(given);
    for (const [name, value] of pairs) list = withCustomHeader(list, name, value);
    this.#headers = list;
    const injected = options.fetch;
    // Called unbound, the global fetch throws "Illegal invocation" in browsers.
    this.#fetch = injected ?? ((input, init) => globalThis.fetch(input, init));
    this.#idleMs = positive("idleTimeoutMs", options.idleTimeoutMs, DEFAULT_HTTP_IDLE_TIMEOUT_MS);
    this.#maxJson = positive("maxJsonBytes", options.maxJsonBytes, MAX_HTTP_JSON_BYTES);
    const maxEventBytes = positive("maxEventBytes", options.maxEventBytes, MAX_SSE_EVENT_BYTES);
    const maxResumeAttempts = positive("maxResumeAttempts", options.maxResumeAttempts, MAX_SSE_RESUME_ATTEMPTS);
    const log = (this.#log = options.logger ?? silentLogger);
    this.#ctx = {
      description: this.description,
      log,
      maxEventBytes,
      deliver: (value) => {
        try {
          this.#sink?.message(value);
        } catch (e) {
          log("error", `${this.description}: the sink threw on a message`, { error: e instanceof Error ? e.message : "unknown" });
        }
      },
      track: (task) => this.#track(task),
      maxResumeAttempts,
      modern: () => this.#modern,
      sessionId: () => this.#sessionId,
      get: (lastEventId, signal) =>
        this.#fetch(this.#url, { method: "GET", headers: this.#getHeaders(lastEventId), redirect: "manual", signal }),
      statusError: (res, sentSession, what) => this.#statusError(res, sentSession, what),
      exchange: (signal, what) => this.#exchange(signal, what),
      errorOf: (e, ex, what) => this.#errorOf(e, ex, what),
    };
  }

  /**
   * Returns a new transport (same URL and options) that also sends `name: value`
   * on every request: POSTs (initialize, the initialized notification, calls), the
   * GET stream and the closing DELETE (H10). Setting a name again (any case)
   * replaces its value. The receiver is left unchanged.
   *
   * @throws ConfigError (`config`) before anything is sent, when the name is not an
   * RFC 9110 token, is one the transport sets itself (Accept, Content-Type,
   * Mcp-Session-Id, Content-Length, Transfer-Encoding, Connection, Host,
   * MCP-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name), or the value is not
   * visible ASCII. The message never contains the value.
   *
   * @example
   * ```ts
   * const t = new HttpTransport(url).withHeader("User-Agent", "my-app/1.0");
   * ```
   */
  withHeader(name: string, value: string): HttpTransport {
    const headers = withCustomHeader(this.#headers, name, value);
    return new HttpTransport(this.#url, { ...this.#options, headers });
  }

  /** @inheritDoc */
  async start(sink: TransportSink): Promise<void> {
    if (this.#closing) throw new ConnectionClosedError(`${this.description}: the transport is closed`);
    if (this.#sink) throw new TransportError(`${this.description}: start() was called twice`);
    this.#sink = sink;
  }

  /**
   * Records the revision in use: sent as `MCP-Protocol-Version` from now on (H9);
   * `undefined` forgets it (a legacy initialize after a modern probe carries none).
   *
   * @throws ProtocolError (`protocol`) when the version is not a short visible-ASCII string.
   */
  setProtocolVersion(version: string | undefined): void {
    if (version !== undefined && (version.length > 64 || !isPlainHeaderValue(version))) {
      throw new ProtocolError(`${this.description}: the protocol version is not a short visible-ASCII string`);
    }
    this.#version = version;
    this.#modern = isModernRevision(version);
    this.#base = undefined;
  }

  /**
   * Opens the GET stream for server-initiated messages (H12). A 405 means the server
   * offers none (logged at info). When the stream ends after the server sent an event
   * id or a `retry` field, it is re-opened with `Last-Event-ID` after the retry delay,
   * at most `maxResumeAttempts` times in a row without a delivered message. Does
   * nothing from revision 2026-07-28 on, which has no GET stream.
   */
  openInbound(): void {
    if (this.#closing || this.#inbound || this.#modern) return;
    const control = new AbortController();
    this.#inbound = control;
    this.#track(
      runInboundStream(this.#ctx, control).finally(() => {
        if (this.#inbound === control) this.#inbound = undefined;
      }),
    );
  }

  /**
   * Sends one message as a POST. For a request, resolves once its response went to
   * the sink or its failure to `sink.requestError`; for a notification or a response,
   * once the server acknowledged it (H8).
   *
   * `options.headers` (modern `Mcp-Param-*` headers) ride on this POST only, checked by
   * the rules of {@link HttpTransport.withHeader}.
   *
   * @throws ConfigError (`config`) for a per-message header those rules refuse.
   * @throws ConnectionClosedError (`connection_closed`) after close(); for a
   * notification or response also HttpError (`http`), SessionExpiredError
   * (`session_expired`), TimeoutError (`timeout`), CancelledError (`cancelled`) or
   * TransportError (`transport`) when it was not accepted.
   */
  async send(message: JsonRpcMessage, options: SendOptions = {}): Promise<void> {
    const sink = this.#sink;
    if (this.#closing) throw new ConnectionClosedError(`${this.description}: the transport is closed`);
    if (!sink) throw new TransportError(`${this.description}: send() before start()`);
    const body = encodeMessage(message);
    let extra: HeaderList | undefined;
    // Per-message headers (Mcp-Param-*, spec 2026-07-28) follow the H10 rules too.
    if (options.headers) for (const [name, value] of Object.entries(options.headers)) extra = withCustomHeader(extra ?? [], name, value);
    const task = this.#post(message, body, this.#postHeaders(message, extra), options.signal, "id" in message && "method" in message ? sink : undefined, options.longLived === true);
    this.#track(task);
    return task;
  }

  /**
   * Ends every exchange, reports `closed` to the sink, then releases the session with
   * a DELETE bounded by `HTTP_DELETE_TIMEOUT_MS`; a refusal or failure is only logged
   * (H6). Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#closer.abort();
    this.#inbound?.abort();
    await Promise.allSettled([...this.#tasks]);
    this.#sink?.closed(new ConnectionClosedError(`${this.description}: the transport was closed`));
    const session = this.#sessionId;
    if (session === undefined) return;
    this.#sessionId = undefined;
    const ex = new Exchange(HTTP_DELETE_TIMEOUT_MS, undefined, new AbortController().signal, () =>
      new TimeoutError(`${this.description}: DELETE took over ${HTTP_DELETE_TIMEOUT_MS} ms`, HTTP_DELETE_TIMEOUT_MS),
    );
    try {
      const headers = { ...this.#baseHeaders(), "mcp-session-id": session };
      const res = await this.#fetch(this.#url, { method: "DELETE", headers, redirect: "manual", signal: ex.signal });
      cancelBody(res);
      this.#log(res.ok ? "debug" : "info", `${this.description}: session release answered HTTP ${res.status}`, { status: res.status });
    } catch (e) {
      this.#log("info", `${this.description}: session release failed`, {
        error: e instanceof Error ? e.name : "unknown",
      });
    } finally {
      ex.finish();
    }
  }

  #track(task: Promise<void>): void {
    this.#tasks.add(task);
    const drop = (): void => void this.#tasks.delete(task);
    task.then(drop, drop);
  }

  #exchange(signal: AbortSignal | undefined, what: string): Exchange {
    return new Exchange(this.#idleMs, signal, this.#closer.signal, () =>
      new TimeoutError(
        `${this.description}: nothing arrived for ${this.#idleMs} ms while waiting for ${what}; the server may still carry it out`,
        this.#idleMs,
      ),
    );
  }

  #baseHeaders(): Record<string, string> {
    if (this.#base) return this.#base;
    const h: Record<string, string> = {};
    for (const [name, value] of this.#headers) h[name] = value;
    if (this.#sessionId !== undefined) h["mcp-session-id"] = this.#sessionId;
    if (this.#version !== undefined) h["mcp-protocol-version"] = this.#version;
    this.#base = h;
    return h;
  }

  #postHeaders(message: JsonRpcMessage, extra: HeaderList | undefined): Record<string, string> {
    const h: Record<string, string> = {
      ...this.#baseHeaders(),
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
    };
    if (this.#modern && "method" in message) {
      // Spec 2026-07-28 "Standard Request Headers": body fields mirrored for intermediaries.
      if (isPlainHeaderValue(message.method)) h["mcp-method"] = message.method;
      const name = mcpNameOf(message.method, message.params);
      if (name !== undefined) h["mcp-name"] = encodeHeaderValue(name);
    }
    if (extra) for (const [name, value] of extra) h[name] = value;
    return h;
  }

  #getHeaders(lastEventId: string): Record<string, string> {
    const h: Record<string, string> = { ...this.#baseHeaders(), accept: "text/event-stream" };
    if (lastEventId !== "") h["last-event-id"] = lastEventId;
    return h;
  }

  // Turns what ended an exchange into the error to report; undefined when the caller
  // or close() aborted it (the session already knows).
  #errorOf(e: unknown, ex: Exchange, what: string): YadaError | undefined {
    if (ex.cause === "idle") return ex.idleError;
    if (ex.cause !== undefined) return undefined;
    if (e instanceof YadaError) return e;
    // The cause's own words (e.g. "connection refused", a runtime's permission error)
    // say why; fetch errors carry no header values.
    const reason = e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e);
    return new TransportError(`${this.description}: the HTTP exchange for ${what} failed: ${reason.slice(0, 200)}`, { cause: e });
  }

  // Non-2xx answers: a 404 to a session-bearing request ends the session (H7).
  #statusError(res: Response, sentSession: string | undefined, what: string): YadaError {
    cancelBody(res);
    if (res.status !== 404 || sentSession === undefined) return statusError(this.description, res, what);
    if (this.#sessionId === sentSession) {
      this.#sessionId = undefined;
      this.#base = undefined;
      this.#inbound?.abort();
      this.#inbound = undefined;
    }
    return new SessionExpiredError(`${this.description}: the server no longer knows the session (HTTP 404 to ${what})`);
  }

  // Revision 2026-07-28 answers an unknown method with 404 and a version or header
  // problem with 400, each carrying a JSON-RPC error for the request: that error is
  // the response, and goes to the sink like any other.
  async #rpcErrorAnswer(res: Response, ex: Exchange, id: RequestId, sentSession: string | undefined): Promise<boolean> {
    if (!(res.status === 400 || (res.status === 404 && sentSession === undefined))) return false;
    if (mediaType(res) !== "application/json") return false;
    try {
      const bytes = await readBody(res.body, ex, MAX_HTTP_ERROR_BODY_BYTES, "MAX_HTTP_ERROR_BODY_BYTES");
      const value = decodeJson(this.#decoder.decode(bytes));
      if (!isResponseTo(value, id) || !("error" in (value as object))) return false;
      this.#ctx.deliver(value);
      return true;
    } catch {
      return false;
    }
  }

  // One POST. For a request (`sink` given), its response goes to the sink and its
  // failure to `sink.requestError`; for a notification or a response, resolves once
  // the server acknowledged it (H8) and throws otherwise.
  async #post(
    message: JsonRpcMessage,
    body: string,
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
    sink: TransportSink | undefined,
    longLived = false,
  ): Promise<void> {
    const id = sink && (message as JsonRpcRequest).id;
    const what = "method" in message ? message.method : "a response to a server request";
    const ex = this.#exchange(signal, what);
    let handedOff = false;
    try {
      const sentSession = this.#sessionId;
      const res = await this.#fetch(this.#url, { method: "POST", headers, body, redirect: "manual", signal: ex.signal });
      ex.touch();
      // An answer stream that stays open by design (subscriptions/listen) may be quiet
      // for hours: once it is answered, the idle bound no longer applies.
      if (longLived && res.ok) ex.disarm();
      if (!res.ok) {
        if (id !== undefined && (await this.#rpcErrorAnswer(res, ex, id, sentSession))) return;
        throw this.#statusError(res, sentSession, what);
      }
      if (sink && what === "initialize") this.#captureSession(res);
      if (res.status === 202 || res.status === 204) {
        cancelBody(res);
        if (id === undefined) return; // H8: acknowledged
        throw proxyError(this.description, res.status, what);
      }
      const state = streamState(id);
      state.onFound = () => ex.detachCaller();
      const type = mediaType(res);
      if (type === "text/event-stream") {
        const read = readEventStream(this.#ctx, res.body, ex, state);
        if (id === undefined) {
          // Unusual for a notification, but whatever it streams is delivered.
          handedOff = true;
          const finish = (): void => ex.finish();
          this.#track(read.then(finish, finish));
          return;
        }
        handedOff = (await read) || (await resumeStream(this.#ctx, ex, state, what, sentSession));
        return;
      }
      const bytes = await readBody(res.body, ex, this.#maxJson, "MAX_HTTP_JSON_BYTES");
      if (bytes.length === 0) throw proxyError(this.description, res.status, what);
      if (type !== "application/json") {
        throw new ProtocolError(`${this.description}: ${what} was answered with neither application/json nor text/event-stream`);
      }
      deliverFrames(this.#ctx, decodeJson(this.#decoder.decode(bytes)), state);
      if (id !== undefined && !state.found) throw new ProtocolError(`${this.description}: the JSON answer to ${what} does not carry its response`);
    } catch (e) {
      const err = this.#errorOf(e, ex, what);
      if (sink) {
        if (err) sink.requestError(id as RequestId, err);
        return;
      }
      if (err) throw err;
      if (ex.cause === "caller") throw new CancelledError(`${this.description}: sending ${what} was cancelled`);
      throw new ConnectionClosedError(`${this.description}: the transport was closed while sending ${what}`);
    } finally {
      if (!handedOff) ex.finish();
    }
  }

  #captureSession(res: Response): void {
    const sid = res.headers.get("mcp-session-id");
    if (sid === null) return;
    if (sid.length > MAX_SESSION_ID_CHARS || !SESSION_ID.test(sid)) {
      throw new ProtocolError(`${this.description}: the Mcp-Session-Id it assigned is not 1 to ${MAX_SESSION_ID_CHARS} visible ASCII characters`);
    }
    this.#sessionId = sid;
    this.#base = undefined;
  }
}
