/**
 * The requests that wait on one authorization (the one that started it and those
 * that joined it, A2): while its interactive step runs, each of them is held
 * ({@link AuthRequest.hold}), so the user's time in the browser does not count
 * against their bounds or a connect's deadline (S5, S6). Discovery, registration
 * and the token exchange are not held.
 *
 * @module
 */
import type { AuthRequest } from "../transport/http-auth.js";

/** The requests waiting on one authorization (see {@link createWaiters}). */
export interface Waiters {
  /** Adds a request (held at once when the step already runs). */
  add(request: AuthRequest): void;
  /** Runs the interactive step with every waiting request held; releases them when it settles. */
  step<T>(run: () => Promise<T>): Promise<T>;
}

/** An empty set of waiting requests for one authorization. */
export function createWaiters(): Waiters {
  // Each request, with the release of its hold while the step runs.
  const requests = new Map<AuthRequest, (() => void) | undefined>();
  let stepping = false;
  return {
    add(request) {
      if (!requests.has(request)) requests.set(request, stepping ? request.hold?.() : undefined);
    },
    async step(run) {
      stepping = true;
      for (const request of requests.keys()) requests.set(request, request.hold?.());
      try {
        return await run();
      } finally {
        stepping = false;
        for (const [request, release] of requests) {
          release?.();
          requests.set(request, undefined);
        }
      }
    },
  };
}
