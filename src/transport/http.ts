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
  HttpError,
  ProtocolError,
  SessionExpiredError,
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
import { silentLogger, type Logger, type LogLevel } from "../log.js";
import { isResponseTo, proxyError, statusError } from "./http-answer.js";
import { cancelBody, Exchange, mediaType, readBody, REDIRECT_MODE } from "./http-exchange.js";
import {
  encodeHeaderValue,
  httpUrl,
  isModernRevision,
  isPlainHeaderValue,
  mcpNameOf,
  customHeaders,
  withCustomHeader,
  type HeaderList,
} from "./http-headers.js";
import { fetchAuthorized, type AuthRequest, type HttpAuth } from "./http-auth.js";
import { createHolds } from "./hold.js";
import { positive, type FetchFunction, type HttpTransportOptions } from "./http-options.js";
import { createStreams, type StreamState, type Streams } from "./http-stream.js";
import type { SendOptions, Transport, TransportSink } from "./types.js";
import { checkOptions } from "../util/options.js";
import { sentBefore } from "./not-sent.js";
import type { AsyncDisposer } from "../util/dispose.js";

export type { FetchFunction, HttpTransportOptions, LegacyFallback } from "./http-options.js";


const SESSION_ID = /^[\x21-\x7e]+$/;
// What a message without options gets (the session passes none over HTTP): no object per send.
const NO_OPTIONS: SendOptions = Object.freeze({});

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
 * - H8: 202 / 204 acknowledge notifications and responses; another empty 2xx (or an
 *   event stream that ends before its first byte) is an error ("a proxy answered,
 *   not the MCP server"). A notification answered by an event stream is sent once
 *   its first bytes arrive; the rest is read in the background.
 * - H9: `MCP-Protocol-Version` once {@link HttpTransport.setProtocolVersion} ran;
 *   from revision 2026-07-28 also `Mcp-Method` and `Mcp-Name`.
 * - H10: custom headers through {@link HttpTransport.withHeader}.
 * - H11: redirects are refused, never followed (`redirect: "error"`: the fetch stops at
 *   the redirect, an `http` error with status 0; measured, it also spares fetch a copy of
 *   each request that "manual" makes; on Cloudflare Workers, which refuses it, "manual"
 *   and the 3xx answer refused).
 * - H12: {@link HttpTransport.openInbound} opens the GET stream (405 tolerated); a
 *   stream that ends before its response is resumed with `Last-Event-ID`.
 * - H14: with `fallback: legacySse`, a 2024-11-05 server (initialize answered 400,
 *   404 or 405) is reached over HTTP+SSE instead.
 *
 * Failures of one request reach `sink.requestError` with code `http`,
 * `session_expired`, `timeout`, `limit`, `protocol`, `serialization` or `transport`.
 * Such an error says `notSent` (W5) only where no byte of the POST can have reached
 * the server: the transport was closed before the send, the connection was refused
 * or the name did not resolve, or the answer was HTTP 401 / 403 (after the `auth`
 * layer, if any, declined to send it again). With a `fetch` of the host's own
 * nothing is proven (it may retry, or proxy), so no error of it says `notSent`.
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
  /** Enables the HTTP rules of the modern era in the layers above. */
  readonly kind = "http";
  readonly #url: string;
  readonly #options: HttpTransportOptions;
  readonly #headers: HeaderList;
  readonly #fetch: FetchFunction;
  readonly #idleMs: number;
  readonly #maxJson: number;
  readonly #maxEvent: number;
  readonly #maxResumes: number;
  readonly #log: Logger;
  readonly #decoder = new TextDecoder();
  readonly #closer = new AbortController();
  /** Tasks not settled yet (POSTs, trailing reads, the GET stream): close() waits for them. */
  #tasks = 0;
  #drained: (() => void) | undefined;
  readonly #holds = createHolds();
  /** The exchange of each request whose response has not arrived yet, for {@link settled}. */
  readonly #awaiting = new Map<RequestId, Exchange>();
  /** The SSE answer and GET stream readers (H2, H4, H12), with their spare parsers. */
  readonly #streams: Streams;
  /** The POST headers of the last session id and version, reused while both hold (H6, H9, H10). */
  #postBase: { sid: string | undefined; version: string | undefined; headers: Record<string, string> } | undefined;
  #sink: TransportSink | undefined;
  #sessionId: string | undefined;
  #version: string | undefined;
  #modern = false;
  #inbound: AbortController | undefined;
  #closing: Promise<void> | undefined;

  /**
   * @param url The MCP endpoint (`http:` or `https:`, no user:password part).
   * @throws ConfigError (`config`) for an invalid URL, a URL with credentials, an
   * invalid bound, or a header refused by the H10 rules.
   */
  constructor(url: string | URL, options: HttpTransportOptions = {}) {
    checkOptions("HttpTransport", options, "fetch idleTimeoutMs:n logger fallback");
    const u = httpUrl(url, "HTTP server URL", "pass them with withHeader()");
    this.#url = u.href;
    this.serverKey = u.origin + u.pathname;
    this.description = options.name === undefined ? `HTTP server ${this.serverKey}` : `HTTP server '${options.name}'`;
    this.#options = options;
    this.#headers = customHeaders(options.headers);
    // Called unbound, the global fetch throws "Illegal invocation" in browsers.
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#idleMs = positive(options, "idleTimeoutMs", DEFAULT_HTTP_IDLE_TIMEOUT_MS);
    this.#maxJson = positive(options, "maxJsonBytes", MAX_HTTP_JSON_BYTES);
    this.#maxEvent = positive(options, "maxEventBytes", MAX_SSE_EVENT_BYTES);
    this.#maxResumes = positive(options, "maxResumeAttempts", MAX_SSE_RESUME_ATTEMPTS);
    this.#log = options.logger ?? silentLogger;
    this.#streams = createStreams({
      maxEventBytes: this.#maxEvent,
      maxResumes: this.#maxResumes,
      modern: () => this.#modern,
      session: () => this.#sessionId,
      deliverFrames: (value, state, ex) => this.#deliverFrames(value, state, ex),
      get: (lastId, ex) => this.#get(lastId, ex),
      checkEventStream: (res, sentSession, what) => this.#checkEventStream(res, sentSession, what),
      track: this.#track,
      description: this.description,
      log: this.#log,
    });
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
    // Of the same class: yada/node's HttpTransport stays itself.
    return new (this.constructor as typeof HttpTransport)(this.#url, { ...this.#options, headers });
  }

  /**
   * The HTTP+SSE transport (2024-11-05) to the same URL with the same options, for
   * the fallback of H14; undefined without the `fallback` option.
   */
  legacyFallback(): Transport | undefined {
    const { fetch, logger, idleTimeoutMs, maxEventBytes, fallback, auth, name } = this.#options;
    return fallback?.(this.#url, { fetch, logger, idleTimeoutMs, maxEventBytes, headers: this.#headers, auth, name });
  }

  /**
   * Tells `listener` when a request starts waiting on the user (`true`: the `auth`
   * layer runs its interactive login) and when none does any more (`false`); see
   * {@link AuthRequest.hold}. Returns a function that removes the listener.
   */
  onHold(listener: (held: boolean) => void): () => void {
    return this.#holds.on(listener);
  }

  /**
   * Request `id` settled elsewhere (timed out, cancelled, or answered on another
   * stream): its POST stream, if still read, is cancelled. The session calls it; a
   * host that drives the transport itself passes `SendOptions.signal` instead.
   */
  settled(id: RequestId): void {
    const ex = this.#awaiting.get(id);
    if (ex === undefined) return;
    this.#awaiting.delete(id);
    ex.abort("caller");
  }

  /** @inheritDoc */
  async start(sink: TransportSink): Promise<void> {
    this.#assertOpen();
    if (this.#sink) throw new TransportError(this.#msg("start() was called twice"));
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
      throw new ProtocolError(this.#msg("the protocol version is not a short visible-ASCII string"));
    }
    this.#version = version;
    this.#modern = isModernRevision(version);
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
    const control = (this.#inbound = new AbortController());
    this.#track(
      this.#streams.inbound(control.signal, (signal, what) => this.#exchange(signal, what)).finally(() => {
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
  send(message: JsonRpcMessage, options: SendOptions = NO_OPTIONS): Promise<void> {
    // Not async: the POST's own promise, one promise and two jobs less per message.
    // What fails before the POST still rejects, never throws.
    let task: Promise<void>;
    try {
      const sink = this.#sink;
      this.#assertOpen();
      if (!sink) throw new TransportError(this.#msg("send() before start()"));
      const body = encodeMessage(message);
      const headers = this.#postHeaders(message, options.headers !== undefined);
      // Per-message headers (Mcp-Param-*, spec 2026-07-28) follow the H10 rules too.
      if (options.headers) for (const [name, value] of customHeaders(options.headers)) headers[name] = value;
      task = this.#post(message, body, headers, options, "id" in message && "method" in message ? sink : undefined);
    } catch (e) {
      return Promise.reject(e);
    }
    this.#track(task);
    return task;
  }

  /**
   * Ends every exchange, reports `closed` to the sink, then releases the session with
   * a DELETE bounded by `HTTP_DELETE_TIMEOUT_MS`; a refusal or failure is only logged
   * (H6). Idempotent.
   */
  close(): Promise<void> {
    return (this.#closing ??= this.#close());
  }

  /**
   * {@link close}, for `await using`.
   * @internal Declared through {@link AsyncDisposer}, so the types load where the lib has no Symbol.asyncDispose.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #close(): Promise<void> {
    this.#closer.abort();
    this.#inbound?.abort();
    if (this.#tasks > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
    this.#sink?.closed(new ConnectionClosedError(this.#msg("the transport is closed")));
    const session = this.#sessionId;
    if (session === undefined) return;
    this.#sessionId = undefined;
    const ex = new Exchange(HTTP_DELETE_TIMEOUT_MS, undefined, undefined, this.description, "the session release");
    try {
      const res = await this.#request("DELETE", this.#headersWith({ "mcp-session-id": session }), ex);
      cancelBody(res);
      this.#note(res.ok ? "debug" : "info", `session release answered HTTP ${res.status}`, { status: res.status });
    } catch (e) {
      this.#note("info", "session release failed", { error: e instanceof Error ? e.name : "unknown" });
    } finally {
      ex.finish();
    }
  }

  /** `text` prefixed with this transport's description, for messages. */
  #msg(text: string): string {
    return `${this.description}: ${text}`;
  }

  /** Logs `text` prefixed with this transport's description. */
  #note(level: LogLevel, text: string, data?: Record<string, unknown>): void {
    this.#log(level, this.#msg(text), data);
  }

  #assertOpen(): void {
    // W5: refused before anything was handed to fetch.
    if (this.#closing) throw new ConnectionClosedError(this.#msg("the transport is closed"), {}, { notSent: true });
  }

  // A count, not a set of promises: no closure per task (measured on the round trip).
  #track = (task: Promise<unknown>): void => {
    this.#tasks++;
    task.then(this.#untrack, this.#untrack);
  };

  #untrack = (): void => {
    if (--this.#tasks === 0) this.#drained?.();
  };

  /** A new exchange bound by the idle timeout, linked to `signal` and to close(). */
  #exchange(signal: AbortSignal | undefined, what: string): Exchange {
    return new Exchange(this.#idleMs, signal, this.#closer.signal, this.description, what);
  }

  // Not async without `auth`: the fetch's own promise, one promise and job less per
  // request. A fetch that throws at once throws here; every caller is inside a try.
  #request(method: string, headers: Record<string, string>, ex: Exchange, body?: string, id?: RequestId): Promise<Response> {
    const auth = this.#options.auth;
    if (auth === undefined) return this.#fetch(this.#url, { method, headers, body, redirect: REDIRECT_MODE, signal: ex.signal });
    return this.#authorized(auth, method, headers, ex, body, id);
  }

  // A5: the auth layer adds its headers to each attempt and judges each 401 / 403.
  #authorized(auth: HttpAuth, method: string, headers: Record<string, string>, ex: Exchange, body?: string, id?: RequestId): Promise<Response> {
    const request: AuthRequest = { url: this.#url, method, attempt: 0, signal: ex.signal, hold: () => this.#holds.hold(id === undefined ? undefined : (held) => this.#sink?.hold?.(id, held)) };
    return fetchAuthorized(this.#fetch, { method, headers, body }, ex, auth, request);
  }

  /** Hands one decoded frame to the sink. */
  #deliver(value: unknown): void {
    try {
      this.#sink?.message(value);
    } catch (e) {
      this.#note("error", "the sink threw on a message", { error: e instanceof Error ? e.message : "unknown" });
    }
  }

  /** Delivers a decoded body or event: every frame goes to the sink, the response is noted. */
  #deliverFrames(value: unknown, state: StreamState, ex: Exchange): void {
    // A JSON array is a batch (revision 2025-03-26): its members are frames.
    for (const v of Array.isArray(value) ? value : [value]) {
      if (state.id !== undefined && !state.found && isResponseTo(v, state.id)) {
        state.found = true;
        ex.detachCaller();
        this.#unwait(state.id, ex);
      }
      state.delivered++;
      this.#deliver(v);
    }
  }

  #unwait(id: RequestId, ex: Exchange): void {
    if (this.#awaiting.get(id) === ex) this.#awaiting.delete(id);
  }

  /** The custom headers, the session and the protocol version (H6, H9, H10), then `extra`. */
  #headersWith(extra: Record<string, string>): Record<string, string> {
    const h: Record<string, string> = {};
    for (const [name, value] of this.#headers) h[name] = value;
    if (this.#sessionId !== undefined) h["mcp-session-id"] = this.#sessionId;
    if (this.#version !== undefined) h["mcp-protocol-version"] = this.#version;
    return Object.assign(h, extra);
  }

  // Shared by the POSTs of one session and version (the global fetch only reads it)
  // unless `copy`, a host's own fetch, or the revision adds headers of the message.
  #postHeaders(message: JsonRpcMessage, copy: boolean): Record<string, string> {
    let base = this.#postBase;
    if (base === undefined || base.sid !== this.#sessionId || base.version !== this.#version) {
      const headers = this.#headersWith({ accept: "application/json, text/event-stream", "content-type": "application/json" });
      this.#postBase = base = { sid: this.#sessionId, version: this.#version, headers };
    }
    if (!(copy || this.#options.fetch || (this.#modern && "method" in message))) return base.headers;
    const h = { ...base.headers };
    if (this.#modern && "method" in message) {
      // Spec 2026-07-28 "Standard Request Headers": body fields mirrored for intermediaries.
      if (isPlainHeaderValue(message.method)) h["mcp-method"] = message.method;
      const name = mcpNameOf(message.method, message.params);
      if (name !== undefined) h["mcp-name"] = encodeHeaderValue(name);
    }
    return h;
  }

  /** GETs the endpoint for an event stream, replaying `lastId` unless "". */
  #get(lastId: string, ex: Exchange): Promise<Response> {
    const h = this.#headersWith({ accept: "text/event-stream" });
    if (lastId !== "") h["last-event-id"] = lastId;
    return this.#request("GET", h, ex);
  }

  // Non-2xx answers: a 404 to a session-bearing request ends the session (H7).
  #statusError(res: Response, sentSession: string | undefined, what: string): YadaError {
    cancelBody(res);
    if (res.status !== 404 || sentSession === undefined) return statusError(this.description, res, what);
    if (this.#sessionId === sentSession) {
      this.#sessionId = undefined;
      this.#inbound?.abort();
      this.#inbound = undefined;
    }
    return new SessionExpiredError(this.#msg(`the server no longer knows the session (HTTP 404 to ${what})`));
  }

  // A GET answer must be an event stream; a refusal is a status error (H7, H12).
  #checkEventStream(res: Response, sentSession: string | undefined, what: string): void {
    if (!res.ok) throw this.#statusError(res, sentSession, what);
    if (mediaType(res) !== "text/event-stream") {
      cancelBody(res);
      throw new ProtocolError(this.#msg(`${what} did not answer with an event stream`));
    }
  }

  // Revision 2026-07-28 answers an unknown method with 404 and a version or header
  // problem with 400, each carrying a JSON-RPC error for the request: that error is
  // the response, and goes to the sink like any other.
  async #rpcErrorAnswer(res: Response, ex: Exchange, id: RequestId, sentSession: string | undefined): Promise<boolean> {
    if (!(res.status === 400 || (res.status === 404 && sentSession === undefined)) || mediaType(res) !== "application/json") return false;
    try {
      const bytes = await readBody(res.body, ex, MAX_HTTP_ERROR_BODY_BYTES, "MAX_HTTP_ERROR_BODY_BYTES");
      const value = decodeJson(this.#decoder.decode(bytes));
      if (!isResponseTo(value, id) || !("error" in (value as object))) return false;
      this.#unwait(id, ex);
      this.#deliver(value);
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
    options: SendOptions,
    sink: TransportSink | undefined,
  ): Promise<void> {
    const id = sink && (message as JsonRpcRequest).id;
    const what = "method" in message ? message.method : "a response to a server request";
    const ex = this.#exchange(options.signal, what);
    if (id !== undefined) this.#awaiting.set(id, ex);
    let handedOff = false;
    try {
      const sentSession = this.#sessionId;
      const res = await this.#request("POST", headers, ex, body, id);
      ex.touch();
      // An answer stream that stays open by design (subscriptions/listen) may be quiet
      // for hours: once it is answered, the idle bound no longer applies.
      if (options.longLived && res.ok) ex.disarm();
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
      const state: StreamState = { id, found: false, delivered: 0, lastId: "" };
      const type = mediaType(res);
      if (type === "text/event-stream") {
        if (id === undefined) {
          // Unusual for a notification, but whatever it streams is delivered. A
          // stream that ends before its first byte is an empty answer (H8); one that
          // fails before it (an oversized event) fails with its own error.
          handedOff = true;
          const first = new Promise<boolean>((resolve, reject) => {
            state.onBytes = () => resolve(true);
            this.#track(this.#streams.read(res.body, ex, state).then(() => resolve(false), reject).finally(() => ex.finish()));
          });
          if (!(await first)) throw proxyError(this.description, res.status, what);
          return;
        }
        const read = this.#streams.read(res.body, ex, state);
        handedOff = (await read) || (await this.#streams.resume(ex, state, what, sentSession));
        return;
      }
      const bytes = await readBody(res.body, ex, this.#maxJson, "MAX_HTTP_JSON_BYTES");
      if (bytes.length === 0) throw proxyError(this.description, res.status, what);
      if (type !== "application/json") {
        throw new ProtocolError(this.#msg(`${what} was answered with neither application/json nor text/event-stream`));
      }
      this.#deliverFrames(decodeJson(this.#decoder.decode(bytes)), state, ex);
      if (id !== undefined && !state.found) throw new ProtocolError(this.#msg(`the JSON answer to ${what} does not carry its response`));
    } catch (e) {
      let err = ex.error(e);
      // A host's fetch may have retried or relayed the request: nothing about it is proven.
      if (err?.notSent && this.#options.fetch) err = sentBefore(err) as YadaError;
      if (sink) {
        this.#unwait(id as RequestId, ex);
        if (err) sink.requestError(id as RequestId, err);
        return;
      }
      if (err) throw err;
      if (ex.cause === "caller") throw new CancelledError(this.#msg(`sending ${what} was cancelled`));
      throw new ConnectionClosedError(this.#msg(`the transport was closed while sending ${what}`));
    } finally {
      if (id !== undefined) this.#unwait(id, ex);
      if (!handedOff) ex.finish();
    }
  }

  #captureSession(res: Response): void {
    const sid = res.headers.get("mcp-session-id");
    if (sid === null) return;
    if (sid.length > MAX_SESSION_ID_CHARS || !SESSION_ID.test(sid)) {
      throw new ProtocolError(this.#msg(`the Mcp-Session-Id it assigned is not 1 to ${MAX_SESSION_ID_CHARS} visible ASCII characters`));
    }
    this.#sessionId = sid;
  }
}

/** {@link HttpTransport.close} for `await using` (P7: see {@link AsyncDisposer}). */
export interface HttpTransport extends AsyncDisposer {}
