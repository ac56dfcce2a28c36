// Paired blocks: the limit and yada stay connected to the same server and take
// turns, a block of calls each, the order alternating block by block. Each block
// gives one ratio (the limit's time ÷ yada's time = yada's rate ÷ the limit's), so a
// burst of machine noise hits both sides of a pair instead of one whole phase;
// the median and the quartiles of those ratios are what the benches judge by.
// Also reports client CPU per call (process.cpuUsage), which the scheduling noise
// of a shared machine moves far less than wall time.

/** Time `n` sequential calls, in ms. */
export async function sequentialMs(c, n, from = 0) {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await c.call(from + i);
  return performance.now() - t0;
}

/** Time `n` calls with `width` in flight, in ms. */
export async function concurrentMs(c, n, width, from = 0) {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await c.call(from + next++);
    }),
  );
  return performance.now() - t0;
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/**
 * Runs `blocks` pairs of `run(client)`; returns the median and quartiles of
 * limitMs ÷ yadaMs (and every block's ratio, `ratios`).
 */
export async function pairedRatio(limit, yada, blocks, run) {
  const ratios = [];
  for (let b = 0; b < blocks; b++) {
    const first = b % 2 === 0 ? limit : yada;
    const second = first === limit ? yada : limit;
    const t1 = await run(first);
    const t2 = await run(second);
    const [limitMs, yadaMs] = first === limit ? [t1, t2] : [t2, t1];
    ratios.push(limitMs / yadaMs);
  }
  const sorted = ratios.slice().sort((a, b) => a - b);
  return { median: quantile(sorted, 0.5), q1: quantile(sorted, 0.25), q3: quantile(sorted, 0.75), blocks, ratios };
}

/** Client CPU µs per call over `n` sequential calls, for each client in turn, best of `reps`. */
export async function cpuPerCall(clients, n, reps) {
  const best = clients.map(() => Infinity);
  for (let r = 0; r < reps; r++) {
    for (const [k, c] of clients.entries()) {
      const u0 = process.cpuUsage();
      await sequentialMs(c, n);
      const u = process.cpuUsage(u0);
      best[k] = Math.min(best[k], (u.user + u.system) / n);
    }
  }
  return best;
}

/** "0.93× (quartiles 0.88–0.97, 40 blocks)". */
export const describe = (p) => `${p.median.toFixed(2)}× (quartiles ${p.q1.toFixed(2)}–${p.q3.toFixed(2)}, ${p.blocks} blocks)`;

/** The verdict line of one target. */
export const verdict = (label, p, target) =>
  `${label}${describe(p)}  (target ≥ ${target.toFixed(2)}×: ${p.median >= target ? "met" : "NOT met"})`;
