// P7: the shipped types load under any lib and the documented patterns type-check
// as written. A consumer project that installed the packed tarball is checked,
// under `strict`, `exactOptionalPropertyTypes` and `skipLibCheck: false`, with each
// configuration users have: the DOM lib alone, ES2022 with @types/node, the
// bundler, node16 and nodenext resolutions, Cloudflare's Workers types, and
// Deno's own checker. None of them needs the DOM or esnext.disposable lib for the
// declarations to load; `await using` works where the lib has Symbol.asyncDispose.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { consumerProject, tscBin, type Consumer } from "../helpers/consumer.js";
import { repoPath } from "../helpers/paths.js";

const T = { timeout: 300_000 };
let consumer: Consumer;
before(async () => {
  consumer = await consumerProject();
  for (const [name, text] of Object.entries(FILES)) writeFileSync(join(consumer.dir, name), text);
}, T);
after(() => consumer?.remove());

/** The documented patterns, as a user writes them (web entry). */
const PATTERNS = `
import { createActions, createWorker, MemoryActionStore, run, scripted } from "yada-mcp";
import type { ActionRecord, Identity, McpConnection, RunResult } from "yada-mcp";
import { MAX_TOOL_RESULT_BYTES } from "yada-mcp/limits";

declare const connection: McpConnection;
const identity: Identity = { actorId: "alice", tenantId: "acme" };
const store = new MemoryActionStore();
const provider = scripted([{ text: "Done." }]);

// RunResult is discriminated by stopReason: a paused run with a store always has its state.
export async function renameThenResume(): Promise<string> {
  const paused = await run({ provider, tools: connection.tools, identity, input: "Rename A", actions: { store } });
  if (paused.stopReason === "approval_required") {
    const done = await run({ provider, tools: connection.tools, identity, resume: paused.state, actions: { store } });
    return done.text;
  }
  if (paused.stopReason === "loop_detected") return paused.loop.toolName;
  return paused.text;
}

export function describe(result: RunResult): string {
  switch (result.stopReason) {
    case "approval_required":
      return \`\${result.proposedCalls.length} call(s) wait\${result.state === undefined ? "" : \` in run \${result.state.runId}\`}\`;
    case "loop_detected":
      return \`\${result.loop.toolName} repeated \${result.loop.count} times\`;
    default:
      return result.text;
  }
}

// ActionRecord narrows on state: a succeeded action has its outcome's result.
export async function outcomeOf(id: string): Promise<string> {
  const actions = createActions({ store, mayApprove: () => true });
  const action: ActionRecord | undefined = await actions.get(id);
  if (action?.state === "succeeded") return JSON.stringify(action.outcome.result.content);
  if (action?.state === "failed") return action.outcome.result.isError ? "failed" : "?";
  if (action?.state === "outcome_unknown") return action.outcome.reason ?? "unknown";
  return action?.state ?? "none";
}

// A resolver straight from connection.tools.
export const worker = createWorker({ store, resolveTool: (action) => connection.tools.find((t) => t.name === action.tool) });
export const bound: number = MAX_TOOL_RESULT_BYTES;
`;

/** `await using`, where the lib has Symbol.asyncDispose. */
const DISPOSE = `
import { HttpTransport, McpClient } from "yada-mcp";
import type { McpConnection } from "yada-mcp";
export async function listed(connection: McpConnection): Promise<number> {
  await using client = await McpClient.connect(new HttpTransport("https://mcp.example.com/mcp"));
  await using conn = connection;
  return (await client.listTools()).length + conn.tools.length;
}
`;

/** The Node entry. */
const NODE = `
import { connectMcp, McpClient, openFileStore } from "yada-mcp/node";
export async function local(): Promise<number> {
  const client = await McpClient.connectStdio("node", ["server.mjs"]);
  const connection = await connectMcp({ name: "catalog", command: "node", args: ["server.mjs"] }, { identity: { actorId: "a", tenantId: "t" }, authorize: () => true });
  const store = await openFileStore("actions.jsonl");
  await store.close();
  await connection.close();
  await client.close();
  return connection.tools.length;
}
`;

const FILES: Record<string, string> = { "p7-patterns.ts": PATTERNS, "p7-dispose.ts": DISPOSE, "p7-node.ts": NODE };

const STRICT = { strict: true, exactOptionalPropertyTypes: true, skipLibCheck: false, noEmit: true, target: "ES2022" };
const typeRoots = [repoPath("node_modules"), repoPath("node_modules", "@types")];

/** The configurations of the matrix: name → compiler options and the files checked. */
const MATRIX: Record<string, { options: Record<string, unknown>; files: string[] }> = {
  "lib DOM, no other types": { options: { lib: ["ES2022", "DOM"], types: [], module: "ESNext", moduleResolution: "Bundler" }, files: ["p7-patterns.ts"] },
  "lib es2022 + @types/node (nodenext)": { options: { lib: ["ES2022"], types: ["node"], module: "NodeNext", moduleResolution: "NodeNext" }, files: ["p7-patterns.ts", "p7-node.ts", "p7-dispose.ts"] },
  "moduleResolution bundler": { options: { lib: ["ES2022"], types: ["node"], module: "ESNext", moduleResolution: "Bundler" }, files: ["p7-patterns.ts", "p7-node.ts"] },
  "moduleResolution node16": { options: { lib: ["ES2022"], types: ["node"], module: "Node16", moduleResolution: "Node16" }, files: ["p7-patterns.ts", "p7-node.ts"] },
  "lib DOM + esnext.disposable (await using)": { options: { lib: ["ES2022", "ESNext.Disposable", "DOM"], types: [], module: "ESNext", moduleResolution: "Bundler" }, files: ["p7-patterns.ts", "p7-dispose.ts"] },
  "Cloudflare Workers types": { options: { lib: ["ES2022"], types: ["@cloudflare/workers-types"], module: "ESNext", moduleResolution: "Bundler" }, files: ["p7-patterns.ts"] },
};

for (const [name, { options, files }] of Object.entries(MATRIX)) {
  test(`P7: the shipped types and the documented patterns check under strict + exactOptionalPropertyTypes: ${name}`, T, () => {
    const file = `tsconfig.p7-${name.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}.json`;
    writeFileSync(join(consumer.dir, file), JSON.stringify({ compilerOptions: { ...STRICT, typeRoots, ...options }, files }, null, 2));
    const r = consumer.exec(tscBin, ["-p", file], 120_000);
    assert.equal(r.status, 0, `${name}:\n${r.stdout}\n${r.stderr}`);
  });
}

test("P7: the shipped types and the documented patterns pass Deno's checker", T, () => {
  const env = ["DENO_NO_UPDATE_CHECK=1", "DENO_NO_PROMPT=1", `DENO_DIR=${join(consumer.dir, ".deno")}`];
  const deno = repoPath("node_modules", ".bin", "deno");
  const check = (config: Record<string, unknown>, all: boolean) => {
    writeFileSync(join(consumer.dir, "deno.json"), JSON.stringify({ compilerOptions: config, nodeModulesDir: "manual" }, null, 2));
    return consumer.exec("env", [...env, deno, "check", ...(all ? ["--all"] : []), "p7-patterns.ts", "p7-dispose.ts"], 180_000);
  };
  // The project's own code under strict + exactOptionalPropertyTypes ...
  const strict = check({ strict: true, exactOptionalPropertyTypes: true }, false);
  assert.equal(strict.status, 0, `deno check:\n${strict.stdout}\n${strict.stderr}`);
  // ... and every declaration it loads, the package's included (Deno's own Node
  // declarations do not hold under exactOptionalPropertyTypes, so --all runs under strict).
  const all = check({ strict: true }, true);
  assert.equal(all.status, 0, `deno check --all:\n${all.stdout}\n${all.stderr}`);
});
