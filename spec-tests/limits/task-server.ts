// A 2025-11-25 task server given as code, for the V8 bound tests.
import { McpClient } from "../../src/node/client.js";
import { captureLogs } from "../helpers/clients.js";
import type { TextContent } from "../../src/mcp/types.js";
import { stdioServer } from "./support.js";

const caps = { tools: {}, tasks: { requests: { tools: { call: {} } }, cancel: {} } };

// The mode is "<kind>:<n>". Every tasks/* request is logged on stderr as "<method> <ms since start> <id>".
//   id:n        the task id is n characters long; the task is completed at once
//   default:0   a task without pollInterval, completed on its first tasks/get
//   hang:0      working forever; tasks/cancel is never answered
//   polls:n     working until the n-th tasks/get, completed then
//   slow:n      suggests a poll interval of 1e9 ms; with n = 1 completed on the first tasks/get, else working forever
const server = stdioServer(
  `(m) => {
  const [kind, arg] = mode.split(":");
  const n = Number(arg);
  globalThis.t0 ??= Date.now();
  globalThis.gets ??= 0;
  if (m.method.startsWith("tasks/") || m.method === "notifications/cancelled") process.stderr.write(m.method + " " + (Date.now() - t0) + " " + JSON.stringify(m.params?.requestId ?? m.id) + "\\n");
  const taskId = kind === "id" ? "t".repeat(n) : "task-1";
  // "slow" suggests an interval far past the longest honoured one.
  const pollInterval = kind === "slow" ? 1e9 : 50;
  if (m.method === "tools/call") return { task: kind === "default" || kind === "hang" ? { taskId, status: "working" } : { taskId, status: kind === "id" ? "completed" : "working", pollInterval } };
  if (m.method === "tasks/get") {
    gets++;
    const done = kind === "default" || (kind === "slow" && n === 1) || (kind === "polls" && gets >= n);
    return { taskId, status: done ? "completed" : "working", pollInterval };
  }
  if (m.method === "tasks/result") return { content: [{ type: "text", text: "polled " + gets }] };
  if (m.method === "tasks/cancel") return undefined;
}`,
  caps,
);
export async function connect(mode: string, requestTimeoutMs?: null) {
  const { logs, logger } = captureLogs();
  const client = await McpClient.connectStdio("node", [...server.slice(0, 2), mode], undefined, { era: "legacy", name: "tasks", logger, ...(requestTimeoutMs === null ? { requestTimeoutMs } : {}) });
  const seen = (): { method: string; at: number; id: unknown }[] =>
    logs
      .filter((l) => l.message === "server stderr")
      .map((l) => String(l.data?.text))
      .join("")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => {
        const [method, at, id] = l.split(" ");
        return { method: String(method), at: Number(at), id: id === undefined ? undefined : (JSON.parse(id) as unknown) };
      });
  return { client, seen };
}
export const text = (r: { content: unknown[] }): string => (r.content[0] as TextContent).text;
