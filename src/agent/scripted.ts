/**
 * The scripted provider (R3): a deterministic model for tests and the offline
 * demo. Each step is the assistant's next answer (text, thinking and / or tool
 * calls), given as a value or computed from the conversation so far.
 *
 * @module
 */
import { CancelledError, ProviderError } from "../errors.js";
import { emptyUsage, type AssistantMessage, type ModelStopReason, type Usage } from "./messages.js";
import type { GenerateOptions, ModelRequest, Provider } from "./provider.js";
import { toolCallAccumulator } from "./tool-args.js";

/** One tool call of a scripted answer. */
export interface ScriptedToolCall {
  name: string;
  /** The arguments (default `{}`). */
  arguments?: Record<string, unknown>;
  /**
   * Raw argument text instead of `arguments`, parsed like a streamed provider's
   * (so malformed JSON can be scripted).
   */
  argumentsJson?: string;
  /** Default `call_<step>_<n>`, both 1-based. */
  id?: string;
}

/** One scripted answer. */
export interface ScriptedStep {
  thinking?: string;
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Default: `tool_use` when there are tool calls, else `end`. */
  stopReason?: ModelStopReason;
  /** Default: all zero. */
  usage?: Partial<Usage>;
}

/** A step, or a function of the request that returns one. */
export type ScriptedStepSource = ScriptedStep | ((request: ModelRequest) => ScriptedStep | Promise<ScriptedStep>);

/** The scripted provider; `requests` records what the loop asked, in order. */
export interface ScriptedProvider extends Provider {
  /** A copy of every request received, in order. */
  readonly requests: readonly ModelRequest[];
}

/** Splits text into word-sized deltas (a space stays with the word before it), so events look like a real stream. */
function pieces(text: string): string[] {
  return text.match(/\S*\s*/g)?.filter((p) => p !== "") ?? [];
}

/**
 * A deterministic provider that answers step `n` of `steps` on its `n`-th call.
 * Text and thinking are delivered as word-sized deltas.
 *
 * @throws from `generate`: ProviderError (`provider`, kind `bad_response`) when the
 * script has no step left; CancelledError (`cancelled`) when the signal has aborted.
 *
 * @example
 * ```ts
 * const provider = scripted([
 *   { toolCalls: [{ name: "catalog__lookup", arguments: { sku: "A-1" } }] },
 *   (request) => ({ text: `Found: ${JSON.stringify(request.messages.at(-1))}` }),
 * ]);
 * const result = await run({ provider, tools, identity, input: "Find product A" });
 * ```
 */
export function scripted(steps: readonly ScriptedStepSource[]): ScriptedProvider {
  const requests: ModelRequest[] = [];
  return {
    name: "scripted",
    requests,
    async generate(request: ModelRequest, options: GenerateOptions = {}): Promise<AssistantMessage> {
      const n = requests.length + 1;
      requests.push(structuredClone(request));
      if (options.signal?.aborted) throw new CancelledError("scripted: the request was cancelled", { cause: options.signal.reason });
      const source = steps[n - 1];
      if (source === undefined) throw new ProviderError("bad_response", "scripted", `the script has no step ${n} (it has ${steps.length})`);
      const step = typeof source === "function" ? await source(request) : source;
      const content: AssistantMessage["content"] = [];
      for (const kind of ["thinking", "text"] as const) {
        const text = step[kind];
        if (text === undefined) continue;
        for (const p of pieces(text)) options.onDelta?.({ kind, text: p });
        content.push({ type: kind, text });
      }
      const calls = step.toolCalls ?? [];
      calls.forEach((call, i) => {
        const acc = toolCallAccumulator(call.id ?? `call_${n}_${i + 1}`, call.name);
        acc.append(call.argumentsJson ?? JSON.stringify(call.arguments ?? {}));
        content.push(acc.finish());
      });
      return {
        role: "assistant",
        content,
        stopReason: step.stopReason ?? (calls.length > 0 ? "tool_use" : "end"),
        model: "scripted",
        usage: { ...emptyUsage(), ...step.usage },
      };
    },
  };
}
