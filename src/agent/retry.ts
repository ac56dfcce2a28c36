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

/**
 * Runs `attempt` until it succeeds, a failure is not retryable (only 429, 5xx /
 * overload and network failures are), `hasOutput()` says the attempt delivered
 * output to the caller, or the attempts are used up; then throws the last error.
 *
 * @throws whatever the last attempt threw; CancelledError (`cancelled`) when
 * `signal` aborts during a wait.
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  hasOutput: () => boolean,
  signal: AbortSignal | undefined,
  options: ProviderRetryOptions = {},
): Promise<T> {
  const maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? DEFAULT_PROVIDER_MAX_ATTEMPTS));
  const base = options.baseDelayMs ?? PROVIDER_RETRY_BASE_DELAY_MS;
  const maxDelay = options.maxDelayMs ?? PROVIDER_MAX_RETRY_DELAY_MS;
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      const provider = error instanceof ProviderError;
      const retryable = error instanceof TransportError || (provider && (error.kind === "rate_limited" || error.kind === "overloaded"));
      const asked = provider ? error.retryAfterMs : undefined;
      if (n >= maxAttempts || !retryable || hasOutput() || signal?.aborted || (asked !== undefined && asked > maxDelay)) throw error;
      // Equal jitter: half the backoff fixed, half random, so clients that failed
      // together do not retry together.
      const backoff = Math.min(maxDelay, base * 2 ** (n - 1));
      if (!(await sleep(asked ?? Math.round(backoff / 2 + (Math.random() * backoff) / 2), signal))) {
        throw new CancelledError("cancelled while waiting to retry", { cause: signal?.reason });
      }
    }
  }
}
