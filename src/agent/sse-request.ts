/**
 * One streaming model request over fetch (R3), shared by the provider adapters:
 * POST JSON, refuse redirects (so a key never reaches another host, as H11),
 * classify a non-2xx answer into a typed {@link ProviderError}, feed the body
 * through the project's SSE parser with bounds on event size, total bytes and
 * idle time, and retry with {@link withRetries} before any output.
 *
 * @module
 */
import { startTimer } from "../util/sleep.js";
import { CancelledError, ProviderError, TimeoutError, TransportError, YadaError, type ProviderErrorKind } from "../errors.js";
import {
  DEFAULT_PROVIDER_IDLE_TIMEOUT_MS,
  MAX_PROVIDER_ERROR_BODY_BYTES,
  MAX_PROVIDER_ERROR_MESSAGE_CHARS,
  MAX_PROVIDER_EVENT_BYTES,
  MAX_PROVIDER_RESPONSE_BYTES,
  MAX_QUOTED_CHARS,
} from "../limits.js";
import { createSseParser } from "../transport/sse.js";
import { concatBytes } from "../util/bytes.js";
import { isRec } from "../util/record.js";
import type { AssistantMessage } from "./messages.js";
import type { ModelDelta, ModelRequest, Provider } from "./provider.js";
import { retryAfterMs, withRetries, type ProviderRetryOptions } from "./retry.js";

// Phrases providers use for a conversation that does not fit: Anthropic "prompt
// is too long", OpenAI / vLLM "maximum context length" / context_length_exceeded,
// llama.cpp "exceeds the available context size", Groq "reduce the length".
const CONTEXT_OVERFLOW = /context[_ ]length|context size|context window|prompt is too long|maximum context|reduce the length/i;

/** The provider's own error message from a JSON error body (bounded), or "". */
function errorMessage(body: string): string {
  let message = "";
  try {
    const v: unknown = JSON.parse(body);
    const e = isRec(v) ? (v.error ?? v) : undefined;
    if (typeof e === "string") message = e;
    else if (isRec(e)) {
      const { message: m, code } = e;
      if (typeof m === "string") message = m;
      if (typeof code === "string" && !message.includes(code)) message = `${code}: ${message}`;
    }
  } catch {
    message = body.trim().startsWith("<") ? "" : body; // an HTML error page says nothing useful
  }
  return message.replace(/\s+/g, " ").trim().slice(0, MAX_PROVIDER_ERROR_MESSAGE_CHARS);
}

/**
 * The typed error for a non-2xx answer: 401 / 403 `auth`, 429 `rate_limited`,
 * 5xx and 529 `overloaded`, 413 or a 4xx that says the prompt is too long
 * `context_overflow`, 3xx `bad_response` (redirects are refused), other 4xx
 * `invalid_request`.
 */
function httpError(provider: string, status: number, headers: Headers, body: string): ProviderError {
  const message = errorMessage(body);
  const kind: ProviderErrorKind =
    status === 401 || status === 403
      ? "auth"
      : status === 429
        ? "rate_limited"
        : status >= 500
          ? "overloaded"
          : status < 400
            ? "bad_response"
            : status === 413 || CONTEXT_OVERFLOW.test(message)
              ? "context_overflow"
              : "invalid_request";
  const what = status > 299 && status < 400 ? "answered with a redirect, which is refused" : `answered HTTP ${status}`;
  return new ProviderError(kind, provider, message ? `${what}: ${message}` : what, { status, retryAfterMs: retryAfterMs(headers) });
}

/** The first `max` bytes of a body as text. */
async function readBounded(body: ReadableStream<Uint8Array>, max: number): Promise<string> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  try {
    for (let size = 0; size < max; ) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value.subarray(0, max - size));
      size += value.length;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return new TextDecoder().decode(concatBytes(chunks));
}

/** Reports a piece of the answer; empty text is not reported. */
export type EmitDelta = (kind: ModelDelta["kind"], text: string | undefined) => void;

/** Throws a ProviderError of `kind` (default `bad_response`). */
export type StreamFail = (message: string, kind?: ProviderErrorKind) => never;

/** Assembles one streamed answer: a provider adapter's side of {@link streamingProvider}. */
export interface AnswerStream {
  /** Handles one event's data; returns true once the answer is complete. */
  handle(data: string): boolean | void;
  /** Whether the answer is complete when the body ends before `handle` returned true. */
  finished?(): boolean;
  /** The assembled message. */
  message(): AssistantMessage;
}

/** What every streaming provider's options have. */
export interface StreamingOptions {
  /** The API root; the provider's default when unset. */
  baseUrl?: string;
  /** The fetch to use (default the global one). */
  fetch?: typeof fetch;
  /** Retry bounds (429 / 5xx / network, before output). */
  retry?: ProviderRetryOptions;
  /** Idle bound of the stream (default `DEFAULT_PROVIDER_IDLE_TIMEOUT_MS`). */
  idleTimeoutMs?: number;
}

/** The `server` member of a provider POSTing to `url` (host and port only), none for a URL that does not parse (fetch says so later). */
function serverOf(url: string): { server?: { address: string; port: number } } {
  try {
    const u = new URL(url);
    return { server: { address: u.hostname, port: Number(u.port) || (u.protocol === "https:" ? 443 : 80) } };
  } catch {
    return {};
  }
}

/**
 * A provider that POSTs `body(request)` to `baseUrl` (trailing slashes dropped)
 * + `path` and assembles the SSE answer with a fresh `stream` per attempt,
 * retried by {@link withRetries} before any output. `stream` gets the delta sink
 * and `fail`, which throws a ProviderError (`bad_response` unless it names
 * another kind).
 *
 * `generate` throws ProviderError (`provider`) for a non-2xx answer (see
 * {@link httpError}), a body that is not `text/event-stream`, a stream that
 * outgrows its bounds or ends before the answer is complete (`bad_response`);
 * TransportError (`transport`) for a network failure, or, without sending or
 * retrying, for a request that cannot be serialized as JSON; TimeoutError (`timeout`)
 * when the stream is idle longer than its bound; CancelledError (`cancelled`)
 * when the signal aborts. `model` is what the provider reports as its model (traces).
 */
export function streamingProvider(
  name: string,
  options: StreamingOptions,
  defaultBase: string,
  path: string,
  headers: Record<string, string>,
  body: (request: ModelRequest) => unknown,
  stream: (emit: EmitDelta, fail: StreamFail) => AnswerStream,
  model?: string,
): Provider {
  const url = (options.baseUrl ?? defaultBase).replace(/\/+$/, "") + path;
  const idleMs = options.idleTimeoutMs ?? DEFAULT_PROVIDER_IDLE_TIMEOUT_MS;
  const fail = (message: string, kind: ProviderErrorKind = "bad_response", status?: number): never => {
    throw new ProviderError(kind, name, message, { status });
  };
  return {
    name,
    ...(model !== undefined && { model }),
    ...serverOf(url),
    async generate(request, { signal, onDelta } = {}) {
      let payload: string;
      try {
        payload = JSON.stringify(body(request));
      } catch (e) {
        // A request that is not JSON (a BigInt or a cycle in a tool's arguments or
        // schema; openaiChat serializes arguments while building the body) is never
        // sent, and not retried: it would fail the same way again.
        throw new TransportError(`${name}: the request failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
      // True once a delta reached the caller: no retry after that.
      let output = false;
      const emit: EmitDelta = (kind, text) => {
        if (!text) return;
        output = true;
        onDelta?.({ kind, text });
      };
      const attempt = async (): Promise<AssistantMessage> => {
        const answer = stream(emit, fail);
        const idle = new AbortController();
        let timer: ReturnType<typeof setTimeout> | undefined;
        const arm = (): void => {
          clearTimeout(timer);
          timer = startTimer(() => idle.abort(), idleMs);
        };
        const interrupted = (cause: unknown): YadaError =>
          signal?.aborted
            ? new CancelledError(`${name}: the request was cancelled`, { cause: signal.reason })
            : idle.signal.aborted
              ? new TimeoutError(`${name}: the stream sent nothing for ${idleMs} ms`, idleMs)
              : cause instanceof YadaError
                ? cause
                : new TransportError(`${name}: the request failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
        arm();
        let stopped = false;
        const parser = createSseParser({
          maxEventBytes: MAX_PROVIDER_EVENT_BYTES,
          onEvent: (event) => void (stopped ||= answer.handle(event.data) === true),
        });
        let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
        try {
          let response: Response;
          try {
            const send = options.fetch ?? globalThis.fetch; // called unbound: a browser's fetch refuses any other `this`
            response = await send(url, {
              method: "POST",
              headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
              body: payload,
              redirect: "manual",
              signal: signal ? AbortSignal.any([signal, idle.signal]) : idle.signal,
            });
          } catch (e) {
            throw interrupted(e);
          }
          const { status, body: events } = response;
          const redirected = response.type === "opaqueredirect";
          if (status < 200 || status > 299 || redirected) {
            const text = events ? await readBounded(events, MAX_PROVIDER_ERROR_BODY_BYTES).catch(() => "") : "";
            throw httpError(name, redirected ? 302 : status, response.headers, text);
          }
          const type = response.headers.get("content-type") ?? "";
          if (!/text\/event-stream/i.test(type)) {
            await events?.cancel().catch(() => {});
            fail(`answered '${type.slice(0, MAX_QUOTED_CHARS)}' instead of an event stream`, undefined, status);
          }
          if (!events) return fail("answered without a body", undefined, status);
          reader = events.getReader();
          for (let total = 0; !stopped; ) {
            const chunk = await reader.read().catch((e: unknown) => {
              throw interrupted(e);
            });
            if (chunk.done) break;
            arm();
            total += chunk.value.length;
            if (total > MAX_PROVIDER_RESPONSE_BYTES) fail(`the answer exceeds ${MAX_PROVIDER_RESPONSE_BYTES} bytes`);
            try {
              parser.feed(chunk.value);
            } catch (e) {
              if (e instanceof YadaError && e.code === "limit") throw new ProviderError("bad_response", name, e.message, { cause: e });
              throw e;
            }
          }
          if (!stopped && !answer.finished?.()) fail("the stream ended before the answer was complete");
          return answer.message();
        } finally {
          clearTimeout(timer);
          reader?.cancel().catch(() => {});
        }
      };
      return withRetries(attempt, () => output, signal, options.retry);
    },
  };
}
