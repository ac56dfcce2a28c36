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
