import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { repoPath } from "../helpers/paths.js";

// X3: one vendorable ESM file per entry, with types.
test("X3: each entry is one self-contained ESM file with .d.ts, as package.json exports say", () => {
  const pkg = JSON.parse(readFileSync(repoPath("package.json"), "utf8")) as {
    exports: Record<string, { types: string; import: string }>;
    dependencies?: Record<string, string>;
    bin?: Record<string, string>;
  };
  assert.deepEqual(pkg.dependencies ?? {}, {}, "no runtime dependencies (X1)");
  for (const [entry, target] of Object.entries(pkg.exports)) {
    assert.ok(existsSync(repoPath(target.import)), `${entry}: ${target.import} is missing`);
    assert.ok(existsSync(repoPath(target.types)), `${entry}: ${target.types} is missing`);
  }
  const web = readFileSync(repoPath("dist", "yada.js"), "utf8");
  // Self-contained: the web bundle imports nothing; the Node bundles only node: built-ins.
  assert.doesNotMatch(web, /^\s*import\s.*from\s*["']/m);
  assert.doesNotMatch(web, /\bimport\s*\(/);
  for (const file of ["yada-node.js", "cli.js"]) {
    const text = readFileSync(repoPath("dist", file), "utf8");
    const specifiers = [...text.matchAll(/^\s*import\s[^;]*?from\s*["']([^"']+)["']/gm)].map((m) => m[1] ?? "");
    assert.ok(specifiers.every((s) => s.startsWith("node:")), `${file} imports ${specifiers.filter((s) => !s.startsWith("node:")).join(", ")}`);
  }
  assert.ok(pkg.bin?.yada && readFileSync(repoPath(pkg.bin.yada), "utf8").startsWith("#!/usr/bin/env node"));
});

// X3: the size ceilings, measured as scripts/size.mjs measures (the same function):
// the whole web entry, the web entry without the OAuth client, the action stores and
// the approvals API, and McpClient + HttpTransport alone. Lower them as the bundle
// shrinks; the last must not grow.
type SizeModule = {
  CEILINGS: { web: number; core: number; client: number };
  rows: { name: string }[];
  measure(row: { name: string }, metafile?: boolean): Promise<{ min: number; gzip: number }>;
};
const size = (await import(pathToFileURL(repoPath("scripts", "size.mjs")).href)) as SizeModule;

test("X3: the whole web entry, the approval inbox included, stays within 110,000 bytes min+gzip", async () => {
  assert.equal(size.CEILINGS.web, 111_000);
  const web = size.rows.find((r) => r.name.startsWith("yada (web"));
  assert.ok(web);
  const { gzip } = await size.measure(web);
  assert.ok(gzip <= size.CEILINGS.web, `the web entry is ${gzip} bytes min+gzip, over ${size.CEILINGS.web}`);
});

test("X3: the web entry without the OAuth client, the action stores, the approvals API, the inbox and the tracing modules stays within 67,800 bytes min+gzip", async () => {
  assert.equal(size.CEILINGS.core, 68_500);
  const core = size.rows.find((r) => r.name.startsWith("yada web entry without"));
  assert.ok(core);
  const { gzip } = await size.measure(core);
  assert.ok(gzip <= size.CEILINGS.core, `the web entry without OAuth, stores, approvals, inbox and tracing is ${gzip} bytes min+gzip, over ${size.CEILINGS.core}`);
});

test("X3: McpClient + HttpTransport alone stay within 20,300 bytes min+gzip (the task module, the HTTP+SSE fallback and the schema validator left out)", async () => {
  assert.equal(size.CEILINGS.client, 20_300);
  const client = size.rows.find((r) => r.name.startsWith("yada: McpClient"));
  assert.ok(client);
  const { gzip } = await size.measure(client);
  assert.ok(gzip <= size.CEILINGS.client, `McpClient + HttpTransport are ${gzip} bytes min+gzip, over ${size.CEILINGS.client}`);
});

test("X3: McpClient + HttpTransport carry neither the task follower, the HTTP+SSE transport, the schema validator, completions nor the host handlers (opt-in modules)", async () => {
  const client = size.rows.find((r) => r.name.startsWith("yada: McpClient"));
  assert.ok(client);
  const { inputs } = (await size.measure(client, true)) as unknown as { inputs: Record<string, { bytesInOutput: number }> };
  const carried = Object.entries(inputs).filter(([, v]) => v.bytesInOutput > 0).map(([file]) => file);
  assert.ok(carried.includes("src/mcp/client.ts") && carried.includes("src/transport/http.ts"), carried.join(", "));
  const optIn = carried.filter((f) => /^src\/(schema\/|transport\/legacy-sse\.ts|mcp\/(task-module|completions|handlers|handler-limits|host-module)\.ts)/.test(f));
  assert.deepEqual(optIn, [], `statically reachable from McpClient or HttpTransport: ${optIn.join(", ")}`);
  // Of the task code only the capability checks stay (the follower, polling and input rounds of tasks are left out).
  assert.ok((inputs["src/mcp/tasks.ts"]?.bytesInOutput ?? 0) < 600, `src/mcp/tasks.ts adds ${inputs["src/mcp/tasks.ts"]?.bytesInOutput} bytes`);
});

test("U1, X3: the approval inbox adds nothing to a bundle that does not import it: connectMcp, the client, the action layer, the core", async () => {
  const selections = [
    ...size.rows.filter((r) => r.name.startsWith("yada web entry without") || r.name.startsWith("yada: McpClient")),
    { name: "connectMcp", contents: 'export { connectMcp } from "./src/index.ts";', loader: "ts", platform: "neutral" },
    { name: "the action layer", contents: 'export { run, createActions, createWorker, MemoryActionStore, PostgresActionStore, DurableObjectActionStore, remoteActionStore } from "./src/index.ts";', loader: "ts", platform: "neutral" },
  ];
  for (const row of selections) {
    const { inputs } = (await size.measure(row, true)) as unknown as { inputs: Record<string, { bytesInOutput: number }> };
    const carried = Object.entries(inputs).filter(([file, v]) => file.startsWith("src/inbox/") && v.bytesInOutput > 0).map(([file]) => file);
    assert.deepEqual(carried, [], `${row.name} carries ${carried.join(", ")}`);
  }
  // And one that imports it carries it (the check above can fail).
  const { inputs } = (await size.measure({ name: "inbox", contents: 'export { createApprovalInbox } from "./src/index.ts";', loader: "ts", platform: "neutral" } as never, true)) as unknown as { inputs: Record<string, { bytesInOutput: number }> };
  assert.ok((inputs["src/inbox/inbox.ts"]?.bytesInOutput ?? 0) > 1_000);
});

// X3, pay for what you use: each use of the web entry (the client, the client with
// OAuth, connectMcp's read tools, connectMcp with writes and the worker, the whole
// entry) bundled as a consumer's bundler tree-shakes it, within its ceiling.
type UsesModule = SizeModule & {
  USES: { use: string; what: string; exports?: string[]; entry?: string; ceiling: number }[];
  useRow(u: unknown): { name: string };
};
const uses = size as UsesModule;
for (const u of uses.USES) {
  test(`X3: ${u.use} (${u.what}) stays within ${u.ceiling.toLocaleString("en")} bytes min+gzip`, async () => {
    const { gzip } = await uses.measure(uses.useRow(u));
    assert.ok(gzip <= u.ceiling, `${u.use} is ${gzip} bytes min+gzip, over ${u.ceiling}`);
  });
}

test("X3: connectMcp alone carries neither the write tools and roles, the resource tools, the task follower, the host handlers, the HTTP+SSE transport, the tracing modules nor the format checks (modules passed in its options)", async () => {
  const read = uses.USES.find((u) => u.use === "connectMcp read");
  assert.ok(read);
  const { inputs } = (await uses.measure(uses.useRow(read), true)) as unknown as { inputs: Record<string, { bytesInOutput: number }> };
  const carried = Object.entries(inputs).filter(([, v]) => v.bytesInOutput > 0).map(([file]) => file);
  assert.ok(carried.includes("src/tools/connect.ts") && carried.includes("src/schema/compile.ts"), carried.join(", "));
  const optIn = carried.filter((f) =>
    /^src\/(tools\/(action-call|write-tool|confirm-tool|envelope|fingerprint|write-roles|resources)\.ts|transport\/legacy-sse\.ts|mcp\/(task-module|handlers|handler-limits|host-module)\.ts|schema\/formats\.ts|trace\/(mcp|agent)\.ts|auth\/)/.test(f),
  );
  assert.deepEqual(optIn, [], `statically reachable from connectMcp: ${optIn.join(", ")}`);
});

test("O1, X3: run without a tracer carries none of the run's spans (runTracing), and a bundle that imports runTracing does", async () => {
  const carriedBy = async (exports: string): Promise<string[]> => {
    const row = { name: exports, contents: `export { ${exports} } from "./src/index.ts";`, loader: "ts", platform: "neutral" };
    const { inputs } = (await size.measure(row as never, true)) as unknown as { inputs: Record<string, { bytesInOutput: number }> };
    return Object.entries(inputs).filter(([, v]) => v.bytesInOutput > 0).map(([file]) => file);
  };
  const plain = await carriedBy("run, runStream");
  assert.ok(plain.includes("src/agent/run.ts"), plain.join(", "));
  assert.deepEqual(plain.filter((f) => /^src\/trace\/(agent|mcp)\.ts$/.test(f)), []);
  assert.ok((await carriedBy("run, runTracing")).includes("src/trace/agent.ts"));
});
