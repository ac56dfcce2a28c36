/**
 * Bounded retries of a model request (R3): only for 429, 5xx / 529 and network
 * failures, only before the answer produced any output (a retry after output
 * would show the user the same text twice), at most `maxAttempts` attempts, and
 * honouring the provider's `retry-after-ms` / `retry-after`.
 *
 * @module
 */
import { CancelledError, ProviderError, TransportError } from "../errors.js";
import { DEFAULT_PROVIDER_MAX_ATTEMPTS, PROVIDER_MAX_RETRY_DELAY_MS, PROVIDER_RETRY_BASE_DELAY_MS } from "../limits.js";
import { sleep } from "../util/sleep.js";

/** Retry settings of a provider. */
export interface ProviderRetryOptions {
  /** Attempts in total, the first included (default `DEFAULT_PROVIDER_MAX_ATTEMPTS`; 1 = no retry). */
  maxAttempts?: number;
  /** First wait when the provider sends no retry-after, doubled per attempt (default `PROVIDER_RETRY_BASE_DELAY_MS`). */
  baseDelayMs?: number;
  /**
   * Longest wait (default `PROVIDER_MAX_RETRY_DELAY_MS`). A retry-after longer
   * than this is not waited for: the error is thrown at once, with `retryAfterMs`.
   */
  maxDelayMs?: number;
}

const NUMBER = /^\s*\d+(\.\d+)?\s*$/;

/**
 * The wait an HTTP answer asks for, in milliseconds: `retry-after-ms` (sent by
 * OpenAI), else `retry-after` as seconds or an HTTP date (RFC 9110 §10.2.3).
 * `undefined` when neither is present or valid.
 */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && NUMBER.test(ms)) return Math.ceil(Number(ms));
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  if (NUMBER.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Whether a failure may be retried (before output): 429, 5xx / overload, network. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof TransportError) return true;
  return error instanceof ProviderError && (error.kind === "rate_limited" || error.kind === "overloaded");
}

/** What {@link withRetries} needs to know about the attempt in progress. */
export interface RetryContext {
  signal?: AbortSignal | undefined;
  /** True once the current attempt delivered output (a delta) to the caller. */
  hasOutput(): boolean;
  /** Called before each wait, with the attempt that failed (1-based) and the wait. */
  onRetry?: (attempt: number, delayMs: number, error: unknown) => void;
}

/**
 * Runs `attempt` until it succeeds, a failure is not retryable, output was
 * produced, or the attempts are used up; then throws the last error.
 *
 * @throws whatever the last attempt threw; CancelledError (`cancelled`) when the
 * signal aborts during a wait.
 */
export async function withRetries<T>(attempt: () => Promise<T>, context: RetryContext, options: ProviderRetryOptions = {}): Promise<T> {
  const maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? DEFAULT_PROVIDER_MAX_ATTEMPTS));
  const base = options.baseDelayMs ?? PROVIDER_RETRY_BASE_DELAY_MS;
  const maxDelay = options.maxDelayMs ?? PROVIDER_MAX_RETRY_DELAY_MS;
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (n >= maxAttempts || !isRetryable(error) || context.hasOutput() || context.signal?.aborted) throw error;
      const asked = error instanceof ProviderError ? error.retryAfterMs : undefined;
      if (asked !== undefined && asked > maxDelay) throw error;
      // Equal jitter: half the backoff fixed, half random, so clients that failed
      // together do not retry together.
      const backoff = Math.min(maxDelay, base * 2 ** (n - 1));
      const delay = asked ?? Math.round(backoff / 2 + (Math.random() * backoff) / 2);
      context.onRetry?.(n, delay, error);
      if (!(await sleep(delay, context.signal))) throw new CancelledError("cancelled while waiting to retry", { cause: context.signal?.reason });
    }
  }
}
