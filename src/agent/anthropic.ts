/**
 * The Anthropic Messages provider (R3): maps the conversation, the system prompt
 * and the tools to the Messages API, streams the answer
 * (`message_start`, `content_block_*`, `message_delta`, `message_stop`, `ping`,
 * `error`) through the project's SSE parser and assembles text, thinking (with
 * its signature) and tool calls.
 *
 * @module
 */
import { ProviderError, type ProviderErrorKind } from "../errors.js";
import { DEFAULT_ANTHROPIC_MAX_TOKENS } from "../limits.js";
import type { ImagePart, TextPart } from "../tools/types.js";
import type { AssistantMessage, Message, ModelStopReason, ThinkingPart, ToolCallPart } from "./messages.js";
import type { GenerateOptions, ModelRequest, Provider } from "./provider.js";
import { withRetries, type ProviderRetryOptions } from "./retry.js";
import { sseRequest } from "./sse-request.js";
import { toolCallAccumulator, type ToolCallAccumulator } from "./tool-args.js";
import { badResponse, isRec, optString, parseEventObject, tokens, type Rec } from "./wire.js";

/** Options of {@link anthropic}. */
export interface AnthropicOptions {
  /** The API key, sent as `x-api-key`. */
  apiKey: string;
  /** The model, e.g. `claude-sonnet-4-5`. */
  model: string;
  /** Default `https://api.anthropic.com`. */
  baseUrl?: string;
  /** `max_tokens` of each request (default `DEFAULT_ANTHROPIC_MAX_TOKENS`). */
  maxTokens?: number;
  /** The fetch to use (default the global one). */
  fetch?: typeof fetch;
  /** Retry bounds (429 / 5xx / network, before output). */
  retry?: ProviderRetryOptions;
  /** Idle bound of the stream (default `DEFAULT_PROVIDER_IDLE_TIMEOUT_MS`). */
  idleTimeoutMs?: number;
}

const API_VERSION = "2023-06-01";

type Block = { type: "text"; text: string }
  | { type: "image"; source: { type: "base64"; media_type: string; data: string } }
  | Rec;

function mediaBlocks(parts: ReadonlyArray<TextPart | ImagePart>): Block[] {
  const out: Block[] = [];
  for (const p of parts) {
    if (p.type === "image") out.push({ type: "image", source: { type: "base64", media_type: p.mimeType, data: p.data } });
    else if (p.text !== "") out.push({ type: "text", text: p.text }); // the API refuses empty text blocks
  }
  return out;
}

/** The Messages API `messages` for a conversation; consecutive same-role turns are merged, as the API requires alternation. */
export function anthropicMessages(messages: readonly Message[]): Array<{ role: "user" | "assistant"; content: Block[] }> {
  const out: Array<{ role: "user" | "assistant"; content: Block[] }> = [];
  const push = (role: "user" | "assistant", blocks: Block[]): void => {
    if (blocks.length === 0) return;
    const last = out.at(-1);
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === "user") push("user", mediaBlocks(m.content));
    else if (m.role === "tool") {
      const block: Rec = { type: "tool_result", tool_use_id: m.toolCallId, is_error: m.isError };
      const content = mediaBlocks(m.content);
      if (content.length > 0) block.content = content;
      push("user", [block]);
    } else {
      const blocks: Block[] = [];
      for (const p of m.content) {
        if (p.type === "text") {
          if (p.text !== "") blocks.push({ type: "text", text: p.text });
        } else if (p.type === "thinking") {
          // Only signed (or redacted) thinking can be sent back; unsigned thinking from another provider is dropped.
          if (p.redacted !== undefined) blocks.push({ type: "redacted_thinking", data: p.redacted });
          else if (p.signature !== undefined) blocks.push({ type: "thinking", thinking: p.text, signature: p.signature });
        } else blocks.push({ type: "tool_use", id: p.id, name: p.name, input: p.arguments });
      }
      push("assistant", blocks);
    }
  }
  return out;
}

/** The request body of one Messages API call. */
export function anthropicBody(request: ModelRequest, model: string, maxTokens: number): Rec {
  const body: Rec = { model, max_tokens: maxTokens, stream: true, messages: anthropicMessages(request.messages) };
  if (request.system !== undefined && request.system !== "") body.system = request.system;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));
  }
  return body;
}

const STOP: Record<string, ModelStopReason> = {
  end_turn: "end",
  stop_sequence: "end",
  tool_use: "tool_use",
  max_tokens: "max_tokens",
  refusal: "refusal",
};

// In-stream `error` event types (Messages API "Errors").
const ERROR_KINDS: Record<string, ProviderErrorKind> = {
  overloaded_error: "overloaded",
  api_error: "overloaded",
  rate_limit_error: "rate_limited",
  authentication_error: "auth",
  permission_error: "auth",
  invalid_request_error: "invalid_request",
  request_too_large: "context_overflow",
};

type Open =
  | { type: "text"; text: string }
  | { type: "thinking"; part: ThinkingPart }
  | { type: "tool"; acc: ToolCallAccumulator }
  | { type: "ignored" };

/** Assembles one streamed answer from the Messages API events. */
class AnthropicStream {
  readonly #name: string;
  readonly #onDelta: GenerateOptions["onDelta"];
  #id: string | undefined;
  #model: string | undefined;
  readonly #blocks = new Map<number, Open>();
  #input = 0;
  #cacheRead = 0;
  #cacheWrite = 0;
  #output = 0;
  #stop: ModelStopReason = "other";
  /** True once a delta reached the caller (no retry after that). */
  output = false;

  constructor(name: string, onDelta: GenerateOptions["onDelta"]) {
    this.#name = name;
    this.#onDelta = onDelta;
  }

  #delta(kind: "text" | "thinking", text: string): void {
    if (text === "") return;
    this.output = true;
    this.#onDelta?.({ kind, text });
  }

  #usage(u: unknown): void {
    if (!isRec(u)) return;
    if (u.input_tokens !== undefined && u.input_tokens !== null) this.#input = tokens(u.input_tokens);
    if (u.cache_read_input_tokens !== undefined && u.cache_read_input_tokens !== null) this.#cacheRead = tokens(u.cache_read_input_tokens);
    if (u.cache_creation_input_tokens !== undefined && u.cache_creation_input_tokens !== null) this.#cacheWrite = tokens(u.cache_creation_input_tokens);
    if (u.output_tokens !== undefined && u.output_tokens !== null) this.#output = tokens(u.output_tokens);
  }

  #block(e: Rec): Open {
    const index = e.index;
    const open = typeof index === "number" ? this.#blocks.get(index) : undefined;
    if (!open) badResponse(this.#name, `streamed ${String(e.type)} for a content block that was not started`);
    return open;
  }

  /** Handles one event; returns "stop" at `message_stop`. */
  handle(data: string): "stop" | void {
    const e = parseEventObject(this.#name, data);
    switch (e.type) {
      case "message_start": {
        const m = e.message;
        if (!isRec(m)) badResponse(this.#name, "message_start without a message");
        const id = optString(m.id);
        if (this.#id !== undefined) {
          // A repeated message_start for the same message before any content is harmless;
          // anything else means two answers were spliced into one stream.
          if (id === this.#id && this.#blocks.size === 0) return;
          badResponse(this.#name, "streamed a second message_start inside a message (the stream was spliced)");
        }
        this.#id = id ?? "";
        this.#model = optString(m.model);
        this.#usage(m.usage);
        return;
      }
      case "content_block_start": {
        if (this.#id === undefined) badResponse(this.#name, "streamed a content block before message_start");
        const index = e.index;
        const b = e.content_block;
        if (typeof index !== "number" || !Number.isSafeInteger(index) || index < 0 || !isRec(b)) {
          badResponse(this.#name, "content_block_start without a valid index and content_block");
        }
        if (this.#blocks.has(index)) badResponse(this.#name, `content block ${index} started twice`);
        if (b.type === "text") {
          this.#blocks.set(index, { type: "text", text: "" });
          this.#append(index, "text", optString(b.text) ?? "");
        } else if (b.type === "thinking") {
          this.#blocks.set(index, { type: "thinking", part: { type: "thinking", text: "" } });
          this.#append(index, "thinking", optString(b.thinking) ?? "");
          const sig = optString(b.signature);
          if (sig) this.#signature(index, sig);
        } else if (b.type === "redacted_thinking") {
          this.#blocks.set(index, { type: "thinking", part: { type: "thinking", text: "", redacted: optString(b.data) ?? "" } });
        } else if (b.type === "tool_use") {
          const id = optString(b.id);
          const name = optString(b.name);
          if (!id || !name) badResponse(this.#name, "tool_use block without id and name");
          const acc = toolCallAccumulator(id, name);
          // Streamed tool_use blocks start with `input: {}` and send the JSON in deltas.
          if (isRec(b.input) && Object.keys(b.input).length > 0) acc.append(JSON.stringify(b.input));
          this.#blocks.set(index, { type: "tool", acc });
        } else {
          this.#blocks.set(index, { type: "ignored" }); // a block kind this adapter does not model (e.g. fallback notices)
        }
        return;
      }
      case "content_block_delta": {
        const open = this.#block(e);
        const d = e.delta;
        if (!isRec(d)) badResponse(this.#name, "content_block_delta without a delta");
        const index = e.index as number;
        if (d.type === "text_delta" && open.type === "text") this.#append(index, "text", optString(d.text) ?? "");
        else if (d.type === "thinking_delta" && open.type === "thinking") this.#append(index, "thinking", optString(d.thinking) ?? "");
        else if (d.type === "signature_delta" && open.type === "thinking") this.#signature(index, optString(d.signature) ?? "");
        else if (d.type === "input_json_delta" && open.type === "tool") open.acc.append(optString(d.partial_json) ?? "");
        else if (d.type === "text_delta" || d.type === "thinking_delta" || d.type === "input_json_delta") {
          badResponse(this.#name, `streamed ${d.type} into a ${open.type} block`);
        }
        return;
      }
      case "content_block_stop":
        this.#block(e);
        return;
      case "message_delta": {
        const d = e.delta;
        if (isRec(d) && typeof d.stop_reason === "string") this.#stop = STOP[d.stop_reason] ?? "other";
        this.#usage(e.usage);
        return;
      }
      case "message_stop":
        if (this.#id === undefined) badResponse(this.#name, "streamed message_stop before message_start");
        return "stop";
      case "error": {
        const err = isRec(e.error) ? e.error : {};
        const type = optString(err.type) ?? "";
        const message = (optString(err.message) ?? type).slice(0, 500);
        throw new ProviderError(ERROR_KINDS[type] ?? "bad_response", this.#name, `streamed an error: ${message}`);
      }
      default:
        return; // ping and event types added after this adapter was written
    }
  }

  #append(index: number, kind: "text" | "thinking", text: string): void {
    const open = this.#blocks.get(index);
    if (open?.type === "text") open.text += text;
    else if (open?.type === "thinking") open.part.text += text;
    this.#delta(kind, text);
  }

  #signature(index: number, signature: string): void {
    const open = this.#blocks.get(index);
    if (open?.type === "thinking") open.part.signature = (open.part.signature ?? "") + signature;
  }

  /** The assembled message. */
  message(): AssistantMessage {
    const content: AssistantMessage["content"] = [];
    for (const index of [...this.#blocks.keys()].sort((a, b) => a - b)) {
      const open = this.#blocks.get(index);
      if (open?.type === "text") content.push({ type: "text", text: open.text });
      else if (open?.type === "thinking") content.push(open.part);
      else if (open?.type === "tool") content.push(open.acc.finish() satisfies ToolCallPart);
    }
    const message: AssistantMessage = {
      role: "assistant",
      content,
      stopReason: this.#stop,
      usage: {
        inputTokens: this.#input + this.#cacheRead + this.#cacheWrite,
        outputTokens: this.#output,
        cacheReadTokens: this.#cacheRead,
        cacheWriteTokens: this.#cacheWrite,
      },
    };
    if (this.#model !== undefined) message.model = this.#model;
    return message;
  }
}

/**
 * A provider for the Anthropic Messages API, streaming (R3).
 *
 * Retries 429 / 5xx / 529 / network failures that happen before any output, at
 * most `retry.maxAttempts` attempts in all, honouring `retry-after`. Redirects
 * are refused.
 *
 * @throws from `generate`: ProviderError (`provider`) with kind `auth`,
 * `rate_limited`, `overloaded`, `context_overflow`, `invalid_request` or
 * `bad_response`; TransportError (`transport`); TimeoutError (`timeout`) when the
 * stream idles; CancelledError (`cancelled`).
 *
 * @example
 * ```ts
 * const provider = anthropic({ apiKey: env.ANTHROPIC_API_KEY, model: "claude-sonnet-4-5" });
 * const result = await run({ provider, tools: connection.tools, identity, input: "Find product A" });
 * ```
 */
export function anthropic(options: AnthropicOptions): Provider {
  const name = "anthropic";
  const url = `${(options.baseUrl ?? "https://api.anthropic.com").replace(/\/+$/, "")}/v1/messages`;
  const maxTokens = options.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS;
  return {
    name,
    async generate(request: ModelRequest, generateOptions: GenerateOptions = {}): Promise<AssistantMessage> {
      const body = anthropicBody(request, options.model, maxTokens);
      let stream = new AnthropicStream(name, generateOptions.onDelta);
      return withRetries(
        async () => {
          stream = new AnthropicStream(name, generateOptions.onDelta);
          await sseRequest({
            provider: name,
            fetch: options.fetch ?? globalThis.fetch,
            url,
            headers: { "x-api-key": options.apiKey, "anthropic-version": API_VERSION },
            body,
            signal: generateOptions.signal,
            idleTimeoutMs: options.idleTimeoutMs,
            onEvent: (event) => stream.handle(event.data),
          });
          return stream.message();
        },
        { signal: generateOptions.signal, hasOutput: () => stream.output },
        options.retry,
      );
    },
  };
}
