// tools/call round trips per second over loopback HTTP (H1, H4).
//   node scripts/build.mjs --no-types && node scripts/bench/http.mjs
// One server process (plain node:http on 127.0.0.1, port 0) answers
// initialize / tools/call echo, either as application/json or as an SSE stream
// (event + id + data, then end, as the official SDK server writes it). Clients,
// run one after another against the same server, sequentially (one call in flight)
// and 16 calls in flight:
//   raw fetch   fetch + res.json() (JSON) or res.text() + one JSON.parse (SSE): the limit
//   yada        McpClient over HttpTransport (session, result checks: the whole client)
//   yada transport  HttpTransport alone, JSON-RPC messages in and out
//   sdk v1      @modelcontextprotocol/sdk Client + StreamableHTTPClientTransport
//   sdk v2      @modelcontextprotocol/client Client + StreamableHTTPClientTransport
// Targets (SSE answers): yada ÷ raw fetch ≥ 0.90× sequential and 16-way, printed beside each ratio,
// judged on paired blocks (scripts/bench/paired.mjs): raw fetch and yada connected at once
// to one server, taking turns block by block after a long warm-up (PAIR_WARMUP calls each;
// undici's own per-call cost keeps falling for the first thousand or so), in a process
// of their own. The best-of
// tables run each client in its own phase, so a noisy phase moves one client alone: they
// are printed for the comparison with the SDKs and the transport alone.
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { concurrentMs, cpuPerCall, describe, pairedRatio, sequentialMs, verdict } from "./paired.mjs";

const CALLS = Number(process.env.CALLS ?? 3000);
const WARMUP = Number(process.env.WARMUP ?? 300);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const BLOCKS = Number(process.env.BLOCKS ?? 30);
const PAIR_WARMUP = Number(process.env.PAIR_WARMUP ?? 2000);

if (process.argv[2] === "--serve") {
  const sse = process.argv[3] === "sse";
  let sessions = 0;
  let eventId = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      if (req.method === "DELETE") return void res.writeHead(204).end();
      if (req.method !== "POST") return void res.writeHead(405).end();
      const m = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      if (m.id === undefined || m.method === undefined) return void res.writeHead(202).end();
      let result;
      const headers = {};
      if (m.method === "initialize") {
        headers["mcp-session-id"] = `bench-${++sessions}`;
        const asked = m.params?.protocolVersion;
        const version = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"].includes(asked) ? asked : "2025-06-18";
        result = { protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: "bench", version: "1" } };
      } else if (m.method === "tools/call") {
        result = { content: [{ type: "text", text: String(m.params?.arguments?.text ?? "") }] };
      } else if (m.method === "tools/list") {
        result = { tools: [{ name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } }] };
      } else {
        const body = JSON.stringify({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
        return void res.writeHead(200, { "content-type": "application/json", ...headers }).end(body);
      }
      const body = JSON.stringify({ jsonrpc: "2.0", id: m.id, result });
      if (sse) {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...headers });
        res.end(`event: message\nid: ${++eventId}\ndata: ${body}\n\n`);
      } else {
        res.writeHead(200, { "content-type": "application/json", ...headers }).end(body);
      }
    });
  });
  server.listen(0, "127.0.0.1", () => process.stdout.write(`${server.address().port}\n`));
}

async function startServer(mode) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "--serve", mode], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise((resolve, reject) => {
    child.stdout.once("data", (d) => resolve(Number(String(d).trim())));
    child.once("exit", (code) => reject(new Error(`bench server exited ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => child.kill("SIGKILL") };
}

// Each client: connect(url) -> { call(i) -> Promise<string>, close() }.
const clients = {
  "raw fetch": async (url, mode) => {
    const init = await fetch(url, {
      method: "POST",
      headers: { accept: "application/json, text/event-stream", "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }),
    });
    const session = init.headers.get("mcp-session-id");
    await init.text();
    const headers = { accept: "application/json, text/event-stream", "content-type": "application/json", "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" };
    let id = 0;
    return {
      async call(i) {
        const body = JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "echo", arguments: { text: `hi ${i}` } } });
        const res = await fetch(url, { method: "POST", headers, body });
        let msg;
        if (mode === "json") msg = await res.json();
        else {
          const text = await res.text();
          const at = text.indexOf("data: ");
          msg = JSON.parse(text.slice(at + 6, text.indexOf("\n", at)));
        }
        return msg.result.content[0].text;
      },
      close: async () => {},
    };
  },
  yada: async (url) => {
    const { McpClient } = await import("../../build/src/mcp/client.js");
    const { HttpTransport } = await import("../../build/src/transport/http.js");
    const client = await McpClient.connect(new HttpTransport(url));
    return {
      call: async (i) => (await client.callTool("echo", { text: `hi ${i}` })).content[0].text,
      close: () => client.close(),
    };
  },
  // The transport alone (no session, no McpClient): where the HTTP layer's own cost shows.
  "yada transport": async (url) => {
    const { HttpTransport } = await import("../../build/src/transport/http.js");
    const transport = new HttpTransport(url);
    const got = new Map();
    await transport.start({ message: (m) => void got.set(m.id, m), requestError: (id, e) => void got.set(id, e), closed() {} });
    await transport.send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
    transport.setProtocolVersion("2025-06-18");
    await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    let id = 0;
    return {
      async call(i) {
        const my = ++id;
        await transport.send({ jsonrpc: "2.0", id: my, method: "tools/call", params: { name: "echo", arguments: { text: `hi ${i}` } } });
        const m = got.get(my);
        got.delete(my);
        return m.result.content[0].text;
      },
      close: () => transport.close(),
    };
  },
  "sdk v1": async (url) => {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const client = new Client({ name: "bench", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    return {
      call: async (i) => (await client.callTool({ name: "echo", arguments: { text: `hi ${i}` } })).content[0].text,
      close: () => client.close(),
    };
  },
  "sdk v2": async (url) => {
    const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
    const client = new Client({ name: "bench", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    return {
      call: async (i) => (await client.callTool({ name: "echo", arguments: { text: `hi ${i}` } })).content[0].text,
      close: () => client.close(),
    };
  },
};

async function measure(name, url, mode) {
  const c = await clients[name](url, mode);
  try {
    for (let i = 0; i < WARMUP; i++) if ((await c.call(i)) !== `hi ${i}`) throw new Error(`${name}: wrong echo`);
    const t0 = performance.now();
    for (let i = 0; i < CALLS; i++) await c.call(i);
    const seq = CALLS / ((performance.now() - t0) / 1000);
    let next = 0;
    const t1 = performance.now();
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < CALLS) await c.call(next++);
    }));
    return { seq, par: CALLS / ((performance.now() - t1) / 1000) };
  } finally {
    await c.close();
  }
}

// Raw fetch and yada side by side against a fresh server of this mode: the verdicts.
async function paired(mode) {
  if (process.env.ONLY) return;
  const server = await startServer(mode);
  const limit = await clients["raw fetch"](server.url, mode);
  const y = await clients.yada(server.url, mode);
  try {
    await sequentialMs(limit, PAIR_WARMUP);
    await sequentialMs(y, PAIR_WARMUP);
    const [cpuRaw, cpuYada] = await cpuPerCall([limit, y], 1000, 3);
    const seqP = await pairedRatio(limit, y, BLOCKS, (c) => sequentialMs(c, 100));
    const parP = await pairedRatio(limit, y, BLOCKS, (c) => concurrentMs(c, 300, 16));
    console.log(`\nclient CPU per sequential call (best of 3): raw fetch ${cpuRaw.toFixed(0)} µs, yada ${cpuYada.toFixed(0)} µs (raw ÷ yada ${(cpuRaw / cpuYada).toFixed(2)}×)`);
    console.log(`paired blocks of 100 sequential / 300 16-way calls, yada ÷ raw fetch:`);
    if (mode === "sse") {
      console.log(verdict("  SSE answers, sequential: ", seqP, 0.9));
      console.log(verdict("  SSE answers, 16-way:     ", parP, 0.9));
    } else {
      console.log(`  JSON answers, sequential: ${describe(seqP)}`);
      console.log(`  JSON answers, 16-way:     ${describe(parP)}`);
    }
  } finally {
    await y.close();
    server.stop();
  }
}

async function main() {
  // The official SDKs hand one long-lived AbortSignal to every fetch, and undici adds a
  // listener per request: Node warns after 1500. Counted once here, not printed each time.
  let sdkListenerWarnings = 0;
  process.removeAllListeners("warning");
  process.on("warning", (w) => {
    if (w.name === "MaxListenersExceededWarning") sdkListenerWarnings++;
    else console.warn(w);
  });
  process.on("exit", () => {
    if (sdkListenerWarnings > 0) console.log(`\n(${sdkListenerWarnings} MaxListenersExceededWarning from clients that reuse one AbortSignal for every fetch)`);
  });
  console.log(`tools/call round trips/s, ${CALLS} sequential calls after ${WARMUP} warm-up, best of ${ROUNDS} rounds, node ${process.version}`);
  for (const mode of ["json", "sse"]) {
    const server = await startServer(mode);
    const best = {};
    const failed = {};
    try {
      for (let round = 0; round < ROUNDS; round++) {
        for (const name of Object.keys(clients)) {
          if (process.env.ONLY && process.env.ONLY !== name) continue;
          try {
            const r = await measure(name, server.url, mode);
            best[name] = { seq: Math.max(best[name]?.seq ?? 0, r.seq), par: Math.max(best[name]?.par ?? 0, r.par) };
          } catch (e) {
            failed[name] = e instanceof Error ? e.message : String(e);
          }
        }
      }
    } finally {
      server.stop();
    }
    console.log(`\n${mode === "json" ? "application/json" : "text/event-stream"} answers`);
    console.log("| client | sequential calls/s | vs raw fetch | 16-way calls/s | vs raw fetch |");
    console.log("| --- | ---: | ---: | ---: | ---: |");
    const raw = best["raw fetch"];
    for (const name of Object.keys(clients)) {
      if (process.env.ONLY && process.env.ONLY !== name) continue;
      const b = best[name];
      if (b === undefined) console.log(`| ${name} | failed: ${failed[name]} | | | |`);
      else console.log(`| ${name} | ${b.seq.toFixed(0)} | ${raw ? (b.seq / raw.seq).toFixed(2) : "-"}x | ${b.par.toFixed(0)} | ${raw ? (b.par / raw.par).toFixed(2) : "-"}x |`);
    }
    await pairedApart(mode);
  }
}

// The paired run gets a process of its own: the SDK clients above leave listeners and
// garbage behind in this one, whose collection would land on whichever side runs.
async function pairedApart(mode) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "--paired", mode], { stdio: ["ignore", "inherit", "inherit"], env: process.env });
  const code = await new Promise((resolve) => child.once("exit", resolve));
  if (code !== 0) console.log(`(the paired run exited ${code})`);
}

if (process.argv[2] === "--paired") await paired(process.argv[3]);
else if (process.argv[2] !== "--serve") await main();
