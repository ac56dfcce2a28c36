/**
 * `run`: the agent loop (R1). Model → tool calls → results → model, until a final
 * answer, a pause for approval, the step limit, a detected loop, or
 * cancellation; every step reported as an event (R2).
 *
 * @module
 */
import { ConfigError, ProviderError, YadaError } from "../errors.js";
import { MAX_QUOTED_CHARS, MAX_TOOL_CALLS_PER_TURN } from "../limits.js";
import { silentLogger, type Logger } from "../log.js";
import { identityOf } from "../tools/gate.js";
import type { ConfirmTool, Identity, ReadTool, Tool, ToolResult, WriteTool } from "../tools/types.js";
import { checkRunActions, parseRunState, pausedState, proposeCalls, readOutcomes, resumedEvents, type RunActions, type RunState } from "./run-actions.js";
import { eventQueue, type AgentEvent, type EventError, type ProposedCall, type StopReason } from "./events.js";
import { loopGuard, type DetectedLoop } from "./loop-guard.js";
import {
  addUsage,
  emptyUsage,
  lastAnswer,
  parseMessages,
  textOf,
  toolCallsOf,
  type AssistantMessage,
  type Message,
  type ToolCallPart,
  type ToolResultMessage,
  type Usage,
} from "./messages.js";
import { checkBounds, checkProvider, checkTools, initialMessages } from "./options.js";
import type { Provider, ToolSpec } from "./provider.js";
import { answerWithout, executeReads, type ReadCall } from "./tool-exec.js";
import { errorResult, type LoopErrorKind } from "./tool-results.js";
import { checkOptions } from "../util/options.js";
import { isRec } from "../util/record.js";
import type { RunSpan, RunTracing } from "../trace/agent.js";
import { traceOf } from "../trace/span.js";
import type { TraceOptions } from "../trace/types.js";

/**
 * Options of {@link run} and {@link runStream}. With a `tracer` and `tracing: runTracing`
 * (O1) the run is an `invoke_agent` span, each model call a `chat` span and each tool
 * call an `execute_tool` span; pass the same tracer to `connectMcp` for the MCP spans below them.
 */
export interface RunOptions extends TraceOptions {
  /**
   * The run's spans (O1): {@link runTracing}, needed with `tracer`. A `tracer` without
   * it is a ConfigError (`config`) naming it.
   */
  tracing?: RunTracing;
  provider: Provider;
  /** Tools of any number of connections plus host-defined tools; names must be unique. */
  tools?: readonly Tool[];
  /** The caller, from the host's authenticated backend; passed to every tool call (T1). */
  identity: Identity;
  /** The user's message, or a stored conversation to continue (see {@link parseMessages}). Not with `resume`. */
  input?: string | readonly Message[];
  /**
   * With an action store (W8): write and confirm calls are prepared and recorded
   * awaiting approval, and the run pauses with a {@link RunState} in `state`.
   * Without it a write or confirm call is never executed: the run stops with
   * `approval_required` and the calls in `proposedCalls`.
   */
  actions?: RunActions;
  /**
   * A paused run's state (needs `actions`): each pending call is answered with its
   * action's outcome read from the store; while any is still undecided or running,
   * the run stays paused without calling the model.
   */
  resume?: RunState;
  /** The system prompt. */
  system?: string;
  /** Cancels the run: the model request is aborted, running tool calls are cancelled. */
  signal?: AbortSignal;
  /** Model calls at most (default `DEFAULT_MAX_STEPS`). */
  maxSteps?: number;
  /** Read-tool calls of one turn run at the same time (default `DEFAULT_TOOL_CONCURRENCY`). */
  toolConcurrency?: number;
  /** Identical consecutive tool calls that stop the run (default `DEFAULT_LOOP_THRESHOLD`, at least 2). */
  loopThreshold?: number;
  /** Receives every event, synchronously, in order. An exception it throws is logged and ignored. */
  onEvent?: (event: AgentEvent) => void;
  /** Diagnostics sink; silent by default. */
  logger?: Logger;
}

/** What every {@link RunResult} holds, whatever the stop. Plain JSON data. */
export interface RunResultFields {
  /** The text of the last assistant message ("" when there is none). */
  text: string;
  /** The whole conversation, input included; pass it back as `input` (after a new user message or the pending results) to continue. */
  messages: Message[];
  /** Tokens used by every model call of this run. */
  usage: Usage;
  /** Model calls made. */
  steps: number;
}

/** A run that ended: a final answer (`end`), the step limit (`max_steps`) or cancellation (`cancelled`). */
export interface RunFinished extends RunResultFields {
  stopReason: "end" | "max_steps" | "cancelled";
  /** Empty. */
  proposedCalls: ProposedCall[];
  loop?: undefined;
  state?: undefined;
}

/** A run stopped by `loopThreshold` identical calls in a row. */
export interface RunLoopDetected extends RunResultFields {
  stopReason: "loop_detected";
  /** The repeated call. */
  loop: DetectedLoop;
  /** Empty. */
  proposedCalls: ProposedCall[];
  state?: undefined;
}

/** A run with an action store, paused for approval (W8): resume it with `run({ resume: state, actions })`. */
export interface RunPaused extends RunResultFields {
  stopReason: "approval_required";
  /** The calls awaiting approval, in call order, each with its recorded action. */
  proposedCalls: ProposedCall[];
  /** The state to pass back as `run({ resume })`. */
  state: RunState;
  loop?: undefined;
}

/** A run without an action store that asked for a write or confirm call: nothing was executed. */
export interface RunApprovalRequired extends RunResultFields {
  stopReason: "approval_required";
  /** The calls awaiting the host's approval, in call order. */
  proposedCalls: ProposedCall[];
  state?: undefined;
  loop?: undefined;
}

/**
 * How a run ended, discriminated by `stopReason` (P7). Plain JSON data. With an
 * action store ({@link run} with `actions`) an `approval_required` result is a
 * {@link RunPaused}, whose `state` is always there.
 *
 * @example
 * ```ts
 * const result = await run({ provider, tools, identity, input: "Rename A", actions: { store } });
 * if (result.stopReason === "approval_required") await run({ provider, tools, identity, resume: result.state, actions: { store } });
 * if (result.stopReason === "loop_detected") console.log(result.loop.toolName);
 * ```
 */
export type RunResult = RunFinished | RunLoopDetected | RunPaused | RunApprovalRequired;

/** What {@link run} with an action store returns: a pause always carries its `state`. */
export type StoredRunResult = RunFinished | RunLoopDetected | RunPaused;

/** What {@link runStream} returns. */
export interface RunStream {
  /** The run's events, for one consumer. Iteration ends after `agent_end`. */
  events: AsyncIterable<AgentEvent>;
  /** The run's result; rejects as {@link run} does (the error is also an `error` event). */
  result: Promise<RunResult>;
}

function eventError(e: unknown): EventError {
  if (e instanceof ProviderError) return { code: e.code, kind: e.kind, message: e.message };
  if (e instanceof YadaError) return { code: e.code, message: e.message };
  return { code: "unknown", message: e instanceof Error ? e.message : String(e) };
}

/** Validates a provider's answer and its tool calls (ids present and unique, bounded count). */
function checkAnswer(provider: string, value: unknown): AssistantMessage {
  const bad = (why: string): ProviderError => new ProviderError("bad_response", provider, why);
  let message: Message | undefined;
  try {
    message = parseMessages([value])[0];
  } catch (e) {
    throw bad(`returned an invalid assistant message (${e instanceof Error ? e.message : ""})`);
  }
  if (message?.role !== "assistant") throw bad("returned a non-assistant message");
  const calls = toolCallsOf(message);
  if (calls.length > MAX_TOOL_CALLS_PER_TURN) throw bad(`made ${calls.length} tool calls in one answer (at most ${MAX_TOOL_CALLS_PER_TURN})`);
  const ids = new Set(calls.map((c) => c.id));
  if (ids.size !== calls.length || ids.has("")) throw bad("made tool calls without unique ids");
  return message;
}

// O1: the run inside its invoke_agent span when the host gave a tracer; X3: the spans
// are the tracing module's, so a run without a tracer does not carry them.
async function tracedLoop(options: RunOptions, emitTo: (event: AgentEvent) => void): Promise<RunResult> {
  const trace = isRec(options) ? traceOf("run", options) : undefined;
  if (!trace) return runLoop(options, emitTo, undefined);
  const tracing = options.tracing as Partial<RunTracing> | undefined;
  if (typeof tracing?.run !== "function") throw new ConfigError("run: option tracer needs { tracing: runTracing }");
  return tracing.run(trace, options.provider, (traced) => runLoop(options, emitTo, traced));
}

async function runLoop(options: RunOptions, emitTo: (event: AgentEvent) => void, traced: RunSpan | undefined): Promise<RunResult> {
  checkOptions("run", options, "signal:a onEvent logger tracer:o tracing:o");
  const provider = checkProvider(options.provider);
  const identity = identityOf(options.identity, "run: ");
  const tools = checkTools(options.tools);
  const { maxSteps, concurrency, loopThreshold } = checkBounds(options);
  const actions = checkRunActions(options.actions);
  if (options.resume !== undefined && !actions) throw new ConfigError("run: resume needs actions with the store the run was paused on");
  if ((options.resume === undefined) === (options.input === undefined)) throw new ConfigError("run: give either input or resume");
  const resumed = options.resume === undefined || !actions ? undefined : await parseRunState(options.resume, actions, identity);
  const messages = resumed ? resumed.messages : initialMessages(options.input);
  const runId = resumed?.runId ?? actions?.runId ?? crypto.randomUUID();
  traced?.tracing.name(traced, runId);
  const { signal, system } = options;
  const logger = options.logger ?? silentLogger;
  const byName = new Map<string, Tool>(tools.map((t) => [t.name, t]));
  const specs: ToolSpec[] = tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
  const recordCall = loopGuard(loopThreshold);
  const emit = (event: AgentEvent): void => {
    try {
      emitTo(event);
    } catch (e) {
      logger("warn", "an event listener threw; the run goes on", { event: event.type, error: String(e) });
    }
  };

  let usage = emptyUsage();
  let steps = 0;
  const finish = (stopReason: StopReason, extra: { proposedCalls?: ProposedCall[]; loop?: DetectedLoop; state?: RunState } = {}): RunResult => {
    if (stopReason === "approval_required") emit({ type: "approval_required", turn: steps, calls: extra.proposedCalls ?? [] });
    emit({ type: "agent_end", stopReason, usage, steps });
    const last = lastAnswer(messages);
    // The members of the stop's variant of RunResult: `finish` is called with the ones each stop carries.
    return { stopReason, text: last ? textOf(last) : "", messages, usage, steps, proposedCalls: [], ...extra } as RunResult;
  };

  emit({ type: "agent_start", provider: provider.name, tools: tools.map((t) => t.name) });
  try {
    if (resumed && actions) {
      // W8: outcomes come from the store, never from the state.
      const { results, waiting, ran, read } = await readOutcomes(actions.store, resumed);
      if (traced) await traced.tracing.resume(traced.trace, read); // O2: each outcome read back links to its proposal
      if (!results) return finish("approval_required", { proposedCalls: waiting, state: await pausedState(actions, runId, identity, messages, resumed.pending) });
      for (const event of resumedEvents(resumed, results, ran)) emit(event);
      for (const p of resumed.pending) {
        const r = results.get(p.callId) as ToolResult;
        messages.push({ role: "tool", toolCallId: p.callId, toolName: p.toolName, content: r.content, isError: r.isError });
      }
    }
    for (;;) {
      if (signal?.aborted) return finish("cancelled");
      if (steps >= maxSteps) return finish("max_steps");
      const turn = ++steps;
      emit({ type: "turn_start", turn });
      emit({ type: "message_start", turn, role: "assistant" });
      let answer: AssistantMessage;
      try {
        const generate = (): Promise<AssistantMessage> =>
          provider.generate(
            { ...(system !== undefined ? { system } : {}), messages: [...messages], tools: specs },
            { signal, onDelta: (d) => emit({ type: "message_delta", turn, kind: d.kind, text: d.text }) },
          );
        const raw = await (traced ? traced.tracing.chat(traced, provider, generate) : generate());
        answer = checkAnswer(provider.name, raw);
      } catch (e) {
        if (signal?.aborted) return finish("cancelled");
        throw e;
      }
      messages.push(answer);
      usage = addUsage(usage, answer.usage);
      emit({ type: "message_end", turn, message: answer });

      const calls = toolCallsOf(answer);
      const ctx = { turn, identity, signal, concurrency, emit, traced };
      const results = new Map<string, ToolResult>();
      const reads: ReadCall[] = [];
      let proposed: ProposedCall[] = [];
      const writes: Array<{ call: ToolCallPart; tool: WriteTool | ConfirmTool }> = [];
      // Answers a call without executing it.
      const answerCall = (call: ToolCallPart, kind: LoopErrorKind, why: string): void =>
        void results.set(call.id, answerWithout(call, errorResult(kind, why), ctx));
      let loop: DetectedLoop | undefined;
      for (const call of calls) loop ??= recordCall(call);
      for (const call of calls) {
        const tool = byName.get(call.name);
        if (loop) {
          answerCall(call, "loop_detected", `not executed: ${loop.toolName} was called with identical arguments ${loop.count} times in a row; the run stopped`);
        } else if (!tool) {
          answerCall(call, "unknown_tool", `there is no tool named ${JSON.stringify(call.name.slice(0, MAX_QUOTED_CHARS))}; available: ${tools.map((t) => t.name).join(", ") || "none"}`);
        } else if (call.argumentsError !== undefined) {
          answerCall(call, "invalid_arguments", call.argumentsError);
        } else if (tool.effect === "read") reads.push({ call, tool: tool as ReadTool });
        else if (actions) writes.push({ call, tool });
        else proposed.push({ callId: call.id, toolName: call.name, effect: tool.effect, arguments: call.arguments });
      }
      await executeReads(reads, results, ctx);
      let pending: Awaited<ReturnType<typeof proposeCalls>>["pending"] = [];
      if (actions && writes.length > 0 && !signal?.aborted) {
        ({ proposed, pending } = await proposeCalls(actions, runId, identity, writes, signal, (call, result) => void results.set(call.id, answerWithout(call, result, ctx)), logger, traced));
      }
      if (signal?.aborted) {
        // A cancelled run proposes nothing: its proposed calls are answered, so the messages stay resumable.
        for (const call of calls) if (!results.has(call.id)) answerCall(call, "cancelled", "the run was cancelled");
      }
      const toolResults: ToolResultMessage[] = [];
      for (const call of calls) {
        const result = results.get(call.id);
        if (result) toolResults.push({ role: "tool", toolCallId: call.id, toolName: call.name, content: result.content, isError: result.isError });
      }
      messages.push(...toolResults);
      emit({ type: "turn_end", turn, message: answer, toolResults });

      if (loop) return finish("loop_detected", { loop });
      if (signal?.aborted) return finish("cancelled");
      if (proposed.length > 0 && actions) return finish("approval_required", { proposedCalls: proposed, state: await pausedState(actions, runId, identity, messages, pending) });
      if (proposed.length > 0) return finish("approval_required", { proposedCalls: proposed });
      if (calls.length === 0) return finish("end");
    }
  } catch (e) {
    emit({ type: "error", turn: steps, error: eventError(e) });
    emit({ type: "agent_end", stopReason: "error", usage, steps });
    throw e;
  }
}

/**
 * Runs the agent loop (R1) until the model answers without tool calls (`end`),
 * asks for a tool whose effect is not `read` (`approval_required`: the call is
 * not executed, it is returned in `proposedCalls` and its turn's read calls are
 * answered), makes `loopThreshold` identical calls in a row (`loop_detected`),
 * reaches `maxSteps` model calls (`max_steps`), or `signal` aborts (`cancelled`).
 *
 * Read-tool calls of one turn run in parallel, at most `toolConcurrency` at a
 * time. A tool that throws or fails, an unknown tool and malformed arguments
 * become error results the model sees (R4); the run goes on. The message list
 * stays valid for a provider after every stop (cancelled calls are answered with
 * a `cancelled` error result), so it can be stored and resumed.
 *
 * @throws ConfigError (`config`) before any model call for an invalid provider,
 * identity, tool, duplicate tool name or bound; ValidationError (`validation`)
 * for an invalid `input`; ProviderError (`provider`), TransportError
 * (`transport`) or TimeoutError (`timeout`) from the provider, after the
 * `error` and `agent_end` events.
 *
 * @example
 * ```ts
 * const result = await run({
 *   provider: anthropic({ apiKey, model: "claude-sonnet-4-5" }),
 *   tools: [...catalog.tools, ...nodeReadTools({ roots: ["/srv/docs"] })],
 *   identity,
 *   input: "Find product A",
 *   system: "Use the catalog to answer product questions.",
 *   signal: AbortSignal.timeout(30_000),
 *   onEvent: (e) => { if (e.type === "message_delta") show(e.text); },
 * });
 * if (result.stopReason === "approval_required") await actions.propose(result.proposedCalls);
 * ```
 */
export function run(options: RunOptions & { actions: RunActions }): Promise<StoredRunResult>;
export function run(options: RunOptions): Promise<RunResult>;
export function run(options: RunOptions): Promise<RunResult> {
  return tracedLoop(options, (event) => options.onEvent?.(event));
}

/**
 * {@link run}, with its events as an async iterable (R2) as well as through
 * `onEvent`. Events are kept until read; after the consumer stops iterating,
 * later ones are dropped (the run continues until `signal` aborts it).
 * `result` is marked handled, so iterating without awaiting it never raises an
 * unhandled rejection; an error also arrives as an `error` event.
 *
 * @throws as {@link run}, through `result`.
 *
 * @example
 * ```ts
 * const { events, result } = runStream({ provider, tools, identity, input: "Find product A" });
 * for await (const event of events) if (event.type === "message_delta") ui.append(event.text);
 * const { stopReason, text } = await result;
 * ```
 */
export function runStream(options: RunOptions): RunStream {
  const queue = eventQueue();
  const result = tracedLoop(options, (event) => {
    queue.push(event);
    options.onEvent?.(event);
  }).finally(() => queue.close());
  result.catch(() => {});
  return { events: queue.iterable, result };
}
