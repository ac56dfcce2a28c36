/**
 * The HTTP+SSE transport of protocol revision 2024-11-05 (H14): one long GET event
 * stream carries every server message; its first `endpoint` event names the URL
 * the client POSTs its messages to. Over web-standard `fetch` only.
 *
 * @module
 */
import { ConfigError, ConnectionClosedError, ProtocolError, TimeoutError, TransportError, YadaError } from "../errors.js";
import { decodeJson, encodeMessage, type JsonRpcMessage, type RequestId } from "../jsonrpc/messages.js";
import {
  DEFAULT_HTTP_IDLE_TIMEOUT_MS,
  DEFAULT_LEGACY_ENDPOINT_TIMEOUT_MS,
  MAX_LEGACY_ENDPOINT_CHARS,
  MAX_QUOTED_CHARS,
  MAX_SSE_EVENT_BYTES,
} from "../limits.js";
import { silentLogger, type Logger } from "../log.js";
import { startTimer } from "../util/sleep.js";
import { statusError } from "./http-answer.js";
import { cancelBody, Exchange, mediaType } from "./http-exchange.js";
import { httpUrl, withCustomHeader, type HeaderList } from "./http-headers.js";
import type { FetchFunction } from "./http.js";
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
  /** Receives diagnostics; never given header values. */
  logger?: Logger;
}

function bound(v: number | undefined, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  if (!Number.isSafeInteger(v) || v <= 0) throw new ConfigError(`${name} must be a positive integer`);
  return v;
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
 * - The end of the stream ends the transport (`connection_closed`).
 *
 * `McpClient.connect` falls back to this transport by itself when a Streamable
 * HTTP `initialize` is answered 400, 404 or 405 and its `HttpTransport` has
 * `fallback: legacySse` (yada/node's `HttpTransport` has it by default).
 *
 * @example
 * ```ts
 * import { LegacySseTransport, McpClient } from "yada";
 * const client = await McpClient.connect(new LegacySseTransport("http://127.0.0.1:3001/sse"));
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
  readonly #idleMs: number;
  readonly #endpointMs: number;
  readonly #maxEvent: number;
  readonly #log: Logger;
  readonly #closer = new AbortController();
  readonly #outstanding = new Set<RequestId>();
  #sink: TransportSink | undefined;
  #endpoint: string | undefined;
  #lastByte = 0;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  #ended: YadaError | undefined;
  #stream: Promise<void> | undefined;

  /** @throws ConfigError (`config`) for an invalid URL, a URL with credentials, an invalid bound or a refused header. */
  constructor(url: string | URL, options: LegacySseOptions = {}) {
    this.#url = httpUrl(url, "HTTP+SSE server URL", "pass them as headers");
    this.serverKey = this.#url.origin + this.#url.pathname;
    this.description = `HTTP+SSE server ${this.serverKey}`;
    let list: HeaderList = [];
    const given = options.headers ?? [];
    const pairs = Symbol.iterator in given ? (given as Iterable<readonly [string, string]>) : Object.entries(given);
    for (const [name, value] of pairs) list = withCustomHeader(list, name, value);
    this.#headers = list;
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#idleMs = bound(options.idleTimeoutMs, "idleTimeoutMs", DEFAULT_HTTP_IDLE_TIMEOUT_MS);
    this.#endpointMs = bound(options.endpointTimeoutMs, "endpointTimeoutMs", DEFAULT_LEGACY_ENDPOINT_TIMEOUT_MS);
    this.#maxEvent = bound(options.maxEventBytes, "maxEventBytes", MAX_SSE_EVENT_BYTES);
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
    let announce: (error?: YadaError) => void = () => {};
    const announced = new Promise<void>((resolve, reject) => (announce = (error) => (error ? reject(error) : resolve())));
    const timer = startTimer(() => this.#end(new TimeoutError(`${this.description}: the event stream sent no endpoint within ${this.#endpointMs} ms`, this.#endpointMs)), this.#endpointMs);
    this.#onEnd = (error) => announce(error);
    this.#onEndpoint = () => announce();
    this.#stream = this.#run();
    try {
      await announced;
    } finally {
      clearTimeout(timer);
      this.#onEndpoint = undefined;
    }
  }

  #onEnd: ((error: YadaError) => void) | undefined;
  #onEndpoint: (() => void) | undefined;

  /**
   * POSTs one message to the announced endpoint. A request's answer arrives on the
   * stream; a refused POST of a request fails that request (`sink.requestError`).
   *
   * @throws ConnectionClosedError (`connection_closed`) once closed; for a notification or
   * response HttpError (`http`), TimeoutError (`timeout`) or TransportError (`transport`).
   */
  async send(message: JsonRpcMessage, options: SendOptions = {}): Promise<void> {
    this.#assertOpen();
    const sink = this.#sink;
    const endpoint = this.#endpoint;
    if (!sink || endpoint === undefined) throw new TransportError(`${this.description}: send() before start()`);
    const id = "id" in message && "method" in message ? message.id : undefined;
    const what = "method" in message ? message.method : "a response to a server request";
    if (id !== undefined) this.#watch(id, options.signal);
    const ex = new Exchange(this.#idleMs, undefined, this.#closer.signal, this.description, what);
    try {
      const headers = this.#headersWith({ "content-type": "application/json" });
      const res = await this.#fetch(endpoint, { method: "POST", headers, body: encodeMessage(message), redirect: "manual", signal: ex.signal });
      cancelBody(res); // the answer comes on the stream; the body is "Accepted" at most
      if (!res.ok) throw statusError(this.description, res, what);
    } catch (e) {
      const err = ex.error(e) ?? new ConnectionClosedError(`${this.description}: closed while sending ${what}`);
      if (id === undefined) throw err;
      this.#outstanding.delete(id);
      sink.requestError(id, err);
    } finally {
      ex.finish();
    }
  }

  /** Ends the stream and every POST; the sink is told once. Idempotent. */
  async close(): Promise<void> {
    this.#end(new ConnectionClosedError(`${this.description}: the transport is closed`));
    await this.#stream?.catch(() => {});
  }

  #assertOpen(): void {
    if (this.#ended) throw new ConnectionClosedError(`${this.description}: the transport is closed`);
  }

  #headersWith(extra: Record<string, string>): Record<string, string> {
    const h: Record<string, string> = {};
    for (const [name, value] of this.#headers) h[name] = value;
    return Object.assign(h, extra);
  }

  // The transport ends once, for one reason: the sink (and a waiting start) hear it.
  #end(error: YadaError): void {
    if (this.#ended) return;
    this.#ended = error;
    this.#closer.abort();
    clearTimeout(this.#idleTimer);
    this.#outstanding.clear();
    this.#onEnd?.(error);
    this.#sink?.closed(error);
  }

  // A request waits for its answer: the stream's silence is watched until it comes.
  #watch(id: RequestId, signal: AbortSignal | undefined): void {
    this.#outstanding.add(id);
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
    if (idle < this.#idleMs) {
      this.#idleTimer = startTimer(this.#checkIdle, this.#idleMs - idle);
      return;
    }
    const ids = [...this.#outstanding];
    this.#outstanding.clear();
    for (const id of ids) {
      this.#sink?.requestError(
        id,
        new TimeoutError(`${this.description}: nothing arrived on the event stream for ${this.#idleMs} ms while a request waited; the server may still carry it out`, this.#idleMs),
      );
    }
  };

  // The endpoint event (2024-11-05 "HTTP with SSE"): a URI, resolved against the
  // stream's URL; only the stream's own origin is accepted.
  #takeEndpoint(data: string): void {
    const text = data.trim();
    if (this.#endpoint !== undefined) {
      this.#log("warn", `${this.description}: ignored a second endpoint event`);
      return;
    }
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
    this.#endpoint = u.href;
    this.#onEndpoint?.();
  }

  async #run(): Promise<void> {
    // Until the stream's headers arrive, the wait is the endpoint's: start() is one bound.
    const ex = new Exchange(this.#endpointMs, undefined, this.#closer.signal, this.description, "the event stream");
    try {
      const res = await this.#fetch(this.#url.href, { method: "GET", headers: this.#headersWith({ accept: "text/event-stream" }), redirect: "manual", signal: ex.signal });
      if (!res.ok) throw statusError(this.description, res, "the event stream GET");
      if (mediaType(res) !== "text/event-stream" || res.body === null) {
        cancelBody(res);
        throw new ProtocolError(`${this.description}: the GET did not answer with an event stream`);
      }
      ex.disarm(); // a quiet stream is fine; silence is bounded only while requests wait
      const parser = createSseParser({
        maxEventBytes: this.#maxEvent,
        onEvent: (event) => {
          if (event.type === "endpoint") return this.#takeEndpoint(event.data);
          if (event.type !== "message" || event.data === "") return;
          if (this.#endpoint === undefined) throw new ProtocolError(`${this.description}: a message arrived before the endpoint event`);
          let value: unknown;
          try {
            value = decodeJson(event.data);
          } catch {
            this.#log("warn", `${this.description}: skipped an event whose data is not JSON`);
            return;
          }
          if (typeof value === "object" && value !== null && !("method" in value) && "id" in value) this.#outstanding.delete((value as { id: RequestId }).id);
          try {
            this.#sink?.message(value);
          } catch (e) {
            this.#log("error", `${this.description}: the sink threw on a message`, { error: e instanceof Error ? e.message : "unknown" });
          }
        },
      });
      const reader = ex.reader(res.body);
      for (;;) {
        const r = await reader.read();
        if (r.done) break;
        this.#lastByte = performance.now();
        parser.feed(r.value);
      }
      this.#end(new ConnectionClosedError(`${this.description}: the event stream ended`));
    } catch (e) {
      this.#end(ex.error(e) ?? new ConnectionClosedError(`${this.description}: the transport is closed`));
    } finally {
      ex.finish();
    }
  }
}
