/**
 * The model provider interface (R3): one verb, `generate`, that streams one
 * assistant answer. {@link anthropic}, {@link openaiChat} and {@link scripted}
 * implement it; a host can write its own.
 *
 * @module
 */
import type { JsonSchemaObject } from "../tools/types.js";
import type { AssistantMessage, Message } from "./messages.js";

/** A tool as the model sees it. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: JsonSchemaObject;
}

/** One request to the model: the whole conversation so far. */
export interface ModelRequest {
  /** The system prompt, if any. */
  system?: string;
  messages: readonly Message[];
  tools: readonly ToolSpec[];
}

/** A piece of the answer as it streams in (R2 message_delta). */
export interface ModelDelta {
  kind: "text" | "thinking";
  text: string;
}

/** Options of one {@link Provider.generate} call. */
export interface GenerateOptions {
  /** Aborts the request, including a stream in progress. */
  signal?: AbortSignal;
  /** Receives text and thinking as they stream in, in order. */
  onDelta?: (delta: ModelDelta) => void;
}

/**
 * A model provider.
 *
 * `generate` resolves with the complete assistant message (with `usage`,
 * `stopReason` and `model` set). Tool-call arguments that were not a JSON object
 * come back as `arguments: {}` plus `argumentsError` (see {@link ToolCallPart}),
 * never as a thrown error.
 *
 * @throws ProviderError (`provider`, by `kind`), TransportError (`transport`) for
 * a network failure, CancelledError (`cancelled`) when the signal aborts.
 *
 * @example
 * ```ts
 * const provider: Provider = {
 *   name: "echo",
 *   async generate(request) {
 *     const last = request.messages.at(-1);
 *     return { role: "assistant", content: [{ type: "text", text: last ? textOf(last) : "" }], stopReason: "end" };
 *   },
 * };
 * ```
 */
export interface Provider {
  /** Names the provider in errors and events. */
  readonly name: string;
  /** The model asked for, when the provider has one (traces: `gen_ai.request.model`, O1). */
  readonly model?: string;
  /** The host and port its requests go to (traces: `server.address`, `server.port`, O1): never a path or a query. */
  readonly server?: { address: string; port: number };
  generate(request: ModelRequest, options?: GenerateOptions): Promise<AssistantMessage>;
}
