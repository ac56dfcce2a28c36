/**
 * One streaming model request over fetch (R3): POST JSON, refuse redirects (so
 * a key never reaches another host, as H11), classify a non-2xx answer into a
 * typed {@link ProviderError}, and feed the body through the project's SSE
 * parser with bounds on event size, total bytes and idle time.
 *
 * @module
 */
import { CancelledError, ProviderError, TimeoutError, TransportError, YadaError, type ProviderErrorKind } from "../errors.js";
import {
  DEFAULT_PROVIDER_IDLE_TIMEOUT_MS,
  MAX_PROVIDER_ERROR_BODY_BYTES,
  MAX_PROVIDER_ERROR_MESSAGE_CHARS,
  MAX_PROVIDER_EVENT_BYTES,
  MAX_PROVIDER_RESPONSE_BYTES,
} from "../limits.js";
import { createSseParser, type SseEvent } from "../transport/sse.js";
import { concatBytes } from "../util/bytes.js";
import type { AssistantMessage } from "./messages.js";
import type { GenerateOptions, ModelRequest, Provider } from "./provider.js";
import { retryAfterMs, withRetries, type ProviderRetryOptions } from "./retry.js";

/** What {@link sseRequest} sends and where its events go. */
export interface SseRequest {
  /** Names the provider in errors. */
  provider: string;
  fetch: typeof fetch;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal?: AbortSignal | undefined;
  /** Idle bound, reset on every read (default `DEFAULT_PROVIDER_IDLE_TIMEOUT_MS`). */
  idleTimeoutMs?: number | undefined;
  /** Called for each SSE event in order; return `"stop"` once the answer is complete. */
  onEvent(event: SseEvent): "stop" | void;
  /** Called when the body ends before `"stop"`: whether the answer is complete anyway. */
  completeAtEnd?(): boolean;
}

// Phrases providers use for a conversation that does not fit: Anthropic "prompt
// is too long", OpenAI / vLLM "maximum context length" / context_length_exceeded,
// llama.cpp "exceeds the available context size", Groq "reduce the length".
const CONTEXT_OVERFLOW = /context[_ ]length|context size|context window|prompt is too long|maximum context|reduce the length/i;

/** The provider's own error message from a JSON error body (bounded), or "". */
function errorMessage(body: string): string {
  let message = "";
  try {
    const v: unknown = JSON.parse(body);
    if (typeof v === "object" && v !== null) {
      const e = (v as Record<string, unknown>).error ?? v;
      if (typeof e === "string") message = e;
      else if (typeof e === "object" && e !== null) {
        const m = (e as Record<string, unknown>).message;
        const code = (e as Record<string, unknown>).code;
        if (typeof m === "string") message = m;
        if (typeof code === "string" && !message.includes(code)) message = `${code}: ${message}`;
      }
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
export function httpError(provider: string, status: number, headers: Headers, body: string): ProviderError {
  const message = errorMessage(body);
  let kind: ProviderErrorKind;
  if (status === 401 || status === 403) kind = "auth";
  else if (status === 429) kind = "rate_limited";
  else if (status >= 500) kind = "overloaded";
  else if (status === 413 || (status >= 400 && CONTEXT_OVERFLOW.test(message))) kind = "context_overflow";
  else if (status >= 400) kind = "invalid_request";
  else kind = "bad_response";
  const what = status >= 300 && status < 400 ? "answered with a redirect, which is refused" : `answered HTTP ${status}`;
  const options: { status: number; retryAfterMs?: number } = { status };
  const after = retryAfterMs(headers);
  if (after !== undefined) options.retryAfterMs = after;
  return new ProviderError(kind, provider, message ? `${what}: ${message}` : what, options);
}

async function readBounded(response: Response, max: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
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

/**
 * Sends the request and streams its SSE answer into `onEvent`.
 *
 * @throws ProviderError (`provider`) for a non-2xx answer (see {@link httpError}),
 * a body that is not `text/event-stream`, a stream that outgrows its bounds or
 * ends before `onEvent` returned `"stop"` (`bad_response`); TransportError
 * (`transport`) for a network failure; TimeoutError (`timeout`) when the stream
 * is idle longer than its bound; CancelledError (`cancelled`) when `signal` aborts.
 */
export async function sseRequest(request: SseRequest): Promise<void> {
  const { provider, signal } = request;
  const idleMs = request.idleTimeoutMs ?? DEFAULT_PROVIDER_IDLE_TIMEOUT_MS;
  const idle = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => idle.abort(), idleMs);
  };
  const combined = signal ? AbortSignal.any([signal, idle.signal]) : idle.signal;
  const interrupted = (cause: unknown): YadaError => {
    if (signal?.aborted) return new CancelledError(`${provider}: the request was cancelled`, { cause: signal.reason });
    if (idle.signal.aborted) return new TimeoutError(`${provider}: the stream sent nothing for ${idleMs} ms`, idleMs);
    if (cause instanceof YadaError) return cause;
    return new TransportError(`${provider}: the request failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  };
  arm();
  try {
    let response: Response;
    try {
      const send = request.fetch; // called unbound: a browser's fetch refuses any other `this`
      response = await send(request.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream", ...request.headers },
        body: JSON.stringify(request.body),
        redirect: "manual",
        signal: combined,
      });
    } catch (e) {
      throw interrupted(e);
    }
    if (response.status < 200 || response.status >= 300 || response.type === "opaqueredirect") {
      const body = await readBounded(response, MAX_PROVIDER_ERROR_BODY_BYTES).catch(() => "");
      throw httpError(provider, response.type === "opaqueredirect" ? 302 : response.status, response.headers, body);
    }
    const type = response.headers.get("content-type") ?? "";
    if (!type.toLowerCase().includes("text/event-stream")) {
      await response.body?.cancel().catch(() => {});
      throw new ProviderError("bad_response", provider, `answered '${type.slice(0, 80)}' instead of an event stream`, { status: response.status });
    }
    if (!response.body) throw new ProviderError("bad_response", provider, "answered without a body", { status: response.status });
    await readEvents(request, response.body, arm, interrupted);
  } finally {
    clearTimeout(timer);
  }
}

async function readEvents(
  request: SseRequest,
  body: ReadableStream<Uint8Array>,
  arm: () => void,
  interrupted: (cause: unknown) => YadaError,
): Promise<void> {
  const { provider } = request;
  let stopped = false;
  const parser = createSseParser({
    maxEventBytes: MAX_PROVIDER_EVENT_BYTES,
    onEvent: (event) => {
      if (!stopped && request.onEvent(event) === "stop") stopped = true;
    },
  });
  const reader = body.getReader();
  let total = 0;
  try {
    while (!stopped) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (e) {
        throw interrupted(e);
      }
      if (chunk.done) break;
      arm();
      total += chunk.value.length;
      if (total > MAX_PROVIDER_RESPONSE_BYTES) {
        throw new ProviderError("bad_response", provider, `the answer exceeds ${MAX_PROVIDER_RESPONSE_BYTES} bytes`);
      }
      try {
        parser.feed(chunk.value);
      } catch (e) {
        if (e instanceof YadaError && e.code === "limit") throw new ProviderError("bad_response", provider, e.message, { cause: e });
        throw e;
      }
    }
    if (!stopped && !(request.completeAtEnd?.() ?? false)) throw new ProviderError("bad_response", provider, "the stream ended before the answer was complete");
  } finally {
    parser.end();
    reader.cancel().catch(() => {});
  }
}

/** Assembles one streamed answer: a provider adapter's side of {@link streamingProvider}. */
export interface AnswerStream {
  /** True once a delta reached the caller (no retry after that). */
  readonly output: boolean;
  /** Whether the answer is complete when the body ends before `"stop"`. */
  readonly finished?: boolean;
  /** Handles one event's data; returns `"stop"` once the answer is complete. */
  handle(data: string): "stop" | void;
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

/**
 * A provider that POSTs `body(request)` to `baseUrl` (trailing slashes dropped) +
 * `path` and assembles the SSE answer with a fresh `stream` per attempt, retried
 * by {@link withRetries} before any output.
 */
export function streamingProvider(
  name: string,
  options: StreamingOptions,
  defaultBase: string,
  path: string,
  headers: Record<string, string>,
  body: (request: ModelRequest) => unknown,
  stream: (onDelta: GenerateOptions["onDelta"]) => AnswerStream,
): Provider {
  const url = (options.baseUrl ?? defaultBase).replace(/\/+$/, "") + path;
  return {
    name,
    async generate(request: ModelRequest, { signal, onDelta }: GenerateOptions = {}): Promise<AssistantMessage> {
      const payload = body(request);
      let answer = stream(onDelta);
      return withRetries(
        async () => {
          answer = stream(onDelta);
          await sseRequest({
            provider: name,
            fetch: options.fetch ?? globalThis.fetch,
            url,
            headers,
            body: payload,
            signal,
            idleTimeoutMs: options.idleTimeoutMs,
            onEvent: (event) => answer.handle(event.data),
            completeAtEnd: () => answer.finished === true,
          });
          return answer.message();
        },
        { signal, hasOutput: () => answer.output },
        options.retry,
      );
    },
  };
}
