import { test } from "node:test";
import { readFileSync } from "node:fs";
import assert from "node:assert/strict";
import { McpClient } from "../../src/node/client.js";
import { ConnectionClosedError, LimitError, TimeoutError, TransportError } from "../../src/errors.js";
import { CLOSE_STDIN_GRACE_MS, DEFAULT_CALL_TIMEOUT_MS, STDERR_TAIL_BYTES } from "../../src/limits.js";
import { StdioTransport } from "../../src/node/stdio.js";
import type { TextContent } from "../../src/mcp/types.js";
import { captureLogs, connectFixture, rejection, waitFor } from "../helpers/clients.js";
import { repoPath } from "../helpers/paths.js";

const everything = repoPath("node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const text = (r: { content: unknown[] }): string => (r.content as TextContent[]).map((c) => c.text).join("");

test("S1: the server gets the given env on top of a minimal inherited set, nothing else of ours", async () => {
  process.env.YADA_TEST_SECRET = "must-not-leak";
  const client = await McpClient.connectStdio("node", [everything, "stdio"], { YADA_GIVEN: "given-value" });
  try {
    const env = JSON.parse(text(await client.callTool("get-env", {}))) as Record<string, string>;
    assert.equal(env.YADA_GIVEN, "given-value");
    assert.equal(env.YADA_TEST_SECRET, undefined);
    assert.equal(env.PATH, process.env.PATH);
  } finally {
    delete process.env.YADA_TEST_SECRET;
    await client.close();
  }
});

test("S1: newlines inside values travel as escapes, one message per line both ways", async () => {
  const { client } = await connectFixture("echo.mjs");
  try {
    const r = await client.callTool("echo", { text: "line one\nline two\r\n\u2028end" });
    assert.equal(text(r), "line one\nline two\r\n\u2028end");
  } finally {
    await client.close();
  }
});

test("S2: non-JSON stdout lines are skipped and logged at warn", async () => {
  const { client, logs } = await connectFixture("noisy.mjs");
  try {
    assert.equal(text(await client.callTool("echo", { text: "ok" })), "ok");
    const skipped = logs.filter((l) => l.level === "warn" && l.message === "skipped a stdout line that is not JSON");
    assert.ok(skipped.some((l) => String(l.data?.line).includes("Noisy MCP server v1.0 starting up")));
  } finally {
    await client.close();
  }
});

test("S2: when the server exits after a skipped line, the error mentions it", async () => {
  const { client } = await connectFixture("exit-mid-call.mjs", ["--skipped-line"]);
  const e = await rejection(client.callTool("echo", { text: "x" }));
  assert.ok(e instanceof ConnectionClosedError);
  assert.match(e.message, /panic: connection pool exhausted/);
  await client.close();
});

test("S3: a server flooding stderr (with invalid UTF-8) never blocks, its stderr is logged at debug and its tail kept", async () => {
  const { client, logs } = await connectFixture("stderr-flood.mjs");
  try {
    for (let i = 0; i < 4; i++) assert.equal(text(await client.callTool("echo", { text: `n${i}` })), `n${i}`);
    const debug = logs.filter((l) => l.level === "debug" && l.message === "server stderr");
    const bytes = debug.reduce((n, l) => n + String(l.data?.text).length, 0);
    assert.ok(bytes > 1024 * 1024, `only ${bytes} bytes of stderr logged`);
    assert.ok(logs.every((l) => l.level !== "warn" || !/stderr/.test(l.message)));
  } finally {
    await client.close();
  }
});

test("S3, S4: when the server dies mid-call, the pending call fails with exit code and the kept stderr", async () => {
  const { client } = await connectFixture("exit-mid-call.mjs");
  const e = await rejection(client.callTool("echo", { text: "x" }));
  assert.ok(e instanceof ConnectionClosedError);
  assert.equal(e.code, "connection_closed");
  assert.equal(e.info.exitCode, 3);
  assert.match(e.info.stderrTail ?? "", /fatal: database unreachable/);
  assert.match(e.message, /exited with code 3.*fatal: database unreachable/);
  // Later calls fail the same way, without hanging; each with an error of its own
  // that says it was never sent (W5), the close as its cause.
  assert.equal(e.notSent, false, "the pending call had been written: it may have been delivered");
  const later = await rejection(client.callTool("echo", { text: "y" }));
  assert.ok(later instanceof ConnectionClosedError);
  assert.equal(later.notSent, true);
  assert.equal(later.cause, e);
  assert.equal(later.info.exitCode, 3);
  assert.match(later.message, /exited with code 3.*\(tools\/call was not sent\)$/);
  await client.close();
});

test("S3: only the last STDERR_TAIL_BYTES of stderr are kept", async () => {
  // Writes 200 KB of numbered lines to stderr, then dies during the call.
  const script = `
const rl = require("readline").createInterface({ input: process.stdin });
rl.on("line", (l) => {
  const m = JSON.parse(l);
  if (m.method === "initialize") return process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "f", version: "1" } } }) + "\\n");
  if (m.method === "tools/call") {
    for (let i = 0; i < 4000; i++) require("fs").writeSync(2, "line " + i + " " + "x".repeat(40) + "\\n");
    process.exit(5);
  }
});`;
  const client = await McpClient.connectStdio("node", ["-e", script], undefined, { era: "legacy" });
  const e = await rejection(client.callTool("t", {}));
  assert.ok(e instanceof ConnectionClosedError);
  const tail = e.info.stderrTail ?? "";
  assert.ok(tail.length <= STDERR_TAIL_BYTES && tail.length > STDERR_TAIL_BYTES - 100, `tail of ${tail.length} characters`);
  assert.ok(tail.endsWith("line 3999 " + "x".repeat(40)), "the tail ends with the last line written");
  assert.ok(!tail.includes("line 0 "), "the start of the flood is not kept");
  await client.close();
});

test("S7: a client that is never closed does not leave its server behind when the host process exits", async () => {
  const { spawnSync } = await import("node:child_process");
  const { fixtureServer } = await import("../helpers/paths.js");
  const { pathToFileURL } = await import("node:url");
  const clientModule = pathToFileURL(new URL("../../src/node/client.js", import.meta.url).pathname).href;
  const host = `
import { McpClient } from ${JSON.stringify(clientModule)};
const logs = [];
const client = await McpClient.connectStdio("node", [${JSON.stringify(fixtureServer("ignore-stdin-close.mjs"))}, "--max-life", "20000", "--quiet"], undefined, { era: "legacy", logger: (l, m, d) => m === "server stderr" && logs.push(String(d.text)) });
while (!/pid \\d+/.test(logs.join(""))) await new Promise((r) => setTimeout(r, 10));
console.log(/pid (\\d+)/.exec(logs.join(""))[1]);
process.exit(0);`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", host], { encoding: "utf8", timeout: 20_000 });
  const pid = Number(r.stdout.trim());
  assert.ok(pid > 0, r.stderr);
  await new Promise((res) => setTimeout(res, 200));
  assert.equal(alive(pid), false, "the server outlived its host");
});

test("S5: a server that never answers initialize fails the connect within the handshake bound", async () => {
  const t0 = Date.now();
  const e = await rejection(connectFixture("silent.mjs", ["--no-init"], { handshakeTimeoutMs: 300, era: "legacy" }));
  assert.ok(e instanceof TimeoutError);
  assert.match(e.message, /handshake did not finish within 300 ms/);
  assert.ok(Date.now() - t0 < 5000);
});

test("S5: a server that exits on start fails the connect with its stderr", async () => {
  const e = await rejection(connectFixture("exit-on-start.mjs"));
  assert.ok(e instanceof ConnectionClosedError);
  assert.match(e.message, /cannot start: missing API key/);
});

test("S5: a command that does not exist fails the connect with a transport error", async () => {
  const e = await rejection(McpClient.connectStdio("/nonexistent/yada-server", []));
  assert.equal(e.code, "transport");
});

test("S5: initialized is sent as a notification after the initialize answer", async () => {
  const { client, logs } = await connectFixture("silent.mjs", [], { era: "legacy" });
  try {
    const stderr = () => logs.filter((l) => l.message === "server stderr").map((l) => String(l.data?.text)).join("");
    await waitFor(() => /received notifications\/initialized/.test(stderr()));
    assert.ok(stderr().indexOf("received initialize") < stderr().indexOf("received notifications/initialized"));
  } finally {
    await client.close();
  }
});

test("S6: calls are bounded at five minutes by default; withCallTimeout sets or removes the bound", async () => {
  const { client } = await connectFixture("silent.mjs", [], { era: "legacy" });
  try {
    assert.equal(client.callTimeoutMs, DEFAULT_CALL_TIMEOUT_MS);
    assert.equal(DEFAULT_CALL_TIMEOUT_MS, 300_000);
    assert.equal(client.withCallTimeout(null).callTimeoutMs, null);
    const t0 = Date.now();
    const e = await rejection(client.withCallTimeout(150).callTool("echo", { text: "x" }));
    assert.ok(e instanceof TimeoutError);
    assert.ok(Date.now() - t0 >= 140);
    // With no bound, the call is still waiting when the connection closes.
    const unbounded = rejection(client.withCallTimeout(null).callTool("echo", { text: "x" }));
    await new Promise((r) => setTimeout(r, 300));
    await client.close();
    assert.ok((await unbounded) instanceof ConnectionClosedError);
  } finally {
    await client.close();
  }
});

test("S6: the bound counts from the send: many concurrent calls each get their full time", async () => {
  const { client } = await connectFixture("echo.mjs");
  try {
    const bounded = client.withCallTimeout(2000);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => bounded.callTool("slow", { ms: 100 + (i % 5) })));
    assert.equal(results.length, 50);
  } finally {
    await client.close();
  }
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A killed process whose parent is gone may linger as a zombie until it is reaped.
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

test("S7: close() ends stdin and the server exits; no process or listener is left", async () => {
  const exitListeners = process.listenerCount("exit");
  const { client } = await connectFixture("echo.mjs");
  await client.callTool("echo", { text: "x" });
  const t0 = Date.now();
  await client.close();
  assert.ok(Date.now() - t0 < 1500, "a polite server exits on stdin end");
  assert.ok(process.listenerCount("exit") <= Math.max(exitListeners, 1));
  assert.ok(client.isClosed);
  const e = await rejection(client.callTool("echo", { text: "x" }));
  assert.equal(e.code, "connection_closed");
});

test("S7: a server that ignores stdin end and SIGTERM is killed with SIGKILL", async () => {
  const { logs, logger } = captureLogs();
  const { fixtureServer } = await import("../helpers/paths.js");
  // The fixture's own safety exit is far past the bound below: only SIGKILL ends it in time.
  const client = await McpClient.connectStdio("node", [fixtureServer("ignore-stdin-close.mjs"), "--max-life", "110000"], undefined, { logger });
  const stderr = () => logs.filter((l) => l.message === "server stderr").map((l) => String(l.data?.text)).join("");
  await waitFor(() => /pid \d+/.test(stderr()));
  const pid = Number(/pid (\d+)/.exec(stderr())?.[1]);
  assert.ok(alive(pid));
  const closed = await Promise.race([client.close().then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 30_000).unref())]);
  if (!closed && alive(pid)) process.kill(pid, "SIGKILL");
  assert.ok(closed, "close() did not end the server within 30 s");
  assert.equal(alive(pid), false);
  assert.match(stderr(), /ignoring SIGTERM/);
});

test("S8: a line over the bound fails its call with a limit error and the session goes on", async () => {
  const { client } = await connectFixture("long-line.mjs", [], { maxLineBytes: 1024 * 1024 });
  try {
    const e = await rejection(client.callTool("big", { bytes: 2 * 1024 * 1024 }));
    assert.ok(e instanceof LimitError);
    assert.equal(e.limit, "MAX_LINE_BYTES");
    assert.equal(text(await client.callTool("big", { bytes: 1000 })).length, 1000);
  } finally {
    await client.close();
  }
});

test("S8: the default bound is 16 MiB: a 17 MiB line is refused", async () => {
  const { client } = await connectFixture("long-line.mjs");
  try {
    const e = await rejection(client.callTool("big", { bytes: 17 * 1024 * 1024 }));
    assert.ok(e instanceof LimitError);
    assert.equal(e.max, 16 * 1024 * 1024);
  } finally {
    await client.close();
  }
});

test("S1: invalid UTF-8 and multi-byte characters split across writes are handled", async () => {
  const { client, logs } = await connectFixture("bad-utf8.mjs");
  try {
    assert.equal(text(await client.callTool("unicode", {})), "héllo 👋 世界 🎉 ok");
    assert.equal(text(await client.callTool("echo", { text: "日本語 ✓" })), "日本語 ✓");
    assert.ok(logs.some((l) => l.message === "skipped a stdout line that is not JSON"));
  } finally {
    await client.close();
  }
});

// A server that starts a grandchild sharing its stdout and stderr, prints the grandchild's pid on stderr, and exits on stdin end (or at once with --exit).
const withGrandchild = `
const { spawn } = require("node:child_process");
const g = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], { stdio: ["ignore", "inherit", "inherit"] });
process.stderr.write("grandchild " + g.pid + "\\n");
if (process.argv.includes("--exit")) setTimeout(() => process.exit(3), 100);
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
`;

async function startWithGrandchild(args: string[]): Promise<{ transport: StdioTransport; closed: Promise<Error | undefined>; grandchild: () => number }> {
  const { logs, logger } = captureLogs();
  let onClosed!: (e: Error | undefined) => void;
  const closed = new Promise<Error | undefined>((r) => (onClosed = r));
  const transport = new StdioTransport({ command: process.execPath, args: ["-e", withGrandchild, "--", ...args], logger });
  await transport.start({ message: () => {}, requestError: () => {}, closed: (e) => onClosed(e) });
  const stderr = () => logs.filter((l) => l.message === "server stderr").map((l) => String(l.data?.text)).join("");
  await waitFor(() => /grandchild \d+/.test(stderr()));
  return { transport, closed, grandchild: () => Number(/grandchild (\d+)/.exec(stderr())?.[1]) };
}

test("S7: close() ends even when a grandchild keeps the server's stdout and stderr open", async () => {
  const { transport, closed, grandchild } = await startWithGrandchild([]);
  try {
    const t0 = Date.now();
    await transport.close();
    assert.ok(Date.now() - t0 < CLOSE_STDIN_GRACE_MS + 2_000, `close() took ${Date.now() - t0} ms`);
    assert.ok((await closed) instanceof ConnectionClosedError);
  } finally {
    process.kill(grandchild());
  }
});

test("S4: a server that exits while a grandchild holds its stdout is reported closed with its exit code", async () => {
  const { transport, closed, grandchild } = await startWithGrandchild(["--exit"]);
  try {
    const e = await Promise.race([closed, new Promise<"pending">((r) => setTimeout(() => r("pending"), CLOSE_STDIN_GRACE_MS + 3_000))]);
    assert.ok(e instanceof ConnectionClosedError, "the exit was never reported");
    assert.equal(e.info.exitCode, 3);
    assert.match(e.message, /exited with code 3/);
  } finally {
    process.kill(grandchild());
    await transport.close();
  }
});

test("S5: a launch Node refuses outright (a NUL byte in an env value or the command) is a transport error, not a throw", async () => {
  for (const params of [
    { command: process.execPath, args: ["-e", "1"], env: { YADA_X: "a\u0000b" } },
    { command: "no\u0000de" },
  ]) {
    const transport = new StdioTransport(params);
    let started: Promise<void> | undefined;
    assert.doesNotThrow(() => {
      started = transport.start({ message: () => {}, requestError: () => {}, closed: () => {} });
    });
    const e = await rejection(started as Promise<void>);
    assert.ok(e instanceof TransportError);
    assert.equal(e.code, "transport");
    await transport.close();
  }
  const e = await rejection(McpClient.connectStdio(process.execPath, ["-e", "1"], { YADA_X: "a\u0000b" }));
  assert.equal(e.code, "transport");
});
