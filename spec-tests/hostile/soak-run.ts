// Y8: the soak. Calls against a server that fails at random (stdio: a process that
// also exits now and then; HTTP: a loopback server that resets, stalls and errs),
// `concurrency` at a time, reconnecting when the connection is lost. Used by
// spec-tests/hostile/soak.test.ts (short) and scripts/soak.mjs (100 k calls).
import { McpClient } from "../../src/node/client.js";
import { HttpTransport } from "../../src/transport/http.js";
import { YadaError } from "../../src/errors.js";
import type { TextContent } from "../../src/mcp/types.js";
import { fixtureServer } from "../helpers/paths.js";
import { startFixture, type LoopbackServer } from "../transport/http-fixtures.js";
import { leaksAfter, resources } from "./leaks.js";
import { heldBytes } from "./memory.js";

export interface SoakOptions {
  kind: "stdio" | "http";
  calls: number;
  concurrency?: number;
  seed?: number;
  /** Bound of each call: a call the server never answers ends in `timeout`. */
  callTimeoutMs?: number;
}

export interface SoakReport {
  kind: string;
  calls: number;
  /** How the calls ended: "ok", "tool_error" (isError) or an error code. */
  outcomes: Record<string, number>;
  /** Calls whose answer was not the text sent (a crossed answer). */
  crossed: number;
  /** Anything thrown that is not a YadaError. */
  untyped: string[];
  reconnects: number;
  /** Heap held after the first tenth of the calls, and at the end (bytes, after GC). */
  heapEarly: number;
  heapEnd: number;
  /** Resources held beyond the start once everything is closed. */
  leaks: string[];
  /** process listeners added and not removed, by event. */
  listeners: string[];
  /** Runtime warnings emitted during the soak (MaxListenersExceededWarning and the like). */
  warnings: string[];
  ms: number;
}

const processListeners = (): Record<string, number> =>
  Object.fromEntries(process.eventNames().map((e) => [String(e), process.listenerCount(e)]));

export async function soak(options: SoakOptions): Promise<SoakReport> {
  const { kind, calls, concurrency = 8, callTimeoutMs = 300 } = options;
  let seed = options.seed ?? 1;
  const baseline = resources();
  let listenersBefore = processListeners();
  const t0 = Date.now();
  const report: SoakReport = { kind, calls, outcomes: {}, crossed: 0, untyped: [], reconnects: 0, heapEarly: 0, heapEnd: 0, leaks: [], listeners: [], warnings: [], ms: 0 };
  const onWarning = (w: Error): void => void report.warnings.push(`${w.name}: ${w.message}`.slice(0, 200));
  process.on("warning", onWarning);
  let server: LoopbackServer | undefined;
  if (kind === "http") server = await startFixture("flaky", { seed });
  const connect = (): Promise<McpClient> =>
    kind === "stdio"
      ? McpClient.connectStdio("node", [fixtureServer("flaky.mjs"), "--seed", String(seed++)], undefined, { name: "flaky", era: "legacy" })
      : McpClient.connect(new HttpTransport(server?.url ?? ""), { name: "flaky", era: "legacy" });
  let client: Promise<McpClient> = connect();
  // The stdio transport installs one process "exit" hook for all its children on
  // first use: the listener baseline is taken once a client exists.
  await client.catch(() => undefined);
  listenersBefore = processListeners();
  const count = (key: string): void => void (report.outcomes[key] = (report.outcomes[key] ?? 0) + 1);
  let next = 0;
  let early = false;

  const worker = async (): Promise<void> => {
    while (next < calls) {
      const n = next++;
      if (!early && n >= calls / 10) {
        early = true;
        report.heapEarly = heldBytes();
      }
      // The in-process fixture records every request it gets: not the client's memory.
      if (server && server.requests.length > 1000) server.requests.length = 0;
      const current = client;
      try {
        const c = await current;
        const r = await c.callTool("echo", { text: `t${n}` }, { timeoutMs: callTimeoutMs });
        if (r.isError) count("tool_error");
        else {
          count("ok");
          if ((r.content[0] as TextContent | undefined)?.text !== `t${n}`) report.crossed++;
        }
      } catch (e) {
        if (!(e instanceof YadaError)) {
          report.untyped.push(String(e).slice(0, 200));
          continue;
        }
        count(e.code);
        if ((e.code === "connection_closed" || e.code === "session_expired" || e.code === "transport") && client === current && kind === "stdio") {
          // The process is gone: one reconnect for every worker that saw it.
          report.reconnects++;
          client = current.then((c) => c.close()).catch(() => undefined).then(connect);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await (await client.catch(() => undefined))?.close();
  await server?.close();
  process.off("warning", onWarning);
  report.heapEnd = heldBytes();
  report.leaks = await leaksAfter(baseline);
  const after = processListeners();
  report.listeners = Object.entries(after)
    .filter(([e, n]) => n > (listenersBefore[e] ?? 0))
    .map(([e, n]) => `${e} +${n - (listenersBefore[e] ?? 0)}`);
  report.ms = Date.now() - t0;
  return report;
}
