// H2: the SSE parser on network-sized chunks, where it reads a chunk as 32-bit words
// and keeps a line, an event's data and its id across chunk ends: every event, type
// and last event id must be what the WHATWG rules give for the decoded text, however
// the bytes are cut and wherever the chunks lie in memory.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createSseParser } from "../../src/transport/sse.js";

const enc = new TextEncoder();

interface Seen {
  type: string;
  data: string;
  id: string;
}

/** WHATWG event stream interpretation over the whole decoded text (complete lines only). */
function reference(bytes: Uint8Array): Seen[] {
  return interpret(bytes).events;
}

function interpret(bytes: Uint8Array): { events: Seen[]; lastId: string } {
  let text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
  if (text.startsWith("\ufeff")) text = text.slice(1);
  const lines = text.split(/\r\n|\r|\n/);
  lines.pop();
  const out: Seen[] = [];
  let data = "";
  let type = "";
  let idBuffer = "";
  let lastId = "";
  for (const line of lines) {
    if (line === "") {
      lastId = idBuffer;
      if (data !== "") out.push({ type: type === "" ? "message" : type, data: data.slice(0, -1), id: idBuffer });
      data = "";
      type = "";
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (name === "data") data += `${value}\n`;
    else if (name === "event") type = value;
    else if (name === "id" && !value.includes("\u0000")) idBuffer = value;
  }
  return { events: out, lastId };
}

function parse(chunks: Uint8Array[]): Seen[] {
  const out: Seen[] = [];
  const parser = createSseParser({ onEvent: (e) => out.push({ type: e.type, data: e.data, id: parser.lastEventId }) });
  for (const c of chunks) parser.feed(c);
  parser.end();
  return out;
}

function cut(bytes: Uint8Array, size: number, offset = 0): Uint8Array[] {
  // Each chunk is copied into its own buffer at `offset`, so word views start at every alignment.
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) {
    const part = bytes.subarray(at, at + size);
    const backing = new Uint8Array(part.length + offset);
    backing.set(part, offset);
    chunks.push(backing.subarray(offset));
  }
  return chunks;
}

// Several thousand short events: ASCII and non-ASCII values next to each other, one
// data line or several, empty data, ids that change, repeat, hold NUL (ignored) or
// non-ASCII, types that change, comments and unknown fields, all three line ends.
function stream(): Uint8Array {
  const eols = ["\n", "\r", "\r\n"];
  let text = "";
  for (let n = 0; n < 4000; n++) {
    const eol = eols[n % 7 === 0 ? n % 3 : 0] ?? "\n";
    const ascii = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":${n}}}`;
    const wide = `{"msg":"step ${n} \u00e9t\u00e9 \u{1F680} \u20ac"}`;
    if (n % 11 === 0) text += `: keep-alive ${n}${eol}`;
    if (n % 5 !== 4) text += `event: ${n % 13 === 0 ? "ping" : "message"}${eol}`;
    if (n % 3 === 0) text += `id: evt-${n}${eol}`;
    else if (n % 17 === 0) text += `id: bad\u0000${n}${eol}`;
    else if (n % 19 === 0) text += `id: \u00e9-${n}${eol}`;
    if (n % 23 === 0) text += `foo: bar${eol}`;
    if (n % 29 === 0) text += `data:${eol}${eol}`; // an empty event: no dispatch
    else if (n % 7 === 3) text += `data: ${ascii}${eol}data: ${wide}${eol}${eol}`;
    else text += `data: ${n % 4 === 1 ? wide : ascii}${eol}${eol}`;
  }
  return enc.encode(text);
}

const BYTES = stream();
const EXPECTED = reference(BYTES);

test("H2: thousands of small events in one chunk match the WHATWG reading of the text", () => {
  assert.ok(EXPECTED.length > 3000);
  assert.deepEqual(parse([BYTES]), EXPECTED);
});

test("H2: the same events cut into 16 KiB, 4 KiB and odd-sized chunks at every alignment", () => {
  for (const size of [16_384, 4_096, 1_000, 333, 97, 64]) {
    for (let offset = 0; offset < 4; offset++) {
      assert.deepEqual(parse(cut(BYTES, size, offset)), EXPECTED, `${size}-byte chunks at offset ${offset}`);
    }
  }
});

test("H2: the last event id is right after the caller reuses the chunk it came in", () => {
  // A reader may hand out one buffer again and again: the parser must not keep views into it.
  const shared = new Uint8Array(16_384);
  const parser = createSseParser({ onEvent: () => {} });
  for (let at = 0; at < BYTES.length; at += shared.length) {
    const part = BYTES.subarray(at, at + shared.length);
    shared.set(part);
    parser.feed(shared.subarray(0, part.length));
    shared.fill(0x21); // "!"
    assert.equal(parser.lastEventId, interpret(BYTES.subarray(0, at + part.length)).lastId, `after byte ${at + part.length}`);
  }
});

// Invalid UTF-8 in values, a BOM followed at once by a data line, ASCII-only stretches
// and multi-byte characters cut by chunk ends must read as the WHATWG reading of the
// decoded bytes, in chunks of every size from one byte short of 256 to the whole stream.
function hostileStream(): Uint8Array {
  // The BOM, then at once a data line (whose offsets the BOM would shift).
  const parts: Uint8Array[] = [Uint8Array.of(0xef, 0xbb, 0xbf), enc.encode("data: first \u00e9\n\n")];
  const eols = ["\n", "\r\n", "\r"];
  for (let n = 0; n < 1500; n++) {
    const eol = eols[n % 5 === 0 ? n % 3 : 0] ?? "\n";
    parts.push(enc.encode(`event: message${eol}id: ${n}${eol}data: {"n":${n},"s":"`));
    // Lone continuation bytes, a truncated 3-byte sequence, an encoded surrogate, an overlong "/", or valid text.
    const bad = [[0x80], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xff], enc.encode("\u00e9\u{1F680}")][n % 6] as ArrayLike<number>;
    if (n % 4 !== 0) parts.push(Uint8Array.from(bad));
    parts.push(enc.encode(`"}${eol}${n % 9 === 0 ? `data: second line${eol}` : ""}${eol}`));
    // Long ASCII-only stretches, so that some chunks hold no byte above 0x7f.
    if (n % 50 === 0) parts.push(enc.encode(`data: ${"a".repeat(2000)}${eol}${eol}`));
  }
  const total = parts.reduce((s, p) => s + p.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

test("H2: invalid UTF-8, a BOM and split characters read as the WHATWG reading of the bytes, in chunks of any size", () => {
  const bytes = hostileStream();
  const expected = reference(bytes);
  assert.ok(expected.length > 1500);
  assert.ok(expected.some((e) => e.data.includes("\ufffd")), "some values hold U+FFFD");
  for (const size of [bytes.length, 16_384, 4_096, 1_024, 300, 256, 255]) {
    for (let offset = 0; offset < 4; offset += 3) {
      assert.deepEqual(parse(cut(bytes, size, offset)), expected, `${size}-byte chunks at offset ${offset}`);
    }
  }
});
