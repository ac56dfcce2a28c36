/**
 * The JSON-RPC 2.0 session: ids, pending requests, timeouts, cancellation,
 * progress, and dispatch of what the server sends (J1–J7). Transport-agnostic.
 *
 * @module
 */
import { startTimer } from "../util/sleep.js";
import {
  CancelledError,
  ConnectionClosedError,
  JsonRpcError,
  LimitError,
  ProtocolError,
  TimeoutError,
  YadaError,
} from "../errors.js";
import {
  DEADLINE_SWEEP_MS,
  DEFAULT_MAX_TOTAL_TIMEOUT_MS,
  MAX_CANCEL_REASON_CHARS,
  MAX_PENDING_REQUESTS,
  MAX_QUEUED_REFUSALS,
  MAX_QUOTED_TEXT_CHARS,
  MAX_REPLY_SENDS_IN_FLIGHT,
  MAX_RPC_ERROR_MESSAGE_CHARS,
  MAX_SERVER_REQUESTS_IN_FLIGHT,
  RPC_TOO_MANY_REQUESTS,
} from "../limits.js";
import { silentLogger, type Logger, type LogLevel } from "../log.js";
import { HANDED_OVER, type SendOptions, type Transport } from "../transport/types.js";
import { refusedBefore } from "../transport/not-sent.js";
import {
  classifyMessage,
  isRequestId,
  RPC,
  type JsonRpcFailure,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcSuccess,
  type RequestId,
} from "./messages.js";

/** One `notifications/progress` update for a request (J6). */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** Options of one request. */
export interface RequestOptions {
  /** Bound in ms counted from when the request is sent; `null` = no bound. */
  timeoutMs?: number | null;
  /** Aborting it cancels the request (J5). */
  signal?: AbortSignal;
  /** Receives progress; when given, a `_meta.progressToken` is added to the request (J6). */
  onProgress?: (progress: Progress) => void;
  /** Restart the timeout on every progress update (J6). */
  resetTimeoutOnProgress?: boolean;
  /** With `resetTimeoutOnProgress`, the hard bound on the total time (J6). */
  maxTotalTimeoutMs?: number;
  /** Called with the request's id as soon as it is assigned (before sending). */
  onId?: (id: RequestId) => void;
  /**
   * Called once the request was handed to the transport's `send` (stdio: written to
   * the pipe; HTTP: on its way to fetch): from then on it may reach the server (W13).
   * Not called for a request the session refused itself (closed, over the limit,
   * already aborted). What it throws is ignored.
   */
  onSent?: () => void;
  /** Extra transport headers for this request (HTTP only). */
  headers?: Readonly<Record<string, string>>;
  /** The answer stays open by design (`subscriptions/listen`): no transport idle bound once answered. */
  longLived?: boolean;
}

/** Context passed to a handler of a server-initiated request. */
export interface RequestContext {
  /** The server's request id. */
  id: RequestId;
  /** Aborted when the server cancels the request or the session closes. */
  signal: AbortSignal;
}

/** Answers one server-initiated request; throw {@link RpcErrorReply} to answer with an error. */
export type RequestHandler = (
  params: Record<string, unknown> | undefined,
  context: RequestContext,
) => Promise<Record<string, unknown>> | Record<string, unknown>;

/** Receives every notification the server sends that the session does not consume itself. */
export type NotificationListener = (method: string, params: Record<string, unknown> | undefined) => void;

/**
 * Thrown by a {@link RequestHandler} to answer with a specific JSON-RPC error.
 *
 * @example
 * ```ts
 * session.onRequest("roots/list", () => { throw new RpcErrorReply(-32602, "no roots"); });
 * ```
 */
export class RpcErrorReply extends Error {
  readonly rpcCode: number;
  readonly data: unknown;
  constructor(rpcCode: number, message: string, data?: unknown) {
    super(message);
    this.rpcCode = rpcCode;
    this.data = data;
  }
}

/** Options of a {@link JsonRpcSession}. */
export interface SessionOptions {
  /** Names the server in every error message. */
  name: string;
  /** Diagnostics sink; silent by default. */
  logger?: Logger;
}

interface Pending {
  method: string;
  /** Releases the request's listeners, then resolves or rejects its promise. */
  settle(result: Record<string, unknown> | undefined, error: YadaError | undefined): void;
  /** When the request times out, on the session clock (ms); `Infinity` = no bound. */
  deadline: number;
  /** The bound a timeout reports: the request's own, or the total one once that is nearer (J6). */
  bound: number;
  /** Set when the request asked for progress: its progress token is its id. */
  onProgress?: (progress: Progress) => void;
  /** Stops (`true`) and resumes (`false`) the request's bound while it waits on the user (A2, S6). */
  hold?: (held: boolean) => void;
}

/** What a reply to a server request carries besides `jsonrpc` and `id`. */
type Answer = Pick<JsonRpcSuccess, "result"> | Pick<JsonRpcFailure, "error">;

/** A reply waiting for its turn to be sent; `done` runs once the send settled. */
interface QueuedReply {
  id: RequestId;
  answer: Answer;
  done: () => void;
}

/** The session clock (ms): monotonic, unlike `Date.now()`. */
const clock = (): number => performance.now();

/** The abort reason of a request's settle signal. */
const SETTLED = Object.freeze({ settled: true });

function truncate(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max) + "…";
}

/**
 * A JSON-RPC session over one {@link Transport}.
 *
 * Requests get increasing integer ids; each waits for the response with its own id
 * (J2). Server requests go to handlers registered with {@link onRequest}; `ping` is
 * answered `{}` and anything unhandled `-32601` (J3). Notifications go to listeners
 * (J4). Timeouts and aborts send `notifications/cancelled` (J5).
 *
 * Bounds on what the server can make it do (Y2): at most
 * `MAX_SERVER_REQUESTS_IN_FLIGHT` server requests are held at once (beyond it the
 * reply is error `RPC_TOO_MANY_REQUESTS`), at most `MAX_QUEUED_REFUSALS` error replies
 * wait to be sent (beyond it a request is dropped unanswered and logged), and at
 * most `MAX_REPLY_SENDS_IN_FLIGHT` replies are being sent at a time.
 */
export class JsonRpcSession {
  readonly #transport: Transport;
  readonly #name: string;
  readonly #log: Logger;
  readonly #pending = new Map<RequestId, Pending>();
  readonly #handlers = new Map<string, RequestHandler>();
  readonly #inbound = new Map<RequestId, AbortController>();
  readonly #listeners = new Set<NotificationListener>();
  readonly #closeListeners = new Set<(error: YadaError) => void>();
  // Y2: server requests accepted (handler running or reply unsent), refusals waiting
  // to be sent, replies being sent, and those waiting for a send slot.
  #serverRequests = 0;
  #refusals = 0;
  #sending = 0;
  #dropped = 0;
  readonly #replies: QueuedReply[] = [];
  #nextId = 1;
  // The one timer of every request bound, and when it fires (session clock, ms).
  #sweepTimer: ReturnType<typeof setTimeout> | undefined;
  #sweepAt = Infinity;
  #cancelNotifications = true;
  #closeError: YadaError | undefined;
  #started = false;

  constructor(transport: Transport, options: SessionOptions) {
    this.#transport = transport;
    this.#name = options.name;
    this.#log = options.logger ?? silentLogger;
  }

  /** The transport this session runs over. */
  get transport(): Transport {
    return this.#transport;
  }

  /** The id the next request will get: ids are integers that increase by one per request (J2). */
  get nextId(): number {
    return this.#nextId;
  }

  /** Why the session ended, or `undefined` while it is open. */
  get closeError(): YadaError | undefined {
    return this.#closeError;
  }

  /** Starts the transport; incoming messages flow from here on. */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    await this.#transport.start({
      message: (value) => this.#receive(value),
      requestError: (id, error) => this.#settle(id, undefined, error),
      closed: (error) => this.#onClosed(error),
      hold: (id, held) => this.#pending.get(id)?.hold?.(held),
    });
  }

  /**
   * Whether timeouts and aborts send `notifications/cancelled` (J5). Revision
   * 2026-07-28 over HTTP cancels by closing the response stream instead.
   */
  set cancelNotifications(enabled: boolean) {
    this.#cancelNotifications = enabled;
  }

  /** Registers the handler of a server-initiated request method (J3, H13). */
  onRequest(method: string, handler: RequestHandler): void {
    this.#handlers.set(method, handler);
  }

  /** Adds a notification listener (J4); returns a function that removes it. */
  onNotification(listener: NotificationListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Calls `listener` once when the session ends. */
  onClose(listener: (error: YadaError) => void): () => void {
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  /**
   * Sends a request and resolves with its `result`.
   *
   * @throws JsonRpcError (`jsonrpc`) when the server answers with an error object.
   * @throws TimeoutError (`timeout`) / CancelledError (`cancelled`): the server may still carry the call out.
   * @throws ConnectionClosedError (`connection_closed`) when the session ended; when it
   * had ended before this request was made, the error says `notSent` (W5: nothing left).
   * @throws LimitError (`limit`) beyond `MAX_PENDING_REQUESTS` requests in flight.
   */
  request(method: string, params?: Record<string, unknown>, options: RequestOptions = {}): Promise<Record<string, unknown>> {
    // W5: a new error for this request, which never left; the close error itself may concern requests that did.
    if (this.#closeError) return Promise.reject(refusedBefore(this.#closeError, `${this.#closeError.message} (${method} was not sent)`));
    if (this.#pending.size >= MAX_PENDING_REQUESTS) {
      return Promise.reject(
        new LimitError("MAX_PENDING_REQUESTS", MAX_PENDING_REQUESTS, `${this.#name}: more than ${MAX_PENDING_REQUESTS} requests in flight`),
      );
    }
    const signal = options.signal;
    if (signal?.aborted) {
      return Promise.reject(new CancelledError(`${this.#name}: ${method} was cancelled before it was sent`, { cause: signal.reason }));
    }
    const id = this.#nextId++;
    options.onId?.(id);
    let outParams = params;
    if (options.onProgress) {
      const meta = (params?._meta ?? {}) as Record<string, unknown>;
      outParams = { ...params, _meta: { ...meta, progressToken: id } };
    }
    const message: JsonRpcRequest = { jsonrpc: "2.0", id, method };
    if (outParams !== undefined) message.params = outParams;

    return new Promise<Record<string, unknown>>((resolve, reject) => {
      // Measured: an AbortController per request, aborted with the default
      // DOMException reason, was a third of the client's own time per stdio call;
      // only transports that stream responses need one, and a constant reason is free.
      // Aborted when the request settles, so the transport can stop reading for it;
      // a transport with `settled` is told so instead, which costs less again.
      const done = this.#transport.needsRequestSignal ? new AbortController() : undefined;
      const onAbort = signal
        ? (): void =>
            this.#abandon(
              id,
              "cancelled by the caller",
              new CancelledError(`${this.#name}: ${method} was cancelled; the server may still carry the call out`, { cause: signal.reason }),
            )
        : undefined;
      const pending: Pending = {
        method,
        onProgress: options.onProgress,
        deadline: Infinity,
        bound: 0,
        settle: (result, error) => {
          if (onAbort) signal?.removeEventListener("abort", onAbort);
          done?.abort(SETTLED);
          if (error) reject(error);
          else resolve(result ?? {});
        },
      };
      this.#pending.set(id, pending);
      if (onAbort) signal?.addEventListener("abort", onAbort, { once: true });

      // S6: the bound counts from when the request is handed to the transport.
      const timeoutMs = options.timeoutMs ?? null;
      if (timeoutMs !== null && Number.isFinite(timeoutMs)) {
        this.#arm(pending, timeoutMs, timeoutMs);
        let startedAt = clock();
        // A2, S6: while the request waits on the user (a login), its bound stops and
        // keeps what it had left. Only streaming transports hold (HTTP with auth), so
        // stdio calls skip the bookkeeping.
        let holds = 0;
        let left = 0;
        let heldSince = 0;
        if (done || this.#transport.settled) {
          pending.hold = (held) => {
            if (held) {
              if (holds++ > 0) return;
              heldSince = clock();
              left = Math.max(0, pending.deadline - heldSince);
              pending.deadline = Infinity;
            } else if (holds > 0 && --holds === 0) {
              startedAt += clock() - heldSince;
              this.#arm(pending, pending.bound, left);
            }
          };
        }
        const user = pending.onProgress;
        if (options.resetTimeoutOnProgress && user) {
          const hardMax = options.maxTotalTimeoutMs ?? DEFAULT_MAX_TOTAL_TIMEOUT_MS;
          // A held bound keeps waiting; progress then only sets what it resumes with.
          const rearm = (bound: number, ms: number): void => {
            if (holds === 0) return this.#arm(pending, bound, ms);
            pending.bound = bound;
            left = ms;
          };
          pending.onProgress = (p) => {
            const total = hardMax - (clock() - startedAt);
            if (total <= timeoutMs) rearm(hardMax, Math.max(0, total));
            else rearm(timeoutMs, timeoutMs);
            user(p);
          };
        }
      }
      const sendOptions: SendOptions | undefined =
        done || options.headers || options.longLived ? { signal: done?.signal, headers: options.headers, longLived: options.longLived } : undefined;
      const sent = this.#transport.send(message, sendOptions);
      if (options.onSent) {
        try {
          options.onSent();
        } catch {
          // the caller's own bookkeeping: never the request's failure
        }
      }
      if (sent !== HANDED_OVER) {
        sent.catch((error: unknown) =>
          this.#settle(
            id,
            undefined,
            error instanceof YadaError ? error : new ConnectionClosedError(`${this.#name}: ${method} could not be sent`, {}, { cause: error }),
          ),
        );
      }
    });
  }

  // The request fails after `ms`, reporting `bound` (its own bound, or the total one
  // once that is nearer). Every bound shares one timer, armed for the nearest
  // deadline but at most DEADLINE_SWEEP_MS ahead: measured, a setTimeout and a
  // clearTimeout per request were the session's largest cost on a stdio round trip.
  // A settled request leaves the timer be; a sweep that finds nothing timed stops.
  #arm(p: Pending, bound: number, ms: number): void {
    p.bound = bound;
    this.#wake((p.deadline = clock() + ms));
  }

  #wake(at: number): void {
    if (at >= this.#sweepAt || this.#closeError) return;
    clearTimeout(this.#sweepTimer);
    const now = clock();
    this.#sweepAt = Math.min(at, now + DEADLINE_SWEEP_MS);
    this.#sweepTimer = startTimer(() => this.#sweep(), Math.ceil(this.#sweepAt - now));
  }

  #sweep(): void {
    this.#sweepAt = Infinity;
    const now = clock();
    let next = Infinity;
    for (const [id, p] of this.#pending) {
      if (p.deadline > now) next = Math.min(next, p.deadline);
      else {
        const reason = `timed out after ${p.bound} ms`;
        this.#abandon(id, reason, new TimeoutError(`${this.#name}: ${p.method} ${reason}; the server may still carry the call out`, p.bound));
      }
    }
    this.#wake(next);
  }

  /**
   * Sends a notification.
   *
   * @throws ConnectionClosedError (`connection_closed`) when the session ended; any
   * transport error when the message could not be delivered.
   */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    if (this.#closeError) throw this.#closeError;
    const message: JsonRpcNotification = { jsonrpc: "2.0", method };
    if (params !== undefined) message.params = params;
    await this.#transport.send(message);
  }

  /** Closes the transport and fails everything still pending. Idempotent. */
  async close(): Promise<void> {
    if (!this.#closeError) {
      this.#onClosed(new ConnectionClosedError(`${this.#name}: connection closed`));
    }
    await this.#transport.close();
  }

  // A timeout or an abort: tells the server (J5), then fails the request with `error`.
  #abandon(id: RequestId, reason: string, error: YadaError): void {
    const pending = this.#pending.get(id);
    // The spec forbids cancelling initialize; a closed session has nobody to tell.
    if (pending && pending.method !== "initialize" && !this.#closeError && this.#cancelNotifications) {
      this.notify("notifications/cancelled", { requestId: id, reason: truncate(reason, MAX_CANCEL_REASON_CHARS) }).catch((e: unknown) =>
        this.#note("debug", "notifications/cancelled could not be sent", e),
      );
    }
    this.#settle(id, undefined, error);
  }

  #settle(id: RequestId, result: Record<string, unknown> | undefined, error: YadaError | undefined): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    this.#transport.settled?.(id);
    pending.settle(result, error);
  }

  #onClosed(error: YadaError): void {
    if (this.#closeError) return;
    this.#closeError = error;
    clearTimeout(this.#sweepTimer);
    for (const id of [...this.#pending.keys()]) this.#settle(id, undefined, error);
    for (const controller of this.#inbound.values()) controller.abort(error);
    this.#inbound.clear();
    this.#replies.length = 0;
    for (const listener of this.#closeListeners) {
      try {
        listener(error);
      } catch (e) {
        this.#note("warn", "close listener threw", e);
      }
    }
  }

  #receive(value: unknown): void {
    let incoming;
    try {
      incoming = classifyMessage(value);
    } catch (e) {
      // J1: an invalid message is reported and dropped, never a crash.
      this.#note("warn", "dropped an invalid JSON-RPC message", (e as Error).message);
      // J2: a malformed answer that names a request in flight fails that request at
      // once (its id read with its type: "2" never names request 2), instead of
      // leaving it to wait for an answer that will not come.
      const id = typeof value === "object" && value !== null && !("method" in value) ? (value as { id?: unknown }).id : undefined;
      const pending = (typeof id === "string" || typeof id === "number") && this.#pending.get(id);
      if (pending) this.#settle(id as RequestId, undefined, new ProtocolError(`${this.#name}: ${pending.method}: the answer is not a valid JSON-RPC response (${(e as Error).message})`));
      return;
    }
    if (incoming.kind !== "response") {
      if (incoming.kind === "notification") this.#onNotification(incoming.message);
      else void this.#onRequest(incoming.message);
      return;
    }
    const m = incoming.message;
    if (m.id === null) {
      const err = (m as JsonRpcFailure).error;
      this.#log("warn", "server sent an error without an id", { server: this.#name, code: err.code, message: truncate(err.message, MAX_QUOTED_TEXT_CHARS) });
      return;
    }
    const pending = this.#pending.get(m.id);
    if (!pending) {
      // J2: a response for an unknown or timed-out id.
      this.#log("debug", "dropped a response for an unknown id", { server: this.#name, id: m.id });
      return;
    }
    if ("error" in m) {
      const e = m.error;
      this.#settle(m.id, undefined, new JsonRpcError(`${this.#name}: ${pending.method}`, e.code, truncate(e.message, MAX_RPC_ERROR_MESSAGE_CHARS), e.data));
    } else {
      this.#settle(m.id, m.result, undefined);
    }
  }

  #onNotification(n: JsonRpcNotification): void {
    const params = n.params;
    if (n.method === "notifications/progress") {
      const token = params?.progressToken;
      const pending = isRequestId(token) ? this.#pending.get(token) : undefined;
      if (pending?.onProgress && typeof params?.progress === "number") {
        const p: Progress = { progress: params.progress };
        if (typeof params.total === "number") p.total = params.total;
        if (typeof params.message === "string") p.message = params.message;
        try {
          pending.onProgress(p);
        } catch (e) {
          this.#note("warn", "progress callback threw", e);
        }
      }
    } else if (n.method === "notifications/cancelled") {
      const id = params?.requestId;
      if (isRequestId(id)) this.#inbound.get(id)?.abort(new CancelledError("cancelled by the server"));
    }
    for (const listener of this.#listeners) {
      try {
        listener(n.method, params);
      } catch (e) {
        this.#note("warn", "notification listener threw", e, n.method);
      }
    }
  }

  async #onRequest(r: JsonRpcRequest): Promise<void> {
    const handler = this.#handlers.get(r.method) ?? (r.method === "ping" ? () => ({}) : undefined);
    if (!handler) {
      // J3: answer so the server never waits on us.
      this.#log("warn", "declined a server request with no handler", { server: this.#name, method: r.method });
      this.#refuse(r, RPC.METHOD_NOT_FOUND, "Method not found");
      return;
    }
    // Y2: a server request holds a slot until its reply is sent, so a server that
    // floods requests and never reads its answers holds at most this many.
    if (this.#serverRequests >= MAX_SERVER_REQUESTS_IN_FLIGHT) {
      this.#refuse(r, RPC_TOO_MANY_REQUESTS, `Too many requests in flight (at most ${MAX_SERVER_REQUESTS_IN_FLIGHT})`);
      return;
    }
    this.#serverRequests++;
    const release = (): void => void this.#serverRequests--;
    const controller = new AbortController();
    this.#inbound.set(r.id, controller);
    let answer: Answer;
    try {
      answer = { result: await handler(r.params, { id: r.id, signal: controller.signal }) };
    } catch (e) {
      const isReply = e instanceof RpcErrorReply;
      if (!isReply && !controller.signal.aborted) this.#note("warn", "a server request handler threw", e, r.method);
      answer = {
        error: isReply
          ? { code: e.rpcCode, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) }
          : { code: RPC.INTERNAL_ERROR, message: handlerFailure(e) },
      };
    } finally {
      this.#inbound.delete(r.id);
    }
    // Cancelled by the server, or the session ended: no answer is due.
    if (controller.signal.aborted || this.#closeError) release();
    else this.#reply(r.id, answer, release);
  }

  // An error answer without running a handler. Refusals wait for a send slot like
  // any reply; beyond MAX_QUEUED_REFUSALS waiting, the request is dropped unanswered
  // (Y2: never queued without bound) and logged once per 1,000.
  #refuse(r: JsonRpcRequest, code: number, message: string): void {
    if (this.#refusals >= MAX_QUEUED_REFUSALS) {
      if (this.#dropped++ % 1000 === 0) {
        this.#log("warn", "dropped server requests unanswered: too many replies waiting", { server: this.#name, method: r.method, dropped: this.#dropped });
      }
      return;
    }
    this.#refusals++;
    this.#reply(r.id, { error: { code, message } }, () => void this.#refusals--);
  }

  // Replies go out at most MAX_REPLY_SENDS_IN_FLIGHT at a time (Y2): a stdio write
  // counts until the pipe took it, an HTTP reply until its POST was answered.
  #reply(id: RequestId, answer: Answer, done: () => void): void {
    if (this.#closeError) return done();
    this.#replies.push({ id, answer, done });
    this.#pump();
  }

  #pump(): void {
    while (this.#sending < MAX_REPLY_SENDS_IN_FLIGHT && this.#replies.length > 0 && !this.#closeError) {
      const next = this.#replies.shift() as QueuedReply;
      this.#sending++;
      const settled = (): void => {
        this.#sending--;
        next.done();
        this.#pump();
      };
      let sent: Promise<void>;
      try {
        sent = this.#transport.send({ jsonrpc: "2.0", id: next.id, ...next.answer });
      } catch (e) {
        sent = Promise.reject(e);
      }
      sent.then(settled, (e: unknown) => {
        this.#note("debug", "a reply could not be sent", e);
        settled();
      });
    }
  }

  #note(level: LogLevel, message: string, error: unknown, method?: string): void {
    this.#log(level, message, { server: this.#name, ...(method !== undefined && { method }), error: String(error) });
  }
}

/**
 * The message a server gets when a host handler failed (V6): a yada error's own
 * message (those name the rule and the path, never a value), cut at
 * MAX_QUOTED_TEXT_CHARS; anything else as a plain internal error, since a host's
 * own error text may hold anything.
 */
function handlerFailure(e: unknown): string {
  return e instanceof YadaError ? `Internal error: ${e.message}`.slice(0, MAX_QUOTED_TEXT_CHARS) : "Internal error";
}
