import { test } from "node:test";
import assert from "node:assert/strict";
import { classifyMessage, decodeJson, encodeMessage } from "../../src/jsonrpc/messages.js";
import { YadaError } from "../../src/errors.js";

function rejects(value: unknown, pattern: RegExp): void {
  assert.throws(
    () => classifyMessage(value),
    (e: unknown) => e instanceof YadaError && e.code === "protocol" && pattern.test(e.message),
  );
}

test("J1: non-objects and wrong jsonrpc versions are refused with a protocol error", () => {
  rejects(42, /not an object/);
  rejects([{ jsonrpc: "2.0", id: 1, result: {} }], /not an object/);
  rejects(null, /not an object/);
  rejects({ jsonrpc: "1.0", id: 1, result: {} }, /jsonrpc/);
  rejects({ id: 1, result: {} }, /jsonrpc/);
});

test("J1: ids must be strings or integers, and never null on a request", () => {
  rejects({ jsonrpc: "2.0", id: null, method: "ping" }, /invalid id/);
  rejects({ jsonrpc: "2.0", id: 1.5, method: "ping" }, /invalid id/);
  rejects({ jsonrpc: "2.0", id: { a: 1 }, method: "ping" }, /invalid id/);
  rejects({ jsonrpc: "2.0", id: true, result: {} }, /invalid id/);
  assert.equal(classifyMessage({ jsonrpc: "2.0", id: "abc", method: "ping" }).kind, "request");
  assert.equal(classifyMessage({ jsonrpc: "2.0", id: 7, method: "ping" }).kind, "request");
  assert.equal(classifyMessage({ jsonrpc: "2.0", method: "notifications/progress" }).kind, "notification");
});

test("J1: a response carries exactly one of result and error, and a well-formed error", () => {
  rejects({ jsonrpc: "2.0", id: 1 }, /exactly one/);
  rejects({ jsonrpc: "2.0", id: 1, result: {}, error: { code: 1, message: "x" } }, /exactly one/);
  rejects({ jsonrpc: "2.0", id: 1, error: { code: "x", message: "x" } }, /malformed/);
  rejects({ jsonrpc: "2.0", id: 1, error: { code: 1.5, message: "x" } }, /malformed/);
  rejects({ jsonrpc: "2.0", id: 1, result: [1] }, /not an object/);
  rejects({ jsonrpc: "2.0", id: 1, method: "x", params: [1, 2] }, /params/);
  assert.equal(classifyMessage({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }).kind, "response");
});

test("J7: __proto__ keys in incoming JSON never reach Object.prototype", () => {
  const text = '{"jsonrpc":"2.0","id":1,"result":{"__proto__":{"polluted":true},"a":{"__proto__":{"isAdmin":true}},"constructor":{"prototype":{"x":1}}}}';
  const value = decodeJson(text) as { result: Record<string, unknown> };
  const copy = Object.assign({}, value.result, value.result.a as object);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(({} as Record<string, unknown>).isAdmin, undefined);
  assert.equal((copy as Record<string, unknown>).isAdmin, undefined);
  assert.equal(Object.getPrototypeOf(value.result), Object.prototype);
  assert.equal(Object.hasOwn(value.result, "__proto__"), false);
  // "constructor" is kept as plain data and cannot reach a real prototype either.
  assert.deepEqual(value.result.constructor, { prototype: { x: 1 } });
  assert.equal(({} as { x?: number }).x, undefined);
});

test("J1: text that is not JSON is a serialization error", () => {
  assert.throws(() => decodeJson("{not json"), (e: unknown) => e instanceof YadaError && e.code === "serialization");
});

test("S1: an encoded message never contains a raw newline", () => {
  const line = encodeMessage({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { text: "a\nb\r\nc\u2028d" } });
  assert.equal(line.includes("\n"), false);
  assert.equal(line.includes("\r"), false);
  assert.throws(() => encodeMessage({ jsonrpc: "2.0", id: 1, method: "x", params: { n: 1n } as unknown as Record<string, unknown> }), (e: unknown) => e instanceof YadaError && e.code === "serialization");
});

test("J7: an escaped __proto__ key (\\u005f_proto__) is dropped too", () => {
  const value = decodeJson('{"result":{"\\u005f_proto__":{"isAdmin":true},"ok":1}}') as { result: Record<string, unknown> };
  assert.equal(Object.hasOwn(value.result, "__proto__"), false);
  const merged = Object.assign({}, value.result);
  assert.equal((merged as Record<string, unknown>).isAdmin, undefined);
  assert.equal(value.result.ok, 1);
});
