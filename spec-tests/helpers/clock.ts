// A mocked clock for tests of time bounds too long to wait out: node:test mock
// timers for setTimeout (and Date), with performance.now frozen and moved by each tick, while real
// processes and sockets keep running on real time. Real waits go through
// realDelay / realWaitFor, captured before any test mocks anything.
import type { TestContext } from "node:test";

const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;
const realNow = performance.now.bind(performance);

/** Waits `ms` of real time, whatever the mocked clock says. */
export const realDelay = (ms: number): Promise<void> => new Promise((r) => realSetTimeout(r, ms));

/** Waits until `predicate` holds, polling every 10 ms of real time, for at most `ms`. */
export async function realWaitFor(predicate: () => boolean, ms = 20_000): Promise<void> {
  const end = realNow() + ms;
  while (!predicate()) {
    if (realNow() > end) throw new Error("condition not reached in time");
    await realDelay(10);
  }
}

/** A mocked clock; `tick(ms)` fires the timers due and moves the clocks by `ms`. */
export interface MockClock {
  tick(ms: number): void;
  /** How many timers of exactly `ms` were armed on the mocked clock so far. */
  armed(ms: number): number;
  /** Back to real time (before closing real processes, whose close waits on timers). Idempotent. */
  restore(): void;
}

/**
 * From now until the test ends, setTimeout (and with `date`, Date) run on a
 * mocked clock, and performance.now moves with it. A timer armed before the
 * mock stays real, and clearTimeout still clears it (the mocked one alone would
 * leave it running, holding the test process open).
 */
export function mockClock(t: TestContext, options: { date?: boolean } = {}): MockClock {
  let offset = 0;
  let restored = false;
  // Frozen between ticks, as the mocked timers are: real time passing while a test
  // waits on a process must not bring a mocked deadline nearer.
  const base = realNow();
  performance.now = () => base + offset;
  t.mock.timers.enable(options.date ? { apis: ["setTimeout", "Date"], now: Date.now() } : { apis: ["setTimeout"] });
  const delays: number[] = [];
  const mockedSet = globalThis.setTimeout;
  globalThis.setTimeout = ((fn: () => void, ms?: number, ...args: unknown[]) => {
    delays.push(ms ?? 0);
    return mockedSet(fn, ms, ...args);
  }) as typeof setTimeout;
  const mockedClear = globalThis.clearTimeout;
  globalThis.clearTimeout = ((id: Parameters<typeof clearTimeout>[0]) => {
    realClearTimeout(id);
    mockedClear(id);
  }) as typeof clearTimeout;
  const restore = (): void => {
    if (restored) return;
    restored = true;
    t.mock.timers.reset(); // puts the real setTimeout and clearTimeout back
    globalThis.setTimeout = realSetTimeout;
    globalThis.clearTimeout = realClearTimeout;
    performance.now = realNow;
  };
  t.after(restore);
  return {
    tick(ms: number): void {
      offset += ms;
      t.mock.timers.tick(ms);
    },
    armed: (ms: number): number => delays.filter((d) => d === ms).length,
    restore,
  };
}
