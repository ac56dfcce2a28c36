/**
 * The spans of `run` (O1), after the OpenTelemetry GenAI agent, inference and
 * tool conventions: `invoke_agent` around the whole run, `chat {model}` per model
 * call with its token usage, `execute_tool {tool}` per tool call (a write's
 * proposal included), and `resume_action {tool}` per outcome a resumed run reads
 * back, linked to the action's proposal (O2). Without a tracer each helper runs
 * the operation as it is.
 *
 * @module
 */
import type { AssistantMessage, Usage } from "../agent/messages.js";
import { MAX_QUOTED_CHARS } from "../limits.js";
import type { Provider } from "../agent/provider.js";
import type { ToolResult } from "../tools/types.js";
import {
  GEN_AI_CONVERSATION_ID,
  GEN_AI_OPERATION_NAME,
  GEN_AI_PROVIDER_NAME,
  GEN_AI_REQUEST_MODEL,
  GEN_AI_RESPONSE_FINISH_REASONS,
  GEN_AI_RESPONSE_MODEL,
  GEN_AI_TOOL_CALL_ARGUMENTS,
  GEN_AI_TOOL_CALL_ID,
  GEN_AI_TOOL_CALL_RESULT,
  GEN_AI_TOOL_NAME,
  GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
  GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  GEN_AI_USAGE_INPUT_TOKENS,
  GEN_AI_USAGE_OUTPUT_TOKENS,
  KIND_CLIENT,
  KIND_INTERNAL,
  OP_CHAT,
  OP_EXECUTE_TOOL,
  OP_INVOKE_AGENT,
  SERVER_ADDRESS,
  SERVER_PORT,
  TOOL_ERROR,
  YADA_RUN_STEPS,
  YADA_RUN_STOP_REASON,
  YADA_TOOL_EFFECT,
} from "./names.js";
import { tracedResume } from "./actions.js";
import { contentOf, inSpan, markError, quietly, spanName } from "./span.js";
import type { Trace, TraceAttributes, TraceSpan } from "./types.js";

/** A run being traced: its trace, its `invoke_agent` span and the module that makes its spans. */
export interface RunSpan {
  trace: Trace;
  span: TraceSpan;
  tracing: RunTracing;
}

// OpenTelemetry's well-known provider names where ours differ (gen_ai.provider.name).
const PROVIDERS: Readonly<Record<string, string>> = { "openai-chat": "openai" };

/** `gen_ai.provider.name`, `gen_ai.request.model`, `server.address` and `server.port` of a provider, as far as it tells them. */
function providerAttributes(provider: Partial<Provider> | undefined): TraceAttributes {
  const name = typeof provider?.name === "string" ? provider.name : "";
  const out: TraceAttributes = { [GEN_AI_PROVIDER_NAME]: PROVIDERS[name] ?? name };
  if (typeof provider?.model === "string") out[GEN_AI_REQUEST_MODEL] = provider.model;
  const server = provider?.server;
  if (server) {
    out[SERVER_ADDRESS] = server.address;
    out[SERVER_PORT] = server.port;
  }
  return out;
}

/** Token usage as the GenAI attributes (input tokens include the cached ones, as the conventions say). */
function setUsage(span: TraceSpan, usage: Usage | undefined): void {
  if (!usage) return;
  span.setAttribute(GEN_AI_USAGE_INPUT_TOKENS, usage.inputTokens);
  span.setAttribute(GEN_AI_USAGE_OUTPUT_TOKENS, usage.outputTokens);
  if (usage.cacheReadTokens) span.setAttribute(GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS, usage.cacheReadTokens);
  if (usage.cacheWriteTokens) span.setAttribute(GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS, usage.cacheWriteTokens);
}

/** What a run's span reads of its result. */
interface RunOutcome {
  stopReason: string;
  steps: number;
  usage: Usage;
}

/**
 * Runs a whole run inside its `invoke_agent` span (kind internal), or as it is
 * without a trace; `run` gets the span to name the conversation once it knows the run id.
 */
export function tracedRun<R extends RunOutcome>(trace: Trace | undefined, provider: unknown, run: (traced: RunSpan | undefined) => Promise<R>): Promise<R> {
  if (!trace) return run(undefined);
  const attributes = { [GEN_AI_OPERATION_NAME]: OP_INVOKE_AGENT, ...providerAttributes(provider as Partial<Provider> | undefined) };
  return inSpan(trace, OP_INVOKE_AGENT, { kind: KIND_INTERNAL, attributes }, (span) => run({ trace, span, tracing: runTracing }), (span, result) => {
    span.setAttribute(YADA_RUN_STOP_REASON, result.stopReason);
    span.setAttribute(YADA_RUN_STEPS, result.steps);
    setUsage(span, result.usage);
  });
}

/** Names the run's conversation (`gen_ai.conversation.id`: the run id, kept across a pause and its resume). */
export function nameConversation(traced: RunSpan | undefined, runId: string): void {
  if (traced) quietly(() => traced.span.setAttribute(GEN_AI_CONVERSATION_ID, runId));
}

/** One model call inside its `chat {model}` span (kind client), with the answer's model, stop reason and usage. */
export function tracedChat(traced: RunSpan | undefined, provider: Provider, call: () => Promise<AssistantMessage>): Promise<AssistantMessage> {
  if (!traced) return call();
  const attributes = { [GEN_AI_OPERATION_NAME]: OP_CHAT, ...providerAttributes(provider) };
  return inSpan(traced.trace, spanName(OP_CHAT, provider.model), { kind: KIND_CLIENT, attributes }, call, (span, answer) => {
    if (typeof answer?.model === "string") span.setAttribute(GEN_AI_RESPONSE_MODEL, answer.model.slice(0, MAX_QUOTED_CHARS));
    if (typeof answer?.stopReason === "string") span.setAttribute(GEN_AI_RESPONSE_FINISH_REASONS, [answer.stopReason]);
    setUsage(span, answer?.usage);
  });
}

// The kind of a loop-written or T8 error result (`{"error":"kind",...}`), read only in that exact, short form.
const ERROR_KIND = /^\{"error":"([a-z_]{1,40})"/;

/** The `error.type` of an error result: its kind, else `tool_error`. */
function resultErrorType(result: ToolResult): string {
  const first = result.content[0];
  return (first?.type === "text" && ERROR_KIND.exec(first.text)?.[1]) || TOOL_ERROR;
}

/** The call a tool span is about. */
export interface TracedCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * One tool call of the model inside its `execute_tool {tool}` span (kind internal):
 * a read's execution, or a write's preparation and proposal; an error result is
 * `error.type` of its kind (`tool_failed`, `unknown_tool`, ...).
 */
export function tracedTool<T extends ToolResult | undefined>(traced: RunSpan | undefined, call: TracedCall, effect: string, run: () => Promise<T>): Promise<T> {
  if (!traced) return run();
  const { trace } = traced;
  const attributes: TraceAttributes = {
    [GEN_AI_OPERATION_NAME]: OP_EXECUTE_TOOL,
    [GEN_AI_TOOL_NAME]: call.name,
    [GEN_AI_TOOL_CALL_ID]: call.id.slice(0, MAX_QUOTED_CHARS), // the model's words: bounded
    [YADA_TOOL_EFFECT]: effect,
  };
  if (trace.content) attributes[GEN_AI_TOOL_CALL_ARGUMENTS] = contentOf(call.arguments);
  return inSpan(trace, spanName(OP_EXECUTE_TOOL, call.name), { kind: KIND_INTERNAL, attributes }, run, (span, result) => {
    if (!result) return;
    if (result.isError) markError(span, resultErrorType(result));
    else if (trace.content) span.setAttribute(GEN_AI_TOOL_CALL_RESULT, contentOf(result) ?? "");
  });
}

/** What {@link RunOptions} `tracing` takes: {@link runTracing}. */
export interface RunTracing {
  /** Runs a whole run inside its `invoke_agent` span (internal). */
  readonly run: typeof tracedRun;
  /** Names the run's conversation (internal). */
  readonly name: typeof nameConversation;
  /** One model call inside its `chat` span (internal). */
  readonly chat: typeof tracedChat;
  /** One tool call inside its `execute_tool` span (internal). */
  readonly tool: typeof tracedTool;
  /** The `resume_action` spans of the actions a resumed run read back (internal). */
  readonly resume: typeof tracedResume;
}

/**
 * The run's spans (O1) as a module the host passes in, for
 * `run({ ..., tracer, tracing: runTracing })` and `runStream`: the run's
 * `invoke_agent` span, each model call's `chat` span, each tool call's
 * `execute_tool` span and a resumed run's `resume_action` spans. A run without a
 * tracer does not carry them, so a bundler drops them when unused (X3). A `tracer`
 * without it is a ConfigError (`config`) naming this export, before anything runs.
 *
 * @example
 * ```ts
 * import { run, runTracing } from "yada-mcp";
 * await run({ provider, tools, identity, input: "What is A-1?", tracer: trace.getTracer("my-agent"), tracing: runTracing });
 * ```
 */
export const runTracing: RunTracing = Object.freeze({ run: tracedRun, name: nameConversation, chat: tracedChat, tool: tracedTool, resume: tracedResume });
