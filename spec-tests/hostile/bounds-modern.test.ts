// Bounds of the modern era (V2, V5) and of the era cache, crossed through the
// public client against real server processes and a loopback HTTP server. Times
// too long to wait out run on a mocked clock (node:test mock timers).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { McpClient } from "../../src/node/client.js";
import { HttpTransport } from "../../src/transport/http.js";
import { LimitError } from "../../src/errors.js";
import { LISTEN_RETRY_MAX_MS, LISTEN_RETRY_MIN_MS, MAX_ERA_CACHE_ENTRIES, MAX_INPUT_ROUNDS, MAX_LIST_TTL_MS } from "../../src/limits.js";
import { mockClock, realDelay, realWaitFor } from "../helpers/clock.js";
import { captureLogs, rejection } from "../helpers/clients.js";
import type { TextContent } from "../../src/mcp/types.js";

/**
 * A modern (2026-07-28) stdio server: answers server/discover, writes
 * "received <method>" to stderr for every request, and answers the others with
 * `answer(m)` (a JS expression of the request `m`; `undefined` leaves it unanswered).
 */
function modernServer(answer: string): string[] {
  return [
    "-e",
    `
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
const answer = ${answer};
require("readline").createInterface({ input: process.stdin }).on("line", (l) => {
  const m = JSON.parse(l);
  if (m.id === undefined || m.method === undefined) return;
  process.stderr.write("received " + m.method + "\\n");
  if (m.method === "server/discover") return send({ jsonrpc: "2.0", id: m.id, result: { supportedVersions: ["2026-07-28"], capabilities: { tools: { listChanged: true } }, _meta: { "io.modelcontextprotocol/serverInfo": { name: "modern", version: "1" } } } });
  const result = answer(m);
  if (result !== undefined) send({ jsonrpc: "2.0", id: m.id, result });
});`,
  ];
}

async function connectModern(answer: string): Promise<{ client: McpClient; received: (method: string) => number }> {
  const { logs, logger } = captureLogs();
  const client = await McpClient.connectStdio("node", modernServer(answer), undefined, { logger, era: "modern" });
  const received = (method: string): number =>
    logs
      .filter((l) => l.message === "server stderr")
      .map((l) => String(l.data?.text))
      .join("")
      .split("\n")
      .filter((line) => line === `received ${method}`).length;
  return { client, received };
}

test(`V2: a call answering input_required on every round stops after MAX_INPUT_ROUNDS requests; one that completes on the last is answered`, async () => {
  // Each send carries the previous round's state; the count of sends so far is the new state.
  const { client, received } = await connectModern(`(m) => {
    if (m.method !== "tools/call") return {};
    const sends = m.params.requestState === undefined ? 1 : Number(m.params.requestState) + 1;
    if (m.params.name === "finite" && sends === ${MAX_INPUT_ROUNDS}) return { content: [{ type: "text", text: "done after " + sends }] };
    return { resultType: "input_required", requestState: String(sends) };
  }`);
  try {
    const done = await client.callTool("finite", {});
    assert.equal((done.content[0] as TextContent).text, `done after ${MAX_INPUT_ROUNDS}`);
    const e = await rejection(client.callTool("endless", {}));
    assert.ok(e instanceof LimitError && e.limit === "MAX_INPUT_ROUNDS", `${e.name}: ${e.message}`);
    // stderr trails stdout: wait for the count, then make sure nothing more comes.
    await realWaitFor(() => received("tools/call") >= 2 * MAX_INPUT_ROUNDS);
    await realDelay(300);
    assert.equal(received("tools/call"), 2 * MAX_INPUT_ROUNDS, "no request past the bound was sent");
  } finally {
    await client.close();
  }
});

test("V2: a modern list's ttlMs is honoured up to MAX_LIST_TTL_MS, never longer", async (t) => {
  // The tool's description counts the lists the server answered.
  const { client } = await connectModern(
    `(() => { let lists = 0; return (m) => m.method === "tools/list" ? { tools: [{ name: "t", description: String(++lists), inputSchema: { type: "object" } }], ttlMs: ${MAX_LIST_TTL_MS * 30} } : {}; })()`,
  );
  const listed = async (): Promise<string | undefined> => (await client.listTools())[0]?.description;
  try {
    t.mock.timers.enable({ apis: ["Date"], now: Date.now() });
    assert.equal(await listed(), "1");
    t.mock.timers.tick(MAX_LIST_TTL_MS - 1);
    assert.equal(await listed(), "1", "still fresh one millisecond before the bound");
    t.mock.timers.tick(1);
    assert.equal(await listed(), "2", "read again once MAX_LIST_TTL_MS has passed, whatever ttlMs said");
  } finally {
    t.mock.timers.reset();
    await client.close();
  }
});

test("V5: a listen the server keeps ending is re-sent after LISTEN_RETRY_MIN_MS, doubling up to LISTEN_RETRY_MAX_MS", async (t) => {
  // Answers every subscriptions/listen at once: each answer is an unexpected end.
  const { client, received } = await connectModern(`(m) => m.method === "subscriptions/listen" ? {} : {}`);
  t.mock.method(Math, "random", () => 0.5); // the jitter factor is then exactly 1
  const clock = mockClock(t);
  try {
    client.onListChanged(() => {});
    await realWaitFor(() => received("subscriptions/listen") === 1);
    const expected: number[] = [];
    for (let d = LISTEN_RETRY_MIN_MS; expected.length < 8; d = Math.min(d * 2, LISTEN_RETRY_MAX_MS)) expected.push(d);
    assert.equal(expected.at(-1), LISTEN_RETRY_MAX_MS, "the schedule reaches the cap");
    for (const [i, delay] of expected.entries()) {
      const times = expected.slice(0, i + 1).filter((d) => d === delay).length;
      await realWaitFor(() => clock.armed(delay) === times); // the client has taken the end and armed its retry
      clock.tick(delay - 1);
      await realDelay(100);
      assert.equal(received("subscriptions/listen"), i + 1, `retry ${i + 1} not before ${delay} ms`);
      clock.tick(1);
      await realWaitFor(() => received("subscriptions/listen") === i + 2);
    }
  } finally {
    clock.restore();
    await client.close();
  }
});

test("V2: the era of at most MAX_ERA_CACHE_ENTRIES servers is remembered; the oldest is forgotten first", async () => {
  // One loopback server, one legacy MCP server per path: the era is keyed by origin + path.
  const discovers = new Map<string, number>();
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      const m = body ? (JSON.parse(body) as { id?: number; method?: string }) : {};
      if (m.method === "server/discover") discovers.set(req.url ?? "", (discovers.get(req.url ?? "") ?? 0) + 1);
      if (req.method === "GET") return void res.writeHead(405).end();
      if (m.id === undefined) return void res.writeHead(202).end();
      const modern = req.url?.startsWith("/modern-") === true;
      const reply =
        modern && m.method === "server/discover"
          ? { jsonrpc: "2.0", id: m.id, result: { supportedVersions: ["2026-07-28"], capabilities: {}, _meta: { "io.modelcontextprotocol/serverInfo": { name: "m", version: "1" } } } }
          : m.method === "initialize"
          ? { jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "h", version: "1" } } }
          : { jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const connectTo = async (path: string, era = "legacy"): Promise<void> => {
    const client = await McpClient.connect(new HttpTransport(`${base}/${path}`), { name: path });
    assert.equal(client.era, era);
    await client.close();
  };
  try {
    // Three legacy servers first, in order (they are the oldest); then modern ones (a
    // one-request handshake, remembered all the same) fill the cache, in any order.
    for (let i = 0; i < 3; i++) await connectTo(`era-${i}`);
    for (let i = 3; i < MAX_ERA_CACHE_ENTRIES; i += 32) {
      await Promise.all(Array.from({ length: Math.min(32, MAX_ERA_CACHE_ENTRIES - i) }, (_, j) => connectTo(`modern-${i + j}`, "modern")));
    }
    assert.equal(discovers.size, MAX_ERA_CACHE_ENTRIES);
    const legacyAt = (i: number): Promise<void> => connectTo(`era-${i}`);
    await legacyAt(0);
    assert.equal(discovers.get("/era-0"), 1, "at the bound, the first server's era is still remembered: no second probe");
    await legacyAt(MAX_ERA_CACHE_ENTRIES); // one past the bound: the oldest, era-1, is forgotten
    await legacyAt(2);
    assert.equal(discovers.get("/era-2"), 1, "a newer one is kept");
    await legacyAt(1);
    assert.equal(discovers.get("/era-1"), 2, "the oldest was forgotten and probed again");
  } finally {
    server.close();
  }
});
