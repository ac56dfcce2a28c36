#!/usr/bin/env node
// Trace overhead on the stdio round trip (O3): tools/call against one echo server,
// in paired blocks (scripts/bench/paired.mjs), sequential and 16-way:
//
//   1. yada without a tracer against yada built from the source before traces
//      existed (the parent of the commit that added src/trace/names.ts, or --baseline
//      REF), bundled as dist/yada-node.js is: what a host that passes no tracer pays
//      for the feature. Target: ≥ 0.98× (at most 2 % slower), printed beside the ratio.
//   2. For reading, no target: yada with the OpenTelemetry API's tracer and no SDK
//      registered (every span a no-op), and with the real SDK recording every span
//      into memory, each against yada without a tracer.
//
// Usage: node scripts/build.mjs && node scripts/bench/trace.mjs [--blocks B] [--calls N] [--baseline REF]
// Absolute numbers are noise on a shared machine: read the ratios.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as esbuild from "esbuild";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { McpClient } from "../../dist/yada-node.js";
import { concurrentMs, pairedRatio, sequentialMs, verdict, describe } from "./paired.mjs";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const BLOCKS = Number(arg("--blocks", 40));
const CALLS = Number(arg("--calls", 300));
const root = fileURLToPath(new URL("../..", import.meta.url));
const server = join(root, "fixtures", "servers", "echo.mjs");

/** The source before traces: the first parent of the commit that added src/trace/names.ts. */
function baselineRef() {
  const given = arg("--baseline", undefined);
  if (given) return given;
  const added = execFileSync("git", ["log", "--diff-filter=A", "--format=%H", "--", "src/trace/names.ts"], { cwd: root, encoding: "utf8" }).trim().split("\n").at(-1);
  if (!added) throw new Error("no commit adds src/trace/names.ts: pass --baseline REF");
  return `${added}^`;
}

/** yada-mcp/node bundled from `ref`'s src/, as the build bundles it. */
async function buildBaseline(ref) {
  const dir = mkdtempSync(join(tmpdir(), "yada-trace-bench-"));
  execFileSync("sh", ["-c", `git archive "${ref}" src | tar -x -C "${dir}"`], { cwd: root });
  const out = join(dir, "yada-node.js");
  await esbuild.build({ entryPoints: [join(dir, "src", "node.ts")], outfile: out, bundle: true, format: "esm", platform: "node", target: "es2022", logLevel: "warning" });
  const mod = await import(pathToFileURL(out).href);
  return { McpClient: mod.McpClient, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A contender: { call(i), close() } over its own echo server. */
async function client(Client, options = {}) {
  const c = await Client.connectStdio("node", [server], undefined, options);
  return { call: (i) => c.callTool("echo", { text: `m${i}` }), close: () => c.close() };
}

// A host's setup: the AsyncLocalStorage context manager an SDK registers in Node.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const exporter = new InMemorySpanExporter();
const sdk = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

const ref = baselineRef();
const baseline = await buildBaseline(ref);
const before = await client(baseline.McpClient);
const none = await client(McpClient);
const noop = await client(McpClient, { tracer: trace.getTracer("bench") }); // no provider registered: no-op spans
const sdkTraced = await client(McpClient, { tracer: sdk.getTracer("bench") });
for (const c of [before, none, noop, sdkTraced]) await sequentialMs(c, 2000); // warm-up, all
const seq = (c) => sequentialMs(c, CALLS);
const par = (c) => concurrentMs(c, CALLS * 2, 16);
const drain = () => exporter.reset(); // the in-memory exporter would otherwise grow for the whole run

console.log(`tools/call over stdio, paired blocks of ${CALLS} sequential / ${CALLS * 2} 16-way calls; baseline: the source at ${ref}`);
console.log("yada without a tracer ÷ yada before traces (the cost of the feature to a host that passes no tracer):");
console.log(verdict("  sequential: ", await pairedRatio(before, none, BLOCKS, seq), 0.98));
console.log(verdict("  16-way:     ", await pairedRatio(before, none, BLOCKS, par), 0.98));
console.log("for reading, no target: yada with a tracer ÷ yada without one");
const noopSeq = await pairedRatio(none, noop, BLOCKS, seq);
const noopPar = await pairedRatio(none, noop, BLOCKS, par);
console.log(`  OpenTelemetry API, no SDK (no-op spans):   sequential ${describe(noopSeq)}, 16-way ${describe(noopPar)}`);
const sdkSeq = await pairedRatio(none, sdkTraced, BLOCKS, (c) => seq(c).finally(drain));
const sdkPar = await pairedRatio(none, sdkTraced, BLOCKS, (c) => par(c).finally(drain));
console.log(`  the SDK, every span recorded to memory:    sequential ${describe(sdkSeq)}, 16-way ${describe(sdkPar)}`);
for (const c of [before, none, noop, sdkTraced]) await c.close();
baseline.dispose();
