import { test } from "node:test";
import assert from "node:assert/strict";
import { createSseParser } from "../../src/transport/sse.js";
import { HttpTransport } from "../../src/transport/http.js";
import { McpClient } from "../../src/mcp/client.js";
import { LimitError } from "../../src/errors.js";
import { MAX_SSE_EVENT_BYTES } from "../../src/limits.js";
import { rejection } from "../helpers/clients.js";
import { startFixture } from "../transport/http-fixtures.js";
import { heldBytes, MiB } from "./memory.js";

/** Feeds `line` repeated to `bytes` in 16 KiB chunks; returns the error thrown, if any. */
function feedRepeated(parser: { feed(c: Uint8Array): void }, line: string, bytes: number): unknown {
  const chunk = new TextEncoder().encode(line.repeat(Math.floor(16_384 / line.length)));
  try {
    for (let fed = 0; fed < bytes; fed += chunk.length) parser.feed(chunk);
  } catch (e) {
    return e;
  }
  return undefined;
}

for (const [what, line] of [
  ["empty data lines", "data\n"],
  ["data lines with a colon and CRLF", "data:\r\n"],
  ["id lines", "id: 1\n"],
  ["event lines", "event: x\n"],
  ["unknown fields", "x\n"],
] as const) {
  test(`Y3: the event bound counts wire bytes: ${what} reach it`, () => {
    const max = 256 * 1024;
    const parser = createSseParser({ onEvent: () => assert.fail("no event was terminated"), maxEventBytes: max });
    const error = feedRepeated(parser, line, max + 32 * 1024);
    assert.ok(error instanceof LimitError, `no limit error after ${max + 32 * 1024} wire bytes`);
    assert.equal(error.limit, "MAX_SSE_EVENT_BYTES");
  });
}

test("Y3: comments are not part of an event: a keep-alive stream longer than the bound is fine", () => {
  let events = 0;
  const parser = createSseParser({ onEvent: () => events++, maxEventBytes: 64 * 1024 });
  assert.equal(feedRepeated(parser, ": keep-alive\n", 256 * 1024), undefined);
  parser.feed(new TextEncoder().encode("data: 1\n\n"));
  assert.equal(events, 1);
});

test("Y3: an event just under its bound holds at most about twice the bound", () => {
  const before = heldBytes();
  let events = 0;
  const parser = createSseParser({ onEvent: () => events++ });
  // 15 MiB of empty data lines: under the 16 MiB bound, so still being assembled.
  assert.equal(feedRepeated(parser, "data:\n", MAX_SSE_EVENT_BYTES - MiB), undefined);
  const held = heldBytes() - before;
  // Built by concatenation, this held over 90 MiB (one string per line).
  assert.ok(held < 2 * MAX_SSE_EVENT_BYTES, `the parser holds ${(held / MiB).toFixed(1)} MiB`);
  parser.feed(new TextEncoder().encode("\n"));
  assert.equal(events, 1);
});

test("Y3: a multi-line event is joined once and still reads as its lines joined with \\n", () => {
  const seen: string[] = [];
  const parser = createSseParser({ onEvent: (e) => seen.push(e.data) });
  const enc = new TextEncoder();
  // Split inside the first line, inside a multi-byte character and across the blank line.
  const bytes = enc.encode("data: été\ndata:\ndata: 🚀 x\n\n");
  const cuts = [0, 3, 8, 12, 20, bytes.length];
  for (let i = 0; i + 1 < cuts.length; i++) parser.feed(bytes.subarray(cuts[i], cuts[i + 1]));
  assert.deepEqual(seen, ["été\n\n🚀 x"]);
});

test("Y3: 72 MiB of empty data lines over a real socket end in a limit error near the bound, not after the stream", async () => {
  const server = (await startFixture("sse-flood", {})) as Awaited<ReturnType<typeof startFixture>> & { written: number };
  const client = await McpClient.connect(new HttpTransport(server.url), { name: "flood" });
  try {
    const e = await rejection(client.callTool("echo", {}, { timeoutMs: 60_000 }));
    assert.ok(e instanceof LimitError, `${e.name}: ${e.message}`);
    assert.equal(e.limit, "MAX_SSE_EVENT_BYTES");
    // Socket buffers let a few MiB more out before the client stops reading.
    assert.ok(server.written < MAX_SSE_EVENT_BYTES + 16 * MiB, `the server wrote ${(server.written / MiB).toFixed(0)} MiB`);
  } finally {
    await client.close();
    await server.close();
  }
});
