#!/usr/bin/env node
// Bundle sizes (X3): each yada entry bundled, minified and gzipped, beside the
// official SDK v1 and v2 clients (Client + StreamableHTTPClientTransport) bundled the
// same way, in one run. Prints a Markdown table; `--json` prints the numbers.
//
// Usage: node scripts/size.mjs [--json] [--files]
//   --files  also prints the web bundle's minified bytes per source file and folder
import * as esbuild from "esbuild";
import { gzipSync } from "node:zlib";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

const root = fileURLToPath(new URL("..", import.meta.url));
/**
 * The size ceilings in min+gzip bytes (X3), held by spec-tests/build/bundles.test.ts:
 * the whole web entry, and McpClient + HttpTransport alone (the SDK rows' selection).
 */
// X3: the ceilings held by spec-tests/build/bundles.test.ts. The web entry carries the action layer
// (approvals, worker, memory / PostgreSQL / Durable Object stores) and the OAuth client, each of which a
// consumer's bundler drops when unused; the McpClient + HttpTransport row is what the SDK rows hold.
export const CEILINGS = { web: 81_000, client: 36_000 };

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
  console.log(`\nceilings (min+gzip, held by a test): web entry ${CEILINGS.web.toLocaleString("en")} bytes, McpClient + HttpTransport ${CEILINGS.client.toLocaleString("en")} bytes (now ${web.gzip.toLocaleString("en")} and ${client?.gzip.toLocaleString("en")})`);
}
if (process.argv.includes("--files")) await printFiles(rows[0]);
}
