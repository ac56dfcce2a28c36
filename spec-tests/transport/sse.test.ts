// H2: the SSE parser, against the WHATWG event-stream rules, fed as bytes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createSseParser, type SseEvent } from "../../src/transport/sse.js";
import { LimitError } from "../../src/errors.js";

const enc = new TextEncoder();

/** An event with the parser's last event id at its dispatch. */
interface Seen extends SseEvent {
  lastEventId: string;
}

interface Parsed {
  events: Seen[];
  retries: number[];
  lastEventId: string;
}

/** Parses `chunks` in order (strings are UTF-8 encoded; arrays are raw bytes). */
function parse(chunks: Array<string | number[] | Uint8Array>, maxEventBytes?: number): Parsed {
  const events: Seen[] = [];
  const retries: number[] = [];
  const parser = createSseParser({
    onEvent: (e) => events.push({ ...e, lastEventId: parser.lastEventId }),
    onRetry: (ms) => retries.push(ms),
    ...(maxEventBytes === undefined ? {} : { maxEventBytes }),
  });
  for (const c of chunks) parser.feed(typeof c === "string" ? enc.encode(c) : c instanceof Uint8Array ? c : Uint8Array.from(c));
  parser.end();
  return { events, retries, lastEventId: parser.lastEventId };
}

const ev = (data: string, type = "message", lastEventId = ""): Seen => ({ type, data, lastEventId });

test("H2: data lines of one event are joined with \\n", () => {
  assert.deepEqual(parse(["data: a\ndata: b\ndata: c\n\n"]).events, [ev("a\nb\nc")]);
});

test("H2: LF, CR and CRLF all end lines", () => {
  assert.deepEqual(parse(["data: a\n\ndata: b\r\rdata: c\r\n\r\n"]).events, [ev("a"), ev("b"), ev("c")]);
});

test("H2: a CRLF split across chunks is one line end, not two", () => {
  // Counted twice, the LF would be a blank line and dispatch "a" on its own.
  assert.deepEqual(parse(["data: a\r", "\ndata: b\r", "\n\r", "\n"]).events, [ev("a\nb")]);
});

test("H2: one leading BOM is skipped, even split across chunks; a second one is content", () => {
  assert.deepEqual(parse([[0xef], [0xbb], [0xbf, 0x64], "ata: x\n\n"]).events, [ev("x")]);
  // The second BOM makes the field name "\uFEFFdata", an unknown field: no event.
  assert.deepEqual(parse(["\uFEFF\uFEFFdata: x\n\n"]).events, []);
  // A BOM inside a value is kept.
  assert.deepEqual(parse(["data: \uFEFFx\n\n"]).events, [ev("\uFEFFx")]);
});

test("H2: comment lines are ignored", () => {
  assert.deepEqual(parse([": keep-alive\ndata: a\n:another\n\n:\n\n"]).events, [ev("a")]);
});

test("H2: event sets the type of one event; the default is message", () => {
  assert.deepEqual(parse(["event: ping\ndata: 1\n\ndata: 2\n\n"]).events, [ev("1", "ping"), ev("2")]);
});

test("H2: id is tracked across events; an id containing NUL is ignored; an empty id clears it", () => {
  const r = parse(["id: 7\ndata: a\n\ndata: b\n\nid: x\u0000y\ndata: c\n\nid\ndata: d\n\n"]);
  assert.deepEqual(r.events, [ev("a", "message", "7"), ev("b", "message", "7"), ev("c", "message", "7"), ev("d", "message", "")]);
});

test("H2: an id without data moves the last event id but dispatches nothing", () => {
  const r = parse(["id: 42\n\n"]);
  assert.deepEqual(r.events, []);
  assert.equal(r.lastEventId, "42");
});

test("H2: retry takes digits only", () => {
  assert.deepEqual(parse(["retry: 1500\nretry: 15a\nretry: -1\nretry:\nretry: 20\n\n"]).retries, [1500, 20]);
});

test("H2: a line without a colon is a field with an empty value", () => {
  assert.deepEqual(parse(["data\n\ndata\ndata\n\n"]).events, [ev(""), ev("\n")]);
});

test("H2: only one space after the colon is dropped", () => {
  assert.deepEqual(parse(["data:x\n\ndata:  y\n\n"]).events, [ev("x"), ev(" y")]);
});

test("H2: a final event without a blank line is not dispatched", () => {
  const r = parse(["data: a\n\nid: 9\ndata: b\n"]);
  assert.deepEqual(r.events, [ev("a")]);
  assert.equal(r.lastEventId, "", "the unterminated event's id is not applied");
});

test("H2: an event with fields but no data is not dispatched; its type does not leak", () => {
  assert.deepEqual(parse(["event: x\n\ndata: a\n\n"]).events, [ev("a")]);
});

test("H2: a priming event (id, empty data) is dispatched with empty data", () => {
  assert.deepEqual(parse(["id: p1\ndata:\n\n"]).events, [ev("", "message", "p1")]);
});

test("H2: unknown fields are ignored", () => {
  assert.deepEqual(parse(["foo: bar\ndata: a\nDATA: b\n\n"]).events, [ev("a")]);
});

test("H2: a UTF-8 character split across chunks decodes whole", () => {
  const bytes = enc.encode("data: h\u00e9llo \u{1F600}\n\n");
  const events = parse([bytes.subarray(0, 9), bytes.subarray(9, 20), bytes.subarray(20)]).events;
  assert.deepEqual(events, [ev("h\u00e9llo \u{1F600}")]);
});

test("H2: an event larger than the bound is a LimitError", () => {
  assert.throws(
    () => parse(["data: " + "x".repeat(100) + "\ndata: " + "y".repeat(100) + "\n\n"], 150),
    (e: unknown) => e instanceof LimitError && e.code === "limit" && e.limit === "MAX_SSE_EVENT_BYTES",
  );
  // An unterminated line counts too, so a stream without line ends cannot grow memory.
  assert.throws(() => parse(["data: " + "x".repeat(200)], 150), LimitError);
  // Within the bound, the same events parse.
  assert.equal(parse(["data: " + "x".repeat(100) + "\n\n"], 150).events.length, 1);
});

test("H2: a long line streamed one byte per chunk stays linear", { timeout: 10_000 }, () => {
  const payload = "z".repeat(300_000);
  const bytes = enc.encode(`data: ${payload}\n\n`);
  const events: SseEvent[] = [];
  const parser = createSseParser({ onEvent: (e) => events.push(e) });
  for (let i = 0; i < bytes.length; i++) parser.feed(bytes.subarray(i, i + 1));
  assert.equal(events.length, 1);
  assert.equal(events[0]?.data.length, payload.length);
});

// ── Property: any chunking of a stream yields the same events ────────────────────

const CORPUS =
  "\uFEFF: opening comment\r\n" +
  "retry: 250\n" +
  "id: 1\r" +
  "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\r\n" +
  "\r\n" +
  "event: message\n" +
  "data: first line\r\n" +
  "data:second \u00e9\u20ac\u{1F680}\n" +
  "data\n" +
  "\n" +
  "id: nul\u0000id\n" +
  "data: after nul\r\r" +
  "id: 2\n" +
  "data:\n" +
  "\n" +
  "field-without-colon\n" +
  "retry: 9x\n" +
  "data:  two spaces\r\n\r\n" +
  "event: custom\rdata: cr only\r\r" +
  "id: 3\n\n" +
  "data: trailing, never dispatched\n";

const CORPUS_BYTES = enc.encode(CORPUS);

const EXPECTED: Parsed = {
  events: [
    ev('{"jsonrpc":"2.0","method":"notifications/progress"}', "message", "1"),
    ev("first line\nsecond \u00e9\u20ac\u{1F680}\n", "message", "1"),
    ev("after nul", "message", "1"),
    ev("", "message", "2"),
    ev(" two spaces", "message", "2"),
    ev("cr only", "custom", "2"),
  ],
  retries: [250],
  lastEventId: "3",
};

function parseCuts(bytes: Uint8Array, cuts: number[]): Parsed {
  const chunks: Uint8Array[] = [];
  let at = 0;
  for (const c of cuts) {
    chunks.push(bytes.subarray(at, c));
    at = c;
  }
  chunks.push(bytes.subarray(at));
  return parse(chunks);
}

// mulberry32: a small seeded generator, so a failure reproduces.
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test("H2: the corpus in one chunk yields the expected events", () => {
  assert.deepEqual(parse([CORPUS_BYTES]), EXPECTED);
});

test("H2: the stream cut at every position yields identical events", () => {
  for (let cut = 0; cut <= CORPUS_BYTES.length; cut++) {
    assert.deepEqual(parseCuts(CORPUS_BYTES, [cut]), EXPECTED, `cut at byte ${cut}`);
  }
});

test("H2: the stream cut at every pair of positions yields identical events", () => {
  const n = CORPUS_BYTES.length;
  for (let a = 0; a <= n; a += 3) {
    for (let b = a; b <= n; b += 5) assert.deepEqual(parseCuts(CORPUS_BYTES, [a, b]), EXPECTED, `cuts at ${a}, ${b}`);
  }
});

test("H2: one byte per chunk, and 500 seeded random chunkings, yield identical events", () => {
  const n = CORPUS_BYTES.length;
  assert.deepEqual(
    parseCuts(CORPUS_BYTES, Array.from({ length: n - 1 }, (_, i) => i + 1)),
    EXPECTED,
    "one byte per chunk",
  );
  const random = rng(0x5eed);
  for (let round = 0; round < 500; round++) {
    const cuts: number[] = [];
    for (let at = 0; ; ) {
      at += 1 + Math.floor(random() * 24);
      if (at >= n) break;
      cuts.push(at);
    }
    assert.deepEqual(parseCuts(CORPUS_BYTES, cuts), EXPECTED, `round ${round}, cuts ${cuts.join(",")}`);
  }
});

test("H2: line ends are found at every memory alignment, next to tabs, control bytes and non-ASCII", () => {
  // Long chunks are searched a 32-bit word at a time from their first aligned byte;
  // bytes below 14 other than CR and LF, and bytes above 0x7f, flag a word too.
  const values: string[] = [];
  const ends = ["\n\n", "\r\r", "\r\n\r\n"];
  let text = "";
  for (let len = 0; len < 48; len++) {
    const value = Array.from({ length: len }, (_, i) => "a\t\u0001\u00e9\u000b\u20ac\u000c"[(i * 5 + len) % 7]).join("");
    values.push(value);
    text += `data: ${value}${ends[len % 3]}`;
  }
  const bytes = enc.encode(text);
  const expected = values.map((v) => ev(v));
  for (let offset = 0; offset < 4; offset++) {
    const backing = new Uint8Array(bytes.length + 8);
    backing.set(bytes, offset);
    const shifted = backing.subarray(offset, offset + bytes.length);
    assert.deepEqual(parse([shifted]).events, expected, `offset ${offset}, one chunk`);
    for (const size of [64, 97, 130]) {
      const chunks: Uint8Array[] = [];
      for (let at = 0; at < shifted.length; at += size) chunks.push(shifted.subarray(at, at + size));
      assert.deepEqual(parse(chunks).events, expected, `offset ${offset}, ${size}-byte chunks`);
    }
  }
});
