// Y7: the fault matrix. Every fault a server can throw at the client, over real
// processes and loopback sockets, ends in its typed outcome, and afterwards no
// socket, server, child process, pipe or timer is left behind.
import { test } from "node:test";
import assert from "node:assert/strict";
import { McpClient } from "../../src/node/client.js";
import { HttpTransport } from "../../src/transport/http.js";
import { connectFixture, rejection } from "../helpers/clients.js";
import { startFixture, type LoopbackServer } from "../transport/http-fixtures.js";
import type { TextContent } from "../../src/mcp/types.js";
import { leaksAfter, resources } from "./leaks.js";

const T = { timeout: 60_000 };

/** Runs `fn` and asserts it left nothing behind. */
async function leakFree(fn: () => Promise<void>): Promise<void> {
  const baseline = resources();
  await fn();
  assert.deepEqual(await leaksAfter(baseline), [], "resources left behind");
}

/** The code of the error `p` rejects with, or "ok: <text>" when it resolves. */
async function outcome(p: Promise<{ content: unknown[] }>): Promise<string> {
  try {
    const r = await p;
    return `ok: ${(r.content[0] as TextContent | undefined)?.text ?? ""}`;
  } catch (e) {
    assert.ok(e instanceof Error && typeof (e as { code?: unknown }).code === "string", `untyped: ${String(e)}`);
    return (e as unknown as { code: string }).code;
  }
}

// ── stdio: [case, fixture, fixture args, connect options, call, expected] ──
const STDIO: Array<[string, string, string[], Record<string, unknown>, [string, Record<string, unknown>, number?], string]> = [
  ["crash mid-call", "exit-mid-call.mjs", [], {}, ["echo", { text: "x" }], "connection_closed"],
  ["stall", "silent.mjs", [], {}, ["echo", { text: "x" }, 300], "timeout"],
  ["garbage on stdout", "noisy.mjs", [], {}, ["echo", { text: "x" }], "ok: x"],
  ["huge line", "long-line.mjs", [], { maxLineBytes: 1024 * 1024 }, ["big", { bytes: 2 * 1024 * 1024 }], "limit"],
  ["stderr flood", "stderr-flood.mjs", [], {}, ["echo", { text: "x" }], "ok: x"],
  ["wrong ids", "stray.mjs", [], {}, ["echo", { text: "x" }], "ok: x"],
  ["notification flood", "hostile.mjs", ["--mode", "notify-flood"], {}, ["echo", { text: "x" }], "ok: x"],
];

for (const [what, fixture, args, options, [tool, toolArgs, timeoutMs], expected] of STDIO) {
  test(`Y7: stdio ${what} ends in ${expected} and leaks nothing`, T, () =>
    leakFree(async () => {
      const { client } = await connectFixture(fixture, args, options);
      try {
        assert.equal(await outcome(client.callTool(tool, toolArgs, timeoutMs === undefined ? {} : { timeoutMs })), expected);
      } finally {
        await client.close();
      }
    }),
  );
}

test("Y7: stdio close during the handshake (abort) ends in cancelled or timeout and leaks nothing", T, () =>
  leakFree(async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const e = await rejection(connectFixture("silent.mjs", ["--no-init"], { signal: controller.signal, era: "legacy" }));
    assert.ok(["cancelled", "timeout"].includes(String(e.code)), `${e.code}: ${e.message}`);
  }),
);

test("Y7: stdio close during a call fails the call with connection_closed, and later calls too", T, () =>
  leakFree(async () => {
    const { client } = await connectFixture("silent.mjs");
    const call = outcome(client.callTool("echo", { text: "x" }));
    await new Promise((r) => setTimeout(r, 100));
    await client.close();
    assert.equal(await call, "connection_closed");
    assert.equal(await outcome(client.callTool("echo", { text: "x" })), "connection_closed");
  }),
);

// ── HTTP: [case, fixture, fixture options, transport options, call timeout, expected at connect or call] ──
const HTTP: Array<[string, string, Record<string, unknown>, Record<string, unknown>, number, string]> = [
  ["session 404", "session-404", {}, {}, 10_000, "session_expired"],
  ["empty 2xx", "empty-200", {}, {}, 10_000, "http"],
  ["redirect", "redirect", {}, {}, 10_000, "http"],
  ["reset mid-SSE", "faults", { mode: "reset" }, {}, 10_000, "transport"],
  ["slowloris SSE", "faults", { mode: "slowloris" }, {}, 800, "timeout"],
  ["garbage JSON", "faults", { mode: "garbage" }, {}, 10_000, "serialization"],
  ["wrong ids", "faults", { mode: "wrong-ids" }, {}, 10_000, "ok: ok"],
  ["notification flood", "faults", { mode: "notify-flood" }, {}, 20_000, "ok: ok"],
  ["huge event", "faults", { mode: "huge-event" }, {}, 20_000, "limit"],
  ["HTTP 500", "faults", { mode: "status-500" }, {}, 10_000, "http"],
  ["stall after headers", "stall", { mode: "body" }, { idleTimeoutMs: 300 }, 10_000, "timeout"],
];

for (const [what, fixture, fixtureOptions, transportOptions, timeoutMs, expected] of HTTP) {
  test(`Y7: HTTP ${what} ends in ${expected} and leaks nothing`, T, () =>
    leakFree(async () => {
      const server: LoopbackServer = await startFixture(fixture, fixtureOptions);
      try {
        let client: McpClient;
        try {
          client = await McpClient.connect(new HttpTransport(server.url, transportOptions), { name: what, era: "legacy" });
        } catch (e) {
          // Faults that break initialize itself end at connect.
          assert.equal((e as { code?: string }).code, expected, (e as Error).message);
          return;
        }
        try {
          assert.equal(await outcome(client.callTool("echo", { text: "x" }, { timeoutMs })), expected);
        } finally {
          await client.close();
        }
      } finally {
        await server.close();
        await server.target?.close();
      }
    }),
  );
}

test("Y7: HTTP close during a streaming call fails it with connection_closed and leaks nothing", T, () =>
  leakFree(async () => {
    const server = await startFixture("faults", { mode: "slowloris" });
    try {
      const client = await McpClient.connect(new HttpTransport(server.url), { name: "close-mid-call", era: "legacy" });
      const call = outcome(client.callTool("echo", { text: "x" }));
      await new Promise((r) => setTimeout(r, 200));
      await client.close();
      assert.equal(await call, "connection_closed");
    } finally {
      await server.close();
    }
  }),
);
