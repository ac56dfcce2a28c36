/**
 * Time spent waiting on the user is not the server's time (A2, S5, S6): while an
 * authorization layer waits for the host's interactive login step, the bounds of
 * the requests that wait on it stop — the request's own timer and a connect's
 * deadline — and resume with what they had left. The interactive step keeps its
 * own bound (`OAUTH_INTERACTION_TIMEOUT_MS`); every other wait (discovery, token
 * requests, a server that stalls after the login) counts as before.
 *
 * Closures rather than classes: the web bundle keeps `#private` names verbatim.
 *
 * @module
 */
import { startTimer } from "../util/sleep.js";
import type { Transport } from "./types.js";

/** The holds of one transport (see {@link createHolds}). */
export interface Holds {
  /** Adds a listener, told `true` when the first hold starts and `false` when the last ends; returns its removal. */
  on(listener: (held: boolean) => void): () => void;
  /**
   * Starts a hold; the returned function ends it (once; later calls do nothing).
   * `request` is told `true` now and `false` at the end (the request's own bound, A2, S6).
   */
  hold(request?: (held: boolean) => void): () => void;
}

/** How many requests of one transport wait on the user now, and who is told when that changes. */
export function createHolds(): Holds {
  let count = 0;
  const listeners = new Set<(held: boolean) => void>();
  const tell = (held: boolean): void => {
    for (const listener of listeners) {
      try {
        listener(held);
      } catch {
        // A listener is a deadline of ours; one that throws must not stop the others.
      }
    }
  };
  return {
    on(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    hold(request) {
      if (count++ === 0) tell(true);
      request?.(true);
      let open = true;
      return () => {
        if (!open) return;
        open = false;
        request?.(false);
        if (--count === 0) tell(false);
      };
    },
  };
}

/** A deadline that stops while its transport holds (see {@link heldDeadline}). */
export interface HeldDeadline {
  /** The unheld time left, in ms (0 once expired or cleared). */
  left(): number;
  /** Stops the deadline for good. */
  clear(): void;
}

/**
 * A deadline of `ms` that stops while `transport` holds (a login under way,
 * {@link Transport.onHold}) and calls `expire` once `ms` of unheld time passed.
 * For a transport without holds it is a plain timer.
 */
export function heldDeadline(transport: Transport, ms: number, expire: () => void): HeldDeadline {
  let left = ms;
  let since = Date.now();
  let done = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const fire = (): void => {
    done = true;
    expire();
  };
  const run = (): void => {
    since = Date.now();
    timer = startTimer(fire, left);
  };
  run();
  const off = transport.onHold?.((held) => {
    if (done || held !== (timer !== undefined)) return;
    if (!held) return run();
    clearTimeout(timer);
    timer = undefined;
    left -= Date.now() - since;
  });
  return {
    left: () => (done ? 0 : Math.max(0, timer === undefined ? left : left - (Date.now() - since))),
    clear() {
      done = true;
      clearTimeout(timer);
      off?.();
    },
  };
}
