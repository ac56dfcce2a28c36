// Y6: the short fuzz budget of npm test (scripts/fuzz.mjs runs >= 1 M inputs per
// target). Fixed seeds, so a failure here is reproduced by its index.
import { test } from "node:test";
import assert from "node:assert/strict";
import { runTarget, TARGETS } from "./fuzz-targets.js";
import { heldBytes, MiB } from "./memory.js";

const BUDGET: Record<string, number> = { ndjson: 2000, sse: 3000, jsonrpc: 3000, session: 300, env: 3000, schema: 1500, provider: 300, envelope: 4000, oauth: 4000, task: 2000, legacy: 2000 };
// A per-input bound loose enough for a loaded machine, far below what a runaway input costs.
const SLOW_MS = 2_000;

for (const [name, target] of Object.entries(TARGETS)) {
  test(`Y6: fuzzing ${name}: no crash, no untyped error, no input over ${SLOW_MS} ms, heap bounded`, async () => {
    const count = BUDGET[name] ?? 1000;
    const seed = 20_261_201;
    // Warm up first so the heap baseline holds the code and caches already.
    const report = await runTarget(target, seed, 0, 100, SLOW_MS);
    const before = heldBytes();
    await runTarget(target, seed, 100, count, SLOW_MS, report);
    const growth = heldBytes() - before;
    assert.deepEqual(report.crashes, [], "wrong output");
    assert.deepEqual(report.untyped, [], "untyped errors");
    assert.deepEqual(report.slow, [], "inputs over the time bound");
    assert.equal(report.inputs, count);
    assert.ok(growth < 16 * MiB, `the heap grew by ${(growth / MiB).toFixed(1)} MiB`);
  });
}
