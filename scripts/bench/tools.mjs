#!/usr/bin/env node
// The tool layer against the agent frameworks (T1, T4, T5, T6, T7, T15): one tool
// call as an agent makes it, over stdio to the same lean echo server (this script
// with --serve 0, one process per client; each client's CPU per call is printed), in one run:
//   yada        connectMcp's read tool `execute`: identity check, the host's authorize
//               awaited, arguments checked against the input schema and bounded, the
//               result rendered and bounded for the model (what `run` calls)
//   ai-sdk      @ai-sdk/mcp createMCPClient + its stdio transport: `tools()`, then a
//               tool's `execute(args, { toolCallId, messages })` (what generateText calls)
//   agents      @openai/agents MCPServerStdio: the MCP tool as its function tool
//               (mcpToFunctionTool), `invoke(runContext, argumentsJson)` (what a run calls)
//   bare        yada's McpClient.callTool alone: the client without the tool layer
// Each pair (yada against one of the others) is judged on paired blocks
// (scripts/bench/paired.mjs): both connected at once, taking turns block by block,
// sequential calls and 16 in flight; ratios are the other's time ÷ yada's, per round
// and over every round. Then connect + list: a fresh server of 200 tools (this script
// with --serve 200) launched, initialized and its catalog turned into tools, one
// connection at a time, paired the same way; then over HTTP (--serve-http 200, one
// server process for every connection). Beside the paired ratios: the median wall time
// and this process's CPU per connect of each, and the bare client's connect + listTools
// (not judged: the floor under any tool layer, the server's launch included over stdio).
//
// Usage: node scripts/build.mjs --no-types && node scripts/bench/tools.mjs
//   [--rounds R] [--blocks B] [--calls N] [--connects C] [--tools T]
// Targets, printed beside each ratio: yada ≥ 1.5× each framework and ≥ 0.8× the bare
// client, sequential and 16-way; connect + list ≥ 1.5× each framework. Absolute
// numbers are noise on a shared machine: read the ratios.
import { fileURLToPath } from "node:url";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};

if (process.argv[2] === "--serve") {
  serve(Number(process.argv[3] ?? 0));
} else if (process.argv[2] === "--serve-http") {
  serveHttp(Number(process.argv[3] ?? 0));
} else {
  await main();
}

/**
 * The echo server every client talks to, lean so that the clients' own costs show:
 * answers initialize, ping, tools/list (tool `echo` {text} and `count` catalog tools
 * of a realistic read schema, all annotated read-only) and tools/call echo ({text}
 * back as one text block); notifications are read and ignored, other methods get
 * -32601. Returns the answer line of one request line (undefined for none).
 */
function answerer(count) {
  const readOnly = { readOnlyHint: true };
  const tools = [
    { name: "echo", description: "Returns the given text.", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] }, annotations: readOnly },
  ];
  for (let i = 0; i < count; i++) {
    tools.push({
      name: `tool_${i}`,
      description: `Reads record kind ${i}: looks a record up by its key, with optional fields and paging.`,
      inputSchema: {
        type: "object",
        properties: {
          key: { type: "string", minLength: 1, maxLength: 200, description: "The record key" },
          fields: { type: "array", items: { type: "string", pattern: "^[a-z_]+$" }, maxItems: 20, description: "Fields to return" },
          limit: { type: "integer", minimum: 1, maximum: 100 },
          cursor: { type: "string" },
          order: { enum: ["asc", "desc"] },
          filter: { type: "object", properties: { since: { type: "string", format: "date-time" }, tag: { type: "string" } }, additionalProperties: false },
        },
        required: ["key"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, title: `Record ${i}` },
    });
  }
  const VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
  const answer = (m) => {
    if (m.id === undefined) return undefined;
    switch (m.method) {
      case "initialize":
        return { protocolVersion: VERSIONS.includes(m.params?.protocolVersion) ? m.params.protocolVersion : VERSIONS[0], capabilities: { tools: {} }, serverInfo: { name: "echo", version: "1.0.0" } };
      case "ping":
        return {};
      case "tools/list":
        return { tools };
      case "tools/call":
        return { content: [{ type: "text", text: String(m.params?.arguments?.text ?? m.params?.arguments?.key) }] };
      default:
        return null;
    }
  };
  return (line) => {
    const m = JSON.parse(line);
    const result = answer(m);
    if (result === null) return JSON.stringify({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
    return result === undefined ? undefined : JSON.stringify({ jsonrpc: "2.0", id: m.id, result });
  };
}

/** The echo server on stdin / stdout, newline-delimited JSON-RPC. */
function serve(count) {
  const respond = answerer(count);
  let rest = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => {
    rest += chunk;
    let out = "";
    let nl;
    while ((nl = rest.indexOf("\n")) >= 0) {
      const line = rest.slice(0, nl);
      rest = rest.slice(nl + 1);
      if (line.trim() === "") continue;
      const answered = respond(line);
      if (answered !== undefined) out += answered + "\n";
    }
    if (out !== "") process.stdout.write(out);
  });
  process.stdin.on("end", () => process.exit(0));
}

/**
 * The echo server over Streamable HTTP on 127.0.0.1 (port 0, printed on stdout):
 * each POST answered application/json, a notification 202; no session, no GET
 * stream (405). Exits when stdin ends.
 */
async function serveHttp(count) {
  const { createServer } = await import("node:http");
  const respond = answerer(count);
  const server = createServer((req, res) => {
    if (req.method === "DELETE") return void res.writeHead(204).end();
    if (req.method !== "POST") return void res.writeHead(405).end();
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const answered = respond(Buffer.concat(chunks).toString("utf8"));
      if (answered === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { "content-type": "application/json" }).end(answered);
    });
  });
  server.listen(0, "127.0.0.1", () => process.stdout.write(`${server.address().port}\n`));
  process.stdin.on("data", () => {});
  process.stdin.on("end", () => process.exit(0));
}

async function main() {
  const ROUNDS = arg("--rounds", 3);
  const BLOCKS = arg("--blocks", 20);
  const CALLS = arg("--calls", 200);
  const CONNECTS = arg("--connects", 12);
  const TOOLS = arg("--tools", 200);
  const { concurrentMs, cpuPerCall, describe, pairedRatio, sequentialMs } = await import("./paired.mjs");
  const { HttpTransport, McpClient, connectMcp } = await import("../../dist/yada-node.js");
  const { createMCPClient } = await import("@ai-sdk/mcp");
  const { Experimental_StdioMCPTransport } = await import("@ai-sdk/mcp/mcp-stdio");
  const { MCPServerStdio, MCPServerStreamableHttp, RunContext, getAllMcpTools, mcpToFunctionTool } = await import("@openai/agents");

  const self = fileURLToPath(import.meta.url);
  const echo = { args: [self, "--serve", "0"] };
  const identity = { actorId: "bench", tenantId: "bench" };
  const access = { identity, authorize: async () => true };

  // ── the contenders: each connects to `to` ({ args } of a stdio server, or { url }) and
  // returns { call(i), close(), tools } ──
  const clients = {
    async yada(to, tool = "echo") {
      const connection = await connectMcp(to.url ? { name: "srv", url: to.url } : { name: "srv", command: "node", args: to.args }, access);
      const t = connection.tools.find((x) => x.name === `srv__${tool}`);
      return { tools: connection.tools.length, call: (i) => t.execute({ text: `m${i}` }, { identity }), close: () => connection.close() };
    },
    async "ai-sdk"(to, tool = "echo") {
      const transport = to.url ? { type: "http", url: to.url } : new Experimental_StdioMCPTransport({ command: "node", args: to.args });
      const client = await createMCPClient({ transport });
      const tools = await client.tools();
      const t = tools[tool];
      return { tools: Object.keys(tools).length, call: (i) => t.execute({ text: `m${i}` }, { toolCallId: `call_${i}`, messages: [] }), close: () => client.close() };
    },
    async agents(to, tool = "echo") {
      const server = to.url ? new MCPServerStreamableHttp({ url: to.url, name: "srv" }) : new MCPServerStdio({ command: "node", args: to.args, name: "srv" });
      await server.connect();
      const context = new RunContext();
      const tools = await getAllMcpTools({ mcpServers: [server], runContext: context, convertSchemasToStrict: false });
      const t = tool === "echo" ? mcpToFunctionTool((await server.listTools()).find((x) => x.name === tool), server, false) : undefined;
      return { tools: tools.length, call: (i) => t.invoke(context, JSON.stringify({ text: `m${i}` })), close: () => server.close() };
    },
    // Connect + list: the client's own listTools (every tool parsed and checked), no tool layer.
    async bare(to, tool = "echo") {
      const client = to.url ? await McpClient.connect(new HttpTransport(to.url), { name: "srv" }) : await McpClient.connectStdio("node", to.args);
      const tools = tool === "echo" ? 0 : (await client.listTools()).length;
      return { tools, call: (i) => client.callTool("echo", { text: `m${i}` }), close: () => client.close() };
    },
  };

  // Every client gives the same answer to the model's call (checked once, not timed).
  const live = {};
  for (const [name, make] of Object.entries(clients)) {
    live[name] = await make(echo);
    const got = JSON.stringify(await live[name].call(7));
    if (!got.includes('"m7"')) throw new Error(`${name} answered ${got}`);
  }
  for (const c of Object.values(live)) await sequentialMs(c, 1500); // warm-up: let the JIT settle

  const TARGETS = { "ai-sdk": 1.5, agents: 1.5, bare: 0.8 };
  const others = Object.keys(TARGETS);
  const cpu = await cpuPerCall(Object.values(live), CALLS * 5, 3);
  console.log(`node ${process.version}; tools/call through each tool layer over stdio, one echo server process per client\n`);
  console.log("client CPU per sequential call (best of 3):");
  for (const [k, name] of Object.keys(live).entries()) console.log(`  ${name.padEnd(7)} ${cpu[k].toFixed(1).padStart(6)} µs${name === "yada" ? "" : `  (its ÷ yada's: ${(cpu[k] / cpu[0]).toFixed(2)}×)`}`);

  // Per round, every pair sequential then 16-way; ratios pooled over rounds for the verdicts.
  const pooled = Object.fromEntries(others.map((o) => [o, { seq: [], par: [] }]));
  const rows = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const row = { round };
    for (const o of others) {
      const seq = await pairedRatio(live[o], live.yada, BLOCKS, (c) => sequentialMs(c, CALLS));
      const par = await pairedRatio(live[o], live.yada, BLOCKS, (c) => concurrentMs(c, CALLS * 2, 16));
      pooled[o].seq.push(...seq.ratios);
      pooled[o].par.push(...par.ratios);
      row[o] = { seq, par };
    }
    rows.push(row);
  }
  for (const c of Object.values(live)) await c.close();

  console.log(`\nyada's rate ÷ each client's (paired blocks of ${CALLS} sequential / ${CALLS * 2} 16-way calls, medians per round)`);
  console.log(`| round | ${others.map((o) => `vs ${o} seq | vs ${o} 16-way`).join(" | ")} |`);
  console.log(`| ---: | ${others.map(() => "---: | ---:").join(" | ")} |`);
  for (const r of rows) console.log(`| ${r.round} | ${others.map((o) => `${r[o].seq.median.toFixed(2)}× | ${r[o].par.median.toFixed(2)}×`).join(" | ")} |`);
  const summary = (ratios) => {
    const s = ratios.slice().sort((a, b) => a - b);
    const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
    return { median: q(0.5), q1: q(0.25), q3: q(0.75), blocks: s.length };
  };
  const verdicts = [];
  const verdictLine = (label, p, target) => {
    const met = p.median >= target;
    verdicts.push(met);
    return `  ${label.padEnd(22)} ${describe(p)}  (target ≥ ${target.toFixed(2)}×: ${met ? "met" : "NOT met"})`;
  };
  console.log("\nall rounds:");
  for (const o of others) {
    console.log(verdictLine(`vs ${o}, sequential:`, summary(pooled[o].seq), TARGETS[o]));
    console.log(verdictLine(`vs ${o}, 16-way:`, summary(pooled[o].par), TARGETS[o]));
  }

  // ── connect + list of TOOLS tools, until the tools are ready: over stdio a fresh
  // server process each time (its launch counted), over HTTP one server process for all ──
  const { spawn } = await import("node:child_process");
  const httpServer = spawn(process.execPath, [self, "--serve-http", String(TOOLS)], { stdio: ["pipe", "pipe", "inherit"] });
  const port = await new Promise((resolve) => httpServer.stdout.once("data", (d) => resolve(Number(String(d).trim()))));
  const targets = { stdio: { args: [self, "--serve", String(TOOLS)] }, http: { url: `http://127.0.0.1:${port}/mcp` } };
  // Wall time of one connect until its tools are ready, and this process's CPU meanwhile.
  const cpus = {};
  const connectOnce = async (name, to) => {
    const u0 = process.cpuUsage();
    const t0 = performance.now();
    const c = await clients[name](to, "tool_0");
    const ms = performance.now() - t0;
    const u = process.cpuUsage(u0);
    (cpus[name] ??= []).push((u.user + u.system) / 1000);
    if (c.tools !== TOOLS + 1) throw new Error(`${name} made ${c.tools} tools of ${TOOLS + 1}`);
    await c.close();
    return ms;
  };
  for (const [via, to] of Object.entries(targets)) {
    const times = { yada: [], "ai-sdk": [], agents: [], bare: [] };
    for (const name of Object.keys(times)) for (let i = 0; i < (via === "http" ? 5 : 1); i++) await connectOnce(name, to); // warm-up
    for (const name of Object.keys(times)) cpus[name] = [];
    const connectPairs = {};
    const pairs = via === "http" ? CONNECTS * ROUNDS * 4 : CONNECTS * ROUNDS;
    for (const o of ["ai-sdk", "agents"]) {
      const ratios = [];
      for (let b = 0; b < pairs; b++) {
        const order = b % 2 === 0 ? [o, "yada"] : ["yada", o];
        const ms = {};
        for (const name of order) ms[name] = await connectOnce(name, to);
        times[o].push(ms[o]);
        times.yada.push(ms.yada);
        ratios.push(ms[o] / ms.yada);
      }
      connectPairs[o] = summary(ratios);
    }
    // Not judged: the same connect + list by the client alone, the floor under the tool layer.
    for (let b = 0; b < pairs / 2; b++) times.bare.push(await connectOnce("bare", to));
    const med = (xs) => summary(xs).median.toFixed(1);
    const what = via === "stdio" ? "spawn, initialize, tools/list, tools built" : "one server process; initialize, tools/list, tools built";
    console.log(`\nconnect + list over ${via}, a server of ${TOOLS + 1} tools (${what}), ${pairs} pairs each`);
    console.log(`  median ms:         ${Object.keys(times).map((n) => `${n} ${med(times[n])}`).join(", ")} (bare: McpClient connect + listTools, not judged)`);
    console.log(`  median client CPU: ${Object.keys(times).map((n) => `${n} ${med(cpus[n])}`).join(", ")} ms`);
    for (const o of ["ai-sdk", "agents"]) console.log(verdictLine(`vs ${o}:`, connectPairs[o], 1.5));
  }
  httpServer.stdin.end();
  console.log(`\n${verdicts.filter(Boolean).length} of ${verdicts.length} targets met`);
  process.exit(0);
}
