import { test } from "node:test";
import assert from "node:assert/strict";
import { createLineSplitter, peekMessageId } from "../../src/transport/ndjson.js";

function collect(max: number, chunks: Uint8Array[]): { lines: string[]; overflows: Array<[string, number]> } {
  const lines: string[] = [];
  const overflows: Array<[string, number]> = [];
  const s = createLineSplitter(max, {
    line: (t) => lines.push(t),
    overflow: (head, n) => overflows.push([new TextDecoder().decode(head), n]),
  });
  for (const c of chunks) s.push(c);
  s.end();
  return { lines, overflows };
}

const enc = new TextEncoder();

test("S1: lines split at every byte position give the same lines, multi-byte characters intact", () => {
  const text = '{"a":"héllo 🌍 世界"}\r\n\n{"b":2}\n{"c":"last"}';
  const bytes = enc.encode(text);
  const expected = ['{"a":"héllo 🌍 世界"}', '{"b":2}', '{"c":"last"}'];
  for (let i = 0; i <= bytes.length; i++) {
    for (let j = i; j <= bytes.length; j += 3) {
      const { lines } = collect(1 << 20, [bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)]);
      assert.deepEqual(lines, expected, `cut at ${i}/${j}`);
    }
  }
});

test("S1: a chunk of whole lines gives the lines its bytes give one at a time: CRLF, BOMs, empty lines, invalid UTF-8", () => {
  // The same bytes pushed whole (the splitter's one-decode path) and one byte per push
  // (the per-line path) must give the same lines, the same U+FFFD and the same BOM rule.
  const samples = [
    enc.encode('{"a":1}\n'),
    enc.encode('{"a":1}\r\n\r\n\n{"b":"é🌍"}\n'),
    enc.encode("\uFEFF\uFEFF{\"first\":1}\n"),
    enc.encode("\uFEFF{\"bom\":1}\n\uFEFF\uFEFF{\"two\":2}\n\uFEFF\n\uFEFF\r\n\r\n"),
    new Uint8Array([0x7b, 0xe2, 0x82, 0x0a, 0xf0, 0x9f, 0x0d, 0x0a, 0xff, 0xfe, 0x41, 0x0a, 0xc3, 0x0a]),
    new Uint8Array([0xef, 0xbb, 0x0a, 0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, 0x0a]),
  ];
  for (const bytes of samples) {
    const whole = collect(1 << 20, [bytes]).lines;
    const bytewise = collect(1 << 20, Array.from(bytes, (b) => new Uint8Array([b]))).lines;
    assert.deepEqual(whole, bytewise, JSON.stringify(Array.from(bytes)));
    assert.ok(whole.length > 0);
  }
  // A chunk longer than the bound takes the per-line path: its over-long line is still refused.
  const { lines, overflows } = collect(20, [enc.encode('{"a":1}\n' + "y".repeat(30) + '\n{"b":2}\n')]);
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}']);
  assert.deepEqual(overflows.map((o) => o[1]), [30]);
});

test("S8: a line over the bound is dropped and reported with its head, the next line still arrives", () => {
  const long = '{"jsonrpc":"2.0","id":7,"result":{"text":"' + "x".repeat(5000) + '"}}';
  const chunks = [enc.encode('{"ok":1}\n'), enc.encode(long.slice(0, 100)), enc.encode(long.slice(100) + '\n{"ok":2}\n')];
  const { lines, overflows } = collect(1000, chunks);
  assert.deepEqual(lines, ['{"ok":1}', '{"ok":2}']);
  assert.equal(overflows.length, 1);
  assert.equal(overflows[0]?.[1], long.length);
  assert.ok(overflows[0]?.[0].startsWith('{"jsonrpc":"2.0","id":7'));
  assert.equal(peekMessageId(enc.encode(overflows[0]?.[0] ?? "")), 7);
});

test("S8: the id of an over-long line is read only from top-level keys before nested values", () => {
  assert.equal(peekMessageId(enc.encode('{"jsonrpc":"2.0","id":"abc","result":{"x":')), "abc");
  assert.equal(peekMessageId(enc.encode('{"result":{"id":5,"x":1},"id":9')), undefined);
  assert.equal(peekMessageId(enc.encode('not json')), undefined);
});

test("S8: framing is linear: an 8 MiB line in 4 KiB chunks costs about one pass", () => {
  const payload = '{"jsonrpc":"2.0","id":1,"result":{"t":"' + "y".repeat(8 * 1024 * 1024) + '"}}\n';
  const bytes = enc.encode(payload);
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += 4096) chunks.push(bytes.subarray(i, i + 4096));
  const t0 = performance.now();
  const { lines } = collect(16 * 1024 * 1024, chunks);
  const elapsed = performance.now() - t0;
  assert.equal(lines.length, 1);
  assert.equal(lines[0]?.length, payload.length - 1);
  // A quadratic reader takes seconds here; one pass takes tens of milliseconds.
  assert.ok(elapsed < 1500, `took ${elapsed} ms`);
});
