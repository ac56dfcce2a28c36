/**
 * The Anthropic Messages provider (R3): maps the conversation, the system prompt
 * and the tools to the Messages API, streams the answer
 * (`message_start`, `content_block_*`, `message_delta`, `message_stop`, `ping`,
 * `error`) through the project's SSE parser and assembles text, thinking (with
 * its signature) and tool calls.
 *
 * @module
 */
import type { ProviderErrorKind } from "../errors.js";
import { DEFAULT_ANTHROPIC_MAX_TOKENS, MAX_PROVIDER_ERROR_MESSAGE_CHARS } from "../limits.js";
import type { ImagePart, TextPart } from "../tools/types.js";
import { isRec, type Rec } from "../util/record.js";
import type { AssistantMessage, Message, ModelStopReason, ThinkingPart, ToolCallPart } from "./messages.js";
import type { ModelRequest, Provider } from "./provider.js";
import type { ProviderRetryOptions } from "./retry.js";
import { streamingProvider, type AnswerStream, type EmitDelta, type StreamFail } from "./sse-request.js";
import { toolCallAccumulator, type ToolCallAccumulator } from "./tool-args.js";
import { answer, byIndex, lookup, optString, parseEventObject, tokens } from "./wire.js";

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

/** The Messages API blocks of message parts. */
function blocksOf(parts: ReadonlyArray<TextPart | ImagePart | ThinkingPart | ToolCallPart>): Block[] {
  const out: Block[] = [];
  for (const p of parts) {
    if (p.type === "text") {
      if (p.text !== "") out.push({ type: "text", text: p.text }); // the API refuses empty text blocks
    } else if (p.type === "image") out.push({ type: "image", source: { type: "base64", media_type: p.mimeType, data: p.data } });
    else if (p.type === "thinking") {
      // Only signed (or redacted) thinking can be sent back; unsigned thinking from another provider is dropped.
      if (p.redacted !== undefined) out.push({ type: "redacted_thinking", data: p.redacted });
      else if (p.signature !== undefined) out.push({ type: "thinking", thinking: p.text, signature: p.signature });
    } else out.push({ type: "tool_use", id: p.id, name: p.name, input: p.arguments });
  }
  return out;
}

/** The Messages API `messages` for a conversation; consecutive same-role turns are merged, as the API requires alternation. */
export function anthropicMessages(messages: readonly Message[]): Array<{ role: "user" | "assistant"; content: Block[] }> {
  const out: Array<{ role: "user" | "assistant"; content: Block[] }> = [];
  for (const m of messages) {
    let role: "user" | "assistant" = "user";
    let blocks: Block[];
    if (m.role === "tool") {
      const block: Rec = { type: "tool_result", tool_use_id: m.toolCallId, is_error: m.isError };
      const content = blocksOf(m.content);
      if (content.length > 0) block.content = content;
      blocks = [block];
    } else {
      role = m.role;
      blocks = blocksOf(m.content);
    }
    if (blocks.length === 0) continue;
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  }
  return out;
}

/** The request body of one Messages API call. */
export function anthropicBody(request: ModelRequest, model: string, maxTokens: number): Rec {
  const body: Rec = { model, max_tokens: maxTokens, stream: true, messages: anthropicMessages(request.messages) };
  if (request.system) body.system = request.system;
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

type Open = TextPart | ThinkingPart | { type: "tool"; acc: ToolCallAccumulator } | { type: "ignored" };

// The usage counts of the Messages API, in the order anthropicStream keeps them.
const USAGE = ["input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens"] as const;

/** Assembles one streamed answer from the Messages API events. */
function anthropicStream(emit: EmitDelta, fail: StreamFail): AnswerStream {
  let id: string | undefined;
  let model: string | undefined;
  let stop: ModelStopReason = "other";
  const blocks = new Map<number, Open>();
  /** Input, cache read, cache write and output tokens (the order of USAGE). */
  const usage: [number, number, number, number] = [0, 0, 0, 0];
  const count = (u: unknown): void => {
    if (isRec(u)) USAGE.forEach((k, i) => u[k] != null && (usage[i] = tokens(u[k])));
  };
  /** Appends streamed text or thinking to its block and forwards it. */
  const append = (open: TextPart | ThinkingPart, text: string | undefined = ""): void => {
    open.text += text;
    emit(open.type, text);
  };
  return {
    handle(data) {
      const e = parseEventObject(data, fail);
      const { type } = e;
      const bad = (why: string): never => fail(`streamed ${String(type)} ${why}`);
      const started = (): Open => {
        const index = e.index;
        return (typeof index === "number" ? blocks.get(index) : undefined) ?? bad("for a content block that was not started");
      };
      switch (type) {
        case "message_start": {
          const m = e.message;
          if (!isRec(m)) return bad("with an invalid message");
          const next = optString(m.id);
          if (id !== undefined) {
            // A repeated message_start for the same message before any content is harmless;
            // anything else means two answers were spliced into one stream.
            if (next === id && blocks.size === 0) return;
            bad("a second time (a spliced stream)");
          }
          id = next ?? "";
          model = optString(m.model);
          count(m.usage);
          return;
        }
        case "content_block_start": {
          if (id === undefined) bad("before message_start");
          const { index, content_block: b } = e;
          if (typeof index !== "number" || !Number.isSafeInteger(index) || index < 0 || !isRec(b)) {
            return bad("with an invalid index or content_block");
          }
          if (blocks.has(index)) bad(`for block ${index} twice`);
          let open: Open = { type: "ignored" }; // a block kind this adapter does not model (e.g. fallback notices)
          if (b.type === "text" || b.type === "thinking") {
            const part: TextPart | ThinkingPart = { type: b.type, text: "" };
            append(part, optString(b[b.type]));
            const signature = optString(b.signature);
            if (part.type === "thinking" && signature) part.signature = signature;
            open = part;
          } else if (b.type === "redacted_thinking") {
            open = { type: "thinking", text: "", redacted: optString(b.data) ?? "" };
          } else if (b.type === "tool_use") {
            const callId = optString(b.id);
            const tool = optString(b.name);
            if (!callId || !tool) return bad("with an invalid tool_use id or name");
            const acc = toolCallAccumulator(callId, tool);
            // Streamed tool_use blocks start with `input: {}` and send the JSON in deltas.
            if (isRec(b.input) && Object.keys(b.input).length > 0) acc.append(JSON.stringify(b.input));
            open = { type: "tool", acc };
          }
          blocks.set(index, open);
          return;
        }
        case "content_block_delta": {
          const open = started();
          const d = e.delta;
          if (!isRec(d)) return bad("with an invalid delta");
          if (d.type === "text_delta" && open.type === "text") append(open, optString(d.text));
          else if (d.type === "thinking_delta" && open.type === "thinking") append(open, optString(d.thinking));
          else if (d.type === "signature_delta" && open.type === "thinking") open.signature = (open.signature ?? "") + (optString(d.signature) ?? "");
          else if (d.type === "input_json_delta" && open.type === "tool") open.acc.append(optString(d.partial_json) ?? "");
          else if (d.type === "text_delta" || d.type === "thinking_delta" || d.type === "input_json_delta") {
            bad(`with ${d.type} into a ${open.type} block`);
          }
          return;
        }
        case "content_block_stop":
          started();
          return;
        case "message_delta": {
          const d = e.delta;
          if (isRec(d) && typeof d.stop_reason === "string") stop = lookup(STOP, d.stop_reason) ?? "other";
          count(e.usage);
          return;
        }
        case "message_stop":
          if (id === undefined) bad("before message_start");
          return true;
        case "error": {
          const err = isRec(e.error) ? e.error : {};
          const kind = optString(err.type) ?? "";
          return fail(`streamed an error: ${(optString(err.message) ?? kind).slice(0, MAX_PROVIDER_ERROR_MESSAGE_CHARS)}`, lookup(ERROR_KINDS, kind));
        }
        default:
          return; // ping and event types added after this adapter was written
      }
    },
    message() {
      const content: AssistantMessage["content"] = [];
      for (const [, open] of byIndex(blocks)) {
        if (open.type === "tool") content.push(open.acc.finish());
        else if (open.type !== "ignored") content.push(open);
      }
      const [input, cacheReadTokens, cacheWriteTokens, outputTokens] = usage;
      return answer(content, stop, model, { inputTokens: input + cacheReadTokens + cacheWriteTokens, outputTokens, cacheReadTokens, cacheWriteTokens });
    },
  };
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
  const maxTokens = options.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS;
  return streamingProvider(
    "anthropic",
    options,
    "https://api.anthropic.com",
    "/v1/messages",
    { "x-api-key": options.apiKey, "anthropic-version": API_VERSION },
    (request) => anthropicBody(request, options.model, maxTokens),
    anthropicStream,
    options.model,
  );
}
