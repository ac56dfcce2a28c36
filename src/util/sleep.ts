/**
 * Timers: a wait that an abort signal cuts short, and a setTimeout whose delay is
 * clamped to what runtimes honour.
 *
 * @module
 */
import { MAX_TIMER_MS } from "../limits.js";

/**
 * `setTimeout(fn, ms)` with `ms` clamped to 0…`MAX_TIMER_MS`: runtimes fire a longer
 * (or NaN) delay at once, which would turn a generous time bound into an instant one.
 */
export function startTimer(fn: () => void, ms: number): ReturnType<typeof setTimeout> {
  return setTimeout(fn, ms > 0 ? Math.min(ms, MAX_TIMER_MS) : 0);
}

/** Waits `ms`, or less if `signal` aborts. Resolves true when the full wait elapsed. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = startTimer(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
