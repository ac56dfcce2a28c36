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

/** The requests waiting on one authorization, and the holds of its interactive step. */
export class Waiters {
  /** Each request, with the release of its hold while the step runs. */
  readonly #requests = new Map<AuthRequest, (() => void) | undefined>();
  #stepping = false;

  /** Adds a request (held at once when the step already runs). */
  add(request: AuthRequest): void {
    if (!this.#requests.has(request)) this.#requests.set(request, this.#stepping ? request.hold?.() : undefined);
  }

  /** Runs the interactive step with every waiting request held; releases them when it settles. */
  async step<T>(run: () => Promise<T>): Promise<T> {
    this.#stepping = true;
    for (const request of this.#requests.keys()) this.#requests.set(request, request.hold?.());
    try {
      return await run();
    } finally {
      this.#stepping = false;
      for (const [request, release] of this.#requests) {
        release?.();
        this.#requests.set(request, undefined);
      }
    }
  }
}
