// Bounds of the stdio transport and the JSON-RPC session, each crossed through the
// public client and a real server process. Defaults too long to wait out are
// checked on a mocked clock (node:test mock timers): the client's own timer fires
// exactly at the constant, never before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { McpClient } from "../../src/node/client.js";
import { nodeWriteTools } from "../../src/node/builtins/index.js";
import { ConnectionClosedError, TimeoutError } from "../../src/errors.js";
import {
  CLOSE_SIGTERM_GRACE_MS,
  CLOSE_STDIN_GRACE_MS,
  DEFAULT_DISCOVER_TIMEOUT_MS,
  DEFAULT_MAX_TOTAL_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  EXIT_DRAIN_GRACE_MS,
  MAX_TIMER_MS,
  SKIPPED_LINE_CHARS,
  SKIPPED_LINES_KEPT,
} from "../../src/limits.js";
import { mockClock, realDelay, realWaitFor } from "../helpers/clock.js";
import { captureLogs, inlineServer, rejection, waitFor } from "../helpers/clients.js";
import { fixtureServer } from "../helpers/paths.js";
import type { TextContent } from "../../src/mcp/types.js";

const stderrOf = (logs: ReturnType<typeof captureLogs>["logs"]): string =>
  logs.filter((l) => l.message === "server stderr").map((l) => String(l.data?.text)).join("");

test("S2: the exit error keeps the last SKIPPED_LINES_KEPT non-JSON lines, each cut to SKIPPED_LINE_CHARS", async () => {
  // On a call: SKIPPED_LINES_KEPT + 2 non-JSON lines (the first two must be forgotten),
  // one exactly at the character bound and one just past it, then exit 3.
  const lines = [
    "first",
    "second",
    ...Array.from({ length: SKIPPED_LINES_KEPT - 2 }, (_, i) => `kept ${i}`),
    "a".repeat(SKIPPED_LINE_CHARS),
    "b".repeat(SKIPPED_LINE_CHARS + 1),
  ];
  const args = inlineServer(`() => { process.stdout.write(${JSON.stringify(lines.join("\n") + "\n")}, () => process.exit(3)); return new Promise(() => {}); }`);
  const client = await McpClient.connectStdio("node", args, undefined, { era: "legacy" });
  try {
    const e = await rejection(client.callTool("t", {}));
    assert.ok(e instanceof ConnectionClosedError, `${e.name}: ${e.message}`);
    const kept = e.info.skippedLines ?? [];
    assert.equal(kept.length, SKIPPED_LINES_KEPT);
    assert.deepEqual(kept.slice(0, -2), lines.slice(2, -2));
    assert.equal(kept.at(-2), "a".repeat(SKIPPED_LINE_CHARS), "a line at the bound is kept whole");
    assert.equal(kept.at(-1), "b".repeat(SKIPPED_LINE_CHARS) + "…", "a line past the bound is cut to it");
    assert.ok(!e.message.includes("first") && !e.message.includes("second"));
  } finally {
    await client.close();
  }
});

test("S7: close() gives a server CLOSE_SIGTERM_GRACE_MS after SIGTERM to clean up before SIGKILL", async () => {
  // Ignores stdin end; on SIGTERM it cleans up for a quarter of the grace, says so, exits 0.
  const script = `
process.stdin.resume();
process.stdin.on("end", () => {});
process.on("SIGTERM", () => setTimeout(() => { process.stderr.write("cleaned up\\n"); process.exit(0); }, ${CLOSE_SIGTERM_GRACE_MS / 4}));
require("readline").createInterface({ input: process.stdin }).on("line", (l) => {
  const m = JSON.parse(l);
  if (m.method === "initialize") process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-06-18", capabilities: {}, serverInfo: { name: "s", version: "1" } } }) + "\\n");
});
setInterval(() => {}, 1000);`;
  const { logs, logger } = captureLogs();
  const client = await McpClient.connectStdio("node", ["-e", script], undefined, { logger, era: "legacy" });
  const t0 = performance.now();
  await client.close();
  const took = performance.now() - t0;
  assert.match(stderrOf(logs), /cleaned up/, "SIGKILL did not cut the clean-up short");
  assert.ok(took >= CLOSE_STDIN_GRACE_MS, `closed after ${Math.round(took)} ms`);
  assert.ok(took < CLOSE_STDIN_GRACE_MS + CLOSE_SIGTERM_GRACE_MS + 10_000);
});

test("S4, S7: a server whose grandchild holds its stdout is reported closed EXIT_DRAIN_GRACE_MS after it exits", async () => {
  // On a call it starts a grandchild that inherits stdout and stderr and lives a minute, then exits.
  const args = inlineServer(`() => {
    const g = require("child_process").spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: ["ignore", "inherit", "inherit"] });
    process.stderr.write("grandchild " + g.pid + "\\n", () => process.exit(5));
    return new Promise(() => {});
  }`);
  const { logs, logger } = captureLogs();
  const client = await McpClient.connectStdio("node", args, undefined, { logger, era: "legacy" });
  let grandchild = 0;
  try {
    const t0 = performance.now();
    const e = await rejection(client.callTool("t", {}, { timeoutMs: 60_000 }));
    const took = performance.now() - t0;
    grandchild = Number(/grandchild (\d+)/.exec(stderrOf(logs))?.[1] ?? 0);
    assert.ok(e instanceof ConnectionClosedError, `${e.name}: ${e.message}`);
    assert.equal(e.info.exitCode, 5);
    assert.ok(took >= EXIT_DRAIN_GRACE_MS - 100, `reported after ${Math.round(took)} ms: the pipes got their grace`);
    assert.ok(took < EXIT_DRAIN_GRACE_MS + 15_000, `reported after ${Math.round(took)} ms, not when the grandchild ends`);
  } finally {
    if (grandchild > 0) process.kill(grandchild, "SIGKILL");
    await client.close();
  }
});

test("S6: a call bound beyond MAX_TIMER_MS is clamped to it, never fired at once", async () => {
  // Answers after 150 ms; an unclamped setTimeout of more than MAX_TIMER_MS fires after 1 ms.
  const client = await McpClient.connectStdio("node", inlineServer(`() => new Promise((r) => setTimeout(() => r({ content: [{ type: "text", text: "late" }] }), 150))`), undefined, { era: "legacy" });
  try {
    for (const timeoutMs of [MAX_TIMER_MS + 1, MAX_TIMER_MS * 4]) {
      const r = await client.callTool("t", {}, { timeoutMs });
      assert.equal((r.content[0] as TextContent).text, "late", `timeoutMs ${timeoutMs}`);
    }
  } finally {
    await client.close();
  }
});

test("R5: nodeWriteTools takes a commandTimeoutMs of MAX_TIMER_MS and refuses one past it", () => {
  const roots = [process.cwd()];
  assert.ok(nodeWriteTools({ roots, commands: ["node"], commandTimeoutMs: MAX_TIMER_MS }).length > 0);
  assert.throws(() => nodeWriteTools({ roots, commands: ["node"], commandTimeoutMs: MAX_TIMER_MS + 1 }), (e: unknown) => (e as { code?: string }).code === "config");
});

test("J6: with resetTimeoutOnProgress, maxTotalTimeoutMs ends a call that keeps reporting progress", async () => {
  const client = await McpClient.connectStdio("node", [fixtureServer("progress.mjs")], undefined, { era: "legacy" });
  try {
    let updates = 0;
    const e = await rejection(
      client.callTool("work", { steps: 200, delayMs: 30 }, { timeoutMs: 400, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 700, onProgress: () => updates++ }),
    );
    assert.ok(e instanceof TimeoutError, `${e.name}: ${e.message}`);
    assert.equal(e.timeoutMs, 700, "the total bound ended it, not the per-update one");
    assert.ok(updates > 3);
  } finally {
    await client.close();
  }
});

test("J6: the total bound of a progress-reset call defaults to DEFAULT_MAX_TOTAL_TIMEOUT_MS", async (t) => {
  const client = await McpClient.connectStdio("node", [fixtureServer("progress.mjs")], undefined, { era: "legacy" });
  try {
    // Only the clocks move (Date, and performance.now that the session measures the
    // total on); its timers stay real.
    t.mock.timers.enable({ apis: ["Date"], now: Date.now() });
    const realNow = performance.now.bind(performance);
    let offset = 0;
    performance.now = () => realNow() + offset;
    t.after(() => {
      performance.now = realNow;
    });
    const advance = (ms: number): void => {
      offset += ms;
      t.mock.timers.tick(ms);
    };
    let updates = 0;
    const timeoutMs = 10_000;
    const call = client.callTool("work", { steps: 400, delayMs: 20 }, {
      timeoutMs,
      resetTimeoutOnProgress: true,
      onProgress: () => {
        updates++;
        // After the first update, a total of one bound minus 200 ms has passed; then 50 ms per update.
        advance(updates === 1 ? DEFAULT_MAX_TOTAL_TIMEOUT_MS - 200 : 50);
      },
    });
    const e = await rejection(call);
    assert.ok(e instanceof TimeoutError, `${e.name}: ${e.message}`);
    assert.equal(e.timeoutMs, DEFAULT_MAX_TOTAL_TIMEOUT_MS);
  } finally {
    t.mock.timers.reset();
    await client.close();
  }
});

test("J5: a list request is bounded by requestTimeoutMs, and tells the server it gave up", async () => {
  const { logs, logger } = captureLogs();
  const client = await McpClient.connectStdio("node", [fixtureServer("silent.mjs")], undefined, { logger, era: "legacy", requestTimeoutMs: 300 });
  try {
    const e = await rejection(client.listTools());
    assert.ok(e instanceof TimeoutError && e.timeoutMs === 300, `${e.name}: ${e.message}`);
    await waitFor(() => /cancelled \d+ timed out after 300 ms/.test(stderrOf(logs)), 10_000);
  } finally {
    await client.close();
  }
});

test("J5: list requests time out after DEFAULT_REQUEST_TIMEOUT_MS by default, not a moment before", async (t) => {
  const { logs, logger } = captureLogs();
  const client = await McpClient.connectStdio("node", [fixtureServer("silent.mjs")], undefined, { logger, era: "legacy" });
  const clock = mockClock(t);
  try {
    let settled: unknown;
    const listing = client.listTools().then((v) => (settled = v), (e: unknown) => (settled = e));
    await realWaitFor(() => stderrOf(logs).includes("received tools/list"));
    clock.tick(DEFAULT_REQUEST_TIMEOUT_MS - 1);
    await realDelay(200);
    assert.equal(settled, undefined, "still waiting one millisecond before the bound");
    clock.tick(1);
    await listing;
    const got: unknown = settled; // assigned in a callback: TypeScript still sees undefined
    assert.ok(got instanceof TimeoutError && got.timeoutMs === DEFAULT_REQUEST_TIMEOUT_MS, String(got));
    clock.restore();
    await realWaitFor(() => stderrOf(logs).includes(`timed out after ${DEFAULT_REQUEST_TIMEOUT_MS} ms`));
  } finally {
    clock.restore();
    await client.close();
  }
});

test("V2: the server/discover probe gives up after DEFAULT_DISCOVER_TIMEOUT_MS by default, then initialize follows", async (t) => {
  // silent.mjs answers initialize only: the probe waits for its bound, then falls back.
  const { logs, logger } = captureLogs();
  const clock = mockClock(t);
  let connected: McpClient | undefined;
  const connecting = McpClient.connectStdio("node", [fixtureServer("silent.mjs"), "--version", "2025-06-18"], undefined, { logger, era: "auto" }).then((c) => (connected = c));
  try {
    await realWaitFor(() => stderrOf(logs).includes("received server/discover"));
    clock.tick(DEFAULT_DISCOVER_TIMEOUT_MS - 1);
    await realDelay(200);
    assert.ok(!stderrOf(logs).includes("received initialize"), "no fallback before the bound");
    clock.tick(1);
    await connecting;
    assert.match(stderrOf(logs), new RegExp(`cancelled \\d+ timed out after ${DEFAULT_DISCOVER_TIMEOUT_MS} ms`));
    assert.match(stderrOf(logs), /received initialize/);
    assert.equal(connected?.era, "legacy");
  } finally {
    clock.restore();
    await (connected ?? (await connecting.catch(() => undefined)))?.close();
  }
});

test("V2: discoverTimeoutMs overrides the probe's bound", async () => {
  const { logs, logger } = captureLogs();
  const client = await McpClient.connectStdio("node", [fixtureServer("silent.mjs"), "--version", "2025-03-26"], undefined, { logger, era: "auto", discoverTimeoutMs: 250 });
  try {
    assert.equal(client.era, "legacy");
    await waitFor(() => /cancelled \d+ timed out after 250 ms/.test(stderrOf(logs)), 10_000);
  } finally {
    await client.close();
  }
});
