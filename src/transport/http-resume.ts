/**
 * The GET side of the Streamable HTTP transport (H12): the stream for
 * server-initiated messages, and resumption of a stream that ended early with
 * `Last-Event-ID` after the server's `retry` delay (spec 2025-11-25 "Resumability
 * and Redelivery").
 *
 * @module
 */
import { CancelledError, ProtocolError, TransportError, type YadaError } from "../errors.js";
import { DEFAULT_SSE_RETRY_MS } from "../limits.js";
import { sleep } from "../util/sleep.js";
import { cancelBody, readEventStream, streamState, type AnswerContext, type StreamState } from "./http-answer.js";
import { mediaType, type Exchange } from "./http-exchange.js";
import { isPlainHeaderValue } from "./http-headers.js";

/** What the GET side needs from the transport. */
export interface StreamContext extends AnswerContext {
  /** Consecutive re-GETs that deliver nothing before giving up. */
  readonly maxResumeAttempts: number;
  /** Revision 2026-07-28 or later: no GET stream, no resumption. */
  modern(): boolean;
  /** The session id requests carry now. */
  sessionId(): string | undefined;
  /** GETs the endpoint for an event stream, replaying `lastEventId` unless "". */
  get(lastEventId: string, signal: AbortSignal): Promise<Response>;
  /** The error for a non-2xx answer (a session 404 clears the session, H7). */
  statusError(res: Response, sentSession: string | undefined, what: string): YadaError;
  /** A new exchange bound by the idle timeout, linked to `signal` and to close(). */
  exchange(signal: AbortSignal | undefined, what: string): Exchange;
  /** The error to report for what ended an exchange (undefined when caller or close aborted it). */
  errorOf(e: unknown, ex: Exchange, what: string): YadaError | undefined;
}

/**
 * A POST stream ended before its response: re-GET it with Last-Event-ID after the
 * server's retry delay until the response arrives (H12). Resolves true once it did
 * (see {@link readEventStream}).
 *
 * @throws TransportError (`transport`) when the stream carried no event id, or the
 * resumptions in a row that delivered nothing reached the bound; ProtocolError
 * (`protocol`) when the resumed answer is not an event stream; HttpError (`http`)
 * or SessionExpiredError (`session_expired`) for a refused GET.
 */
export async function resumeStream(
  ctx: StreamContext,
  ex: Exchange,
  state: StreamState,
  what: string,
  sentSession: string | undefined,
): Promise<boolean> {
  let attempts = 0;
  for (;;) {
    if (state.lastEventId === "" || ctx.modern()) {
      throw new TransportError(`${ctx.description}: the event stream of ${what} ended before its response`);
    }
    if (!isPlainHeaderValue(state.lastEventId)) {
      throw new ProtocolError(`${ctx.description}: the stream of ${what} ended; its event id is not a valid header value`);
    }
    if (++attempts > ctx.maxResumeAttempts) {
      throw new TransportError(
        `${ctx.description}: the event stream of ${what} ended before its response; ${ctx.maxResumeAttempts} resumptions brought nothing`,
      );
    }
    const before = state.delivered;
    ex.suspend(); // the client itself waits: not an idle server
    const waited = await sleep(state.retryMs ?? DEFAULT_SSE_RETRY_MS, ex.signal);
    ex.touch();
    if (!waited) throw new CancelledError("exchange aborted");
    ctx.log("debug", `${ctx.description}: resuming the event stream of ${what}`, { attempt: attempts });
    const res = await ctx.get(state.lastEventId, ex.signal);
    ex.touch();
    if (!res.ok) throw ctx.statusError(res, sentSession, `resuming ${what}`);
    if (mediaType(res) !== "text/event-stream") {
      cancelBody(res);
      throw new ProtocolError(`${ctx.description}: resuming ${what} did not answer with an event stream`);
    }
    if (await readEventStream(ctx, res.body, ex, state)) return true;
    if (state.delivered > before) attempts = 0;
  }
}

/**
 * Runs the GET stream for server-initiated messages until `control` aborts, the
 * server refuses it (405 is logged at info, other statuses at warn) or it ends for
 * good. A stream that ends after the server sent an event id or a `retry` field is
 * re-opened with Last-Event-ID after the retry delay, at most `maxResumeAttempts`
 * times in a row without a delivered message. Never rejects.
 */
export async function runInboundStream(ctx: StreamContext, control: AbortController): Promise<void> {
  const state = streamState(undefined);
  let attempts = 0;
  for (;;) {
    const before = state.delivered;
    const ex = ctx.exchange(control.signal, "the GET stream");
    try {
      const sentSession = ctx.sessionId();
      const res = await ctx.get(state.lastEventId, ex.signal);
      ex.disarm(); // the stream may stay quiet for hours
      if (res.status === 405) {
        cancelBody(res);
        ctx.log("info", `${ctx.description}: the server offers no GET stream (HTTP 405)`);
        return;
      }
      if (!res.ok) {
        const err = ctx.statusError(res, sentSession, "the GET stream");
        ctx.log("warn", err.message, { code: err.code });
        return;
      }
      if (mediaType(res) !== "text/event-stream") {
        cancelBody(res);
        ctx.log("warn", `${ctx.description}: the GET stream did not answer with an event stream`);
        return;
      }
      await readEventStream(ctx, res.body, ex, state);
    } catch (e) {
      if (ex.cause === "closed" || ex.cause === "caller") return;
      const err = ctx.errorOf(e, ex, "the GET stream");
      ctx.log("warn", err?.message ?? `${ctx.description}: the GET stream failed`, { code: err?.code });
      if (err && err.code !== "transport") return;
    } finally {
      ex.finish();
    }
    if (state.lastEventId === "" && state.retryMs === undefined) {
      ctx.log("info", `${ctx.description}: the GET stream ended`);
      return;
    }
    if (state.lastEventId !== "" && !isPlainHeaderValue(state.lastEventId)) return;
    if (state.delivered > before) attempts = 0;
    if (++attempts > ctx.maxResumeAttempts) {
      ctx.log("warn", `${ctx.description}: gave up re-opening the GET stream after ${ctx.maxResumeAttempts} attempts`);
      return;
    }
    if (!(await sleep(state.retryMs ?? DEFAULT_SSE_RETRY_MS, control.signal))) return;
  }
}
