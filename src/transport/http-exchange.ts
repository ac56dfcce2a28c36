/**
 * One HTTP exchange of the Streamable HTTP transport: its abort controller (linked
 * to the caller's signal and to the transport's close), its idle read bound (H5),
 * bounded body reads, and the error that reports how it ended.
 *
 * @module
 */
import { HTTP_BOUND_SWEEP_MS, MAX_QUOTED_TEXT_CHARS } from "../limits.js";
import { startTimer } from "../util/sleep.js";
import { HttpError, LimitError, TimeoutError, TransportError, YadaError } from "../errors.js";
import { concatBytes } from "../util/bytes.js";
import { neverConnected } from "./not-sent.js";

/** Why an exchange was aborted. */
export type AbortCause = "idle" | "caller" | "closed";

const ignore = (): void => {};

/**
 * The live exchanges of one transport (those following one close signal), and the
 * one timer that bounds them all (H4, H5, Y8). Measured: a setTimeout and a
 * clearTimeout per exchange (idle bound) plus another pair for the trailing read
 * were a larger part of an HTTP round trip than the rest of the exchange's own
 * bookkeeping. The timer is armed for the nearest deadline but at most
 * `HTTP_BOUND_SWEEP_MS` ahead, so it is left armed when exchanges end and stops by
 * itself within that time once none is live. One listener on the close signal
 * aborts them all: 16 calls in flight do not add 16 listeners to one AbortSignal
 * (Node warns past 10, as for a leak).
 */
interface Watch {
  /** Bounds `ex`, due by `at` (performance.now() time). */
  add(ex: Exchange, at: number): void;
  remove(ex: Exchange): void;
  /** Makes sure the timer fires by `at`. */
  wake(at: number): void;
}

// A closure, not a class: the web bundle keeps `#private` names verbatim.
function createWatch(closer: AbortSignal | undefined): Watch {
  const live = new Set<Exchange>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let armedAt = Infinity;
  // A timer left armed while no exchange is live must not keep the runtime from exiting (Node, Deno).
  const hold = (on: boolean): void => (timer as { ref?: () => void; unref?: () => void } | undefined)?.[on ? "ref" : "unref"]?.();
  const wake = (at: number): void => {
    if (at >= armedAt) return;
    clearTimeout(timer);
    const now = performance.now();
    armedAt = Math.min(at, now + HTTP_BOUND_SWEEP_MS);
    timer = startTimer(sweep, armedAt - now);
  };
  const sweep = (): void => {
    armedAt = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const ex of live) next = Math.min(next, ex.due(now));
    if (next < Infinity) wake(next);
  };
  closer?.addEventListener(
    "abort",
    () => {
      clearTimeout(timer);
      armedAt = Infinity;
      for (const ex of [...live]) ex.abort("closed");
    },
    { once: true },
  );
  return {
    add(ex, at) {
      if (live.size === 0) hold(true);
      live.add(ex);
      wake(at);
    },
    remove(ex) {
      if (live.delete(ex) && live.size === 0) hold(false);
    },
    wake,
  };
}

// One Watch per close signal, i.e. per transport.
const watches = new WeakMap<AbortSignal, Watch>();

/**
 * Abort controller plus idle bound of one request / response (H5). The bound runs
 * from the moment the exchange starts (a server that never sends headers is bounded
 * too) and is pushed back by {@link Exchange.touch} on every read: a read costs one
 * clock sample, the transport's {@link Watch} timer does the rest.
 */
export class Exchange {
  /** Pass to fetch; aborted on idle expiry, caller abort or transport close. */
  readonly signal: AbortSignal;
  /** Why the exchange was aborted, if it was; set once, by {@link Exchange.abort}. */
  cause: AbortCause | undefined;
  readonly #controller = new AbortController();
  readonly #idleMs: number;
  readonly #caller: AbortSignal | undefined;
  readonly #watch: Watch;
  /** "HTTP server <url>" and what the exchange carries, for its error messages. */
  readonly #description: string;
  readonly #what: string;
  #last = performance.now();
  /** A fixed end (the trailing read, H4) instead of the idle bound; Infinity once disarmed. */
  #until: number | undefined;
  #suspended = false;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** The caller's abort still aborts the exchange (until {@link Exchange.detachCaller}). */
  #following = false;

  constructor(idleMs: number, caller: AbortSignal | undefined, closer: AbortSignal | undefined, description: string, what: string) {
    this.signal = this.#controller.signal;
    this.#idleMs = idleMs;
    this.#caller = caller;
    this.#description = description;
    this.#what = what;
    let watch = closer && watches.get(closer);
    if (watch === undefined) {
      watch = createWatch(closer);
      if (closer) watches.set(closer, watch);
    }
    this.#watch = watch;
    if (closer?.aborted) this.abort("closed");
    else if (caller?.aborted) this.abort("caller");
    else {
      if (caller) {
        this.#following = true;
        caller.addEventListener("abort", this, { once: true });
      }
      watch.add(this, this.#last + idleMs);
    }
  }

  /**
   * The caller's signal aborted: the exchange is, unless detached. The exchange is
   * its own listener object (DOM `handleEvent`), so one without a caller signal, the
   * usual case, builds no closure.
   */
  handleEvent(): void {
    if (this.#following) this.abort("caller");
  }

  /**
   * Stops following the caller's signal. Called when the awaited response arrives:
   * the caller then settles the request and may abort that signal, but the rest of
   * the stream is still read for a moment (H4: trailing frames, connection reuse).
   * The listener stays until that abort (`once`) or {@link Exchange.finish}: measured,
   * removing it here cost more than the rest of the exchange's own bookkeeping.
   */
  detachCaller(): void {
    this.#following = false;
  }

  /**
   * For the {@link Watch}: aborts the exchange once its bound passed (idle: "idle";
   * the end of the trailing read: "closed"); else when it is due, Infinity for never.
   */
  due(now: number): number {
    const until = this.#until;
    if (until !== undefined) {
      if (now < until) return until;
      this.abort("closed");
      return Infinity;
    }
    // The client itself waits (a retry delay, a login): looked at again an idle bound later.
    if (this.#suspended) return now + this.#idleMs;
    const at = this.#last + this.#idleMs;
    if (now < at) return at;
    this.abort("idle");
    return Infinity;
  }

  /** Something arrived (or a wait ended): the idle bound restarts. */
  touch(): void {
    this.#last = performance.now();
    this.#suspended = false;
  }

  /** Stops the idle clock until the next {@link Exchange.touch} (the client itself waits: a `retry` delay). */
  suspend(): void {
    this.#suspended = true;
  }

  /** Ends the idle bound for good (a GET stream may stay quiet for hours). */
  disarm(): void {
    this.#until = Infinity;
  }

  /** Replaces the idle bound by a fixed end `ms` from now, where the exchange is aborted as "closed" (H4). */
  endIn(ms: number): void {
    this.#until = performance.now() + ms;
    if (this.cause === undefined) this.#watch.wake(this.#until);
  }

  /** Aborts the exchange (idempotent); a body being read is cancelled too. */
  abort(cause: AbortCause): void {
    if (this.cause !== undefined) return;
    this.cause = cause;
    this.#watch.remove(this);
    this.#controller.abort();
    // A custom fetch may ignore the signal once the body is flowing.
    this.#reader?.cancel().catch(ignore);
  }

  /**
   * The error to report for what ended the exchange: the TimeoutError of an idle
   * expiry, `e` itself when it is a YadaError, else a TransportError carrying the
   * cause's own words, which says `notSent` when no connection was ever made (refused,
   * or a name that did not resolve: W5). Undefined when the caller or close() aborted
   * it (the session already knows).
   */
  error(e: unknown): YadaError | undefined {
    const what = this.#what;
    if (this.cause === "idle") {
      return new TimeoutError(
        `${this.#description}: nothing arrived for ${this.#idleMs} ms while waiting for ${what}; the server may still carry it out`,
        this.#idleMs,
      );
    }
    if (this.cause !== undefined) return undefined;
    if (e instanceof YadaError) return e;
    // The cause's own words (e.g. "connection refused", a runtime's permission error)
    // say why; fetch errors carry no header values.
    const reason = e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e);
    // H11: fetch is called with `redirect: "error"`, so a redirect ends it; Node and Deno
    // say so in the error (a browser's "failed to fetch" stays a transport error).
    if (e instanceof TypeError && /redirect/i.test(reason)) return new HttpError(0, `${this.#description}: ${what} got a redirect, which is refused`);
    return new TransportError(`${this.#description}: the HTTP exchange for ${what} failed: ${reason.slice(0, MAX_QUOTED_TEXT_CHARS)}`, { cause: e, notSent: neverConnected(e) });
  }

  /** Takes the reader of a response body so an abort cancels it. */
  reader(body: ReadableStream<Uint8Array>): ReadableStreamDefaultReader<Uint8Array> {
    const reader = (this.#reader = body.getReader());
    if (this.cause !== undefined) reader.cancel().catch(ignore);
    return reader;
  }

  /**
   * The body was read to its end: {@link Exchange.finish} has nothing to cancel
   * (cancelling a finished reader still costs two promises).
   */
  ended(): void {
    this.#reader = undefined;
  }

  /** Releases the bound, the signal listener and the body (cancelled if unread). Idempotent. */
  finish(): void {
    this.#watch.remove(this);
    this.#following = false;
    // An aborted signal has dropped its `once` listener already.
    if (this.#caller?.aborted === false) this.#caller.removeEventListener("abort", this);
    this.#reader?.cancel().catch(ignore);
    this.#reader = undefined;
  }
}

/**
 * Reads a whole body, touching the exchange on every chunk, refusing more than
 * `max` bytes.
 *
 * @throws LimitError (`limit`, named `limit`) past `max` bytes.
 */
export async function readBody(
  body: ReadableStream<Uint8Array> | null,
  ex: Exchange,
  max: number,
  limit: string,
): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  const reader = body && ex.reader(body);
  let total = 0;
  for (;;) {
    const r = await reader?.read();
    ex.touch();
    if (!r || r.done) {
      ex.ended();
      return concatBytes(parts);
    }
    total += r.value.length;
    // Past the bound the reader is cancelled by finish(), which every caller runs.
    if (total > max) throw new LimitError(limit, max, `an HTTP answer body exceeds ${max} bytes`);
    parts.push(r.value);
  }
}

/** The media type of a response, lowercased, without parameters ("" when absent). */
export function mediaType(res: Response): string {
  const type = res.headers.get("content-type") ?? "";
  // The two types servers send, as they send them, skip the three string copies.
  if (type === "text/event-stream" || type === "application/json") return type;
  return type.split(";")[0]?.trim().toLowerCase() ?? "";
}

/**
 * H11: the redirect mode every MCP request asks of fetch. `"error"` stops the fetch at
 * a redirect, and spares it the copy of each request body that `"manual"` makes
 * (measured: about a fifth of the client's time with 16 calls in flight). Cloudflare
 * Workers refuses `"error"`: there a redirect comes back as a 3xx answer, refused.
 */
export const REDIRECT_MODE: "error" | "manual" =
  (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent === "Cloudflare-Workers" ? "manual" : "error";

/** Cancels a body nobody will read, so the connection is released. */
export function cancelBody(res: Response): void {
  res.body?.cancel().catch(ignore);
}
