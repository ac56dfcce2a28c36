/**
 * Executes the read-tool calls of one turn (R1, R4): in parallel up to a
 * concurrency bound, each with the run's identity and signal, progress forwarded
 * as events. A tool that throws or returns garbage yields an error result; the
 * run goes on. When the run is cancelled, calls still running are answered with
 * a `cancelled` error result at once (their tools got the abort, e.g. an MCP
 * tool sends notifications/cancelled).
 *
 * @module
 */
import type { Identity, ReadTool, ToolResult } from "../tools/types.js";
import type { AgentEvent } from "./events.js";
import type { ToolCallPart } from "./messages.js";
import { boundedResult, errorResult, plainUpdate, thrownResult } from "./tool-results.js";
import type { RunSpan } from "../trace/agent.js";

/** One call to execute. */
export interface ReadCall {
  call: ToolCallPart;
  tool: ReadTool;
}

/** What {@link executeReads} needs from the run. */
export interface ExecContext {
  turn: number;
  identity: Identity;
  signal: AbortSignal | undefined;
  concurrency: number;
  emit(event: AgentEvent): void;
  /** The run's trace: each call is its execute_tool span (O1). */
  traced?: RunSpan | undefined;
}

const cancelled = (): ToolResult => errorResult("cancelled", "the run was cancelled before the tool finished");

/** Emits a call's start event; returns its base event fields and a function that emits its end event and returns the result. */
function callEvents(call: ToolCallPart, ctx: Pick<ExecContext, "turn" | "emit">) {
  const base = { turn: ctx.turn, callId: call.id, toolName: call.name };
  ctx.emit({ type: "tool_execution_start", ...base, arguments: call.arguments });
  const end = (result: ToolResult): ToolResult => {
    ctx.emit({ type: "tool_execution_end", ...base, content: result.content, isError: result.isError });
    return result;
  };
  return { base, end };
}

async function executeOne({ call, tool }: ReadCall, ctx: ExecContext): Promise<ToolResult> {
  const { signal, emit } = ctx;
  const { base, end } = callEvents(call, ctx);
  if (signal?.aborted) return end(cancelled());
  let settled = false;
  let onAbort = (): void => {};
  // Listening before the tool starts: the signal may abort while execute runs
  // synchronously (an update listener that cancels the run, say).
  const aborted = new Promise<ToolResult>((resolve) => {
    onAbort = () => resolve(cancelled());
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  const running = (async (): Promise<ToolResult> => {
    try {
      const value: unknown = await tool.execute(call.arguments, {
        identity: ctx.identity,
        ...(signal ? { signal } : {}),
        onUpdate: (update) => {
          if (!settled) emit({ type: "tool_execution_update", ...base, update: plainUpdate(update) });
        },
      });
      return boundedResult(value);
    } catch (error) {
      return signal?.aborted ? cancelled() : thrownResult(error);
    }
  })();
  try {
    return end(await Promise.race([running, aborted]));
  } finally {
    settled = true;
    signal?.removeEventListener("abort", onAbort);
  }
}

/** Executes `calls` with at most `ctx.concurrency` at a time; each result goes into `results` under its call id. */
export async function executeReads(calls: readonly ReadCall[], results: Map<string, ToolResult>, ctx: ExecContext): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let item; (item = calls[next++]); ) {
      const one = item;
      const { traced } = ctx;
      results.set(one.call.id, await (traced ? traced.tracing.tool(traced, one.call, "read", () => executeOne(one, ctx)) : executeOne(one, ctx)));
    }
  };
  await Promise.all(Array.from({ length: Math.min(ctx.concurrency, calls.length) }, worker));
}

/** Emits start and end for a call answered without executing it, and returns the result. */
export function answerWithout(call: ToolCallPart, result: ToolResult, ctx: Pick<ExecContext, "turn" | "emit">): ToolResult {
  return callEvents(call, ctx).end(result);
}
