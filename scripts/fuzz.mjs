// Y6: the long fuzz run. Each target runs in its own worker thread with a
// watchdog: a target that stops making progress for HANG_MS is a hang, reported
// with the input index to reproduce (inputs are built from (seed, index) alone).
//   node scripts/build.mjs --no-types && node scripts/fuzz.mjs [--count 1000000] [--seed N] [--slow-ms 100] [--max-heap-mib 64] [target...]
// Targets: ndjson sse jsonrpc session env schema provider envelope oauth task legacy. Prints one row per
// target: inputs, crashes (wrong output), untyped errors, hangs, inputs still over
// --slow-ms when timed again alone (best of three), the slowest time of the first
// pass and the heap growth, and exits 1 on any crash, untyped error, hang,
// confirmed slow input or heap growth over --max-heap-mib.
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

const HANG_MS = 30_000;
const BATCH = 500;

if (isMainThread) {
  const argv = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = argv.indexOf(`--${name}`);
    if (i === -1) return dflt;
    const v = argv[i + 1];
    argv.splice(i, 2);
    return Number(v);
  };
  const count = opt("count", 1_000_000);
  const seed = opt("seed", Date.now() % 2 ** 31);
  const slowMs = opt("slow-ms", 100);
  const maxHeapMib = opt("max-heap-mib", 64);
  const mod = await import("../build/spec-tests/hostile/fuzz-targets.js");
  const names = argv.length > 0 ? argv : Object.keys(mod.TARGETS);
  console.log(`fuzz: seed ${seed}, ${count} inputs per target, slow > ${slowMs} ms, hang > ${HANG_MS} ms without progress`);
  console.log("| target | inputs | crashes | untyped | hangs | slow (confirmed alone) | slowest ms (first pass) | heap growth MiB | s |");
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  let failed = false;
  for (const name of names) {
    const t0 = Date.now();
    const row = await new Promise((resolve) => {
      const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { name, seed, count, slowMs } });
      let last = { done: 0, at: Date.now() };
      let final;
      const watchdog = setInterval(() => {
        if (Date.now() - last.at > HANG_MS) {
          clearInterval(watchdog);
          void worker.terminate();
          resolve({ hang: last.done, report: final });
        }
      }, 1_000);
      worker.on("message", (m) => {
        if (m.progress !== undefined) last = { done: m.progress, at: Date.now() };
        else final = m;
      });
      worker.on("error", (e) => {
        clearInterval(watchdog);
        resolve({ error: String(e) });
      });
      worker.on("exit", () => {
        clearInterval(watchdog);
        resolve({ report: final });
      });
    });
    const s = ((Date.now() - t0) / 1000).toFixed(0);
    if (row.error || !row.report) {
      failed = true;
      console.log(`| ${name} | - | worker failed: ${row.error ?? (row.hang !== undefined ? `hang near input ${row.hang}` : "no report")} | | | | | | ${s} |`);
      continue;
    }
    const r = row.report;
    const hangs = row.hang !== undefined ? 1 : 0;
    if (r.crashes.length || r.untyped.length || hangs || r.slow.length || r.heapGrowth > maxHeapMib * 2 ** 20) failed = true;
    console.log(`| ${name} | ${r.inputs} | ${r.crashes.length} | ${r.untyped.length} | ${hangs} | ${r.slow.length} | ${r.maxMs.toFixed(1)} | ${(r.heapGrowth / 2 ** 20).toFixed(1)} | ${s} |`);
    for (const c of [...r.crashes.slice(0, 3), ...r.untyped.slice(0, 3)]) console.log(`  ${name} #${c.index}: ${c.what}`);
    for (const c of r.slow.slice(0, 3)) console.log(`  ${name} #${c.index}: slow, ${c.ms} ms`);
  }
  process.exit(failed ? 1 : 0);
} else {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc");
  const held = () => {
    gc();
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const { name, seed, count, slowMs } = workerData;
  const mod = await import("../build/spec-tests/hostile/fuzz-targets.js");
  const target = mod.TARGETS[name];
  const warm = Math.min(count, 2_000);
  const report = await mod.runTarget(target, seed, 0, warm, slowMs);
  const base = held();
  for (let from = warm; from < count; from += BATCH) {
    await mod.runTarget(target, seed, from, Math.min(count, from + BATCH), slowMs, report);
    parentPort.postMessage({ progress: from });
    // Keep the lists bounded on a long run.
    report.crashes.length = Math.min(report.crashes.length, 100);
    report.untyped.length = Math.min(report.untyped.length, 100);
  }
  report.heapGrowth = held() - base;
  // Slow once may be the machine; slow again, alone, is the input.
  const candidates = [...report.slow, { index: report.maxIndex, ms: report.maxMs }].sort((a, b) => b.ms - a.ms);
  report.slow = await mod.confirmSlow(target, seed, candidates, slowMs);
  parentPort.postMessage(report);
}
