// What the modern-era interop tests share: the SDK v2 dual-era server over stdio
// (through the transcript recorder, so every message on the wire can be checked)
// and over HTTP (in-process, on 127.0.0.1), and readers for what went over the wire.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import assert from "node:assert/strict";
import { McpClient, type StdioConnectOptions } from "../../src/node/client.js";
import { McpClient as WebMcpClient, type ClientOptions } from "../../src/mcp/client.js";
import { HttpTransport } from "../../src/transport/http.js";
import { fixtureServer, repoPath } from "../helpers/paths.js";
import { checkClientMessage } from "../helpers/schema.js";

import type { DualHttp } from "../../fixtures/servers/sdk-v2/dual.mjs";
type DualModule = typeof import("../../fixtures/servers/sdk-v2/dual.mjs");
export type { DualHttp };
const { start } = (await import(pathToFileURL(fixtureServer("sdk-v2/dual.mjs")).href)) as DualModule;

/** The revision of the modern era. */
export const MODERN = "2026-07-28";
/** The dual-era server script. */
export const dualScript = fixtureServer("sdk-v2/dual.mjs");
/** The legacy catalog fixture over stdio. */
export const catalogScript = fixtureServer("catalog/stdio.mjs");
const recorder = repoPath("scripts", "record.mjs");

/** A JSON-RPC message as seen on the wire. */
export type Message = Record<string, unknown> & { id?: string | number; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown> };
/** One line of a transcript. */
export interface WireLine {
  dir: "c2s" | "s2c";
  msg: Message;
}

/** A fresh file path for a transcript (its path is part of the server's identity, so a new one means a server the client never met). */
export function transcriptPath(): string {
  return join(mkdtempSync(join(tmpdir(), "yada-modern-")), "wire.jsonl");
}

/**
 * The probe's bound in these tests. Over stdio it includes the server's start-up,
 * which takes seconds on a loaded machine; tests of the bound itself set their own.
 */
export const PATIENT_DISCOVER_MS = 20_000;

/**
 * Connects over stdio to `command` behind the transcript recorder, which writes
 * every message to `out` when the session ends (read it with {@link readWire}).
 */
export async function connectRecorded(command: readonly string[], options: StdioConnectOptions = {}, out = transcriptPath()): Promise<{ client: McpClient; out: string }> {
  const client = await McpClient.connectStdio("node", [recorder, "-o", out, "--", ...command], undefined, { discoverTimeoutMs: PATIENT_DISCOVER_MS, ...options });
  return { client, out };
}

/** Connects to the dual-era server over stdio behind the recorder. */
export function connectDual(options: StdioConnectOptions = {}, args: readonly string[] = [], out?: string): Promise<{ client: McpClient; out: string }> {
  return connectRecorded(["node", dualScript, ...args], options, out);
}

/** The messages of a finished recording, in order (the header left out). */
export function readWire(out: string): WireLine[] {
  const lines = readFileSync(out, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(lines[0]?.transcript, 1, "the recording has its header");
  return lines.slice(1).filter((l): l is WireLine & Record<string, unknown> => "msg" in l) as WireLine[];
}

/** The client's messages of a recording. */
export const sent = (wire: readonly WireLine[]): Message[] => wire.filter((l) => l.dir === "c2s").map((l) => l.msg);
/** The server's messages of a recording. */
export const received = (wire: readonly WireLine[]): Message[] => wire.filter((l) => l.dir === "s2c").map((l) => l.msg);
/** The client's requests of one method. */
export const requestsOf = (messages: readonly Message[], method: string): Message[] => messages.filter((m) => m.method === method && "id" in m);
/** The server's response to a request id. */
export function responseTo(wire: readonly WireLine[], id: unknown): Message {
  const r = received(wire).find((m) => m.id === id && !("method" in m));
  assert.ok(r, `the server answered request ${JSON.stringify(id)}`);
  return r;
}

/** The `_meta` of a request. */
export function metaOf(m: Message): Record<string, unknown> {
  const meta = m.params?._meta;
  assert.ok(meta && typeof meta === "object", `${m.method} carries params._meta`);
  return meta as Record<string, unknown>;
}

/** Checks that every client request carries the modern `_meta` and is a valid message of the revision. */
export function assertModernRequests(messages: readonly Message[], capabilities: Record<string, unknown> = {}): void {
  assert.ok(messages.length > 0);
  for (const m of messages) {
    checkClientMessage(MODERN, m);
    if (!("id" in m) || m.method === undefined) continue;
    const meta = metaOf(m);
    assert.equal(meta["io.modelcontextprotocol/protocolVersion"], MODERN, `${m.method} names the revision`);
    assert.deepEqual(meta["io.modelcontextprotocol/clientCapabilities"], capabilities, `${m.method} declares the client's capabilities`);
    assert.deepEqual(meta["io.modelcontextprotocol/clientInfo"], { name: "yada", version: "0.1.0" }, `${m.method} names the client`);
  }
}

/** Starts the dual-era server over HTTP on 127.0.0.1. */
export function startDualHttp(options: { badHeaderTool?: boolean } = {}): Promise<DualHttp> {
  return start({ http: true, ...options });
}

/** Connects to an HTTP server (with every client module on, as `yada-mcp/node` does). */
export function connectHttp(url: string, options: ClientOptions = {}): Promise<WebMcpClient> {
  return McpClient.connect(new HttpTransport(url), options);
}

/** The JSON-RPC bodies the HTTP server received, with their headers. */
export function posts(requests: DualHttp["requests"]): { headers: Record<string, string | undefined>; body: Message; exchange: DualHttp["requests"][number] }[] {
  return requests
    .filter((r) => r.method === "POST" && r.body && typeof r.body === "object")
    .map((r) => ({ headers: r.headers, body: r.body as Message, exchange: r }));
}

/** Runs `body` with a client, and closes it whatever happens. */
export async function using<C extends { close(): Promise<void> }, T>(client: C, body: (client: C) => Promise<T>): Promise<T> {
  try {
    return await body(client);
  } finally {
    await client.close();
  }
}

/** Text of a tool result. */
export const textOf = (r: { content: unknown[] }): string => (r.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("");
