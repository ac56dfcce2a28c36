// SSE bytes -> JSON-RPC messages throughput (H2).
//   node scripts/build.mjs --no-types && node scripts/bench/sse.mjs
// Three pipelines over the same bytes, cut into 16 KiB network-sized chunks:
//   yada      createSseParser + decodeJson (what the HTTP transport runs)
//   esp       eventsource-parser + TextDecoder(stream) + JSON.parse
//   floor     TextDecoder(stream) over the bytes + JSON.parse of each message's JSON,
//             already cut out: no SSE parsing at all, the least any pipeline must do
// Targets (mixed stream): yada >= 0.9x the floor and >= 1.2x eventsource-parser.
// MIXED_MIB (default 50) and SMALL_MIB (default 4) size the two streams.
import { createParser } from "eventsource-parser";
import { createSseParser } from "../../build/src/transport/sse.js";
import { decodeJson } from "../../build/src/jsonrpc/messages.js";

const CHUNK = 16 * 1024;
const ROUNDS = Number(process.env.ROUNDS ?? 15);

// A stream shaped like a busy MCP call: progress notifications, log messages and
// tool results of a few sizes, each event with `event: message` and an id (as the
// official SDK writes them), a priming event now and then.
function buildStream(targetBytes, smallOnly) {
  const texts = [];
  let out = "";
  let n = 0;
  const prime = () => (out += `id: prime-${n}\ndata:\n\n`);
  while (out.length < targetBytes) {
    n++;
    let msg;
    if (n % 3 === 0 || (smallOnly && n % 3 === 2)) {
      msg = { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: `tok-${n}`, progress: n, total: 1e6, message: "working" } };
    } else if (n % 3 === 1) {
      msg = { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", logger: "srv", data: `step ${n} of the long operation, \u00e9t\u00e9 \u{1F680}` } };
    } else {
      const size = [200, 2_000, 20_000][n % 3 === 2 ? (n >> 1) % 3 : 0];
      msg = { jsonrpc: "2.0", id: n, result: { content: [{ type: "text", text: "x".repeat(size) }], structuredContent: { n, ok: true, items: [1, 2, 3] } } };
    }
    const json = JSON.stringify(msg);
    texts.push(json);
    if (n % 50 === 0) prime();
    out += `event: message\nid: 0f8b3c2a-${n.toString(16).padStart(8, "0")}\ndata: ${json}\n\n`;
  }
  const bytes = new TextEncoder().encode(out);
  const chunks = [];
  for (let i = 0; i < bytes.length; i += CHUNK) chunks.push(bytes.slice(i, i + CHUNK));
  return { bytes, chunks, texts };
}

function yada({ chunks }) {
  let count = 0;
  const parser = createSseParser({
    onEvent(e) {
      if (e.data === "") return;
      decodeJson(e.data);
      count++;
    },
  });
  for (const c of chunks) parser.feed(c);
  parser.end();
  return count;
}

function esp({ chunks }) {
  let count = 0;
  const decoder = new TextDecoder();
  const parser = createParser({
    onEvent(e) {
      if (e.data === "") return;
      JSON.parse(e.data);
      count++;
    },
  });
  for (const c of chunks) parser.feed(decoder.decode(c, { stream: true }));
  return count;
}

function floor({ chunks, texts }) {
  const decoder = new TextDecoder();
  let chars = 0;
  for (const c of chunks) chars += decoder.decode(c, { stream: true }).length;
  for (const t of texts) JSON.parse(t);
  return chars > 0 ? texts.length : 0;
}

const pipelines = { floor, yada, "eventsource-parser": esp };

function run(label, data, targets) {
  const mb = data.bytes.length / (1024 * 1024);
  const expected = data.texts.length;
  for (const [name, fn] of Object.entries(pipelines)) {
    const got = fn(data);
    if (got !== expected) throw new Error(`${name} produced ${got} messages, expected ${expected}`);
  }
  for (let i = 0; i < 3; i++) for (const fn of Object.values(pipelines)) fn(data); // warm up
  const best = Object.fromEntries(Object.keys(pipelines).map((k) => [k, Infinity]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, fn] of Object.entries(pipelines)) {
      const t0 = performance.now();
      fn(data);
      best[name] = Math.min(best[name], performance.now() - t0);
    }
  }
  const rate = (name) => mb / (best[name] / 1000);
  console.log(`\n${label}: ${mb.toFixed(1)} MiB, ${expected} messages, ${CHUNK / 1024} KiB chunks, best of ${ROUNDS}, node ${process.version}`);
  console.log("| pipeline | MiB/s | vs floor |");
  console.log("| --- | ---: | ---: |");
  for (const name of Object.keys(pipelines)) {
    console.log(`| ${name} | ${rate(name).toFixed(0)} | ${(rate(name) / rate("floor")).toFixed(2)}x |`);
  }
  const vsFloor = rate("yada") / rate("floor");
  const vsEsp = rate("yada") / rate("eventsource-parser");
  const mark = (got, want) => (want === undefined ? "" : ` (target >= ${want}x: ${got >= want ? "met" : "NOT met"})`);
  console.log(`yada vs floor: ${vsFloor.toFixed(2)}x${mark(vsFloor, targets?.floor)}`);
  console.log(`yada vs eventsource-parser: ${vsEsp.toFixed(2)}x${mark(vsEsp, targets?.esp)}`);
}

const MIB = 1024 * 1024;
run("mixed (progress, logs, results of 0.2 / 2 / 20 KB)", buildStream(Number(process.env.MIXED_MIB ?? 50) * MIB, false), { floor: 0.9, esp: 1.2 });
run("small (progress and log notifications only)", buildStream(Number(process.env.SMALL_MIB ?? 4) * MIB, true));
