// Y5: what the model sees of a failure names the server by its configured name,
// never its URL (path or query), headers, env values or stderr.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { run } from "../../src/agent/run.js";
import { scripted } from "../../src/agent/scripted.js";
import { connectMcp } from "../../src/node/tools.js";
import { HttpTransport } from "../../src/transport/http.js";
import type { McpServerConfig } from "../../src/tools/config.js";
import { startRpcServer, initializeResult, type PostedMessage } from "../helpers/http.js";
import { alice, hostTool } from "../agent/support.js";

const allowAll = (): boolean => true;
const SECRETS = ["sk-PATHSECRET", "QUERYSECRET", "HEADERSECRET", "ENVSECRET", "STDERRSECRET"];

/** Runs one scripted model turn that calls `tool` and returns everything the model was sent afterwards. */
async function modelSees(config: McpServerConfig, tool: string, options?: Parameters<typeof connectMcp>[2]): Promise<string> {
  const connection = await connectMcp(config, { identity: alice, authorize: allowAll }, options);
  try {
    const provider = scripted([{ toolCalls: [{ name: tool, arguments: { text: "x" } }] }, { text: "done" }]);
    await run({ provider, tools: [...connection.tools], identity: alice, input: "go" });
    const second = provider.requests[1];
    assert.ok(second, "the model was asked again after the tool call");
    return JSON.stringify(second.messages.slice(1));
  } finally {
    await connection.close();
  }
}

function assertClean(seen: string, name: string): void {
  for (const s of SECRETS) assert.ok(!seen.includes(s), `the model saw ${s}: ${seen}`);
  assert.ok(!seen.includes("127.0.0.1"), `the model saw the server's address: ${seen}`);
  assert.ok(seen.includes(name), `the model was not told which server failed: ${seen}`);
  assert.ok(seen.includes('\\"error\\"'), `no error result: ${seen}`);
}

const TOOLS = { tools: [{ name: "echo", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }] };

/** A legacy HTTP server whose tools/call is answered by `onCall`. */
function httpServer(onCall: (m: PostedMessage, res: ServerResponse) => void) {
  return startRpcServer((m, res) => {
    const json = (v: unknown): void => void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(v));
    if (m.method === "initialize") return json({ jsonrpc: "2.0", id: m.id, result: initializeResult({ tools: {} }) });
    if (m.method === "tools/list") return json({ jsonrpc: "2.0", id: m.id, result: TOOLS });
    if (m.method === "tools/call") return onCall(m, res);
    if (m.id !== undefined && m.method !== undefined) return json({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
    res.writeHead(202).end();
  });
}

for (const [what, onCall] of [
  ["an HTTP 500", (_m: PostedMessage, res: ServerResponse) => void res.writeHead(500, { "content-type": "text/plain" }).end("boom")],
  ["a reset connection", (_m: PostedMessage, res: ServerResponse) => void res.socket?.destroy()],
  ["an answer that is not JSON", (_m: PostedMessage, res: ServerResponse) => void res.writeHead(200, { "content-type": "application/json" }).end("{nope")],
] as const) {
  test(`Y5: ${what} from an HTTP server reaches the model under the configured name, without URL path, query or headers`, async () => {
    const server = await httpServer(onCall);
    try {
      const url = server.url.replace("/mcp", "/mcp/sk-PATHSECRET?token=QUERYSECRET");
      const seen = await modelSees({ name: "vault", url, headers: { authorization: "Bearer HEADERSECRET" } }, "vault__echo");
      assertClean(seen, "vault");
    } finally {
      server.close();
    }
  });
}

test("Y5: a host's own transport factory that names the server by its URL still shows the model no URL", async () => {
  const server = await httpServer((_m, res) => void res.writeHead(500).end());
  try {
    const url = server.url.replace("/mcp", "/mcp/sk-PATHSECRET?token=QUERYSECRET");
    const seen = await modelSees({ name: "vault", url }, "vault__echo", { transportFactory: (s) => new HttpTransport(s.url ?? "") });
    assertClean(seen, "vault");
  } finally {
    server.close();
  }
});

test("Y5: a stdio server that dies mid-call reaches the model under its name, without its stderr or env values", async () => {
  const script = `
const rl = require("readline").createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
rl.on("line", (l) => {
  const m = JSON.parse(l);
  if (m.method === "initialize") return send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } } });
  if (m.method === "tools/list") return send({ jsonrpc: "2.0", id: m.id, result: ${JSON.stringify(TOOLS)} });
  if (m.method === "tools/call") { process.stderr.write("fatal STDERRSECRET key=" + process.env.API_KEY + "\\n"); process.exit(3); }
  if (m.id !== undefined && m.method) send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
});`;
  const seen = await modelSees({ name: "db", command: process.execPath, args: ["-e", script], env: { API_KEY: "ENVSECRET" } }, "db__echo");
  assertClean(seen.replace(/127\.0\.0\.1/g, ""), "db");
});

test("Y5: a thrown host-tool error reaches the model cut to MAX_AGENT_TOOL_ERROR_CHARS", async () => {
  const { MAX_AGENT_TOOL_ERROR_CHARS } = await import("../../src/limits.js");
  const tool = hostTool("long", async () => {
    throw new Error("E".repeat(MAX_AGENT_TOOL_ERROR_CHARS * 3));
  });
  const provider = scripted([{ toolCalls: [{ name: "long" }] }, { text: "done" }]);
  await run({ provider, tools: [tool], identity: alice, input: "go" });
  const seen = JSON.stringify(provider.requests[1]?.messages.slice(1));
  const es = seen.match(/E+/g)?.reduce((a, b) => Math.max(a, b.length), 0) ?? 0;
  assert.ok(es > 0 && es <= MAX_AGENT_TOOL_ERROR_CHARS, `the model saw ${es} characters of the error`);
});
