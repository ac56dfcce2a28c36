/**
 * The HTTP+SSE transport of protocol revision 2024-11-05 (H14): one long GET event
 * stream carries every server message; its first `endpoint` event names the URL
 * the client POSTs its messages to. A stream that drops is opened again, a bounded
 * number of times, and must announce its endpoint afresh; a new session's handshake
 * is replayed before anything else is sent. Over web-standard `fetch` only.
 *
 * @module
 */
import { ConfigError, ConnectionClosedError, HttpError, LimitError, ProtocolError, TimeoutError, TransportError, YadaError } from "../errors.js";
import { decodeJson, encodeMessage, type JsonRpcMessage, type RequestId } from "../jsonrpc/messages.js";
import {
  DEFAULT_HTTP_IDLE_TIMEOUT_MS,
  DEFAULT_LEGACY_ENDPOINT_TIMEOUT_MS,
  DEFAULT_SSE_RETRY_MS,
  MAX_LEGACY_ENDPOINT_CHARS,
  MAX_QUOTED_CHARS,
  MAX_SSE_EVENT_BYTES,
  MAX_SSE_RESUME_ATTEMPTS,
  MAX_SERVER_REQUESTS_IN_FLIGHT,
  MAX_SSE_RETRY_MS,
  MIN_LEGACY_HEALTHY_STREAM_MS,
  MIN_LEGACY_RECONNECT_MS,
} from "../limits.js";
import { silentLogger, type Logger } from "../log.js";
import { sleep, startTimer } from "../util/sleep.js";
import { statusError } from "./http-answer.js";
import { sentBefore } from "./not-sent.js";
import { fetchAuthorized, type AuthRequest, type HttpAuth } from "./http-auth.js";
import { cancelBody, Exchange, mediaType, REDIRECT_MODE } from "./http-exchange.js";
import { customHeaders, httpUrl, type HeaderList } from "./http-headers.js";
import type { FetchFunction } from "./http.js";
import { createHolds, heldDeadline } from "./hold.js";
import { createSseParser } from "./sse.js";
import type { SendOptions, Transport, TransportSink } from "./types.js";

/** Options of {@link LegacySseTransport}. Every bound defaults to its value in `limits.ts`. */
export interface LegacySseOptions {
  /** The fetch to use. Default: `globalThis.fetch`. */
  fetch?: FetchFunction;
  /** Custom headers, sent on the GET and on every POST (the rules of `HttpTransport.withHeader`). */
  headers?: Iterable<readonly [string, string]> | Record<string, string>;
  /** While a request waits for its answer, the longest silence of the stream; each POST is bound by it too (H5). */
  idleTimeoutMs?: number;
  /** Bound on the wait for the `endpoint` event after the stream opens. */
  endpointTimeoutMs?: number;
  /** Largest SSE event (default `MAX_SSE_EVENT_BYTES`). */
  maxEventBytes?: number;
  /** Reconnects in a row that bring no stream lasting `MIN_LEGACY_HEALTHY_STREAM_MS` before the transport ends (default `MAX_SSE_RESUME_ATTEMPTS`). */
  maxReconnectAttempts?: number;
  /** Receives diagnostics; never given header values. */
  logger?: Logger;
  /**
   * Authorization for the GET and every POST (A5), as `HttpTransport`'s `auth`: its
   * headers are added to each request, and each 401 / 403 goes to it; the request is
   * sent again (at most `MAX_AUTH_RETRIES` times) when it says so. Tokens are those of
   * the stream's URL; a DPoP proof names the URL actually requested.
   */
  auth?: HttpAuth;
  /**
   * Names the server in messages instead of its URL (Y5: a URL's path or query may
   * carry a key). Default: the stream's origin and path.
   */
  name?: string;
}

function bound(v: number | undefined, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  if (!Number.isSafeInteger(v) || v <= 0) throw new ConfigError(`${name} must be a positive integer`);
  return v;
}

/** The handshake a client sent: replayed to a new session after a reconnect. */
interface Handshake {
  message: JsonRpcMessage & { id: RequestId };
  /** The protocol version the server answered; a new session must answer the same. */
  version?: unknown;
  /** The capabilities the server answered (key order aside); a new session must answer the same. */
  capabilities?: string;
  /** Whether `notifications/initialized` was sent. */
  initialized: boolean;
}

/**
 * A JSON value as text with its object keys sorted: equal for the same capabilities in
 * another order. Undefined for a value too deep to write out (it equals nothing).
 */
function sortedJson(v: unknown): string | undefined {
  try {
    return JSON.stringify(v, (_k, x: unknown) =>
      typeof x === "object" && x !== null && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : x,
    ) ?? "";
  } catch {
    return undefined;
  }
}

/** The protocol version and capabilities of an initialize answer. */
function initAnswer(reply: { result?: unknown } | undefined): { version: unknown; capabilities: string | undefined } {
  const result = reply?.result as { protocolVersion?: unknown; capabilities?: unknown } | null | undefined;
  return { version: result?.protocolVersion, capabilities: sortedJson(result?.capabilities) };
}

/** Errors of a reconnect that mean the server will not be reached this way at all. */
function refusesReconnect(e: YadaError): boolean {
  return e instanceof ProtocolError || e instanceof LimitError || (e instanceof HttpError && e.status < 500);
}

/**
 * A {@link Transport} to a 2024-11-05 server over HTTP+SSE (H14).
 *
 * - `start()` GETs the stream (`Accept: text/event-stream`) and waits at most
 *   `endpointTimeoutMs` for the `endpoint` event. The endpoint must be on the
 *   stream's origin (scheme, host and port) and carry no credentials; any other is
 *   refused and the transport closes.
 * - `send()` POSTs one message to the endpoint; answers arrive on the stream.
 * - Bounds: each event at most `maxEventBytes`; while requests are outstanding the
 *   stream may be silent at most `idleTimeoutMs`, after which they fail with
 *   `timeout`; redirects are refused (H11); the custom headers ride on every request.
 * - A stream that ends or breaks after its endpoint is opened again, after the
 *   server's `retry` delay (else `DEFAULT_SSE_RETRY_MS`; at least
 *   `MIN_LEGACY_RECONNECT_MS`) doubled per failed attempt up to `MAX_SSE_RETRY_MS`,
 *   at most `maxReconnectAttempts` times in a row (a stream that drops within
 *   `MIN_LEGACY_HEALTHY_STREAM_MS` of opening counts as a failed attempt, endpoint
 *   or not, so announce-and-drop cannot loop forever). Each new stream must send a
 *   fresh `endpoint` within `endpointTimeoutMs`, checked for the same origin again. When it names a new session, the `initialize` request
 *   and `notifications/initialized` the client sent are replayed to it first (the
 *   same protocol version and capabilities must be answered). Requests whose POST went out before the
 *   drop fail with `connection_closed` and `info.maybeDelivered: true` (the server
 *   may have carried them out); they are never sent again. Messages sent while it
 *   reconnects wait for the new endpoint; an answer to a request of an earlier
 *   session is dropped, never POSTed to the new one (which numbers its own alike).
 * - A refused reconnect (another origin, a 4xx, not an event stream) or too many
 *   failed ones end the transport (`connection_closed`, or the refusal's own code).
 *
 * `McpClient.connect` falls back to this transport by itself when a Streamable
 * HTTP `initialize` is answered 400, 404 or 405 and its `HttpTransport` has
 * `fallback: legacySse` (yada/node's `HttpTransport` has it by default).
 *
 * @example
 * ```ts
 * import { LegacySseTransport, McpClient } from "yada-mcp";
 * const client = await McpClient.connect(new LegacySseTransport("http://127.0.0.1:3001/sse", { maxReconnectAttempts: 5 }));
 * ```
 */
export class LegacySseTransport implements Transport {
  /** "HTTP+SSE server <origin><path>". */
  readonly description: string;
  /** The stream's `<origin><path>` (the remembered era's key, V2). */
  readonly serverKey: string;
  readonly kind = "http";
  /** Each request's signal lets an abandoned request leave the idle watch. */
  readonly needsRequestSignal = true;
  readonly #url: URL;
  readonly #headers: HeaderList;
  readonly #fetch: FetchFunction;
  /** The runtime's own fetch (W5: only its refusals prove that nothing was sent). */
  readonly #ownFetch: boolean;
  readonly #idleMs: number;
  readonly #endpointMs: number;
  readonly #maxEvent: number;
  readonly #maxReconnects: number;
  readonly #log: Logger;
  readonly #closer = new AbortController();
  readonly #auth: HttpAuth | undefined;
  readonly #holds = createHolds();
  #held = false;
  /** Requests sent and waiting for their answer, with their method. */
  readonly #outstanding = new Map<RequestId, string>();
  /** Server requests awaiting the client's answer, with the endpoint of the session that sent them. */
  readonly #asked = new Map<RequestId, string | undefined>();
  #sink: TransportSink | undefined;
  /** The endpoint the current stream announced (its session), made ready or not. */
  #streamEndpoint: string | undefined;
  /** The endpoint to POST to; undefined while the stream reconnects. */
  #endpoint: string | undefined;
  /** The endpoint of the last session made ready: a different one on a reconnect is a new session. */
  #announced: string | undefined;
  #ready: Promise<void> = Promise.resolve();
  #readyNow: () => void = () => {};
  /** The server's `retry` field, the base of the reconnect delay. */
  #retryMs: number | undefined;
  /** The handshake sent through this transport, replayed to a new session. */
  #init: Handshake | undefined;
  /** The replayed `initialize` of the current stream, until the session is ready. */
  #replay: { id: string; settle(reply: { result?: unknown } | undefined): void } | undefined;
  #replays = 0;
  #lastByte = 0;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  #ended: YadaError | undefined;
  #stream: Promise<void> | undefined;

  /** @throws ConfigError (`config`) for an invalid URL, a URL with credentials, an invalid bound or a refused header. */
  constructor(url: string | URL, options: LegacySseOptions = {}) {
    this.#url = httpUrl(url, "HTTP+SSE server URL", "pass them as headers");
    this.serverKey = this.#url.origin + this.#url.pathname;
    this.description = options.name === undefined ? `HTTP+SSE server ${this.serverKey}` : `HTTP+SSE server '${options.name}'`;
    this.#auth = options.auth;
    // While a login runs, the stream's silence is the user's time, not the server's (A2).
    this.#holds.on((held) => {
      this.#held = held;
      this.#lastByte = performance.now();
    });
    this.#headers = customHeaders(options.headers);
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#ownFetch = options.fetch === undefined;
    this.#idleMs = bound(options.idleTimeoutMs, "idleTimeoutMs", DEFAULT_HTTP_IDLE_TIMEOUT_MS);
    this.#endpointMs = bound(options.endpointTimeoutMs, "endpointTimeoutMs", DEFAULT_LEGACY_ENDPOINT_TIMEOUT_MS);
    this.#maxEvent = bound(options.maxEventBytes, "maxEventBytes", MAX_SSE_EVENT_BYTES);
    this.#maxReconnects = bound(options.maxReconnectAttempts, "maxReconnectAttempts", MAX_SSE_RESUME_ATTEMPTS);
    this.#log = options.logger ?? silentLogger;
  }

  /**
   * Opens the event stream and waits for its `endpoint` event.
   *
   * @throws HttpError (`http`) for a refused GET or a redirect; ProtocolError (`protocol`) for an
   * answer that is not an event stream, or an endpoint on another origin; TimeoutError (`timeout`)
   * when no endpoint arrives in time; LimitError (`limit`); TransportError (`transport`).
   */
  async start(sink: TransportSink): Promise<void> {
    if (this.#sink) throw new TransportError(`${this.description}: start() was called twice`);
    this.#assertOpen();
    this.#sink = sink;
    this.#ready = new Promise((resolve) => (this.#readyNow = resolve)); // the endpoint, or the end
    // A login the auth layer runs for the GET does not count (A2).
    const timer = heldDeadline(this, this.#endpointMs, () => this.#end(new TimeoutError(`${this.description}: the event stream sent no endpoint within ${this.#endpointMs} ms`, this.#endpointMs)));
    this.#stream = this.#run();
    await this.#ready;
    timer.clear();
    if (this.#ended) throw this.#ended;
  }

  /**
   * POSTs one message to the announced endpoint (after a reconnect, the new one). A
   * request's answer arrives on the stream; a refused POST of a request fails that
   * request (`sink.requestError`).
   *
   * @throws ConnectionClosedError (`connection_closed`) once closed; for a notification or
   * response HttpError (`http`), TimeoutError (`timeout`) or TransportError (`transport`).
   */
  async send(message: JsonRpcMessage, options: SendOptions = {}): Promise<void> {
    this.#assertOpen();
    const sink = this.#sink;
    if (!sink || this.#announced === undefined) throw new TransportError(`${this.description}: send() before start()`);
    const id = "id" in message && "method" in message ? message.id : undefined;
    const answers = "id" in message && !("method" in message) ? message.id : undefined;
    const what = "method" in message ? message.method : "a response to a server request";
    // The handshake is kept to be replayed to a new session after a reconnect.
    if (what === "initialize" && id !== undefined) this.#init = { message: message as JsonRpcMessage & { id: RequestId }, initialized: false };
    else if (what === "notifications/initialized" && this.#init) this.#init.initialized = true;
    try {
      let endpoint;
      // Reconnecting: the wait is bounded by the attempts; a request abandoned meanwhile is not sent.
      while ((endpoint = this.#endpoint) === undefined) {
        await this.#ready;
        this.#assertOpen();
      }
      if (options.signal?.aborted) return;
      // An answer goes only to the session that asked: another session numbers its own requests alike.
      if (answers !== undefined && answers !== null) {
        const asker = this.#asked.get(answers);
        this.#asked.delete(answers);
        if (asker !== endpoint) return this.#log("warn", `${this.description}: dropped the answer to a request of an earlier session`);
      }
      if (id !== undefined) this.#watch(id, what, options.signal);
      await this.#post(endpoint, message, what, id);
    } catch (e) {
      const err = e instanceof YadaError ? e : new ConnectionClosedError(`${this.description}: closed while sending ${what}`);
      if (id === undefined) throw err;
      if (this.#outstanding.delete(id)) sink.requestError(id, err);
    }
  }

  /** Ends the stream and every POST; the sink is told once. Idempotent. */
  async close(): Promise<void> {
    this.#end(new ConnectionClosedError(`${this.description}: the transport is closed`));
    await this.#stream?.catch(() => {});
  }

  /**
   * Tells `listener` when a request starts waiting on the user (`true`: the `auth`
   * layer runs its interactive login) and when none does any more (`false`), so a
   * connect's deadline stops meanwhile (A2, S5). Returns its removal.
   */
  onHold(listener: (held: boolean) => void): () => void {
    return this.#holds.on(listener);
  }

  #assertOpen(): void {
    // W5: refused before anything was handed to fetch.
    if (this.#ended) throw new ConnectionClosedError(`${this.description}: the transport is closed`, {}, { notSent: true });
  }

  #headersWith(extra: Record<string, string>): Record<string, string> {
    const h: Record<string, string> = {};
    for (const [name, value] of this.#headers) h[name] = value;
    return Object.assign(h, extra);
  }

  // One request, through the auth layer when there is one (A5). A login it runs for a
  // request holds that request's bound (A2, S6) and a connect's deadline (S5).
  #request(target: string, method: string, headers: Record<string, string>, ex: Exchange, body?: string, id?: RequestId): Promise<Response> {
    const auth = this.#auth;
    if (auth === undefined) return this.#fetch(target, { method, headers, body, redirect: REDIRECT_MODE, signal: ex.signal });
    const request: AuthRequest = {
      url: this.#url.href,
      target: target === this.#url.href ? undefined : target,
      method,
      attempt: 0,
      signal: ex.signal,
      hold: () => this.#holds.hold(id === undefined ? undefined : (held) => this.#sink?.hold?.(id, held)),
    };
    return fetchAuthorized(this.#fetch, { method, headers, body }, ex, auth, request);
  }

  // One POST; its answer is at most "Accepted", the real one comes on the stream.
  async #post(endpoint: string, message: JsonRpcMessage, what: string, id?: RequestId): Promise<void> {
    const ex = new Exchange(this.#idleMs, undefined, this.#closer.signal, this.description, what);
    try {
      const headers = this.#headersWith({ "content-type": "application/json" });
      const res = await this.#request(endpoint, "POST", headers, ex, encodeMessage(message), id);
      cancelBody(res);
      if (!res.ok) throw statusError(this.description, res, what);
    } catch (e) {
      const err = ex.error(e) ?? new ConnectionClosedError(`${this.description}: closed while sending ${what}`);
      // A host's fetch may have retried or relayed the request: nothing about it is proven (W5).
      throw err.notSent && !this.#ownFetch ? sentBefore(err) : err;
    } finally {
      ex.finish();
    }
  }

  // The transport ends once, for one reason: the sink (and a waiting start) hear it.
  #end(error: YadaError): void {
    if (this.#ended) return;
    this.#ended = error;
    this.#closer.abort();
    clearTimeout(this.#idleTimer);
    this.#outstanding.clear();
    this.#asked.clear();
    this.#readyNow(); // start() and sends waiting for a reconnect see the end
    this.#sink?.closed(error);
  }

  // A request waits for its answer: the stream's silence is watched until it comes.
  #watch(id: RequestId, what: string, signal: AbortSignal | undefined): void {
    this.#outstanding.set(id, what);
    signal?.addEventListener("abort", () => this.#outstanding.delete(id), { once: true });
    if (this.#outstanding.size === 1) {
      this.#lastByte = performance.now();
      clearTimeout(this.#idleTimer);
      this.#idleTimer = startTimer(this.#checkIdle, this.#idleMs);
    }
  }

  #checkIdle = (): void => {
    if (this.#outstanding.size === 0 || this.#ended) return;
    const idle = performance.now() - this.#lastByte;
    if (this.#held || idle < this.#idleMs) {
      this.#idleTimer = startTimer(this.#checkIdle, this.#held ? this.#idleMs : this.#idleMs - idle);
      return;
    }
    const ids = [...this.#outstanding.keys()];
    this.#outstanding.clear();
    for (const id of ids) {
      this.#sink?.requestError(
        id,
        new TimeoutError(`${this.description}: nothing arrived on the event stream for ${this.#idleMs} ms while a request waited; the server may still carry it out`, this.#idleMs),
      );
    }
  };

  // The endpoint event (2024-11-05 "HTTP with SSE"): a URI, resolved against the
  // stream's URL; only the stream's own origin is accepted, on every stream.
  #parseEndpoint(data: string): string {
    const text = data.trim();
    if (text.length === 0 || text.length > MAX_LEGACY_ENDPOINT_CHARS) {
      throw new ProtocolError(`${this.description}: the endpoint event is empty or longer than ${MAX_LEGACY_ENDPOINT_CHARS} characters`);
    }
    let u: URL;
    try {
      u = new URL(text, this.#url);
    } catch {
      throw new ProtocolError(`${this.description}: the endpoint event is not a URL`);
    }
    if (u.origin !== this.#url.origin || u.username !== "" || u.password !== "") {
      throw new ProtocolError(`${this.description}: the endpoint event names another origin (${u.origin.slice(0, MAX_QUOTED_CHARS)}), which is refused`);
    }
    return u.href;
  }

  #useEndpoint(endpoint: string, ex: Exchange): void {
    this.#streamEndpoint = endpoint;
    const previous = this.#announced;
    if (previous !== undefined && previous !== endpoint && this.#init) return void this.#replayHandshake(endpoint, this.#init, ex);
    ex.disarm();
    this.#open(endpoint);
  }

  #open(endpoint: string): void {
    this.#endpoint = this.#announced = endpoint;
    this.#readyNow();
  }

  // Another session never saw the handshake: it is replayed before anything else is
  // sent, within the stream's endpoint bound. A refusal ends the transport; a failed
  // POST drops the stream, to be tried again.
  async #replayHandshake(endpoint: string, init: Handshake, ex: Exchange): Promise<void> {
    let settle: (reply: { result?: unknown } | undefined) => void = () => {};
    const reply = new Promise<{ result?: unknown } | undefined>((resolve) => (settle = resolve));
    const mine = { id: `yada-reinit-${++this.#replays}`, settle };
    this.#replay = mine;
    try {
      await this.#post(endpoint, { ...init.message, id: mine.id }, "initialize");
      const answer = await reply;
      if (this.#replay !== mine) return; // the stream dropped meanwhile
      // Another version or other capabilities is another server: what the client knows of it no longer holds.
      const now = initAnswer(answer);
      if (init.version === undefined || now.version !== init.version || now.capabilities === undefined || now.capabilities !== init.capabilities) {
        return this.#end(new ProtocolError(`${this.description}: the new session refused the replayed initialize`));
      }
      if (init.initialized) await this.#post(endpoint, { jsonrpc: "2.0", method: "notifications/initialized" }, "notifications/initialized");
      if (this.#replay !== mine) return;
      this.#replay = undefined;
      ex.disarm();
      this.#open(endpoint);
    } catch {
      ex.abort("closed");
    }
  }

  // The stream dropped: requests that went out fail (they may have run; never re-sent,
  // H14); the rest wait for the next endpoint.
  #dropped(): void {
    this.#endpoint = undefined;
    this.#replay?.settle(undefined);
    this.#replay = undefined;
    // Sends still waiting since an earlier drop look again and wait for the next stream.
    this.#readyNow();
    this.#ready = new Promise((resolve) => (this.#readyNow = resolve));
    const dropped = [...this.#outstanding];
    this.#outstanding.clear();
    for (const [id, what] of dropped) {
      const message = `${this.description}: the event stream dropped while ${what} waited; it may have run and is not sent again`;
      this.#sink?.requestError(id, new ConnectionClosedError(message, { maybeDelivered: true }));
    }
  }

  // The answer to a replayed initialize is ours; the answer to the first is noted.
  #deliver(data: string): void {
    let value: unknown;
    try {
      value = decodeJson(data);
    } catch {
      this.#log("warn", `${this.description}: skipped an event whose data is not JSON`);
      return;
    }
    if (typeof value === "object" && value !== null && "method" in value && "id" in value) {
      const id = (value as { id: unknown }).id;
      // The session answers (or refuses) each one and has at most MAX_SERVER_REQUESTS_IN_FLIGHT running; twice that holds them all.
      if (this.#asked.size >= 2 * MAX_SERVER_REQUESTS_IN_FLIGHT) this.#asked.delete(this.#asked.keys().next().value as RequestId);
      if (typeof id === "string" || typeof id === "number") this.#asked.set(id, this.#streamEndpoint);
    } else if (typeof value === "object" && value !== null && "id" in value) {
      const reply = value as { id: RequestId; result?: unknown; error?: unknown };
      if (reply.id === this.#replay?.id) return this.#replay.settle(reply);
      const init = this.#init;
      if (init && init.version === undefined && reply.id === init.message.id) Object.assign(init, initAnswer(reply));
      this.#outstanding.delete(reply.id);
    }
    try {
      this.#sink?.message(value);
    } catch (e) {
      this.#log("error", `${this.description}: the sink threw on a message`, { error: e instanceof Error ? e.message : "unknown" });
    }
  }

  // Streams one after another until the transport ends: the first must announce an
  // endpoint; a later one that drops is followed by another, within the bounds.
  async #run(): Promise<void> {
    for (let failures = 0, first = true; ; first = false) {
      const opened = performance.now();
      const { error, announced } = await this.#readStream(first);
      if (this.#ended) return;
      if ((first && !announced) || refusesReconnect(error)) return this.#end(error);
      this.#dropped();
      // Only a stream that stayed up ends a run of failures: one that announces and drops at once is one more.
      failures = announced && performance.now() - opened >= MIN_LEGACY_HEALTHY_STREAM_MS ? 1 : failures + 1;
      if (failures > this.#maxReconnects) {
        return this.#end(new ConnectionClosedError(`${this.description}: the event stream ended and ${this.#maxReconnects} reconnects failed`, {}, { cause: error }));
      }
      const delay = Math.min(MAX_SSE_RETRY_MS, Math.max(MIN_LEGACY_RECONNECT_MS, this.#retryMs ?? DEFAULT_SSE_RETRY_MS) * 2 ** (failures - 1));
      this.#log("info", `${this.description}: the event stream ended; reconnecting`, { attempt: failures, delayMs: delay });
      await sleep(delay, this.#closer.signal);
      if (this.#ended) return;
    }
  }

  // One GET stream to its end. The wait for its headers, and on a reconnect for its
  // endpoint too, is bounded by `endpointTimeoutMs` (start() bounds the first endpoint).
  async #readStream(first: boolean): Promise<{ error: YadaError; announced: boolean }> {
    const ex = new Exchange(this.#endpointMs, undefined, this.#closer.signal, this.description, "the event stream");
    let announced = false;
    try {
      const res = await this.#request(this.#url.href, "GET", this.#headersWith({ accept: "text/event-stream" }), ex);
      if (!res.ok) throw statusError(this.description, res, "the event stream GET");
      if (mediaType(res) !== "text/event-stream" || res.body === null) {
        cancelBody(res);
        throw new ProtocolError(`${this.description}: the GET did not answer with an event stream`);
      }
      if (first) ex.disarm(); // start() bounds the first endpoint; later silence is bounded only while requests wait
      const parser = createSseParser({
        maxEventBytes: this.#maxEvent,
        onRetry: (ms) => (this.#retryMs = ms),
        onEvent: (event) => {
          if (event.type === "endpoint") {
            if (announced) return this.#log("warn", `${this.description}: ignored a second endpoint event`);
            const endpoint = this.#parseEndpoint(event.data);
            announced = true;
            return this.#useEndpoint(endpoint, ex);
          }
          if (event.type !== "message" || event.data === "") return;
          if (!announced) throw new ProtocolError(`${this.description}: a message arrived before the endpoint event`);
          this.#deliver(event.data);
        },
      });
      const reader = ex.reader(res.body);
      for (;;) {
        const r = await reader.read();
        if (r.done) break;
        this.#lastByte = performance.now();
        parser.feed(r.value);
      }
      return { error: new ConnectionClosedError(`${this.description}: the event stream ended`), announced };
    } catch (e) {
      return { error: ex.error(e) ?? new ConnectionClosedError(`${this.description}: the transport is closed`), announced };
    } finally {
      ex.finish();
    }
  }
}
