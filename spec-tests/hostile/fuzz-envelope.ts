// Y6 (W3): fuzzing the write-tool result envelopes. A server's answer to the
// preparation, execution and receipt calls is built as a tools/call result whose
// structuredContent is a valid envelope, a near-valid one (extra, missing or
// mistyped members, text-only, isError, strings at and over their bounds, deep
// nesting) or raw JSON and bytes. Each answer goes through the client's own parse
// (decodeJson, parseCallToolResult, the envelope parsers) and, for a share of the
// inputs, through a real write tool of a connectMcp connection whose in-process
// server answers with it. An independent reference predicate, written here from the
// contract, decides what must be accepted: nothing else may ever count as success.
import { ContractError, ToolFailedError, YadaError } from "../../src/errors.js";
import { decodeJson, type JsonRpcMessage } from "../../src/jsonrpc/messages.js";
import {
  MAX_CONTRACT_MESSAGE_CHARS as MAX_MESSAGE,
  MAX_CONTRACT_OPERATION_ID_CHARS as MAX_OP,
  MAX_CONTRACT_PREVIEW_CHARS as MAX_PREVIEW,
  MAX_CONTRACT_STATE_VERSION_CHARS as MAX_SV,
} from "../../src/limits.js";
import { parseCallToolResult } from "../../src/mcp/types.js";
import { connectMcp, type McpConnection } from "../../src/tools/connect.js";
import { mcpWrites } from "../../src/tools/action-tools.js";
import { parsePrepareEnvelope, parseReceiptEnvelope } from "../../src/tools/envelope.js";
import type { Tool, WriteTool } from "../../src/tools/types.js";
import type { Transport, TransportSink } from "../../src/transport/types.js";
import { check, enc, int, jsonValue, mutate, pick, randomBytes, rngFor, type FuzzTarget, type Rng } from "./fuzz-gen.js";

/** Appears in every string value generated, so a message that quotes a value is seen. */
const MARK = "Zq9";

/** A string of about `n` UTF-16 units carrying MARK; sometimes astral characters (2 units each). */
function str(r: Rng, n: number): string {
  if (n < MARK.length) return MARK.slice(0, n);
  const fill = pick(r, ["a", "é", "\u{1F680}", "\u0000", " "]);
  let s = MARK + fill.repeat(Math.ceil((n - MARK.length) / fill.length));
  if (s.length > n) s = s.slice(0, n); // may cut a surrogate pair: a lone surrogate is a valid JS string
  return s;
}

/** A length near the interesting edges of `max`. */
const near = (r: Rng, max: number): number => pick(r, [0, 1, 3, 20, max - 1, max, max, max + 1, max * 4]);

/** A value nested `depth` levels below its top. */
function nested(r: Rng, depth: number): unknown {
  let v: unknown = str(r, 3);
  for (let i = 0; i < depth; i++) v = r() < 0.5 ? [v] : { a: v };
  return v;
}

const STATUSES = ["succeeded", "failed", "unknown"];

/** A structuredContent: a valid envelope of either kind, then near-valid changes. */
function structured(r: Rng, opId: string): unknown {
  const k = int(r, 20);
  if (k === 0) return undefined; // text-only
  if (k === 1) return jsonValue(r);
  if (k === 2) return nested(r, pick(r, [10, 63, 64, 65, 200, 3000]));
  const o: Record<string, unknown> =
    r() < 0.5
      ? { stateVersion: str(r, r() < 0.7 ? 1 + int(r, 40) : near(r, MAX_SV)), preview: str(r, r() < 0.7 ? int(r, 200) : near(r, MAX_PREVIEW)) }
      : {
          operationId: r() < 0.8 ? opId : pick(r, [opId + "x", opId.slice(1), "", opId.toUpperCase(), 7]),
          status: r() < 0.85 ? pick(r, STATUSES) : pick<unknown>(r, ["Succeeded", "success", "", null, 1, ["succeeded"], "succeeded "]),
          message: str(r, r() < 0.7 ? int(r, 100) : near(r, MAX_MESSAGE)),
        };
  for (let i = r() < 0.6 ? 0 : 1 + int(r, 3); i > 0; i--) {
    const keys = Object.keys(o);
    const op = int(r, 5);
    if (op === 0) o[pick(r, ["extra", "__proto__", "constructor", "toString", "isError", "stateversion", "status", "preview"])] = jsonValue(r);
    else if (op === 1 && keys.length > 0) delete o[pick(r, keys)];
    else if (op === 2 && keys.length > 0) o[pick(r, keys)] = pick<unknown>(r, [null, 5, true, [], {}, "", nested(r, 70), str(r, 2)]);
    else if (op === 3) Object.assign(o, { stateVersion: str(r, 5), preview: "" }); // both kinds at once
    else o[pick(r, ["a", "id"])] = undefined; // dropped by JSON.stringify
  }
  return r() < 0.05 ? [o] : o;
}

/** A tools/call result as a server might send it, as JSON text (sometimes broken). */
function answerText(r: Rng, opId: string): string {
  const a: Record<string, unknown> = {};
  const c = int(r, 10);
  a.content = c < 6 ? [{ type: "text", text: str(r, int(r, 50)) }] : c < 8 ? [] : c === 8 ? jsonValue(r) : [{ type: "image", data: "eA==", mimeType: "image/png" }];
  if (r() < 0.05) delete a.content;
  if (r() < 0.4) a.isError = r() < 0.85 ? r() < 0.5 : pick<unknown>(r, ["true", 1, null, 0]);
  const sc = structured(r, opId);
  if (sc !== undefined) a.structuredContent = sc;
  if (r() < 0.1) a._meta = r() < 0.7 ? { "io.yada/action": jsonValue(r) } : jsonValue(r);
  const k = int(r, 40);
  if (k === 0) return new TextDecoder().decode(randomBytes(r, int(r, 80)));
  if (k === 1) return JSON.stringify(jsonValue(r));
  const text = JSON.stringify(a);
  return k < 8 ? new TextDecoder().decode(mutate(r, enc.encode(text))) : text;
}

// ── The reference: the contract of src/tools/envelope.ts, written anew ────────
type Json = Record<string, unknown>;
const plainObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const sameKeys = (o: Json, want: string[]): boolean => JSON.stringify(Object.keys(o).sort()) === JSON.stringify([...want].sort());
const bounded = (v: unknown, min: number, max: number): v is string => typeof v === "string" && v.length >= min && v.length <= max;

/** Must a preparation answer `raw` be accepted? Then what it must yield. */
export function referencePrepare(raw: Json): { stateVersion: string; preview: string } | undefined {
  const sc = raw.structuredContent;
  if (raw.isError === true || !plainObject(sc) || !sameKeys(sc, ["preview", "stateVersion"])) return undefined;
  if (!bounded(sc.stateVersion, 1, MAX_SV) || !bounded(sc.preview, 0, MAX_PREVIEW)) return undefined;
  return { stateVersion: sc.stateVersion, preview: sc.preview };
}

/** Must an execution or receipt answer `raw` for `opId` be accepted? Then what it must yield. */
export function referenceReceipt(raw: Json, opId: string): { operationId: string; status: string; message: string } | undefined {
  const sc = raw.structuredContent;
  if (!plainObject(sc) || !sameKeys(sc, ["message", "operationId", "status"])) return undefined;
  if (sc.operationId !== opId || typeof sc.status !== "string" || !STATUSES.includes(sc.status) || !bounded(sc.message, 0, MAX_MESSAGE)) return undefined;
  if ((raw.isError === true) !== (sc.status === "failed")) return undefined;
  return { operationId: opId, status: sc.status, message: sc.message };
}

const noValue = (e: unknown): void => check(!(e instanceof Error) || !e.message.includes(MARK), `an error message quotes a value: ${String(e).slice(0, 200)}`);

/** The parse path alone: decode, the tools/call result, both envelopes. */
function parsePath(text: string, opId: string): void {
  let raw: unknown;
  try {
    raw = decodeJson(text);
  } catch (e) {
    check(e instanceof YadaError, "decodeJson threw an untyped error");
    return;
  }
  if (!plainObject(raw)) return; // the session refuses a non-object result before any of this
  let result;
  try {
    result = parseCallToolResult(raw, "fuzz: tools/call");
  } catch (e) {
    noValue(e);
    throw e;
  }
  const wantPrepare = referencePrepare(raw);
  try {
    const got = parsePrepareEnvelope(result, "fuzz: prepare");
    check(wantPrepare !== undefined, `a preparation envelope the contract refuses was accepted: ${text.slice(0, 200)}`);
    check(JSON.stringify(got) === JSON.stringify(wantPrepare), "the preparation envelope differs from what was sent");
  } catch (e) {
    if (!(e instanceof ContractError)) throw e;
    check(wantPrepare === undefined, `a valid preparation envelope was refused: ${e.message}`);
    noValue(e);
  }
  const wantReceipt = referenceReceipt(raw, opId);
  const got = parseReceiptEnvelope(result, opId);
  if (typeof got === "string") {
    check(wantReceipt === undefined, `a valid receipt was refused: ${got}`);
    check(!got.includes(MARK) && got.length < 200, "a refusal reason quotes a value or is unbounded");
  } else {
    check(wantReceipt !== undefined, `a receipt the contract refuses was accepted: ${text.slice(0, 200)}`);
    check(JSON.stringify(got) === JSON.stringify(wantReceipt), "the receipt differs from what was sent");
  }
}

// ── The whole path: a write tool of a real connection to an in-process server ──
const TOOLS = [
  { name: "rename", inputSchema: { type: "object", properties: { id: { type: "string" } } }, annotations: { readOnlyHint: false } },
  { name: "prepare_rename", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
  { name: "rename_receipt", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
];

/** An MCP server in the same process: a handshake, the three tools, and `answer` for every tools/call. */
class EnvelopeServer implements Transport {
  readonly description = "fuzz envelope server";
  #sink: TransportSink | undefined;
  /** The next tools/call answer, as JSON text. */
  answer = "{}";
  /** tools/call requests received. */
  calls = 0;
  start(sink: TransportSink): Promise<void> {
    this.#sink = sink;
    return Promise.resolve();
  }
  send(message: JsonRpcMessage): Promise<void> {
    const m = message as { id?: number | string; method?: string };
    if (m.id === undefined || this.#sink === undefined) return Promise.resolve();
    const sink = this.#sink;
    if (m.method === "tools/call") this.calls++;
    const head = { jsonrpc: "2.0", id: m.id };
    let value: unknown;
    if (m.method === "initialize") value = { ...head, result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "f", version: "1" } } };
    else if (m.method === "tools/list") value = { ...head, result: { tools: TOOLS } };
    else if (m.method !== "tools/call") value = { ...head, error: { code: -32601, message: "no" } };
    else {
      // Decoded as a transport decodes a line; text that is not JSON is answered as broken.
      try {
        value = { ...head, result: decodeJson(this.answer) };
      } catch {
        value = { ...head, error: { code: -32700, message: "broken" } };
      }
    }
    queueMicrotask(() => sink.message(value));
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const identity = { actorId: "alice", tenantId: "t1" };
let live: { server: EnvelopeServer; connection: McpConnection<Tool>; tool: WriteTool } | undefined;
let sends = 0;

/** The shared connection; a fresh one when the last input left it unusable (its answers end no connection by design). */
async function connection(): Promise<NonNullable<typeof live>> {
  if (live !== undefined && live.connection.isConnected()) return live;
  const server = new EnvelopeServer();
  const connection = await connectMcp(
    { name: "fz", url: "http://127.0.0.1:9/mcp", writeTools: { rename: { version: "r1", prepareTool: "prepare_rename", receiptTool: "rename_receipt" } } },
    { identity, authorize: () => true },
    { transportFactory: () => server, timeoutMs: 5_000, writes: mcpWrites },
  );
  const tool = connection.tools.find((t): t is WriteTool => t.effect === "write");
  if (tool === undefined) throw new Error("the fuzz connection has no write tool");
  live = { server, connection, tool };
  return live;
}

async function wholePath(r: Rng, opId: string): Promise<void> {
  const { server, tool } = await connection();
  const text = answerText(r, opId);
  let raw: unknown;
  try {
    raw = decodeJson(text);
  } catch {
    raw = undefined;
  }
  // J1 drops a response whose result is not an object (the call would wait for its
  // timeout): that answer is judged by the parse path alone.
  if (!plainObject(raw)) return parsePath(text, opId);
  // What the client may accept at all: a result that parses as a tools/call result.
  let obj: Json | undefined = raw;
  try {
    if (obj !== undefined) parseCallToolResult(obj, "fuzz");
  } catch {
    obj = undefined;
  }
  server.answer = text;
  try {
    const prepared = await tool.prepare({ id: "A" }, { identity });
    const want = obj && referencePrepare(obj);
    check(want !== undefined, `prepare accepted what the contract refuses: ${text.slice(0, 200)}`);
    check(prepared.stateVersion === want?.stateVersion && prepared.preview === want?.preview, "prepare returned other values than the server sent");
  } catch (e) {
    if (e instanceof ContractError) check(obj === undefined || referencePrepare(obj) === undefined, `prepare refused a valid envelope: ${e.message}`);
    else if (obj !== undefined && referencePrepare(obj) !== undefined) check(false, `prepare refused a valid envelope: ${String(e).slice(0, 200)}`);
    else if (e instanceof ToolFailedError) check(obj?.isError === true, "a preparation failed without isError");
    else check(e instanceof YadaError, `prepare threw an untyped error: ${String(e).slice(0, 200)}`);
    if (e instanceof ContractError) noValue(e);
  }
  // W3: an approved action whose operation id or state version breaks its bounds is refused before anything is sent.
  const bad = r() < 0.1 ? pick(r, ["op", "sv"]) : undefined;
  const action = {
    tool: tool.name,
    version: tool.version,
    arguments: { id: "A" },
    stateVersion: bad === "sv" ? pick(r, ["", "s".repeat(MAX_SV + 1)]) : "sv",
    preview: "",
    operationId: bad === "op" ? pick(r, ["", "o".repeat(MAX_OP + 1)]) : opId,
  };
  if (bad !== undefined) {
    const before = server.calls;
    for (const phase of ["execute", "reconcile"] as const) {
      const refused = await tool[phase](action, { identity }).then(
        () => false,
        (e: unknown) => e instanceof YadaError && e.code === "validation",
      );
      // reconcile needs no state version: with a good operation id it may ask for the receipt.
      if (phase === "execute" || bad === "op") check(refused, `${phase} took an approved action with an out-of-bounds ${bad === "op" ? "operation id" : "state version"}`);
    }
    check(bad === "sv" ? server.calls - before <= 1 : server.calls === before, "an out-of-bounds action reached the server");
    return;
  }
  for (const phase of ["execute", "reconcile"] as const) {
    let outcome;
    try {
      outcome = await tool[phase](action, { identity });
    } catch (e) {
      // Once sent, every failure is an outcome (W5); only a repeat execute is refused.
      check(phase === "execute" && e instanceof YadaError && e.code === "validation", `${phase} threw after the send: ${String(e).slice(0, 200)}`);
      continue;
    }
    const want = obj && referenceReceipt(obj, opId);
    if (outcome.status === "succeeded") check(want?.status === "succeeded", `${phase} reported success for what the contract refuses: ${text.slice(0, 200)}`);
    else if (outcome.status === "failed") check(want?.status === "failed", `${phase} reported failed without a failed receipt`);
    else check(want === undefined || want.status === "unknown", `${phase} reported unknown for a definitive receipt`);
  }
}

export const envelope: FuzzTarget = {
  name: "envelope",
  async run(seed, index) {
    const r = rngFor(seed, index);
    // A bounded id (an execute refuses another before sending), unique per run: a repeated input sends anew.
    const opId = `op${index}-${sends++}-`.padEnd(r() < 0.1 ? MAX_OP : 8 + int(r, 20), "x").slice(0, MAX_OP);
    if (r() < 0.25) return wholePath(r, opId);
    parsePath(answerText(r, opId), opId);
  },
};
