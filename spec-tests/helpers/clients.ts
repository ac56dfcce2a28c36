// Connects the Node McpClient to fixture servers and records what it logs.
import { McpClient, type StdioConnectOptions } from "../../src/node/client.js";
import type { LogLevel } from "../../src/log.js";
import { fixtureServer } from "./paths.js";

/** One captured log entry. */
export interface LogEntry {
  level: LogLevel;
  message: string;
  data?: Record<string, unknown>;
}

/** A logger that keeps what it is given. */
export function captureLogs(): { logs: LogEntry[]; logger: (level: LogLevel, message: string, data?: Record<string, unknown>) => void } {
  const logs: LogEntry[] = [];
  return {
    logs,
    logger: (level, message, data) => {
      logs.push(data === undefined ? { level, message } : { level, message, data });
    },
  };
}

/** Connects to `fixtures/servers/<script>` over stdio. */
export async function connectFixture(
  script: string,
  args: string[] = [],
  options: StdioConnectOptions = {},
): Promise<{ client: McpClient; logs: LogEntry[] }> {
  const { logs, logger } = captureLogs();
  const client = await McpClient.connectStdio("node", [fixtureServer(script), ...args], undefined, {
    logger,
    name: script,
    ...options,
  });
  return { client, logs };
}

/** Waits until `predicate` holds, polling every 10 ms, for at most `ms`. */
export async function waitFor(predicate: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > end) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Resolves with the error `p` rejects with; fails if it resolves. */
export async function rejection(p: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await p;
  } catch (e) {
    return e as Error & { code?: string };
  }
  throw new Error("expected a rejection");
}

/**
 * A one-file stdio server given as the body of `answer(m)`, a function of a request
 * that returns its result (or a Promise of it). It answers initialize itself and
 * ignores notifications, including notifications/cancelled. Like most legacy
 * servers, it answers the modern `server/discover` probe with -32601.
 */
export function inlineServer(answer: string, capabilities = "{ tools: {} }"): string[] {
  const script = `
const rl = require("readline").createInterface({ input: process.stdin });
const answer = ${answer};
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
rl.on("line", async (l) => {
  const m = JSON.parse(l);
  if (m.id === undefined || m.method === undefined) return;
  if (m.method === "server/discover") return send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
  if (m.method === "initialize") return send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-11-25", capabilities: ${capabilities}, serverInfo: { name: "inline", version: "1" } } });
  send({ jsonrpc: "2.0", id: m.id, result: await answer(m) });
});`;
  return ["-e", script];
}
