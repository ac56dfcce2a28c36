// Heap measurements for the hostile-peer tests: the runtime's own counters after a
// full collection, so what is measured is what is still held.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Bytes of heap (JS heap plus array buffers) still reachable after a full GC. */
export function heldBytes(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

export const MiB = 1024 * 1024;
