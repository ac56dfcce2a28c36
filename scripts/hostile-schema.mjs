// Y1 figures: how long each hostile tool schema of fixtures/servers/hostile-schema.mjs
// holds the event loop during one call through connectMcp (the longest gap between
// ticks of a 1 ms interval), and how the call ends.
// Usage: node scripts/build.mjs --no-types && node scripts/hostile-schema.mjs [--copies N]
import { connectMcp } from "../build/src/node/tools.js";

const copiesAt = process.argv.indexOf("--copies");
const copies = copiesAt > 0 ? process.argv[copiesAt + 1] : "4000";
const server = new URL("../fixtures/servers/hostile-schema.mjs", import.meta.url).pathname;
const identity = { actorId: "bench", tenantId: "bench" };

const calls = [
  ["regex_fanout", { q: "hello world" }],
  ["nested_quantifiers", { q: "hello world" }],
  ["alternation", { q: "hello world" }],
  ["allof_items", { list: Array.from({ length: 3000 }, (_, i) => i) }],
  ["ref_fanout", { q: "hello world" }],
  ["props_items", { rows: Array.from({ length: 400 }, (_, i) => ({ [`x${i % 50}`]: "a", p1: "b" })) }],
  ["output_fanout", {}],
];

/** Runs `fn` and returns [its result, the longest event-loop stall meanwhile in ms]. */
async function stalled(fn) {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 1);
  try {
    await new Promise((r) => setTimeout(r, 5));
    last = performance.now();
    const out = await fn();
    worst = Math.max(worst, performance.now() - last);
    return [out, worst];
  } finally {
    clearInterval(timer);
  }
}

console.log(`copies ${copies}; longest event-loop stall of connect (list + compile) and of one call, per tool`);
for (const [name, args] of calls) {
  const config = { name: "hostile", command: process.execPath, args: [server, "--copies", copies], readTools: [name] };
  let c;
  const [connected, connectMs] = await stalled(() => connectMcp(config, { identity, authorize: () => true }).then((x) => (c = x), (e) => e));
  if (c === undefined) {
    console.log(`${name.padEnd(20)} connect ${connectMs.toFixed(1).padStart(7)} ms  refused: ${connected.code} ${connected.message.slice(0, 100)}`);
    continue;
  }
  try {
    const [r, ms] = await stalled(() => c.tools[0].execute(args, { identity }));
    const text = r.content[0]?.text ?? "";
    console.log(`${name.padEnd(20)} connect ${connectMs.toFixed(1).padStart(7)} ms  call ${ms.toFixed(1).padStart(8)} ms  ${r.isError ? "error" : "ok"}: ${text.slice(0, 100)}`);
  } finally {
    await c.close();
  }
}
