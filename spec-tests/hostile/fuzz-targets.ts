// Y6: seeded, dependency-free generators and checks for every parser a peer
// feeds: NDJSON framing, SSE, JSON-RPC decoding (and the session that dispatches
// it), YADA_MCP_SERVERS, provider streams and schema compile + validate (through
// the public schema API only); fuzz-targets-more.ts adds the write-tool envelopes,
// OAuth answers, tasks and the HTTP+SSE endpoint event. Each input is built from (seed, index) alone, so
// any failure is reproduced by its index. Used by spec-tests/hostile/fuzz.test.ts
// (a short budget) and scripts/fuzz.mjs (>= 1 M inputs per target).
import { readFileSync, readdirSync } from "node:fs";
import { YadaError } from "../../src/errors.js";
import { createLineSplitter } from "../../src/transport/ndjson.js";
import { createSseParser, type SseParser } from "../../src/transport/sse.js";
import { classifyMessage, decodeJson } from "../../src/jsonrpc/messages.js";
import { JsonRpcSession } from "../../src/jsonrpc/session.js";
import { mcpServersFromEnv } from "../../src/tools/env.js";
import { compileSchema } from "../../src/schema/index.js";
import { anthropic } from "../../src/agent/anthropic.js";
import { openaiChat } from "../../src/agent/openai-chat.js";
import type { Transport, TransportSink } from "../../src/transport/types.js";
import { fixturePath } from "../helpers/paths.js";

import { check, chunked, concat, enc, int, jsonValue, mutate, pick, randomBytes, rngFor, rpcMessage, Violation, type FuzzReport, type FuzzTarget, type Rng } from "./fuzz-gen.js";
import { MORE_TARGETS } from "./fuzz-targets-more.js";

export { rngFor, type FuzzReport, type FuzzTarget } from "./fuzz-gen.js";

// ── NDJSON framing, against a reference split ────────────────────────────────
function ndjsonInput(r: Rng): Uint8Array {
  const lines: Uint8Array[] = [];
  for (let i = int(r, 8); i >= 0; i--) {
    const k = int(r, 5);
    const text = k === 0 ? JSON.stringify(rpcMessage(r)) : k === 1 ? "banner " + int(r, 99) : k === 2 ? "" : k === 3 ? "x".repeat(int(r, 3000)) : JSON.stringify(jsonValue(r));
    lines.push(enc.encode(text + pick(r, ["\n", "\r\n", "\n\n", ""])));
  }
  const bytes = concat(lines);
  return r() < 0.4 ? mutate(r, bytes) : r() < 0.1 ? randomBytes(r, int(r, 400)) : bytes;
}

const ndjson: FuzzTarget = {
  name: "ndjson",
  run(seed, index) {
    const r = rngFor(seed, index);
    const bytes = ndjsonInput(r);
    const max = pick(r, [16, 100, 1024, 4096, 1 << 20]);
    const got: string[] = [];
    const split = createLineSplitter(max, { line: (t) => got.push("L" + t), overflow: (_h, n) => got.push("O" + n) });
    for (const c of chunked(r, bytes)) split.push(c);
    split.end();
    // Reference: split on LF; a piece over the bound overflows, else one CR is dropped and empty lines skipped.
    const want: string[] = [];
    const dec = new TextDecoder();
    let start = 0;
    for (let i = 0; i <= bytes.length; i++) {
      if (i < bytes.length && bytes[i] !== 0x0a) continue;
      const piece = bytes.subarray(start, i);
      start = i + 1;
      if (piece.length > max) want.push("O" + piece.length);
      else {
        const body = piece.length > 0 && piece[piece.length - 1] === 0x0d ? piece.subarray(0, piece.length - 1) : piece;
        if (body.length > 0) want.push("L" + dec.decode(body));
      }
    }
    check(got.length === want.length && got.every((g, i) => g === want[i]), `lines differ from the reference: ${JSON.stringify(got).slice(0, 200)} vs ${JSON.stringify(want).slice(0, 200)}`);
  },
};

// ── SSE, against a WHATWG reference over the decoded text ────────────────────
function sseInput(r: Rng): Uint8Array {
  let text = r() < 0.1 ? "\ufeff" : "";
  for (let i = int(r, 10); i >= 0; i--) {
    const eol = pick(r, ["\n", "\r", "\r\n"]);
    const k = int(r, 9);
    if (k === 0) text += eol;
    else if (k === 1) text += `:${pick(r, ["", " keep-alive", "x".repeat(int(r, 200))])}${eol}`;
    else if (k === 2) text += `event:${pick(r, ["", " message", " ping", "x"])}${eol}`;
    else if (k === 3) text += `id${pick(r, [":", ": ", ""])}${pick(r, ["1", "", "a\u0000b", "é" + int(r, 9)])}${eol}`;
    else if (k === 4) text += `retry: ${pick(r, ["1000", "x", "", "99999999999999999999", "-1"])}${eol}`;
    else if (k === 5) text += `data${pick(r, [":", ": ", "", ":  "])}${eol}`;
    else if (k === 6) text += `${pick(r, ["foo", "Data", "data ", "ID"])}: v${eol}`;
    else text += `data: ${JSON.stringify(r() < 0.7 ? rpcMessage(r) : jsonValue(r))}${eol}${r() < 0.6 ? eol : ""}`;
  }
  const bytes = enc.encode(text);
  return r() < 0.3 ? mutate(r, bytes) : r() < 0.05 ? randomBytes(r, int(r, 300)) : bytes;
}

interface SeenEvent {
  type: string;
  data: string;
  id: string;
}

/** WHATWG event stream interpretation over the whole decoded text. */
function referenceSse(bytes: Uint8Array): { events: SeenEvent[]; retries: number[] } {
  let text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
  if (text.startsWith("\ufeff")) text = text.slice(1);
  const events: SeenEvent[] = [];
  const retries: number[] = [];
  let data = "";
  let type = "";
  let idBuffer = "";
  let lastId = "";
  // Only complete lines count: the text after the last line end is an incomplete line.
  const lines = text.split(/\r\n|\r|\n/);
  lines.pop();
  for (const line of lines) {
    if (line === "") {
      lastId = idBuffer;
      if (data === "") {
        type = "";
        continue;
      }
      events.push({ type: type === "" ? "message" : type, data: data.endsWith("\n") ? data.slice(0, -1) : data, id: lastId });
      data = "";
      type = "";
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (name === "data") data += value + "\n";
    else if (name === "event") type = value;
    else if (name === "id") {
      if (!value.includes("\u0000")) idBuffer = value;
    } else if (name === "retry" && /^[0-9]+$/.test(value)) {
      let ms = 0;
      for (const c of value) if (ms < Number.MAX_SAFE_INTEGER / 10) ms = ms * 10 + Number(c);
      retries.push(ms);
    }
  }
  return { events, retries };
}

// One parser reused across inputs, reset in between, as the HTTP transport reuses
// its parsers (H2): whatever an input left behind must not change the next one.
const reused: { events: SeenEvent[]; retries: number[]; parser?: SseParser } = { events: [], retries: [] };
function reusedParser(): SseParser {
  const parser = (reused.parser ??= createSseParser({
    onEvent: (e) => reused.events.push({ type: e.type, data: e.data, id: parser.lastEventId }),
    onRetry: (ms) => reused.retries.push(ms),
  }));
  return parser;
}

const sse: FuzzTarget = {
  name: "sse",
  run(seed, index) {
    const r = rngFor(seed, index);
    const bytes = sseInput(r);
    const bounded = r() < 0.2;
    const max = bounded ? 1 + int(r, 200) : undefined;
    let events: SeenEvent[] = [];
    let retries: number[] = [];
    let parser: SseParser;
    if (!bounded && r() < 0.5) {
      parser = reusedParser();
      for (const c of chunked(r, sseInput(r))) parser.feed(c);
      parser.reset();
      events = reused.events = [];
      retries = reused.retries = [];
    } else {
      parser = createSseParser({
        onEvent: (e) => events.push({ type: e.type, data: e.data, id: parser.lastEventId }),
        onRetry: (ms) => retries.push(ms),
        ...(max === undefined ? {} : { maxEventBytes: max }),
      });
    }
    try {
      for (const c of chunked(r, bytes)) parser.feed(c);
      parser.end();
    } catch (e) {
      check(bounded, "a limit error without a small bound");
      throw e;
    }
    if (bounded) {
      // Each wire byte decodes to at most one UTF-16 unit (an invalid one to U+FFFD).
      for (const e of events) check(e.data.length <= (max ?? 0), "an event's data is over the bound");
      return;
    }
    const want = referenceSse(bytes);
    const same = JSON.stringify(events) === JSON.stringify(want.events) && JSON.stringify(retries) === JSON.stringify(want.retries);
    check(same, `events differ from the reference: ${JSON.stringify(events).slice(0, 300)} vs ${JSON.stringify(want.events).slice(0, 300)}`);
  },
};

// ── JSON-RPC decoding, and a session dispatching what it decodes ─────────────
function hasProtoKey(v: unknown, depth = 0): boolean {
  if (depth > 200 || v === null || typeof v !== "object") return false;
  if (Object.hasOwn(v, "__proto__")) return true;
  return Object.values(v).some((x) => hasProtoKey(x, depth + 1));
}

function rpcText(r: Rng): string {
  const k = int(r, 6);
  if (k === 0) return "[".repeat(int(r, 5000)) + "]".repeat(int(r, 5000));
  if (k === 1) return new TextDecoder().decode(mutate(r, enc.encode(JSON.stringify(rpcMessage(r)))));
  if (k === 2) return '{"__proto__":{"polluted":1},"jsonrpc":"2.0","id":1,"result":{"\\u005f_proto__":{"x":1}}}';
  if (k === 3) return new TextDecoder().decode(randomBytes(r, int(r, 100)));
  return JSON.stringify(rpcMessage(r));
}

const jsonrpc: FuzzTarget = {
  name: "jsonrpc",
  run(seed, index) {
    const r = rngFor(seed, index);
    const text = rpcText(r);
    let value: unknown;
    try {
      value = decodeJson(text);
    } catch (e) {
      check(e instanceof YadaError && e.code === "serialization", "decodeJson threw something other than a serialization error");
      return;
    }
    check(!hasProtoKey(value), "a __proto__ key survived decoding");
    check(({} as Record<string, unknown>).polluted === undefined, "Object.prototype was polluted");
    try {
      classifyMessage(value);
    } catch (e) {
      check(e instanceof YadaError && e.code === "protocol", "classifyMessage threw something other than a protocol error");
    }
  },
};

/** A transport that hands the session a scripted list of values and records replies. */
class ScriptedTransport implements Transport {
  readonly description = "fuzz transport";
  sink: TransportSink | undefined;
  sent = 0;
  start(sink: TransportSink): Promise<void> {
    this.sink = sink;
    return Promise.resolve();
  }
  send(): Promise<void> {
    this.sent++;
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const session: FuzzTarget = {
  name: "session",
  async run(seed, index) {
    const r = rngFor(seed, index);
    const transport = new ScriptedTransport();
    const s = new JsonRpcSession(transport, { name: "fuzz" });
    s.onRequest("roots/list", () => ({ roots: [] }));
    await s.start();
    const calls = Array.from({ length: int(r, 3) }, () => s.request("tools/call", {}, { timeoutMs: 50 }).catch((e: unknown) => e));
    let requests = 0;
    for (let i = int(r, 200); i >= 0; i--) {
      const m = rpcMessage(r);
      if ((m as { method?: unknown }).method !== undefined && (m as { id?: unknown }).id !== undefined) requests++;
      transport.sink?.message(m);
    }
    await new Promise((res) => setImmediate(res));
    await s.close();
    for (const c of await Promise.all(calls)) check(c instanceof YadaError || (typeof c === "object" && c !== null), "a call settled with something untyped");
    check(transport.sent <= requests + calls.length * 2, "more replies than requests");
  },
};

// ── YADA_MCP_SERVERS ──────────────────────────────────────────────────────────
const SECRET = "SECRETVAL";
function serversEnv(r: Rng): string {
  const servers = Array.from({ length: int(r, 4) }, () => {
    const s: Record<string, unknown> = { name: pick(r, ["a", "b-1", "", "x y", "é", "a".repeat(70), 5]) };
    if (r() < 0.5) s.url = pick(r, ["https://h.example/mcp", "http://127.0.0.1:1/x", "ftp://x", "https://u:" + SECRET + "@h/", "nope", 7]);
    else s.command = pick(r, ["node", "", 5, "a\u0000b"]);
    if (r() < 0.4) s.headers = pick<unknown>(r, [{ authorization: "Bearer " + SECRET }, { "bad name": SECRET }, { x: "a\r\n" + SECRET }, [SECRET]]);
    if (r() < 0.3) s.env = pick<unknown>(r, [{ KEY: SECRET }, { "": SECRET }, { K: 5 }]);
    if (r() < 0.3) s.args = pick<unknown>(r, [["--k", SECRET], "x", [5]]);
    if (r() < 0.3) s.readTools = pick<unknown>(r, [["a"], [], [""], "x", ["a", "a"]]);
    if (r() < 0.2) s.timeoutMs = pick<unknown>(r, [1, 0, -1, 1.5, 2 ** 40, "5"]);
    if (r() < 0.2) s[pick(r, ["writeTools", "stderr", "resources", "unknownKey"])] = jsonValue(r);
    return s;
  });
  const text = JSON.stringify(r() < 0.9 ? servers : jsonValue(r));
  return r() < 0.3 ? new TextDecoder().decode(mutate(r, enc.encode(text))) : text;
}

const env: FuzzTarget = {
  name: "env",
  run(seed, index) {
    const r = rngFor(seed, index);
    try {
      mcpServersFromEnv({ YADA_MCP_SERVERS: serversEnv(r) });
    } catch (e) {
      if (e instanceof YadaError) check(!e.message.includes(SECRET), `a config error quotes a secret value: ${e.message.slice(0, 200)}`);
      throw e;
    }
  },
};

// ── Schema compile + validate (public API) ────────────────────────────────────
function schemaValue(r: Rng, depth = 0): unknown {
  if (depth > 4 || r() < 0.15) return pick<unknown>(r, [true, false, {}, { type: "string" }, { $ref: "#/$defs/a" }, { $ref: "#" }]);
  const s: Record<string, unknown> = {};
  const n = 1 + int(r, 4);
  for (let i = 0; i < n; i++) {
    const k = int(r, 16);
    if (k === 0) s.type = pick<unknown>(r, ["string", "number", "integer", "object", "array", "boolean", "null", ["string", "null"], "bogus"]);
    else if (k === 1) s.properties = { a: schemaValue(r, depth + 1), b: schemaValue(r, depth + 1) };
    else if (k === 2) s.items = schemaValue(r, depth + 1);
    else if (k === 3) s[pick(r, ["allOf", "anyOf", "oneOf"])] = Array.from({ length: 1 + int(r, 3) }, () => schemaValue(r, depth + 1));
    else if (k === 4) s.not = schemaValue(r, depth + 1);
    else if (k === 5) s.enum = Array.from({ length: int(r, 4) }, () => jsonValue(r, 3));
    else if (k === 6) s.const = jsonValue(r, 3);
    else if (k === 7) s.pattern = pick(r, ["^a+$", "(a|b)*c", "[0-9]{2,4}", "\\d+", "(", "^(?:[a-z0-9-]{1,39})/(?:[\\w.-]{1,100})$", "x{1000}", "\\p{L}+", "a**"]);
    else if (k === 8) s[pick(r, ["minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems", "multipleOf", "minProperties"])] = pick<unknown>(r, [0, 1, 3, -1, 0.5, 1e308, "2"]);
    else if (k === 9) s.required = pick<unknown>(r, [["a"], ["a", "b"], [], "a", [5]]);
    else if (k === 10) s.additionalProperties = schemaValue(r, depth + 1);
    else if (k === 11) s.$defs = { a: schemaValue(r, depth + 1) };
    else if (k === 12) s.format = pick(r, ["date-time", "email", "uri", "uuid", "date", "ipv4", "unknown"]);
    else if (k === 13) s.patternProperties = { "^x": schemaValue(r, depth + 1) };
    else if (k === 14) s.if = schemaValue(r, depth + 1);
    else s[pick(r, ["then", "else", "contains", "propertyNames", "dependentSchemas", "unevaluatedProperties", "prefixItems"])] = schemaValue(r, depth + 1);
  }
  if (r() < 0.1) s.$schema = pick(r, ["http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema", "x"]);
  return s;
}

const schema: FuzzTarget = {
  name: "schema",
  run(seed, index) {
    const r = rngFor(seed, index);
    let compiled;
    try {
      compiled = compileSchema(schemaValue(r));
    } catch (e) {
      if (e instanceof YadaError) return;
      throw e;
    }
    for (let i = 0; i < 3; i++) {
      const instance = r() < 0.3 ? pick<unknown>(r, ["aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", "octo/repo", "2024-01-01T00:00:00Z", 12, { a: "x", b: [1] }]) : jsonValue(r);
      const result = compiled.validate(instance, { allIssues: r() < 0.3 });
      check(typeof result.valid === "boolean", "validate returned no verdict");
    }
  },
};

// ── Provider streams: mutated recordings through a fetch that never leaves the process ──
function recorded(dir: string): string[][] {
  // A missing folder throws: the target never fuzzes nothing in silence.
  const base = fixturePath("provider-streams", dir);
  return readdirSync(base)
    .filter((f) => f.endsWith(".chunks.txt"))
    .map((f) => readFileSync(`${base}/${f}`, "utf8").split("\n").filter((l) => l.trim() !== ""));
}
let streams: { anthropic: string[][]; openai: string[][] } | undefined;

function providerBody(r: Rng, lines: string[], openai: boolean): Uint8Array {
  const out: string[] = [];
  for (const line of lines) {
    const k = int(r, 12);
    if (k === 0) continue; // dropped
    let payload = line;
    if (k === 1) payload = JSON.stringify(jsonValue(r));
    else if (k === 2) {
      try {
        const v = JSON.parse(line) as Record<string, unknown>;
        const keys = Object.keys(v);
        if (keys.length > 0) v[pick(r, keys)] = jsonValue(r);
        payload = JSON.stringify(v);
      } catch {
        // kept as is
      }
    } else if (k === 3) payload = line.slice(0, int(r, line.length));
    out.push(`${r() < 0.2 ? "event: x\n" : ""}data: ${payload}\n\n`);
    if (k === 4) out.push(`data: ${line}\n\n`); // duplicated
  }
  if (openai && r() < 0.7) out.push("data: [DONE]\n\n");
  const bytes = enc.encode(out.join(""));
  return r() < 0.2 ? mutate(r, bytes) : bytes;
}

const provider: FuzzTarget = {
  name: "provider",
  async run(seed, index) {
    streams ??= { anthropic: recorded("anthropic-messages"), openai: recorded("openai-chat") };
    const r = rngFor(seed, index);
    const openai = r() < 0.5;
    const pool = openai ? streams.openai : streams.anthropic;
    check(pool.length > 0, "no recorded provider streams found");
    const body = providerBody(r, pick(r, pool), openai);
    const parts = chunked(r, body);
    const fetchFn = (async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(c) {
            const p = parts.shift();
            if (p === undefined) c.close();
            else c.enqueue(p);
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      )) as unknown as typeof fetch;
    const p = openai ? openaiChat({ model: "m", apiKey: "k", fetch: fetchFn, retry: { maxAttempts: 1 } }) : anthropic({ model: "m", apiKey: "k", fetch: fetchFn, retry: { maxAttempts: 1 } });
    const message = await p.generate({ messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], tools: [{ name: "f", description: "d", inputSchema: { type: "object" } }] });
    check(message.role === "assistant" && Array.isArray(message.content), "generate resolved with something that is not an assistant message");
  },
};

/** Every target, by name. */
export const TARGETS: Record<string, FuzzTarget> = { ndjson, sse, jsonrpc, session, env, schema, provider, ...MORE_TARGETS };

/**
 * Runs inputs `from` .. `to - 1` of `target` with `seed`. A typed YadaError is an
 * accepted outcome; anything else thrown is untyped; a Violation is a crash.
 */
export async function runTarget(target: FuzzTarget, seed: number, from: number, to: number, slowMs: number, report?: FuzzReport): Promise<FuzzReport> {
  const out: FuzzReport = report ?? { target: target.name, inputs: 0, crashes: [], untyped: [], slow: [], maxMs: 0, maxIndex: -1 };
  for (let i = from; i < to; i++) {
    const t0 = performance.now();
    try {
      const p = target.run(seed, i);
      if (p) await p;
    } catch (e) {
      if (e instanceof Violation) out.crashes.push({ index: i, what: e.message });
      else if (!(e instanceof YadaError)) out.untyped.push({ index: i, what: e instanceof Error ? `${e.name}: ${e.message}`.slice(0, 300) : String(e).slice(0, 300) });
    }
    const ms = performance.now() - t0;
    if (ms > out.maxMs) {
      out.maxMs = ms;
      out.maxIndex = i;
    }
    if (ms > slowMs && out.slow.length < 1000) out.slow.push({ index: i, ms: Math.round(ms) });
    out.inputs++;
  }
  return out;
}

/**
 * Times inputs again, alone: on a loaded machine a pause of the process makes an
 * input look slow once. Returns those still over `slowMs` (best of three runs).
 */
export async function confirmSlow(target: FuzzTarget, seed: number, slow: Array<{ index: number; ms: number }>, slowMs: number): Promise<Array<{ index: number; ms: number }>> {
  const still: Array<{ index: number; ms: number }> = [];
  for (const { index } of slow.slice(0, 50)) {
    let best = Infinity;
    for (let k = 0; k < 3 && best > slowMs; k++) {
      const t0 = performance.now();
      try {
        await target.run(seed, index);
      } catch {
        // outcome already recorded
      }
      best = Math.min(best, performance.now() - t0);
    }
    if (best > slowMs) still.push({ index, ms: Math.round(best) });
  }
  return still;
}
