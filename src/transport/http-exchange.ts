/**
 * One HTTP exchange of the Streamable HTTP transport: its abort controller (linked
 * to the caller's signal and to the transport's close), its idle read bound (H5),
 * bounded body reads, and the error that reports how it ended.
 *
 * @module
 */
import { MAX_QUOTED_TEXT_CHARS } from "../limits.js";
import { startTimer } from "../util/sleep.js";
import { LimitError, TimeoutError, TransportError, YadaError } from "../errors.js";
import { concatBytes } from "../util/bytes.js";

/** Why an exchange was aborted. */
export type AbortCause = "idle" | "caller" | "closed";

const ignore = (): void => {};

// Y8: every exchange follows its transport's close signal. One listener per close
// signal aborts them all, so 16 calls in flight do not add 16 listeners to one
// AbortSignal (Node warns past 10, as for a leak).
const closeGroups = new WeakMap<AbortSignal, Set<() => void>>();
function onSharedAbort(signal: AbortSignal, onAbort: () => void): () => void {
  let group = closeGroups.get(signal);
  if (group === undefined) {
    const members = (group = new Set());
    closeGroups.set(signal, members);
    signal.addEventListener("abort", () => {
      for (const f of [...members]) f();
      members.clear();
    }, { once: true });
  }
  group.add(onAbort);
  const members = group;
  return () => void members.delete(onAbort);
}

/**
 * Abort controller plus idle timer of one request / response (H5). The timer is
 * armed from the moment the exchange starts (a server that never sends headers is
 * bounded too) and pushed back by {@link Exchange.touch} on every read. A single
 * timer is re-armed lazily instead of being reset per chunk: a read costs one clock
 * sample, not a clearTimeout + setTimeout pair.
 */
export class Exchange {
  /** Pass to fetch; aborted on idle expiry, caller abort or transport close. */
  readonly signal: AbortSignal;
  /** Why the exchange was aborted, if it was; set once, by {@link Exchange.abort}. */
  cause: AbortCause | undefined;
  readonly #controller = new AbortController();
  readonly #idleMs: number;
  readonly #caller: AbortSignal | undefined;
  /** "HTTP server <url>" and what the exchange carries, for its error messages. */
  readonly #description: string;
  readonly #what: string;
  #last = performance.now();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #suspended = false;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #leaveCloser: () => void = ignore;
  /** The caller's abort still aborts the exchange (until {@link Exchange.detachCaller}). */
  #following = false;

  constructor(idleMs: number, caller: AbortSignal | undefined, closer: AbortSignal | undefined, description: string, what: string) {
    this.signal = this.#controller.signal;
    this.#idleMs = idleMs;
    this.#caller = caller;
    this.#description = description;
    this.#what = what;
    if (closer?.aborted) this.#onClose();
    else if (closer) this.#leaveCloser = onSharedAbort(closer, this.#onClose);
    if (caller?.aborted) this.abort("caller");
    else if (caller) {
      this.#following = true;
      caller.addEventListener("abort", this.#onCaller, { once: true });
    }
    if (this.cause === undefined) this.#timer = startTimer(this.#check, idleMs);
  }

  #onClose = (): void => this.abort("closed");
  #onCaller = (): void => {
    if (this.#following) this.abort("caller");
  };

  /**
   * Stops following the caller's signal. Called when the awaited response arrives:
   * the session then settles the request and aborts that signal, but the rest of
   * the stream is still read for a moment (H4: trailing frames, connection reuse).
   * The listener stays until that abort (`once`) or {@link Exchange.finish}: measured,
   * removing it here cost more than the rest of the exchange's own bookkeeping.
   */
  detachCaller(): void {
    this.#following = false;
  }

  #check = (): void => {
    if (this.cause !== undefined) return;
    const idle = performance.now() - this.#last;
    if (this.#suspended || idle < this.#idleMs) {
      this.#timer = startTimer(this.#check, this.#suspended ? this.#idleMs : this.#idleMs - idle);
    } else this.abort("idle");
  };

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
    clearTimeout(this.#timer);
  }

  /** Aborts the exchange (idempotent); a body being read is cancelled too. */
  abort(cause: AbortCause): void {
    if (this.cause !== undefined) return;
    this.cause = cause;
    this.#controller.abort();
    // A custom fetch may ignore the signal once the body is flowing.
    this.#reader?.cancel().catch(ignore);
  }

  /**
   * The error to report for what ended the exchange: the TimeoutError of an idle
   * expiry, `e` itself when it is a YadaError, else a TransportError carrying the
   * cause's own words. Undefined when the caller or close() aborted it (the session
   * already knows).
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
    return new TransportError(`${this.#description}: the HTTP exchange for ${what} failed: ${reason.slice(0, MAX_QUOTED_TEXT_CHARS)}`, { cause: e });
  }

  /** Takes the reader of a response body so an abort cancels it. */
  reader(body: ReadableStream<Uint8Array>): ReadableStreamDefaultReader<Uint8Array> {
    const reader = (this.#reader = body.getReader());
    if (this.cause !== undefined) reader.cancel().catch(ignore);
    return reader;
  }

  /** Releases the timer, the signal listeners and the body (cancelled if unread). Idempotent. */
  finish(): void {
    this.disarm();
    this.#leaveCloser();
    this.#following = false;
    // An aborted signal has dropped its `once` listener already.
    if (this.#caller?.aborted === false) this.#caller.removeEventListener("abort", this.#onCaller);
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
    if (!r || r.done) return concatBytes(parts);
    total += r.value.length;
    // Past the bound the reader is cancelled by finish(), which every caller runs.
    if (total > max) throw new LimitError(limit, max, `an HTTP answer body exceeds ${max} bytes`);
    parts.push(r.value);
  }
}

/** The media type of a response, lowercased, without parameters ("" when absent). */
export function mediaType(res: Response): string {
  return (res.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** Cancels a body nobody will read, so the connection is released. */
export function cancelBody(res: Response): void {
  res.body?.cancel().catch(ignore);
}
