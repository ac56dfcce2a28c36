// Shared pieces of the agent tests: the loopback provider replay server (a real
// child process on 127.0.0.1), stream files, host tools and an identity.
import { spawn, type ChildProcess } from "node:child_process";
import { after, before, beforeEach } from "node:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import type { AgentEvent } from "../../src/agent/events.js";
import type { Identity, ReadTool, ToolResult } from "../../src/tools/types.js";
import { fixturePath, repoPath } from "../helpers/paths.js";

/** Recorded provider streams (fixtures/provider-streams). */
export const STREAMS = fixturePath("provider-streams");

/** The payload lines of a recorded stream. */
export function streamLines(file: string): string[] {
  return readFileSync(resolve(STREAMS, file), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "");
}

/** The parsed payloads of a recorded stream. */
export function streamEvents(file: string): Array<Record<string, unknown>> {
  return streamLines(file).map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Small and odd-sized slices, so events, lines and UTF-8 characters split across reads. */
export const ODD_CHUNKS = [1, 7, 13, 2, 31, 5];

/** One scripted answer of the replay server. */
export interface ReplaySpec {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  file?: string;
  lines?: string[];
  done?: boolean;
  eventLines?: boolean;
  chunkSizes?: number[];
  stallAfterEvents?: number;
}

/** A request the replay server recorded. */
export interface ReplayRecord {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  aborted: boolean;
  finished: boolean;
  stalled?: boolean;
}

/** A running replay server. */
export interface Replay {
  baseUrl: string;
  queue(...specs: ReplaySpec[]): Promise<void>;
  requests(): Promise<ReplayRecord[]>;
  /** The JSON bodies of the recorded requests. */
  bodies(): Promise<Array<Record<string, unknown>>>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

/**
 * One replay server for the whole test file: started before the first test, reset
 * before each test, closed after the last. Use the returned object inside tests.
 */
export function replayForFile(): Replay {
  let current: Replay | undefined;
  const started = (): Replay => {
    if (!current) throw new Error("the replay server is not started yet");
    return current;
  };
  before(async () => {
    current = await startReplay();
  });
  after(async () => {
    await current?.close();
  });
  beforeEach(async () => {
    await current?.reset();
  });
  return {
    get baseUrl() {
      return started().baseUrl;
    },
    queue: (...specs) => started().queue(...specs),
    requests: () => started().requests(),
    bodies: () => started().bodies(),
    reset: () => started().reset(),
    close: () => started().close(),
  };
}

/** Starts fixtures/providers/sse-replay.mjs and waits for its port. */
export async function startReplay(): Promise<Replay> {
  const child: ChildProcess = spawn(process.execPath, [repoPath("fixtures", "providers", "sse-replay.mjs"), "--streams", STREAMS], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const port = await new Promise<number>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error("replay server did not start")), 10_000);
    if (!child.stdout) return fail(new Error("no stdout"));
    const rl = createInterface({ input: child.stdout });
    rl.once("line", (line) => {
      clearTimeout(timer);
      const m = /^listening (\d+)$/.exec(line);
      if (m?.[1]) ok(Number(m[1]));
      else fail(new Error(`unexpected replay output: ${line}`));
    });
    child.once("exit", () => fail(new Error("replay server exited")));
  });
  const base = `http://127.0.0.1:${port}`;
  const control = async (path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${base}/_control/${path}`, body === undefined ? {} : { method: "POST", body: JSON.stringify(body) });
    return res.json();
  };
  return {
    baseUrl: base,
    async queue(...specs) {
      await control("queue", specs);
    },
    async requests() {
      return (await control("requests")) as ReplayRecord[];
    },
    async bodies() {
      return ((await control("requests")) as ReplayRecord[]).map((r) => JSON.parse(r.body) as Record<string, unknown>);
    },
    async reset() {
      await control("reset", {});
    },
    close: () =>
      new Promise<void>((ok) => {
        if (child.exitCode !== null) return ok();
        child.once("exit", () => ok());
        child.stdin?.end();
        setTimeout(() => child.kill("SIGKILL"), 2_000).unref();
      }),
  };
}

/** The identity every test runs as. */
export const alice: Identity = { actorId: "alice", tenantId: "acme" };

/** A text result. */
export const text = (t: string, isError = false): ToolResult => ({ content: [{ type: "text", text: t }], isError });

/** A host read tool from a function. */
export function hostTool(name: string, execute: ReadTool["execute"], description = `The ${name} tool.`): ReadTool {
  return { name, description, effect: "read", inputSchema: { type: "object" }, execute };
}

/** Events reduced to their type (and tool name / kind where it helps reading a sequence). */
export function shape(events: readonly AgentEvent[]): string[] {
  return events.map((e) => {
    if (e.type === "tool_execution_start" || e.type === "tool_execution_end" || e.type === "tool_execution_update") return `${e.type}:${e.toolName}`;
    if (e.type === "message_delta") return `${e.type}:${e.kind}`;
    if (e.type === "agent_end") return `${e.type}:${e.stopReason}`;
    return e.type;
  });
}

/** Rejects after `ms` (to bound a wait inside a test). */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, fail) => {
      timer = setTimeout(() => fail(new Error(`${what} did not happen within ${ms} ms`)), ms);
    }),
  ]);
}
