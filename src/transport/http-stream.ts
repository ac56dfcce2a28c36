/**
 * Event streams of the Streamable HTTP transport (H2, H3, H4, H12): reading an SSE
 * answer until the awaited response, resuming a POST stream that ended before it
 * with `Last-Event-ID`, and the GET stream of server-initiated messages. The
 * transport hands its state in through a {@link StreamHost}; parsers are reused
 * across answers.
 *
 * Closures rather than classes: the web bundle keeps `#private` names verbatim.
 *
 * @module
 */
import { HttpError, ProtocolError, SessionExpiredError, TransportError, YadaError } from "../errors.js";
import type { RequestId } from "../jsonrpc/messages.js";
import { DEFAULT_SSE_RETRY_MS, MAX_QUOTED_CHARS, MAX_QUOTED_TEXT_CHARS, MAX_SPARE_SSE_PARSERS, MAX_SSE_RETRY_MS } from "../limits.js";
import type { Logger } from "../log.js";
import { sleep } from "../util/sleep.js";
import { trail } from "./http-answer.js";
import { cancelBody, type Exchange } from "./http-exchange.js";
import { isPlainHeaderValue } from "./http-headers.js";
import { createSseParser, type SseEvent, type SseParser } from "./sse.js";
import { decodeJson } from "../jsonrpc/messages.js";

/** What one stream reader tracks: the awaited response, progress, the resumption cursor. */
export interface StreamState {
  /** The request whose response ends the wait; undefined on the GET stream. */
  readonly id: RequestId | undefined;
  /** The response to `id` was delivered. */
  found: boolean;
  /** Frames delivered so far (H12 counts resumptions that bring nothing). */
  delivered: number;
  /** The stream's last event id ("" when none), sent back as Last-Event-ID. */
  lastId: string;
  /** The server's last `retry` value, clamped to `MAX_SSE_RETRY_MS`. */
  retryMs?: number;
  /** Called once bytes arrived (a notification's answer stream must not be empty, H8). */
  onBytes?: () => void;
}

/** An SSE parser, reused across answers, and the stream it reads now (see `reading`). */
interface Reading {
  readonly parser: SseParser;
  state: StreamState;
  ex: Exchange;
  /** Resets the parser and keeps it for another stream; called once per stream. */
  readonly release: () => void;
}

/** What the stream readers need of their transport. */
export interface StreamHost {
  /** Largest SSE event, in bytes. */
  readonly maxEventBytes: number;
  /** Resumptions in a row that deliver nothing before giving up (H12). */
  readonly maxResumes: number;
  /** Revision 2026-07-28 or later: no GET stream, no resumption. */
  modern(): boolean;
  /** The session id now (H6). */
  session(): string | undefined;
  /** Hands a decoded body or event to the sink; notes the awaited response in `state`. */
  deliverFrames(value: unknown, state: StreamState, ex: Exchange): void;
  /** GETs the endpoint for an event stream, replaying `lastId` unless "". */
  get(lastId: string, ex: Exchange): Promise<Response>;
  /** Refuses a GET answer that is not a 2xx event stream (H7, H12). */
  checkEventStream(res: Response, sentSession: string | undefined, what: string): void;
  /** Counts a background task, which close() waits for. */
  track(task: Promise<unknown>): void;
  /** "HTTP server ...": starts every message. */
  readonly description: string;
  /** The transport's diagnostics sink. */
  readonly log: Logger;
}

/** The stream readers of one transport (see {@link createStreams}). */
export interface Streams {
  /**
   * Reads an SSE body (H2), delivering every frame. Resolves true once the awaited
   * response arrived: the rest of the stream is then read in the background for at
   * most `HTTP_TRAILING_READ_MS` (H4) and the exchange is finished there. Resolves
   * false when the stream ended or broke first (resumable, H12). Rejects with a
   * LimitError (`limit`) for an oversized event, and when the exchange is aborted.
   */
  read(body: ReadableStream<Uint8Array> | null, ex: Exchange, state: StreamState): Promise<boolean>;
  /**
   * A POST stream ended before its response: re-GET it with Last-Event-ID after the
   * server's retry delay until the response arrives (H12; spec 2025-11-25
   * "Resumability and Redelivery"). Resolves true once it did (see `read`).
   * Throws TransportError (`transport`) when the stream carried no event id, or the
   * resumptions in a row that delivered nothing reached the bound; ProtocolError
   * (`protocol`) when the resumed answer is not an event stream; a refused or
   * unreachable resumption as a TransportError that says the outcome is unknown (W5).
   */
  resume(ex: Exchange, state: StreamState, what: string, sentSession: string | undefined): Promise<boolean>;
  /**
   * Runs the GET stream for server-initiated messages until `signal` aborts, the
   * server refuses it (405 is logged at info, other refusals at warn) or it ends for
   * good. A stream that ends after the server sent an event id or a `retry` field is
   * re-opened with Last-Event-ID after the retry delay, at most `maxResumes`
   * times in a row without a delivered message. Never rejects.
   */
  inbound(signal: AbortSignal, exchange: (signal: AbortSignal, what: string) => Exchange): Promise<void>;
}

/** The stream readers over `host`, with their spare parsers (at most `MAX_SPARE_SSE_PARSERS`). */
export function createStreams(host: StreamHost): Streams {
  const spare: Reading[] = [];
  const msg = (text: string): string => `${host.description}: ${text}`;
  const note = (level: "debug" | "info" | "warn", text: string, data?: Record<string, unknown>): void => host.log(level, msg(text), data);

  const onEvent = (event: SseEvent, state: StreamState, ex: Exchange): void => {
    if (event.data === "") return; // a priming event (spec 2025-11-25): only its id matters
    if (event.type !== "message") {
      note("debug", `skipped an SSE event of type ${event.type.slice(0, MAX_QUOTED_CHARS)}`);
      return;
    }
    let value: unknown;
    try {
      value = decodeJson(event.data);
    } catch {
      note("warn", "skipped an SSE event whose data is not JSON");
      return;
    }
    host.deliverFrames(value, state, ex);
  };

  /**
   * A parser for one SSE stream of `ex`: a spare one when there is one. Measured:
   * building a parser and its callbacks per answer was a fifth of what the client
   * allocates per call beyond the fetch itself. A parser is released once (when its
   * stream is done, trailing read included) and reset before it is reused.
   */
  const reading = (state: StreamState, ex: Exchange): Reading => {
    const kept = spare.pop();
    if (kept !== undefined) {
      kept.state = state;
      kept.ex = ex;
      return kept;
    }
    const r: Reading = {
      state,
      ex,
      parser: createSseParser({
        maxEventBytes: host.maxEventBytes,
        onRetry: (ms) => {
          r.state.retryMs = Math.min(ms, MAX_SSE_RETRY_MS);
        },
        onEvent: (event) => onEvent(event, r.state, r.ex),
      }),
      release: () => {
        r.parser.reset();
        if (spare.length < MAX_SPARE_SSE_PARSERS) spare.push(r);
      },
    };
    return r;
  };

  const read = async (body: ReadableStream<Uint8Array> | null, ex: Exchange, state: StreamState): Promise<boolean> => {
    if (body === null) return false;
    const reader = ex.reader(body);
    const r = reading(state, ex);
    const parser = r.parser;
    let trailing = false;
    try {
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (e) {
          if (ex.cause !== undefined) throw e;
          note("debug", "an event stream broke", { error: e instanceof Error ? e.name : "unknown" });
          return false;
        }
        ex.signal.throwIfAborted();
        ex.touch();
        // At the end an event without its blank line is dropped (WHATWG), as the parser goes too.
        if (chunk.done) {
          ex.ended();
          return false;
        }
        parser.feed(chunk.value);
        if (chunk.value.length > 0) state.onBytes?.();
        if (state.found) {
          trailing = true;
          host.track(trail(reader, parser.feed, ex, r.release));
          return true;
        }
      }
    } finally {
      if (!trailing) {
        // Only a stream that ended before its response is resumed (or the GET stream):
        // one found needs no cursor, and decoding it has a cost.
        if (!state.found && parser.lastEventId !== "") state.lastId = parser.lastEventId;
        r.release();
      }
    }
  };

  /**
   * W5: the request was taken (its POST was answered), so a refused or unreachable
   * resumption must not look like a request that never left: a 401 / 403 or a
   * refused connection is reported as a TransportError that carries neither the
   * status nor the connection error (nor `notSent`). Aborts and our own errors pass unchanged.
   */
  const lostAfterSend = (e: unknown, ex: Exchange, what: string): unknown => {
    if (ex.cause !== undefined || (e instanceof YadaError && !(e instanceof HttpError) && !e.notSent)) return e;
    const reason = e instanceof HttpError ? `HTTP ${e.status}` : e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : "unknown";
    return new TransportError(msg(`${what} failed (${reason.slice(0, MAX_QUOTED_TEXT_CHARS)}) after the server took the request; its outcome is unknown`));
  };

  const resume = async (ex: Exchange, state: StreamState, what: string, sentSession: string | undefined): Promise<boolean> => {
    let attempts = 0;
    for (;;) {
      const ended = msg(`the event stream of ${what} ended before its response`);
      if (state.lastId === "" || host.modern()) throw new TransportError(ended);
      if (!isPlainHeaderValue(state.lastId)) throw new ProtocolError(`${ended}; its event id is not a valid header value`);
      if (++attempts > host.maxResumes) throw new TransportError(`${ended}; ${host.maxResumes} resumptions brought nothing`);
      const before = state.delivered;
      ex.suspend(); // the client itself waits: not an idle server
      await sleep(state.retryMs ?? DEFAULT_SSE_RETRY_MS, ex.signal);
      ex.touch();
      ex.signal.throwIfAborted(); // the wait was cut short
      note("debug", `resuming the event stream of ${what}`, { attempt: attempts });
      let res: Response;
      try {
        res = await host.get(state.lastId, ex);
        ex.touch();
        host.checkEventStream(res, sentSession, `resuming ${what}`);
      } catch (e) {
        throw lostAfterSend(e, ex, `resuming ${what}`);
      }
      if (await read(res.body, ex, state)) return true;
      if (state.delivered > before) attempts = 0;
    }
  };

  const inbound = async (signal: AbortSignal, exchange: (signal: AbortSignal, what: string) => Exchange): Promise<void> => {
    const what = "the GET stream";
    const state: StreamState = { id: undefined, found: false, delivered: 0, lastId: "" };
    let attempts = 0;
    for (;;) {
      const before = state.delivered;
      const ex = exchange(signal, what);
      try {
        const sentSession = host.session();
        const res = await host.get(state.lastId, ex);
        ex.disarm(); // the stream may stay quiet for hours
        if (res.status === 405) {
          cancelBody(res);
          note("info", `the server offers no GET stream (HTTP 405)`);
          return;
        }
        host.checkEventStream(res, sentSession, what);
        await read(res.body, ex, state);
      } catch (e) {
        // Undefined when close() aborted the stream. A session 404 aborts it too (the
        // session is over) but is still worth a warning.
        const err = e instanceof SessionExpiredError ? e : ex.error(e);
        if (!err) return;
        host.log("warn", err.message, { code: err.code });
        if (err.code !== "transport") return;
      } finally {
        ex.finish();
      }
      if (state.lastId === "" && state.retryMs === undefined) {
        note("info", `${what} ended`);
        return;
      }
      if (state.lastId !== "" && !isPlainHeaderValue(state.lastId)) return;
      if (state.delivered > before) attempts = 0;
      if (++attempts > host.maxResumes) {
        note("warn", `gave up re-opening ${what} after ${host.maxResumes} attempts`);
        return;
      }
      if (!(await sleep(state.retryMs ?? DEFAULT_SSE_RETRY_MS, signal))) return;
    }
  };

  return { read, resume, inbound };
}
