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
}

const CANCELLED = "the run was cancelled before the tool finished";

function untilAborted(signal: AbortSignal | undefined): { promise: Promise<ToolResult>; dispose(): void } {
  if (!signal) return { promise: new Promise<ToolResult>(() => {}), dispose: () => {} };
  let onAbort = (): void => {};
  const promise = new Promise<ToolResult>((resolve) => {
    onAbort = () => resolve(errorResult("cancelled", CANCELLED));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener("abort", onAbort) };
}

async function executeOne({ call, tool }: ReadCall, ctx: ExecContext): Promise<ToolResult> {
  const base = { turn: ctx.turn, callId: call.id, toolName: call.name };
  ctx.emit({ type: "tool_execution_start", ...base, arguments: call.arguments });
  let result: ToolResult;
  if (ctx.signal?.aborted) result = errorResult("cancelled", CANCELLED);
  else {
    const abort = untilAborted(ctx.signal);
    let settled = false;
    const running = (async (): Promise<ToolResult> => {
      try {
        const value: unknown = await tool.execute(call.arguments, {
          identity: ctx.identity,
          ...(ctx.signal ? { signal: ctx.signal } : {}),
          onUpdate: (update) => {
            if (!settled) ctx.emit({ type: "tool_execution_update", ...base, update: plainUpdate(update) });
          },
        });
        return boundedResult(value);
      } catch (error) {
        return ctx.signal?.aborted ? errorResult("cancelled", CANCELLED) : thrownResult(error);
      }
    })();
    try {
      result = await Promise.race([running, abort.promise]);
    } finally {
      settled = true;
      abort.dispose();
    }
  }
  ctx.emit({ type: "tool_execution_end", ...base, content: result.content, isError: result.isError });
  return result;
}

/** Executes `calls` with at most `ctx.concurrency` at a time; results in call order. */
export async function executeReads(calls: readonly ReadCall[], ctx: ExecContext): Promise<ToolResult[]> {
  const results: ToolResult[] = new Array<ToolResult>(calls.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      const item = calls[i];
      if (item === undefined) return;
      results[i] = await executeOne(item, ctx);
    }
  };
  await Promise.all(Array.from({ length: Math.min(ctx.concurrency, calls.length) }, worker));
  return results;
}

/** Emits start and end for a call answered without executing it, and returns the result. */
export function answerWithout(call: ToolCallPart, result: ToolResult, ctx: Pick<ExecContext, "turn" | "emit">): ToolResult {
  const base = { turn: ctx.turn, callId: call.id, toolName: call.name };
  ctx.emit({ type: "tool_execution_start", ...base, arguments: call.arguments });
  ctx.emit({ type: "tool_execution_end", ...base, content: result.content, isError: result.isError });
  return result;
}
