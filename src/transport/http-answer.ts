/**
 * How the Streamable HTTP transport reads an answer: which frame is the awaited
 * response (H3), reading an SSE body up to that frame (H4) and a short trailing
 * read after it, and the errors for answers it refuses (H8, H11, status codes).
 *
 * @module
 */
import { CancelledError, HttpError } from "../errors.js";
import { decodeJson, type RequestId } from "../jsonrpc/messages.js";
import { HTTP_TRAILING_READ_MS, MAX_SSE_RETRY_MS } from "../limits.js";
import type { Logger } from "../log.js";
import { isRec } from "../util/record.js";
import type { Exchange } from "./http-exchange.js";
import { createSseParser } from "./sse.js";

/** What one stream reader tracks: the awaited response, progress, the resumption cursor. */
export interface StreamState {
  /** The request whose response ends the wait; undefined on the GET stream. */
  readonly id: RequestId | undefined;
  /** The response to `id` was delivered. */
  found: boolean;
  /** Frames delivered so far (H12 counts resumptions that bring nothing). */
  delivered: number;
  /** The stream's last event id ("" when none), sent back as Last-Event-ID. */
  lastEventId: string;
  /** The server's last `retry` value, clamped to `MAX_SSE_RETRY_MS`. */
  retryMs: number | undefined;
  /** Runs just before the response to `id` is delivered. */
  onFound?: () => void;
}

/** A fresh {@link StreamState} waiting for `id` (or for nothing). */
export function streamState(id: RequestId | undefined): StreamState {
  return { id, found: false, delivered: 0, lastEventId: "", retryMs: undefined };
}

/** What reading needs from the transport. */
export interface AnswerContext {
  readonly description: string;
  readonly log: Logger;
  readonly maxEventBytes: number;
  /** Hands one decoded frame to the sink. */
  deliver(value: unknown): void;
  /** Keeps a background read alive until close() (and lets close() wait for it). */
  track(task: Promise<void>): void;
}

/**
 * H3: a frame is the response to `id` only if it has no `method`, has `result` or
 * `error`, and carries that id. Progress, log messages and server requests are not.
 */
export function isResponseTo(v: unknown, id: RequestId): boolean {
  return isRec(v) && !("method" in v) && ("result" in v || "error" in v) && v.id === id;
}

/** Delivers a decoded body or event: every frame goes to the sink, the response is noted. */
export function deliverFrames(ctx: AnswerContext, value: unknown, state: StreamState): void {
  // A JSON array is a batch (revision 2025-03-26): its members are frames.
  for (const v of Array.isArray(value) ? value : [value]) {
    if (state.id !== undefined && !state.found && isResponseTo(v, state.id)) {
      state.found = true;
      state.onFound?.();
    }
    state.delivered++;
    ctx.deliver(v);
  }
}

/** Cancels a body nobody will read, so the connection is released. */
export function cancelBody(res: Response): void {
  res.body?.cancel().catch(() => {});
}

/** Is this answer a redirect (H11)? In browsers `redirect: "manual"` yields status 0. */
export function isRedirect(res: Response): boolean {
  return res.type === "opaqueredirect" || res.status === 0 || (res.status >= 300 && res.status < 400);
}

/** H8: an empty 2xx where a body was due. */
export function proxyError(description: string, status: number, what: string): HttpError {
  return new HttpError(status, `${description}: ${what} got an empty HTTP ${status} answer: a proxy answered, not the MCP server`);
}

/** The error for a non-2xx answer other than a session 404 (H11, 401 / 403, others). */
export function statusError(description: string, res: Response, what: string): HttpError {
  const status = res.status;
  if (isRedirect(res)) {
    return new HttpError(status, `${description}: ${what} got a redirect (HTTP ${status}), which is refused`);
  }
  if (status === 401 || status === 403) {
    // Whether a challenge exists helps the host; its content may carry tokens.
    const challenge = res.headers.has("www-authenticate") ? "a WWW-Authenticate challenge is present" : "no WWW-Authenticate challenge";
    return new HttpError(status, `${description}: ${what} was refused with HTTP ${status} (${challenge})`);
  }
  return new HttpError(status, `${description}: ${what} answered HTTP ${status}`);
}

/**
 * Reads an SSE body (H2), delivering every frame. Resolves true once the awaited
 * response arrived: the rest of the stream is then read in the background for at
 * most `HTTP_TRAILING_READ_MS` (H4) and the exchange is finished there. Resolves
 * false when the stream ended or broke first (resumable, H12).
 *
 * @throws LimitError (`limit`) for an oversized event; rejects when the exchange is
 * aborted (idle expiry, caller, close).
 */
export async function readEventStream(
  ctx: AnswerContext,
  body: ReadableStream<Uint8Array> | null,
  ex: Exchange,
  state: StreamState,
): Promise<boolean> {
  if (body === null) return false;
  const reader = ex.reader(body);
  const parser = createSseParser({
    maxEventBytes: ctx.maxEventBytes,
    onRetry: (ms) => {
      state.retryMs = Math.min(ms, MAX_SSE_RETRY_MS);
    },
    onEvent: (event) => {
      if (event.data === "") return; // a priming event (spec 2025-11-25): only its id matters
      if (event.type !== "message") {
        ctx.log("debug", `${ctx.description}: skipped an SSE event of type ${event.type.slice(0, 40)}`);
        return;
      }
      let value: unknown;
      try {
        value = decodeJson(event.data);
      } catch {
        ctx.log("warn", `${ctx.description}: skipped an SSE event whose data is not JSON`);
        return;
      }
      deliverFrames(ctx, value, state);
    },
  });
  try {
    for (;;) {
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await reader.read();
      } catch (e) {
        if (ex.cause !== undefined) throw e;
        ctx.log("debug", `${ctx.description}: an event stream broke`, { error: e instanceof Error ? e.name : "unknown" });
        return false;
      }
      if (ex.cause !== undefined) throw new CancelledError("exchange aborted");
      ex.touch();
      if (r.done) {
        parser.end();
        return false;
      }
      parser.feed(r.value);
      if (state.found) {
        ctx.track(trail(reader, parser.feed, ex));
        return true;
      }
    }
  } finally {
    if (parser.lastEventId !== "") state.lastEventId = parser.lastEventId;
  }
}

// H4: the call has returned. Frames that trail the response are still delivered for
// a short while, and a server that ends the stream right away keeps its connection
// reusable; one that holds it open is cut at the bound.
async function trail(reader: ReadableStreamDefaultReader<Uint8Array>, feed: (chunk: Uint8Array) => void, ex: Exchange): Promise<void> {
  ex.disarm();
  const stop = setTimeout(() => ex.abort("closed"), HTTP_TRAILING_READ_MS);
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done || ex.cause !== undefined) break;
      feed(r.value);
    }
  } catch {
    // Cancelled at the bound, or the server cut the connection: both fine here.
  } finally {
    clearTimeout(stop);
    ex.finish();
  }
}
