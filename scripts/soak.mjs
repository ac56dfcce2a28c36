// Y8: the long soak: 100 k calls over stdio and over HTTP against servers that
// fail at random (fixtures/servers/flaky.mjs, fixtures/http/flaky.mjs), 8 at a
// time, reconnecting when a stdio server exits. Afterwards no socket, server,
// process, pipe or timer may be left, no process listener added, no runtime
// warning raised, and the heap must be flat (end vs after the first tenth).
//   node scripts/build.mjs --no-types && node scripts/soak.mjs [--calls 100000] [--seed N] [stdio|http]
const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  if (i === -1) return dflt;
  const v = Number(argv[i + 1]);
  argv.splice(i, 2);
  return v;
};
const calls = opt("calls", 100_000);
const seed = opt("seed", 1);
const kinds = argv.length > 0 ? argv : ["stdio", "http"];
const { soak } = await import("../build/spec-tests/hostile/soak-run.js");
const MiB = 2 ** 20;
let failed = false;
console.log("| transport | calls | outcomes | crossed | untyped | reconnects | heap early → end MiB | leaks | listeners | warnings | s |");
console.log("| --- | ---: | --- | ---: | ---: | ---: | --- | --- | --- | --- | ---: |");
for (const kind of kinds) {
  const r = await soak({ kind, calls, seed });
  const bad = r.untyped.length > 0 || r.crossed > 0 || r.leaks.length > 0 || r.listeners.length > 0 || r.warnings.length > 0 || r.heapEnd - r.heapEarly > 16 * MiB;
  if (bad) failed = true;
  const outcomes = Object.entries(r.outcomes).map(([k, n]) => `${k} ${n}`).join(", ");
  console.log(
    `| ${kind} | ${r.calls} | ${outcomes} | ${r.crossed} | ${r.untyped.length} | ${r.reconnects} | ${(r.heapEarly / MiB).toFixed(1)} → ${(r.heapEnd / MiB).toFixed(1)} | ${r.leaks.join(" ") || "none"} | ${r.listeners.join(" ") || "none"} | ${r.warnings.length} | ${(r.ms / 1000).toFixed(0)} |`,
  );
}
process.exit(failed ? 1 : 0);
