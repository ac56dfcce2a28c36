/**
 * Bounded concurrency for the host handlers (Y2). Each sampling call can be a paid
 * model request and each elicitation a question to a person, so what a server asks
 * for reaches the host at most `MAX_HOST_HANDLER_CONCURRENCY` at a time per handler;
 * the rest wait their turn, and a request the server cancels while it waits never
 * reaches the host.
 *
 * @module
 */
import { CancelledError } from "../errors.js";
import { MAX_HOST_HANDLER_CONCURRENCY } from "../limits.js";
import type { ClientHandlers, HandlerContext } from "./handlers.js";

type Call<A, R> = (request: A, context: HandlerContext) => R | Promise<R>;

/**
 * Wraps `fn` so that at most `max` calls run at once; later ones wait in order.
 * A waiting call whose signal aborts leaves the line and rejects with a
 * CancelledError (`cancelled`) without calling `fn`.
 */
function limited<A, R>(fn: Call<A, R>, max: number): (request: A, context: HandlerContext) => Promise<R> {
  let running = 0;
  const waiting: { start: () => void; signal: AbortSignal }[] = [];
  const next = (): void => {
    running--;
    for (;;) {
      const w = waiting.shift();
      if (w === undefined) return;
      if (!w.signal.aborted) return w.start();
    }
  };
  return (request, context) => {
    const run = async (): Promise<R> => {
      try {
        return await fn(request, context);
      } finally {
        next();
      }
    };
    if (running < max) {
      running++;
      return run();
    }
    const { signal } = context;
    if (signal.aborted) return Promise.reject(new CancelledError("the server cancelled its request", { cause: signal.reason }));
    return new Promise<R>((resolve, reject) => {
      const onAbort = (): void => {
        const i = waiting.indexOf(entry);
        if (i !== -1) waiting.splice(i, 1);
        reject(new CancelledError("the server cancelled its request", { cause: signal.reason }));
      };
      const entry = {
        signal,
        start: () => {
          signal.removeEventListener("abort", onAbort);
          running++;
          run().then(resolve, reject);
        },
      };
      waiting.push(entry);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  };
}

/**
 * The same handlers, each bounded to `max` concurrent calls (Y2). The wrapper is
 * per client: two clients given the same handlers each get their own bound.
 */
export function limitHandlers(handlers: ClientHandlers, max = MAX_HOST_HANDLER_CONCURRENCY): ClientHandlers {
  const out: ClientHandlers = {};
  if (handlers.roots) {
    const roots = handlers.roots;
    const call = limited((_: undefined, context: HandlerContext) => roots(context), max);
    out.roots = (context) => call(undefined, context);
  }
  if (handlers.sampling) out.sampling = { ...handlers.sampling, handle: limited(handlers.sampling.handle, max) };
  const e = handlers.elicitation;
  if (e) {
    out.elicitation = e.compileSchema ? { compileSchema: e.compileSchema } : {};
    if (e.form) out.elicitation.form = limited(e.form, max);
    if (e.url) out.elicitation.url = limited(e.url, max);
  }
  return out;
}
