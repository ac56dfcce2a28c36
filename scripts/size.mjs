#!/usr/bin/env node
// Bundle sizes (X3): each yada entry bundled, minified and gzipped, beside the
// official SDK v1 and v2 clients (Client + StreamableHTTPClientTransport) bundled the
// same way, in one run. Prints a Markdown table, then what the OAuth client, the
// action stores, the approvals API and the approval inbox each add to the web entry, then what each use
// (USES: the client, connectMcp's reads, writes with the worker, ...) bundles beside
// its ceiling; `--json` prints the numbers.
//
// Usage: node scripts/size.mjs [--json] [--files]
//   --files  also prints the web bundle's minified bytes per source file and folder
import * as esbuild from "esbuild";
import { gzipSync } from "node:zlib";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

const root = fileURLToPath(new URL("..", import.meta.url));
/**
 * The size ceilings in min+gzip bytes (X3), held by spec-tests/build/bundles.test.ts:
 * the whole web entry; the web entry without the OAuth client, the action stores,
 * the approvals API, the inbox and the two tracing modules (`core`: what a bundle
 * that imports none of them gets, write tools of connectMcp and run's approvals
 * included); McpClient + HttpTransport alone (the SDK rows' selection, which must not grow).
 */
// X3: each ceiling is the size measured when it was set plus a small margin; lower them as the bundles
// shrink. The OAuth client (src/auth/), the action layer (src/actions/: approvals, worker, memory /
// PostgreSQL / Durable Object stores) and the approval inbox (src/inbox/) are each dropped by a
// consumer's bundler when unused; what each adds is printed under the table. The whole web entry's
// ceiling holds the inbox (U1, about 11,300 B) and the enterprise OAuth grants (A7, about 1,500 B); the two others do not, and a bundle that does not
// import the inbox carries none of it (held by a test). The spans of run (runTracing) and of MCP requests (mcpTracing) are modules
// of about 740 B each that only a traced bundle imports (O1, O3): the core's ceiling holds neither, only the hooks that call them
// and the spans of proposals; the web entry's holds both. The host handlers (hostHandlers), the resource tools (mcpResources) and
// the write roles (mcpWrites) are opt-in modules too: McpClient + HttpTransport and connectMcp's reads carry none of them (held by a test).
// The web entry and the core rose last for the checks of a hostile authorization server (A2, A8: bounds that hold whatever the
// host's fetch does, the loopback names of hosts files) and RFC 3986's grammar for the uri formats (T5), about 550 B each.
export const CEILINGS = { web: 111_000, core: 68_500, client: 20_300 };

/**
 * What one use of the web entry bundles (X3, pay for what you use): each a
 * selection a consumer's bundler tree-shakes from `yada-mcp`, with its ceiling
 * in min+gzip bytes, held by spec-tests/build/bundles.test.ts. Each ceiling is the
 * size measured when it was set plus a small margin; lower them as the bundles shrink.
 */
export const USES = [
  { use: "client", what: "McpClient + HttpTransport", exports: ["McpClient", "HttpTransport"], ceiling: CEILINGS.client },
  { use: "client + OAuth", what: "McpClient + HttpTransport + OAuthClient + MemoryTokenStore", exports: ["McpClient", "HttpTransport", "OAuthClient", "MemoryTokenStore"], ceiling: 30_700 },
  { use: "connectMcp read", what: "connectMcp alone: read tools over Streamable HTTP", exports: ["connectMcp"], ceiling: 39_000 },
  { use: "connectMcp + writes + worker", what: "connectMcp + mcpWrites + createActions + createWorker + MemoryActionStore", exports: ["connectMcp", "mcpWrites", "createActions", "createWorker", "MemoryActionStore"], ceiling: 52_100 },
  { use: "whole entry", what: "everything `yada-mcp` exports", entry: "src/index.ts", ceiling: CEILINGS.web },
];

/** The bundle a use makes: `{ contents, loader, platform }` or `{ entry, platform }`. */
export function useRow(u) {
  if (u.entry) return { name: u.use, entry: u.entry, platform: "neutral" };
  return { name: u.use, contents: `export { ${u.exports.join(", ")} } from "./src/index.ts";`, loader: "ts", platform: "neutral" };
}

/** The web entry's export lines, without those whose module path matches `drop`: a selection's source. */
function webEntryWithout(drop) {
  const lines = readFileSync(join(root, "src", "index.ts"), "utf8").split("\n");
  return lines
    .filter((line) => !(line.startsWith("export") && drop.test(line)))
    .join("\n")
    .replaceAll('from "./', 'from "./src/');
}

/** The layers whose exports a bundle may leave out: what each adds to the web entry is printed. */
export const LAYERS = [
  { name: "the OAuth client (OAuthClient, MemoryTokenStore, parseChallenges)", drop: /from "\.\/auth\// },
  { name: "the action stores (memory, PostgreSQL, Durable Object)", drop: /from "\.\/actions\/(memory-store|postgres-store|durable-object-store|durable-object-remote)\.js"/ },
  { name: "the approvals API and worker (createActions, createWorker)", drop: /from "\.\/actions\/(approvals|worker)\.js"/ },
  { name: "the approval inbox (createApprovalInbox)", drop: /from "\.\/inbox\// },
  { name: "all four", drop: /from "\.\/(auth|actions|inbox)\// },
  { name: "the MCP tracing module (mcpTracing)", drop: /from "\.\/trace\/mcp\.js"/ },
  { name: "the run tracing module (runTracing)", drop: /from "\.\/trace\/agent\.js"/ },
];
/** What the core row leaves out: the four layers, and the two tracing modules (a bundle without a tracer imports neither). */
const CORE_DROP = /from "\.\/(auth|actions|inbox)\/|from "\.\/trace\/(mcp|agent)\.js"/;

/** One selection bundled, minified and gzipped: `{ min, gzip }` bytes. */
export async function measure({ entry, contents, platform, loader = "js" }, metafile = false) {
  const options = {
    metafile,
    bundle: true,
    minify: true,
    write: false,
    format: "esm",
    platform,
    target: "es2022",
    legalComments: "none",
    logLevel: "silent",
    absWorkingDir: root,
  };
  if (platform === "neutral") options.mainFields = ["module", "main"];
  if (entry) options.entryPoints = [join(root, entry)];
  else options.stdin = { contents, resolveDir: root, loader };
  const out = await esbuild.build(options);
  const bytes = out.outputFiles[0].contents;
  const result = { min: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  if (metafile) result.inputs = Object.values(out.metafile.outputs)[0].inputs;
  return result;
}

/** Prints the minified bytes each source file and folder adds to a bundle. */
async function printFiles(row) {
  const { inputs } = await measure(row, true);
  const files = Object.entries(inputs).map(([name, v]) => [name, v.bytesInOutput]).sort((a, b) => b[1] - a[1]);
  const folders = new Map();
  for (const [name, bytes] of files) {
    const folder = name.split("/").slice(0, 2).join("/");
    folders.set(folder, (folders.get(folder) ?? 0) + bytes);
  }
  // What the web entry's features weigh, by source file (minified bytes; gzip does not split by file).
  const FEATURES = [
    ["writes: approvals API, worker, stores (src/actions/)", /^src\/actions\//],
    ["writes: connectMcp's write and confirm tools, run's approvals", /^src\/(tools\/(action-call|action-tools|write-tool|confirm-tool)|agent\/run-actions)\.ts$/],
    ["OAuth client (src/auth/)", /^src\/auth\//],
    ["JSON Schema validator (src/schema/)", /^src\/schema\//],
    ["HTTP+SSE fallback", /^src\/transport\/legacy-(sse|fallback)\.ts$/],
    ["tasks", /^src\/mcp\/(tasks|task-call|task-module)\.ts$/],
    ["skills and completions", /^src\/mcp\/(skills|skill-frontmatter|completions)\.ts$/],
    ["agent loop and providers (src/agent/, rest)", /^src\/agent\//],
  ];
  console.log("\n| feature | min bytes |\n| --- | ---: |");
  const taken = new Set();
  for (const [label, pattern] of FEATURES) {
    let sum = 0;
    for (const [name, bytes] of files) if (!taken.has(name) && pattern.test(name)) (sum += bytes), taken.add(name);
    console.log(`| ${label} | ${sum.toLocaleString("en")} |`);
  }
  console.log("\n| folder | min bytes |\n| --- | ---: |");
  for (const [name, bytes] of [...folders].sort((a, b) => b[1] - a[1])) console.log(`| ${name} | ${bytes.toLocaleString("en")} |`);
  console.log("\n| file | min bytes |\n| --- | ---: |");
  for (const [name, bytes] of files) if (bytes > 0) console.log(`| ${name} | ${bytes.toLocaleString("en")} |`);
}

export const rows = [
  { name: "yada (web: client, HTTP, schema, tools, agent, providers)", entry: "src/index.ts", platform: "neutral" },
  { name: "yada/node (adds stdio, Node built-ins)", entry: "src/node.ts", platform: "node" },
  { name: "yada CLI", entry: "src/cli/main.ts", platform: "node" },
  {
    name: "yada web entry without the OAuth client, the action stores, the approvals API, the inbox and the tracing modules (connectMcp's write tools and run's approvals kept)",
    contents: webEntryWithout(CORE_DROP),
    loader: "ts",
    platform: "neutral",
  },
  {
    name: "yada: McpClient + HttpTransport alone (what the SDK rows hold), tree-shaken from the web entry",
    contents: 'export { McpClient, HttpTransport } from "./src/index.ts";',
    loader: "ts",
    platform: "neutral",
  },
  {
    name: "SDK v1 1.32.2: Client + StreamableHTTPClientTransport",
    contents: 'export { Client } from "@modelcontextprotocol/sdk/client/index.js"; export { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";',
    platform: "browser",
  },
  {
    name: "SDK v2 2.4.0: Client + StreamableHTTPClientTransport",
    contents: 'export { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";',
    platform: "browser",
  },
];

if (import.meta.url !== `file://${process.argv[1]}`) {
  // imported (the size test): measure only what is asked
} else await main();

async function main() {
const results = [];
for (const r of rows) {
  if (r.entry && !existsSync(join(root, r.entry))) continue;
  results.push({ name: r.name, ...(await measure(r)) });
}
if (process.argv.includes("--json")) {
  console.log(JSON.stringify(results, null, 2));
} else {
  const web = results[0];
  console.log("| bundle | min bytes | min+gzip bytes | gzip vs yada web |");
  console.log("| --- | ---: | ---: | ---: |");
  for (const r of results) console.log(`| ${r.name} | ${r.min.toLocaleString("en")} | ${r.gzip.toLocaleString("en")} | ${(r.gzip / web.gzip).toFixed(2)}× |`);
  const client = results.find((r) => r.name.startsWith("yada: McpClient"));
  const core = results.find((r) => r.name.startsWith("yada web entry without"));
  console.log("\n| what the web entry carries for | min bytes | min+gzip bytes |\n| --- | ---: | ---: |");
  for (const layer of LAYERS) {
    const without = await measure({ contents: webEntryWithout(layer.drop), loader: "ts", platform: "neutral" });
    console.log(`| ${layer.name} | ${(web.min - without.min).toLocaleString("en")} | ${(web.gzip - without.gzip).toLocaleString("en")} |`);
  }
  const fmt = (n) => n?.toLocaleString("en");
  console.log("\n| use | what is imported from yada-mcp | min bytes | min+gzip bytes | ceiling (min+gzip) |\n| --- | --- | ---: | ---: | ---: |");
  for (const u of USES) {
    const m = u.entry ? web : await measure(useRow(u));
    console.log(`| ${u.use} | ${u.what} | ${fmt(m.min)} | ${fmt(m.gzip)} | ${fmt(u.ceiling)} |`);
  }
  console.log(
    `\nceilings (min+gzip, held by a test): web entry ${fmt(CEILINGS.web)} bytes, without OAuth, stores, approvals, inbox and tracing modules ${fmt(CEILINGS.core)} bytes, McpClient + HttpTransport ${fmt(CEILINGS.client)} bytes (now ${fmt(web.gzip)}, ${fmt(core?.gzip)} and ${fmt(client?.gzip)})`,
  );
}
if (process.argv.includes("--files")) await printFiles(rows[0]);
}
