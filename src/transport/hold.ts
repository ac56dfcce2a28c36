/**
 * Time spent waiting on the user is not the server's time (A2, S5, S6): while an
 * authorization layer waits for the host's interactive login step, the bounds of
 * the requests that wait on it stop — the request's own timer and a connect's
 * deadline — and resume with what they had left. The interactive step keeps its
 * own bound (`OAUTH_INTERACTION_TIMEOUT_MS`); every other wait (discovery, token
 * requests, a server that stalls after the login) counts as before.
 *
 * @module
 */
import { startTimer } from "../util/sleep.js";
import type { Transport } from "./types.js";

/**
 * The holds of one transport: how many requests wait on the user now, and who is
 * told when the first hold starts (`true`) and the last one ends (`false`).
 */
export class Holds {
  #count = 0;
  readonly #listeners = new Set<(held: boolean) => void>();

  /** Adds a listener; returns a function that removes it. */
  on(listener: (held: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Starts a hold; the returned function ends it (once; later calls do nothing). */
  hold(): () => void {
    if (this.#count++ === 0) this.#tell(true);
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      if (--this.#count === 0) this.#tell(false);
    };
  }

  #tell(held: boolean): void {
    for (const listener of this.#listeners) {
      try {
        listener(held);
      } catch {
        // A listener is a timer of ours; one that throws must not stop the others.
      }
    }
  }
}

/**
 * A deadline of `ms` that stops while `transport` holds (a login in progress,
 * {@link Transport.onHold}) and fires `expire` once `ms` of unheld time passed.
 * Transports without holds make it a plain timer.
 */
export class HeldDeadline {
  readonly #expire: () => void;
  readonly #off: (() => void) | undefined;
  #left: number;
  #since = Date.now();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #done = false;

  constructor(transport: Transport, ms: number, expire: () => void) {
    this.#left = ms;
    this.#expire = () => {
      this.#done = true;
      this.#timer = undefined;
      expire();
    };
    this.#timer = startTimer(this.#expire, ms);
    this.#off = transport.onHold?.((held) => (held ? this.#pause() : this.#resume()));
  }

  /** The unheld time left, in ms (0 once expired). */
  get left(): number {
    if (this.#done) return 0;
    return Math.max(0, this.#timer === undefined ? this.#left : this.#left - (Date.now() - this.#since));
  }

  /** Stops the deadline for good. */
  clear(): void {
    this.#done = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#off?.();
  }

  #pause(): void {
    if (this.#done || this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#left -= Date.now() - this.#since;
  }

  #resume(): void {
    if (this.#done || this.#timer !== undefined) return;
    this.#since = Date.now();
    this.#timer = startTimer(this.#expire, this.#left);
  }
}
