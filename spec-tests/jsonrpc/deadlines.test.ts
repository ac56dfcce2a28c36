// S6, J5: every request bound of a session shares one deadline timer. These hold its
// contract: each request still fails at its own bound, whatever the others' bounds,
// and a finished session's timer does not keep the host process alive.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { pathToFileURL } from "node:url";
import { McpClient } from "../../src/node/client.js";
import { TimeoutError } from "../../src/errors.js";
import { DEADLINE_SWEEP_MS } from "../../src/limits.js";
import { inlineServer, rejection } from "../helpers/clients.js";

// Answers each call after `ms` (it ignores notifications/cancelled).
const delayed = inlineServer("(m) => new Promise((r) => setTimeout(() => r({ content: [{ type: 'text', text: String(m.params.arguments.tag) }] }), m.params.arguments.ms))");

test("S6: a short bound sent after a long one fails first, at its own bound, and the long call completes", async () => {
  const client = await McpClient.connectStdio("node", delayed, undefined, { era: "legacy" });
  try {
    const order: string[] = [];
    const long = client.callTool("t", { tag: "long", ms: 700 }, { timeoutMs: 30_000 }).then((r) => {
      order.push("long answered");
      return r;
    });
    const short = rejection(client.callTool("t", { tag: "short", ms: 3_000 }, { timeoutMs: 100 })).then((e) => {
      order.push("short timed out");
      return e;
    });
    const [e, r] = await Promise.all([short, long]);
    assert.ok(e instanceof TimeoutError, String(e));
    assert.equal(e.timeoutMs, 100);
    assert.match(e.message, /tools\/call timed out after 100 ms/);
    assert.deepEqual(r.content, [{ type: "text", text: "long" }]);
    // The shared timer was armed for the long call first: the short one must have re-armed it.
    assert.deepEqual(order, ["short timed out", "long answered"]);
  } finally {
    await client.close();
  }
});

test("S6: a bound is never cut short by the shared timer: a call answered inside its bound succeeds", async () => {
  const client = await McpClient.connectStdio("node", delayed, undefined, { era: "legacy" });
  try {
    // A short bound that fires while calls with longer bounds are in flight.
    const doomed = rejection(client.callTool("t", { tag: "doomed", ms: 2_000 }, { timeoutMs: 50 }));
    const calls = Array.from({ length: 8 }, (_, i) => client.callTool("t", { tag: `c${i}`, ms: 150 + 20 * i }, { timeoutMs: 1_500 }));
    assert.ok((await doomed) instanceof TimeoutError);
    const results = await Promise.all(calls);
    assert.deepEqual(
      results.map((r) => r.content[0]),
      Array.from({ length: 8 }, (_, i) => ({ type: "text", text: `c${i}` })),
    );
  } finally {
    await client.close();
  }
});

test("S6: once its requests settled, a session that is never closed lets the host process exit within DEADLINE_SWEEP_MS", async () => {
  // The host process runs a session whose transport answers at once and holds no
  // handle of its own: only the session's deadline timer could keep the process up.
  // The request's bound (120 s) far exceeds the time the process is given to exit.
  const session = pathToFileURL(new URL("../../src/jsonrpc/session.js", import.meta.url).pathname).href;
  const host = `
import { JsonRpcSession } from ${JSON.stringify(session)};
let sink;
const transport = {
  description: "in-process echo",
  start: async (s) => { sink = s; },
  send: async (m) => { if ("id" in m) queueMicrotask(() => sink.message({ jsonrpc: "2.0", id: m.id, result: { ok: true } })); },
  close: async () => {},
};
const s = new JsonRpcSession(transport, { name: "x" });
await s.start();
for (let i = 0; i < 100; i++) await s.request("t", {}, { timeoutMs: 120000 });
console.log("settled", performance.now().toFixed(0));`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", host], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (c) => (out += c));
  child.stderr.on("data", (c) => (err += c));
  let settledAt = 0;
  const exitedAfter = await new Promise<number>((resolve) => {
    const kill = setTimeout(() => {
      child.kill("SIGKILL");
      resolve(Infinity);
    }, 15_000);
    child.stdout.once("data", () => (settledAt = Date.now()));
    child.once("exit", () => {
      clearTimeout(kill);
      resolve(Date.now() - settledAt);
    });
  });
  assert.match(out, /settled/, err);
  // DEADLINE_SWEEP_MS plus generous room for a loaded machine; far below the 120 s bound.
  assert.ok(exitedAfter < DEADLINE_SWEEP_MS + 8_000, `the process exited ${exitedAfter} ms after its requests settled`);
});
