import { test } from "node:test";
import assert from "node:assert/strict";
import { captureLogs, connectFixture, inlineServer, rejection, waitFor } from "../helpers/clients.js";
import { JsonRpcError, TimeoutError, CancelledError } from "../../src/errors.js";
import type { TextContent } from "../../src/mcp/types.js";

test("J1: invalid JSON-RPC values from the server are dropped and logged, the session goes on", async () => {
  const { client, logs } = await connectFixture("noisy.mjs");
  try {
    const r = await client.callTool("echo", { text: "still here" });
    assert.equal((r.content[0] as TextContent).text, "still here");
    assert.ok(logs.some((l) => l.level === "warn" && l.message === "dropped an invalid JSON-RPC message"));
  } finally {
    await client.close();
  }
});

test("J2: responses for unknown ids are dropped and each call gets its own answer", async () => {
  const { client, logs } = await connectFixture("stray.mjs");
  try {
    const [a, b] = await Promise.all([client.callTool("echo", { text: "a" }), client.callTool("echo", { text: "b" })]);
    assert.equal((a.content[0] as TextContent).text, "a");
    assert.equal((b.content[0] as TextContent).text, "b");
    const dropped = logs.filter((l) => l.message === "dropped a response for an unknown id").map((l) => l.data?.id);
    assert.ok(dropped.includes(99999) && dropped.includes("nope") && dropped.includes(99998), JSON.stringify(dropped));
  } finally {
    await client.close();
  }
});

test("J2: the late response of a timed-out call is dropped, not given to the next call", async () => {
  const { McpClient } = await import("../../src/node/client.js");
  const { logs, logger } = captureLogs();
  // This server ignores notifications/cancelled and answers every call after its delay.
  const args = inlineServer("(m) => new Promise((r) => setTimeout(() => r({ content: [{ type: 'text', text: String(m.params.arguments.tag) }] }), m.params.arguments.ms))");
  const client = await McpClient.connectStdio("node", args, undefined, { logger });
  try {
    const e = await rejection(client.callTool("t", { tag: "first", ms: 200 }, { timeoutMs: 50 }));
    assert.ok(e instanceof TimeoutError);
    const next = await client.callTool("t", { tag: "second", ms: 300 });
    assert.equal((next.content[0] as TextContent).text, "second");
    assert.ok(logs.some((l) => l.message === "dropped a response for an unknown id" && l.data?.id === 3)); // ids 1 and 2: the discover probe and initialize;
  } finally {
    await client.close();
  }
});

test("J3: server ping is answered {}, requests without a handler get -32601 and a warning", async () => {
  const { client, logs } = await connectFixture("interleave.mjs");
  try {
    const r = await client.callTool("echo", { text: "x" });
    assert.equal((r.content[0] as TextContent).text, "x");
    const answers = JSON.parse((await client.callTool("answers", {})).content.map((c) => (c as TextContent).text).join("")) as Record<string, unknown[]>;
    assert.deepEqual(answers.ping, [{ result: {} }]);
    assert.equal((answers["sampling/createMessage"]?.[0] as { error: { code: number } }).error.code, -32601);
    assert.equal((answers["roots/list"]?.[0] as { error: { code: number } }).error.code, -32601);
    assert.ok(logs.some((l) => l.level === "warn" && l.data?.method === "sampling/createMessage"));
  } finally {
    await client.close();
  }
});

test("J3: a registered handler answers the server's request", async () => {
  const { client } = await connectFixture("interleave.mjs", [], {
    requestHandlers: { "roots/list": () => ({ roots: [{ uri: "file:///work", name: "work" }] }) },
    capabilities: { roots: {} },
  });
  try {
    await client.callTool("echo", { text: "x" });
    const answers = JSON.parse((await client.callTool("answers", {})).content.map((c) => (c as TextContent).text).join("")) as Record<string, unknown[]>;
    assert.deepEqual(answers["roots/list"], [{ result: { roots: [{ uri: "file:///work", name: "work" }] } }]);
  } finally {
    await client.close();
  }
});

test("J4: notifications interleaved before a response reach the listeners", async () => {
  const { client } = await connectFixture("interleave.mjs");
  try {
    const seen: string[] = [];
    client.onNotification((method) => seen.push(method));
    await client.callTool("echo", { text: "x" });
    assert.ok(seen.includes("notifications/message"));
    assert.ok(seen.includes("notifications/tools/list_changed"));
  } finally {
    await client.close();
  }
});

test("J5: a timeout sends notifications/cancelled and says the server may still carry the call out", async () => {
  const { client, logs } = await connectFixture("silent.mjs", [], { era: "legacy" });
  try {
    const e = await rejection(client.withCallTimeout(100).callTool("echo", { text: "x" }));
    assert.ok(e instanceof TimeoutError);
    assert.equal(e.code, "timeout");
    assert.match(e.message, /may still carry the call out/);
    // silent.mjs reports each notifications/cancelled it receives on stderr; the call had id 2
    // (id 1 was initialize: the era is set, so no discover probe ran).
    const stderr = () => logs.filter((l) => l.message === "server stderr").map((l) => String(l.data?.text)).join("");
    await waitFor(() => /cancelled 2 timed out after 100 ms/.test(stderr()));
  } finally {
    await client.close();
  }
});

test("J5: aborting a signal cancels the call with notifications/cancelled", async () => {
  const { client, logs } = await connectFixture("progress.mjs");
  try {
    const controller = new AbortController();
    const started = client.callTool("work", { steps: 50, delayMs: 20 }, { signal: controller.signal, onProgress: () => controller.abort() });
    const e = await rejection(started);
    assert.ok(e instanceof CancelledError);
    assert.match(e.message, /may still carry the call out/);
    // The server stopped (it honours notifications/cancelled): no late answer arrives.
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(logs.filter((l) => l.message === "dropped a response for an unknown id").length, 0);
    const r = await client.callTool("echo", { text: "after" });
    assert.equal((r.content[0] as TextContent).text, "after");
  } finally {
    await client.close();
  }
});

test("J6: progress updates reach onProgress with the request's own token", async () => {
  const { client } = await connectFixture("progress.mjs");
  try {
    const updates: Array<{ progress: number; total?: number; message?: string }> = [];
    const r = await client.callTool("work", { steps: 3, delayMs: 5 }, { onProgress: (p) => updates.push(p) });
    assert.match((r.content[0] as TextContent).text, /done 3 steps/);
    assert.deepEqual(updates.map((u) => [u.progress, u.total]), [[1, 3], [2, 3], [3, 3]]);
    assert.match(updates[0]?.message ?? "", /step 1 of 3/);
  } finally {
    await client.close();
  }
});

test("J6: progress resets the timeout when asked, within a hard total bound", async () => {
  const { client } = await connectFixture("progress.mjs");
  try {
    // 8 steps x 60 ms = 480 ms > the 200 ms bound, but each step resets it.
    const ok = await client.callTool("work", { steps: 8, delayMs: 60 }, { timeoutMs: 200, resetTimeoutOnProgress: true, onProgress: () => {} });
    assert.match((ok.content[0] as TextContent).text, /done 8 steps/);
    const noReset = await rejection(client.callTool("work", { steps: 8, delayMs: 60 }, { timeoutMs: 200, onProgress: () => {} }));
    assert.ok(noReset instanceof TimeoutError);
    const hard = await rejection(
      client.callTool("work", { steps: 20, delayMs: 60 }, { timeoutMs: 200, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 400, onProgress: () => {} }),
    );
    assert.ok(hard instanceof TimeoutError);
    assert.equal((hard as TimeoutError).timeoutMs, 400);
  } finally {
    await client.close();
  }
});

test("J7: a server result carrying __proto__ cannot pollute prototypes", async () => {
  const script = [
    "const rl = require('readline').createInterface({ input: process.stdin });",
    "rl.on('line', (l) => { const m = JSON.parse(l); if (m.id === undefined) return;",
    " if (m.method === 'initialize') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'p', version: '1' } } }) + '\\n');",
    " else process.stdout.write('{\"jsonrpc\":\"2.0\",\"id\":' + JSON.stringify(m.id) + ',\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"x\",\"__proto__\":{\"polluted\":1}}],\"__proto__\":{\"isError\":true},\"structuredContent\":{\"__proto__\":{\"admin\":true}}}}\\n'); });",
  ].join("");
  const { McpClient } = await import("../../src/node/client.js");
  const client = await McpClient.connectStdio("node", ["-e", script]);
  try {
    const r = await client.callTool("t", {});
    assert.equal(r.isError, false);
    const copy = Object.assign({}, r.structuredContent);
    assert.equal((copy as Record<string, unknown>).admin, undefined);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.getPrototypeOf(r.content[0]), Object.prototype);
  } finally {
    await client.close();
  }
});

test("J3: a JSON-RPC error answer is a typed jsonrpc error carrying code and message", async () => {
  const { client } = await connectFixture("noisy.mjs");
  try {
    const e = await rejection(client.request("no/such/method", {}));
    assert.ok(e instanceof JsonRpcError);
    assert.equal(e.rpcCode, -32601);
  } finally {
    await client.close();
  }
});
