// SSE bytes -> JSON-RPC messages throughput (H2), over the event shapes and chunk
// sizes a client meets:
//   node scripts/build.mjs --no-types && node scripts/bench/sse.mjs [--quick] [--cold]
// Pipelines over the same bytes:
//   yada        createSseParser + decodeJson (what the HTTP transport runs), fed bytes
//   esp         eventsource-parser + TextDecoder(stream) + JSON.parse, fed the same bytes
//   esp strings eventsource-parser + JSON.parse fed the stream already decoded (its decode
//               not counted: how a bench that hands it strings sees it)
//   floor       TextDecoder(stream) over the bytes + JSON.parse of each message's JSON,
//               already cut out: no SSE parsing at all, the least any pipeline must do
// Streams (4 MiB each; MIB=n changes it):
//   mixed       progress and log notifications and results of 0.2 / 2 / 20 KB, `event: message`
//               and an id on every event (as the official SDK writes them), a priming event now and then
//   small       progress and log notifications only, event + id + data
//   data-only   progress notifications as bare `data:` lines
//   crlf        CRLF line ends, data split over several `data:` lines (joined with "\n")
// Chunkings: 16 KiB and 64 KiB (what fetch hands over from a busy stream), 1 KiB, and one
// chunk per event (a server that flushes each event on an idle connection).
// Targets on every row: yada >= 0.9x the floor and >= 1.2x esp (bytes in, its decode
// counted); yada ÷ esp strings is printed beside them. Each row's figures are the best
// of ROUNDS (default 15) rounds, the pipelines taking turns within each round, after a
// warm-up. --cold also times the first 256 KiB each pipeline parses in a fresh process.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createParser } from "eventsource-parser";
import { createSseParser } from "../../build/src/transport/sse.js";
import { decodeJson } from "../../build/src/jsonrpc/messages.js";

const QUICK = process.argv.includes("--quick");
const ROUNDS = Number(process.env.ROUNDS ?? (QUICK ? 5 : 15));
const MIB = 1024 * 1024;
const SIZE = Number(process.env.MIB ?? (QUICK ? 1 : 4)) * MIB;

/** The JSON-RPC messages of a stream shape, one at a time. */
function message(shape, n) {
  if (shape === "mixed" && n % 3 === 2) {
    const size = [200, 2_000, 20_000][(n >> 1) % 3];
    return { jsonrpc: "2.0", id: n, result: { content: [{ type: "text", text: "x".repeat(size) }], structuredContent: { n, ok: true, items: [1, 2, 3] } } };
  }
  if (shape !== "data-only" && n % 3 === 1) {
    return { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", logger: "srv", data: `step ${n} of the long operation, \u00e9t\u00e9 \u{1F680}` } };
  }
  return { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: `tok-${n}`, progress: n, total: 1e6, message: "working" } };
}

/** One event's wire text (and the JSON texts it carries, for the floor). */
function event(shape, n, json) {
  if (shape === "data-only") return `data: ${json}\n\n`;
  if (shape === "crlf") {
    // Split after the first comma and before the last brace: the joined data is the JSON again.
    const a = json.indexOf(",") + 1;
    return `event: message\r\nid: ${n}\r\ndata: ${json.slice(0, a)}\r\ndata: ${json.slice(a, -1)}\r\ndata: ${json.slice(-1)}\r\n\r\n`;
  }
  const prime = shape === "mixed" && n % 50 === 0 ? `id: prime-${n}\ndata:\n\n` : "";
  return `${prime}event: message\nid: 0f8b3c2a-${n.toString(16).padStart(8, "0")}\ndata: ${json}\n\n`;
}

function buildStream(shape, targetBytes) {
  const texts = [];
  const events = [];
  let length = 0;
  for (let n = 1; length < targetBytes; n++) {
    const json = JSON.stringify(message(shape, n));
    // The crlf shape's data is the JSON with "\n" inserted where its lines were split.
    const a = json.indexOf(",") + 1;
    texts.push(shape === "crlf" ? `${json.slice(0, a)}\n${json.slice(a, -1)}\n${json.slice(-1)}` : json);
    const e = event(shape, n, json);
    events.push(e);
    length += e.length;
  }
  const text = events.join("");
  return { text, events, texts, bytes: new TextEncoder().encode(text) };
}

function chunked(stream, chunking) {
  const encoder = new TextEncoder();
  if (chunking === "event") return stream.events.map((e) => encoder.encode(e));
  const chunks = [];
  for (let i = 0; i < stream.bytes.length; i += chunking) chunks.push(stream.bytes.slice(i, i + chunking));
  return chunks;
}

// The crlf shape's data holds "\n" inside JSON (between tokens), which JSON.parse accepts.
const pipelines = {
  floor({ chunks, texts }) {
    const decoder = new TextDecoder();
    let chars = 0;
    for (const c of chunks) chars += decoder.decode(c, { stream: true }).length;
    for (const t of texts) JSON.parse(t);
    return chars > 0 ? texts.length : 0;
  },
  yada({ chunks }) {
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
  },
  esp({ chunks }) {
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
  },
  "esp strings"({ strings }) {
    let count = 0;
    const parser = createParser({
      onEvent(e) {
        if (e.data === "") return;
        JSON.parse(e.data);
        count++;
      },
    });
    for (const s of strings) parser.feed(s);
    return count;
  },
};

if (process.argv[2] === "--cold-child") {
  // One pipeline, once, in this fresh process: the first 256 KiB of the small stream in 16 KiB chunks.
  const stream = buildStream("small", 256 * 1024);
  const chunks = chunked(stream, 16 * 1024);
  const decoder = new TextDecoder();
  const data = { chunks, texts: stream.texts, strings: chunks.map((c) => decoder.decode(c, { stream: true })) };
  const t0 = performance.now();
  pipelines[process.argv[3]](data);
  console.log((performance.now() - t0).toFixed(2));
  process.exit(0);
}

const SHAPES = ["mixed", "small", "data-only", "crlf"];
const CHUNKINGS = [16 * 1024, 64 * 1024, 1024, "event"];
const names = Object.keys(pipelines);
const rows = [];
let met = 0;
let targets = 0;
for (const shape of SHAPES) {
  const stream = buildStream(shape, SIZE);
  for (const chunking of CHUNKINGS) {
    const chunks = chunked(stream, chunking);
    const decoder = new TextDecoder();
    const data = { chunks, texts: stream.texts, strings: chunks.map((c) => decoder.decode(c, { stream: true })) };
    for (const name of names) {
      const got = pipelines[name](data);
      if (got !== stream.texts.length) throw new Error(`${name} produced ${got} messages on ${shape}, expected ${stream.texts.length}`);
    }
    for (let i = 0; i < 3; i++) for (const name of names) pipelines[name](data); // warm up
    const best = Object.fromEntries(names.map((k) => [k, Infinity]));
    for (let round = 0; round < ROUNDS; round++) {
      // The order turns each round, so that no pipeline always runs after the same one.
      for (let k = 0; k < names.length; k++) {
        const name = names[(k + round) % names.length];
        const t0 = performance.now();
        pipelines[name](data);
        best[name] = Math.min(best[name], performance.now() - t0);
      }
    }
    const rate = (name) => stream.bytes.length / MIB / (best[name] / 1000);
    const vsFloor = rate("yada") / rate("floor");
    const vsEsp = rate("yada") / rate("esp");
    const vsStrings = rate("yada") / rate("esp strings");
    targets += 2;
    met += (vsFloor >= 0.9 ? 1 : 0) + (vsEsp >= 1.2 ? 1 : 0);
    const mark = (got, want) => `${got.toFixed(2)}x ${got >= want ? "met" : "NOT met"}`;
    rows.push(`| ${shape} | ${chunking === "event" ? "one per event" : `${chunking / 1024} KiB`} | ${names.map((n) => rate(n).toFixed(0)).join(" | ")} | ${mark(vsFloor, 0.9)} | ${mark(vsEsp, 1.2)} | ${vsStrings.toFixed(2)}x |`);
  }
}
console.log(`SSE bytes to JSON-RPC messages, MiB/s (higher is better), ${SIZE / MIB} MiB per stream, best of ${ROUNDS}, node ${process.version}\n`);
console.log(`| stream | chunks | ${names.join(" | ")} | yada ÷ floor (target >= 0.9x) | yada ÷ esp (target >= 1.2x) | yada ÷ esp strings |`);
console.log(`| --- | --- | ${names.map(() => "---:").join(" | ")} | ---: | ---: | ---: |`);
for (const r of rows) console.log(r);
console.log(`\n${met} of ${targets} targets met`);

if (process.argv.includes("--cold")) {
  const self = fileURLToPath(import.meta.url);
  const cold = Object.fromEntries(names.map((n) => [n, []]));
  for (let rep = 0; rep < 5; rep++) {
    for (const n of names) cold[n].push(Number(spawnSync(process.execPath, [self, "--cold-child", n], { encoding: "utf8" }).stdout.trim()));
  }
  const med = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
  console.log("\ncold: the first 256 KiB of the small stream in 16 KiB chunks, in a fresh process, median of 5 (ms, lower is better)");
  console.log(`| ${names.join(" | ")} | yada ÷ floor | yada ÷ esp |\n| ${names.map(() => "---:").join(" | ")} | ---: | ---: |`);
  console.log(`| ${names.map((n) => med(cold[n]).toFixed(2)).join(" | ")} | ${(med(cold.floor) / med(cold.yada)).toFixed(2)}x | ${(med(cold.esp) / med(cold.yada)).toFixed(2)}x |`);
}
