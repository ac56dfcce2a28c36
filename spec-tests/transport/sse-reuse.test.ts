// H2, H12: an SSE parser is reused across the answers of one HTTP transport, reset in
// between: nothing of one stream (a partial line or event, a BOM half seen, a CR
// waiting for its LF, the last event id, an event cut by the size bound) reaches
// the next. The parser alone, then the transport against a loopback server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createSseParser } from "../../src/transport/sse.js";
import { HttpTransport } from "../../src/transport/http.js";
import { LimitError, TransportError } from "../../src/errors.js";
import { recordingSink, request } from "./http-fixtures.js";

const enc = new TextEncoder();

// Every WHATWG rule the parser keeps state for, in one stream.
const STREAM = enc.encode("\uFEFFretry: 5\nid: 7\r\ndata: one\ndata: two\r\n\r\nevent: other\nid: 8\rdata: three\r\r: comment\ndata: four\n\n");
const EXPECTED = [
  { type: "message", data: "one\ntwo", id: "7" },
  { type: "other", data: "three", id: "8" },
  { type: "message", data: "four", id: "8" },
];

test("H2: a reset parser reads a stream as a new one does, wherever the stream before it stopped", () => {
  const seen: Array<{ type: string; data: string; id: string }> = [];
  const parser = createSseParser({ maxEventBytes: 64, onEvent: (e) => seen.push({ ...e, id: parser.lastEventId }) });
  const before = [
    ...Array.from({ length: STREAM.length }, (_, cut) => STREAM.subarray(0, cut)),
    enc.encode("id: stale\ndata: half a li"),
    enc.encode("data: x\r"),
    new Uint8Array([0xef, 0xbb]),
  ];
  for (const prefix of before) {
    parser.feed(prefix);
    parser.reset();
    seen.length = 0;
    parser.feed(STREAM);
    assert.deepEqual(seen, EXPECTED, `after ${JSON.stringify(new TextDecoder().decode(prefix))}`);
    assert.equal(parser.lastEventId, "8");
    parser.reset();
    assert.equal(parser.lastEventId, "", "the last event id is gone");
  }
  // An event cut by the bound leaves the parser mid-event: reset makes it whole again.
  assert.throws(() => parser.feed(enc.encode(`id: big\ndata: ${"x".repeat(100)}\n`)), LimitError);
  parser.reset();
  seen.length = 0;
  parser.feed(STREAM);
  assert.deepEqual(seen, EXPECTED);
});

test("H2, H12: the transport's next answer gets neither the last event id nor a partial line of the answer before", { timeout: 15_000 }, async () => {
  const answer = (id: unknown) => JSON.stringify({ jsonrpc: "2.0", id, result: { ok: true } });
  const gets: Array<string | undefined> = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method === "GET") {
        gets.push(req.headers["last-event-id"] as string | undefined);
        return void res.writeHead(405).end();
      }
      const m = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: unknown };
      res.writeHead(200, { "content-type": "text/event-stream" });
      // "a": an id and a retry, then its response. "b": a partial line and no id, then
      // the end (not resumable). "c": its response alone.
      if (m.id === "a") res.end(`id: stale-1\nretry: 10\ndata: ${answer("a")}\n\n`);
      else if (m.id === "b") res.end(`data: {"jsonrpc":"2.0","id":"b","res`);
      else res.end(`data: ${answer(m.id)}\n\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const transport = new HttpTransport(`http://127.0.0.1:${port}/mcp`);
  try {
    const sink = recordingSink();
    await transport.start(sink);
    await transport.send(request("a", "ping"));
    await transport.send(request("b", "ping"));
    await transport.send(request("c", "ping"));
    assert.deepEqual(sink.messages, [JSON.parse(answer("a")), JSON.parse(answer("c"))]);
    assert.equal(sink.errors.length, 1);
    const failed = sink.errors[0] ?? assert.fail("no error");
    assert.equal(failed.id, "b");
    assert.ok(failed.error instanceof TransportError, failed.error.message);
    assert.match(failed.error.message, /ended before its response/);
    assert.deepEqual(gets, [], "no resumption with the id of another answer");
  } finally {
    await transport.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
