// Host options are checked where they enter: a wrong kind is a `config` error
// naming the option, before any process starts or request is sent. A host handler
// that fails is reported to the server with a clear message and to the host's
// logger. A stdio handshake that times out carries the server's stderr tail and
// the name the host gave the server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { McpClient } from "../../src/node/client.js";
import { StdioTransport } from "../../src/node/stdio.js";
import { connectMcp } from "../../src/node/tools.js";
import { HttpTransport } from "../../src/transport/http.js";
import { run } from "../../src/agent/run.js";
import { scripted } from "../../src/agent/scripted.js";
import type { TextContent } from "../../src/mcp/types.js";
import { fixtureServer, repoPath } from "../helpers/paths.js";

const T = { timeout: 30_000 };
const echo = fixtureServer("echo.mjs");
const everything = repoPath("node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const identity = { actorId: "alice", tenantId: "acme" };

test("config: a logger that is not a function fails at connect, naming the option (not later from a stream callback)", T, async () => {
  const badLogger = { log() {} } as unknown as () => void;
  await assert.rejects(McpClient.connectStdio(process.execPath, [echo], undefined, { logger: badLogger }), {
    code: "config",
    message: "StdioTransport: option logger must be a function (got object)",
  });
  await assert.rejects(McpClient.connect(new StdioTransport({ command: process.execPath, args: [echo] }), { logger: badLogger }), {
    code: "config",
    message: "McpClient.connect: option logger must be a function (got object)",
  });
});

test("config: timeouts, signals and handlers of the client are checked by kind", T, async () => {
  const transport = () => new StdioTransport({ command: process.execPath, args: [echo] });
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ handshakeTimeoutMs: "5000" }, /^McpClient\.connect: option handshakeTimeoutMs must be a number ≥ 0 \(got string\)$/],
    [{ callTimeoutMs: -1 }, /option callTimeoutMs must be a number ≥ 0 \(got number\)/],
    [{ signal: {} }, /option signal must be an AbortSignal \(got object\)/],
    [{ handlers: { roots: [{ uri: "file:///x" }] } }, /^handlers: option roots must be a function \(got array\)$/],
    [{ handlers: { sampling: { handle: "model" } } }, /^handlers\.sampling: option handle must be a function \(got string\)$/],
    [{ handlers: { elicitation: { form: true } } }, /^handlers\.elicitation: option form must be a function \(got boolean\)$/],
  ];
  for (const [options, message] of cases) {
    await assert.rejects(McpClient.connect(transport(), options), { code: "config", message }, JSON.stringify(options));
  }
});

test("config: HttpTransport, connectMcp and run check their options where they enter", T, async () => {
  assert.throws(() => new HttpTransport("http://127.0.0.1:9/mcp", { idleTimeoutMs: "5" as unknown as number }), {
    code: "config",
    message: /^HttpTransport: option idleTimeoutMs must be a number ≥ 0 \(got string\)$/,
  });
  assert.throws(() => new HttpTransport("http://127.0.0.1:9/mcp", { fetch: {} as typeof fetch }), { code: "config", message: /option fetch must be a function \(got object\)/ });
  await assert.rejects(connectMcp({ name: "echo", command: process.execPath, args: [echo] }, { identity, authorize: () => true }, { timeoutMs: "9" as unknown as number }), {
    code: "config",
    message: /^connectMcp echo: option timeoutMs must be a number ≥ 0 \(got string\)$/,
  });
  await assert.rejects(run({ provider: scripted([{ text: "hi" }]), identity, input: "hi", onEvent: "log" as unknown as () => void }), {
    code: "config",
    message: "run: option onEvent must be a function (got string)",
  });
});

test("V6: an elicitation answer that fails validation reaches the server with the reason, and the host's logger", T, async () => {
  const logged: string[] = [];
  const client = await McpClient.connectStdio("node", [everything, "stdio"], undefined, {
    name: "everything",
    logger: (level, message, data) => level === "warn" && logged.push(`${message} ${JSON.stringify(data)}`),
    handlers: { elicitation: { form: async () => ({ action: "accept", content: { name: "Ada", check: "yes" } }) } },
  });
  try {
    await new Promise((resolve) => setTimeout(resolve, 200)); // server-everything registers the tool after the handshake
    const r = await client.callTool("trigger-elicitation-request", {});
    const text = (r.content as TextContent[]).map((c) => c.text).join("");
    // What the server received and echoed: not a bare "Internal error".
    assert.match(text, /-32603: Internal error: the elicitation answer failed schema validation: must be boolean \(instance path "\/check"/);
    assert.ok(!text.includes('"yes"'), "the answer's value reached the message");
    assert.ok(logged.some((l) => l.includes("a server request handler threw") && l.includes("elicitation/create")), logged.join("\n"));
  } finally {
    await client.close();
  }
});

test("S3, S5: a stdio handshake that times out carries the server's stderr tail, under the name the host gave it", T, async () => {
  await assert.rejects(
    McpClient.connectStdio(process.execPath, [fixtureServer("stderr-then-silent.mjs")], undefined, { name: "upstream-proxy", handshakeTimeoutMs: 1_500 }),
    (e: Error & { code?: string }) => {
      assert.equal(e.code, "timeout");
      assert.match(e.message, /^upstream-proxy: the handshake did not finish within 1500 ms; last stderr: "proxy: cannot resolve upstream\.example\.invalid \(ENOTFOUND\); retrying"$/);
      return true;
    },
  );
});
