// Starts the loopback HTTP fixture servers of fixtures/http/ and records what a
// transport hands its sink.
import { pathToFileURL } from "node:url";
import type { YadaError } from "../../src/errors.js";
import type { RequestId } from "../../src/jsonrpc/messages.js";
import type { TransportSink } from "../../src/transport/types.js";
import { repoPath } from "../helpers/paths.js";

/** One HTTP request as a fixture received it (header names lower-case). */
export interface RecordedRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body, if any. */
  message: Record<string, unknown> | undefined;
  at: number;
  /** When the server saw the response end or the client go away. */
  closedAt?: number;
}

/** A running fixture server on 127.0.0.1. */
export interface LoopbackServer {
  url: string;
  port: number;
  requests: RecordedRequest[];
  close(): Promise<void>;
  /** redirect.mjs: the server the redirect points to. */
  target?: LoopbackServer;
}

/** Starts `fixtures/http/<name>.mjs` with `options`. */
export async function startFixture(name: string, options: Record<string, unknown> = {}): Promise<LoopbackServer> {
  const href = pathToFileURL(repoPath("fixtures", "http", `${name}.mjs`)).href;
  const mod = (await import(href)) as { start(o: Record<string, unknown>): Promise<LoopbackServer> };
  return mod.start(options);
}

/** Runs `fn` against a fixture and always closes the server. */
export async function withFixture(
  name: string,
  options: Record<string, unknown>,
  fn: (server: LoopbackServer) => Promise<void>,
): Promise<void> {
  const server = await startFixture(name, options);
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

/** A sink that keeps everything it is given. */
export interface RecordingSink extends TransportSink {
  messages: unknown[];
  errors: Array<{ id: RequestId; error: YadaError }>;
  closedWith: YadaError[];
}

export function recordingSink(): RecordingSink {
  const messages: unknown[] = [];
  const errors: Array<{ id: RequestId; error: YadaError }> = [];
  const closedWith: YadaError[] = [];
  return {
    messages,
    errors,
    closedWith,
    message: (value) => void messages.push(value),
    requestError: (id, error) => void errors.push({ id, error }),
    closed: (error) => void closedWith.push(error),
  };
}

/** The request messages (with `method`) a fixture received, by JSON-RPC method. */
export function rpcMethods(server: LoopbackServer): string[] {
  return server.requests.map((r) => (r.message && typeof r.message.method === "string" ? r.message.method : `${r.method}`));
}

/** A JSON-RPC request. */
export function request(id: RequestId, method: string, params?: Record<string, unknown>) {
  return params === undefined ? { jsonrpc: "2.0" as const, id, method } : { jsonrpc: "2.0" as const, id, method, params };
}

/** A JSON-RPC notification. */
export function notification(method: string, params?: Record<string, unknown>) {
  return params === undefined ? { jsonrpc: "2.0" as const, method } : { jsonrpc: "2.0" as const, method, params };
}

/** Resolves after `ms`. */
export const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits until `predicate` holds, polling every 5 ms, for at most `ms`. */
export async function until(predicate: () => boolean, ms = 3_000): Promise<void> {
  const end = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > end) throw new Error("condition not reached in time");
    await delay(5);
  }
}

/** The first value of a (possibly repeated) header. */
export function header(r: RecordedRequest | undefined, name: string): string | undefined {
  const v = r?.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
