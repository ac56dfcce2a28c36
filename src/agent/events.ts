/**
 * The events of a run (R2), plain JSON data, and the queue behind
 * {@link runStream}'s async iterable.
 *
 * Order (the contract, tested):
 *
 * ```
 * agent_start
 * ( tool_execution_start  tool_execution_end )*     resumed: true, turn 0
 * ( turn_start
 *   message_start  message_delta*  message_end
 *   ( tool_execution_start  tool_execution_update*  tool_execution_end )*
 *   turn_end )*
 * [approval_required]
 * [error]
 * agent_end
 * ```
 *
 * - Turns are numbered from 1; every event of a turn carries its number.
 * - Tool executions of one turn may interleave (they run in parallel up to the
 *   concurrency bound), but each call's start / updates / end are in order, and
 *   every start has its end. Calls answered without executing (unknown tool, bad
 *   arguments, a detected loop, a cancelled run) get a start and an end too;
 *   calls proposed for approval get neither (they are in `approval_required`).
 * - A turn whose model answer was cut short (cancellation, a provider error) has
 *   neither `message_end` nor `turn_end`; `error` (for errors) and `agent_end` follow.
 * - `approval_required` comes once, after the last `turn_end`, when the run
 *   stops for approval.
 * - A resumed run (`run({ resume })`, W8) that feeds back the outcomes read from
 *   the action store starts with a start / end pair per outcome, marked
 *   `resumed: true`, with turn 0; the run's own turns follow from 1.
 *
 * @module
 */
import type { ProviderErrorKind, YadaErrorCode } from "../errors.js";
import type { ToolEffect, ToolResultPart, ToolUpdate } from "../tools/types.js";
import type { ActionState } from "../actions/types.js";
import type { AssistantMessage, ToolResultMessage, Usage } from "./messages.js";

/** Why a run stopped. */
export type StopReason = "end" | "max_steps" | "cancelled" | "loop_detected" | "approval_required";

/** A call to a tool that is not a plain read (effect `write` or `confirm`): proposed, not executed (W8 resumes from here). */
export interface ProposedCall {
  /** The model's call id; the approval flow answers it with a tool result. */
  callId: string;
  toolName: string;
  effect: Exclude<ToolEffect, "read">;
  arguments: Record<string, unknown>;
  /** With an action store: the recorded action that answers this call (W8). */
  actionId?: string;
  /** With an action store: the preparation's preview for the approver (untrusted text). */
  preview?: string;
  /** On a resumed run that is still paused: where the action stands (W8). */
  state?: ActionState;
}

/** An error as event data. */
export interface EventError {
  code: YadaErrorCode | "unknown";
  /** For `provider` errors. */
  kind?: ProviderErrorKind;
  message: string;
}

/** One event of a run. Every field is JSON data. */
export type AgentEvent =
  | { type: "agent_start"; provider: string; tools: string[] }
  | { type: "turn_start"; turn: number }
  | { type: "message_start"; turn: number; role: "assistant" }
  | { type: "message_delta"; turn: number; kind: "text" | "thinking"; text: string }
  | { type: "message_end"; turn: number; message: AssistantMessage }
  | { type: "tool_execution_start"; turn: number; callId: string; toolName: string; arguments: Record<string, unknown>; resumed?: true }
  | { type: "tool_execution_update"; turn: number; callId: string; toolName: string; update: ToolUpdate }
  | { type: "tool_execution_end"; turn: number; callId: string; toolName: string; content: ToolResultPart[]; isError: boolean; resumed?: true }
  | { type: "turn_end"; turn: number; message: AssistantMessage; toolResults: ToolResultMessage[] }
  | { type: "approval_required"; turn: number; calls: ProposedCall[] }
  | { type: "error"; turn?: number; error: EventError }
  | { type: "agent_end"; stopReason: StopReason | "error"; usage: Usage; steps: number };

/** The `type` of an {@link AgentEvent}. */
export type AgentEventType = AgentEvent["type"];

/** A single-consumer queue of events exposed as an async iterable. */
export interface EventQueue {
  push(event: AgentEvent): void;
  /** No more events; the iterator finishes after the queued ones. */
  close(): void;
  readonly iterable: AsyncIterable<AgentEvent>;
}

/**
 * A queue for one consumer. Events are kept until read; once the consumer
 * stops iterating (`break`), later events are dropped (the run goes on until
 * its signal aborts it).
 */
export function eventQueue(): EventQueue {
  const buffer: AgentEvent[] = [];
  let closed = false;
  let detached = false;
  let iterating = false;
  // Resolves the consumer's pending wait; calling it again after that is harmless.
  let wake = (): void => {};
  return {
    push(event) {
      if (closed || detached) return;
      buffer.push(event);
      wake();
    },
    close() {
      closed = true;
      wake();
    },
    iterable: {
      [Symbol.asyncIterator]() {
        if (iterating) throw new TypeError("the events of a run can be iterated once");
        iterating = true;
        return {
          async next() {
            while (buffer.length === 0 && !closed && !detached) await new Promise<void>((resolve) => (wake = resolve));
            const event = buffer.shift();
            return event ? { done: false, value: event } : { done: true, value: undefined };
          },
          async return() {
            detached = true;
            buffer.length = 0;
            return { done: true, value: undefined };
          },
        };
      },
    },
  };
}
