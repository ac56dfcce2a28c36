// Y8: a short soak (scripts/soak.mjs runs 100 k calls): random faults over stdio and
// HTTP, then nothing leaked (resources, process listeners), memory flat.
import { test } from "node:test";
import assert from "node:assert/strict";
import { soak } from "./soak-run.js";
import { MiB } from "./memory.js";

for (const kind of ["stdio", "http"] as const) {
  test(`Y8: a ${kind} soak with random faults: typed outcomes only, no crossed answers, nothing leaked, memory flat`, { timeout: 120_000 }, async () => {
    const r = await soak({ kind, calls: kind === "stdio" ? 3000 : 1500, seed: 7 });
    assert.deepEqual(r.untyped, []);
    assert.equal(r.crossed, 0, "an answer reached the wrong call");
    const total = Object.values(r.outcomes).reduce((a, b) => a + b, 0);
    assert.equal(total, r.calls);
    assert.ok((r.outcomes.ok ?? 0) > r.calls * 0.5, JSON.stringify(r.outcomes));
    // The faults really happened.
    assert.ok((r.outcomes.timeout ?? 0) > 0 && Object.keys(r.outcomes).length >= 3, JSON.stringify(r.outcomes));
    if (kind === "stdio") assert.ok(r.reconnects > 0, "the server never exited: no reconnect was tested");
    assert.deepEqual(r.leaks, [], "resources left behind");
    assert.deepEqual(r.listeners, [], "process listeners left behind");
    assert.deepEqual(r.warnings, [], "the runtime warned");
    assert.ok(r.heapEnd - r.heapEarly < 16 * MiB, `the heap grew by ${((r.heapEnd - r.heapEarly) / MiB).toFixed(1)} MiB`);
  });
}
