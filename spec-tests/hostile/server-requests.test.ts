import { test } from "node:test";
import assert from "node:assert/strict";
import { captureLogs, connectFixture, waitFor } from "../helpers/clients.js";
import { McpClient } from "../../src/mcp/client.js";
import { HttpTransport } from "../../src/transport/http.js";
import { MAX_HOST_HANDLER_CONCURRENCY, MAX_REPLY_SENDS_IN_FLIGHT, MAX_SERVER_REQUESTS_IN_FLIGHT, RPC_TOO_MANY_REQUESTS } from "../../src/limits.js";
import { startFixture } from "../transport/http-fixtures.js";
import type { TextContent } from "../../src/mcp/types.js";
import { heldBytes, MiB } from "./memory.js";
import { LimitError } from "../../src/errors.js";

interface Stats {
  replies: number;
  results: number;
  errors: Record<string, number>;
}
const statsOf = async (client: McpClient): Promise<Stats> =>
  JSON.parse((await client.callTool("stats", {}, { timeoutMs: 30_000 })).content.map((c) => (c as TextContent).text).join("")) as Stats;

test("Y2: a server that floods pings and never reads its stdin leaves client memory bounded", async () => {
  const before = heldBytes();
  const count = 100_000;
  const { client, logs } = await connectFixture("hostile.mjs", ["--mode", "ping-flood", "--count", String(count)]);
  try {
    await waitFor(() => logs.some((l) => l.message === "server stderr" && String(l.data?.text).includes("flooded")), 30_000);
    await new Promise((r) => setTimeout(r, 200)); // the last chunks of the pipe
    const held = heldBytes() - before;
    // Unbounded, every one of the 100,000 replies waits in the unread pipe's write
    // queue (about 80 MiB here, 1.4 GiB for a longer flood).
    assert.ok(held < 24 * MiB, `the client holds ${(held / MiB).toFixed(1)} MiB during the flood`);
    const stats = await statsOf(client);
    // What the pipe held before it filled, plus the bounded queue: far from all.
    assert.ok(stats.replies > 0 && stats.replies < count / 10, `${stats.replies} replies reached the server`);
    assert.ok(logs.some((l) => l.message === "dropped server requests unanswered: too many replies waiting"));
    // The session still works.
    const r = await client.callTool("echo", { text: "alive" });
    assert.equal((r.content[0] as TextContent).text, "alive");
  } finally {
    await client.close();
  }
});

test("Y2: calls to a server that never reads its stdin fail with a limit error once MAX_STDIN_QUEUED_BYTES are queued", async () => {
  const { MAX_STDIN_QUEUED_BYTES } = await import("../../src/limits.js");
  const { client, logs } = await connectFixture("hostile.mjs", ["--mode", "deaf"]);
  try {
    await waitFor(() => logs.some((l) => l.message === "server stderr" && String(l.data?.text).includes("deaf")), 30_000);
    const before = heldBytes();
    const big = "x".repeat(1024 * 1024);
    const outcomes: Array<Promise<unknown>> = [];
    let limited: unknown;
    for (let i = 0; i < 64 && limited === undefined; i++) {
      const call = client.request("tools/call", { name: "echo", arguments: { text: big } }, { timeoutMs: 60_000 });
      outcomes.push(call.catch((e: unknown) => e));
      // A refused send fails at once, before any timeout.
      const settled = await Promise.race([call.then(() => "answered", (e: unknown) => e), new Promise((r) => setTimeout(() => r("pending"), 20))]);
      if (settled !== "pending") limited = settled;
    }
    assert.ok(limited instanceof LimitError && limited.limit === "MAX_STDIN_QUEUED_BYTES", `no limit error after 64 MiB of unread calls: ${String(limited)}`);
    const held = heldBytes() - before;
    assert.ok(held < 2 * MAX_STDIN_QUEUED_BYTES + 16 * MiB, `the client holds ${(held / MiB).toFixed(0)} MiB for the deaf server`);
  } finally {
    await client.close();
  }
});

test("Y2: a sampling flood reaches the host at most MAX_HOST_HANDLER_CONCURRENCY at a time, the excess is refused", async () => {
  let running = 0;
  let peak = 0;
  let calls = 0;
  const { client } = await connectFixture("hostile.mjs", ["--mode", "sampling-flood", "--count", "2000"], {
    handlers: {
      sampling: {
        handle: async () => {
          calls++;
          peak = Math.max(peak, ++running);
          await new Promise((r) => setTimeout(r, 5));
          running--;
          return { role: "assistant", content: { type: "text", text: "ok" }, model: "m" };
        },
      },
    },
  });
  try {
    // The server answers `stats` after 300 ms without a reply; on a loaded machine the
    // host's answers can trail that. Ask again (bounded) until every call the host ran
    // is answered and a second ask finds nothing new.
    let stats = await statsOf(client);
    for (const end = performance.now() + 30_000; performance.now() < end; ) {
      const settled = running === 0 && stats.results === calls;
      const again = await statsOf(client);
      if (settled && again.replies === stats.replies) break;
      stats = again;
    }
    assert.ok(peak <= MAX_HOST_HANDLER_CONCURRENCY, `${peak} sampling calls ran at once`);
    assert.ok(calls < 2000 && calls >= 1, `${calls} sampling calls reached the host`);
    assert.equal(stats.results, calls);
    // Every other answer is the in-flight refusal; what could not even be queued was dropped.
    assert.deepEqual(Object.keys(stats.errors), [String(RPC_TOO_MANY_REQUESTS)]);
    assert.ok(stats.results <= 2000 - (stats.errors[String(RPC_TOO_MANY_REQUESTS)] ?? 0));
    assert.ok(calls <= 2000 - MAX_SERVER_REQUESTS_IN_FLIGHT, "requests beyond the in-flight cap never ran");
  } finally {
    await client.close();
  }
});

test("Y2: one SSE event with a batch of 2,000 requests makes at most MAX_REPLY_SENDS_IN_FLIGHT answer POSTs at once", async () => {
  const server = await startFixture("batch-requests", { count: 2000 });
  const { logger } = captureLogs();
  const client = await McpClient.connect(new HttpTransport(server.url), { name: "batch", logger });
  try {
    const r = await client.callTool("flood", {}, { timeoutMs: 60_000 });
    const seen = JSON.parse((r.content[0] as TextContent).text) as { peak: number; answers: number };
    assert.ok(seen.peak <= MAX_REPLY_SENDS_IN_FLIGHT, `${seen.peak} answer POSTs were open at once`);
    assert.ok(seen.answers > 0);
  } finally {
    await client.close();
    await server.close();
  }
});
