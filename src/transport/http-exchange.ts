/**
 * One HTTP exchange of the Streamable HTTP transport: its abort controller (linked
 * to the caller's signal and to the transport's close), its idle read bound (H5)
 * and bounded body reads.
 *
 * @module
 */
import { LimitError, type YadaError } from "../errors.js";
import { concatBytes } from "../util/bytes.js";

/** Why an exchange was aborted. */
export type AbortCause = "idle" | "caller" | "closed";

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
  readonly #controller = new AbortController();
  readonly #idleMs: number | undefined;
  readonly #onIdle: () => YadaError;
  readonly #unlink: Array<() => void> = [];
  #unlinkCaller: (() => void) | undefined;
  #last = performance.now();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #suspended = false;
  #disarmed = false;
  #cause: AbortCause | undefined;
  #error: YadaError | undefined;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;

  constructor(idleMs: number | undefined, caller: AbortSignal | undefined, closer: AbortSignal, onIdle: () => YadaError) {
    this.signal = this.#controller.signal;
    this.#idleMs = idleMs;
    this.#onIdle = onIdle;
    this.#link(closer, "closed");
    if (caller) this.#unlinkCaller = this.#link(caller, "caller");
    if (idleMs !== undefined && this.#cause === undefined) this.#timer = setTimeout(this.#check, idleMs);
  }

  #link(signal: AbortSignal, cause: AbortCause): (() => void) | undefined {
    if (signal.aborted) {
      this.abort(cause);
      return undefined;
    }
    const onAbort = (): void => this.abort(cause);
    signal.addEventListener("abort", onAbort, { once: true });
    const unlink = (): void => signal.removeEventListener("abort", onAbort);
    this.#unlink.push(unlink);
    return unlink;
  }

  /**
   * Stops following the caller's signal. Called when the awaited response arrives:
   * the session then settles the request and aborts that signal, but the rest of
   * the stream is still read for a moment (H4: trailing frames, connection reuse).
   */
  detachCaller(): void {
    this.#unlinkCaller?.();
    this.#unlinkCaller = undefined;
  }

  #check = (): void => {
    this.#timer = undefined;
    if (this.#cause !== undefined || this.#idleMs === undefined || this.#disarmed) return;
    const idle = performance.now() - this.#last;
    if (this.#suspended || idle < this.#idleMs) {
      this.#timer = setTimeout(this.#check, this.#suspended ? this.#idleMs : this.#idleMs - idle);
      return;
    }
    this.#error = this.#onIdle();
    this.abort("idle");
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
    this.#disarmed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Aborts the exchange (idempotent); a body being read is cancelled too. */
  abort(cause: AbortCause): void {
    if (this.#cause !== undefined) return;
    this.#cause = cause;
    this.#controller.abort();
    // A custom fetch may ignore the signal once the body is flowing.
    this.#reader?.cancel().catch(() => {});
  }

  /** Why the exchange was aborted, if it was. */
  get cause(): AbortCause | undefined {
    return this.#cause;
  }

  /** The TimeoutError of an idle expiry, if that is what ended the exchange. */
  get idleError(): YadaError | undefined {
    return this.#error;
  }

  /** Takes the reader of a response body so an abort cancels it. */
  reader(body: ReadableStream<Uint8Array>): ReadableStreamDefaultReader<Uint8Array> {
    const reader = body.getReader();
    this.#reader = reader;
    if (this.#cause !== undefined) reader.cancel().catch(() => {});
    return reader;
  }

  /** Releases the timer, the signal listeners and the body (cancelled if unread). Idempotent. */
  finish(): void {
    this.disarm();
    for (const f of this.#unlink.splice(0)) f();
    this.#reader?.cancel().catch(() => {});
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
  if (body === null) return new Uint8Array(0);
  const reader = ex.reader(body);
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const r = await reader.read();
    ex.touch();
    if (r.done) break;
    total += r.value.length;
    if (total > max) {
      reader.cancel().catch(() => {});
      throw new LimitError(limit, max, `an HTTP answer body exceeds ${max} bytes`);
    }
    parts.push(r.value);
  }
  return concatBytes(parts);
}

/** The media type of a response, lowercased, without parameters ("" when absent). */
export function mediaType(res: Response): string {
  const v = res.headers.get("content-type");
  if (v === null) return "";
  const semi = v.indexOf(";");
  return (semi === -1 ? v : v.slice(0, semi)).trim().toLowerCase();
}
