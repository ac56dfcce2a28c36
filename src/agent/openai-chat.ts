/**
 * The OpenAI-compatible Chat Completions provider (R3), which serves OpenAI,
 * Azure, Ollama, vLLM, llama.cpp, OpenRouter, Groq, Mistral, DeepSeek, xAI and
 * others: maps the conversation and tools to `/chat/completions`, streams the
 * `choices[].delta` chunks through the project's SSE parser and assembles text,
 * reasoning (`reasoning_content` / `reasoning`) and incrementally streamed tool
 * calls.
 *
 * @module
 */
import type { ProviderErrorKind } from "../errors.js";
import { MAX_PROVIDER_ERROR_MESSAGE_CHARS } from "../limits.js";
import { isRec, type Rec } from "../util/record.js";
import { textOf, toolCallsOf, type AssistantMessage, type Message, type ModelStopReason } from "./messages.js";
import type { ModelRequest, Provider } from "./provider.js";
import type { ProviderRetryOptions } from "./retry.js";
import { streamingProvider, type AnswerStream, type EmitDelta, type StreamFail } from "./sse-request.js";
import { toolCallAccumulator, type ToolCallAccumulator } from "./tool-args.js";
import { answer, byIndex, imagesOf, joinedText, lookup, optString, parseEventObject, tokens } from "./wire.js";

/** Options of {@link openaiChat}. */
export interface OpenAiChatOptions {
  /** Sent as `Authorization: Bearer …` when given (local servers need none). */
  apiKey?: string;
  /** The model, e.g. `gpt-4.1-mini` or `llama3.2`. */
  model: string;
  /** The API root that `/chat/completions` is appended to; default `https://api.openai.com/v1` (Ollama: `http://localhost:11434/v1`). */
  baseUrl?: string;
  /** `max_tokens` of each request; unset by default (the server's default applies). */
  maxTokens?: number;
  /** Ask for usage in the stream (`stream_options.include_usage`); default true. Set false for a server that refuses the option. */
  includeUsage?: boolean;
  /** Extra request headers (e.g. OpenRouter's `HTTP-Referer`). */
  headers?: Record<string, string>;
  /** The fetch to use (default the global one). */
  fetch?: typeof fetch;
  /** Retry bounds (429 / 5xx / network, before output). */
  retry?: ProviderRetryOptions;
  /** Idle bound of the stream (default `DEFAULT_PROVIDER_IDLE_TIMEOUT_MS`). */
  idleTimeoutMs?: number;
}

/** Prefix of a tool result with `isError` (the wire format has no error flag). */
export const OPENAI_TOOL_ERROR_PREFIX = "Error: ";

/** The Chat Completions `messages` for a conversation and system prompt. */
export function openaiMessages(messages: readonly Message[], system?: string): Rec[] {
  const out: Rec[] = [];
  if (system) out.push({ role: "system", content: system });
  // Tool messages carry text only: images of a run of tool results follow it in one user message.
  let pendingImages: Rec[] = [];
  const flushImages = (): void => {
    if (pendingImages.length === 0) return;
    out.push({ role: "user", content: [{ type: "text", text: "Images returned by the tool calls above:" }, ...pendingImages] });
    pendingImages = [];
  };
  const imageUrl = (mimeType: string, data: string): Rec => ({ type: "image_url", image_url: { url: `data:${mimeType};base64,${data}` } });
  for (const m of messages) {
    if (m.role !== "tool") flushImages();
    if (m.role === "user") {
      // Text only is sent as a string; with images, as parts.
      const content = imagesOf(m.content).length === 0
        ? joinedText(m.content)
        : m.content.map((p) => (p.type === "text" ? { type: "text", text: p.text } : imageUrl(p.mimeType, p.data)));
      out.push({ role: "user", content });
    } else if (m.role === "tool") {
      const text = joinedText(m.content);
      const images = imagesOf(m.content);
      const body = text !== "" ? text : images.length > 0 ? `[${images.length} image(s), shown below]` : "";
      out.push({ role: "tool", tool_call_id: m.toolCallId, content: (m.isError ? OPENAI_TOOL_ERROR_PREFIX : "") + body });
      for (const img of images) pendingImages.push(imageUrl(img.mimeType, img.data));
    } else {
      const text = textOf(m);
      const calls = toolCallsOf(m);
      if (text === "" && calls.length === 0) continue; // nothing the wire format can carry (a refusal, thinking only)
      const msg: Rec = { role: "assistant", content: text === "" ? null : text };
      if (calls.length > 0) {
        msg.tool_calls = calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.arguments) } }));
      }
      out.push(msg);
    }
  }
  flushImages();
  return out;
}

/** The request body of one Chat Completions call. */
export function openaiBody(request: ModelRequest, options: Pick<OpenAiChatOptions, "model" | "maxTokens" | "includeUsage">): Rec {
  const body: Rec = { model: options.model, stream: true, messages: openaiMessages(request.messages, request.system) };
  if (options.includeUsage ?? true) body.stream_options = { include_usage: true };
  if (options.maxTokens !== undefined) body.max_tokens = options.maxTokens;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.inputSchema } }));
  }
  return body;
}

const FINISH: Record<string, ModelStopReason> = {
  stop: "end",
  tool_calls: "tool_use",
  function_call: "tool_use",
  length: "max_tokens",
  content_filter: "refusal",
};

/** The kind of an in-stream error, from its code and message. */
function streamedErrorKind(code: string, message: string): ProviderErrorKind | undefined {
  if (/context_length|context length/i.test(`${code} ${message}`)) return "context_overflow";
  if (/rate_limit|429/.test(code)) return "rate_limited";
  if (/overload|server_error|5\d\d/.test(code)) return "overloaded";
  return undefined;
}

/** Assembles one streamed answer from Chat Completions chunks. */
function chatStream(emit: EmitDelta, fail: StreamFail): AnswerStream {
  /** The text and the thinking so far. */
  const streamed = { text: "", thinking: "" };
  const calls = new Map<number, ToolCallAccumulator>();
  let model: string | undefined;
  let usage: Rec = {};
  let stop: ModelStopReason | undefined;
  const piece = (kind: "text" | "thinking", text: string | undefined): void => {
    if (text) streamed[kind] += text;
    emit(kind, text);
  };
  const delta = (d: Rec): void => {
    piece("thinking", optString(d.reasoning_content) ?? optString(d.reasoning));
    piece("text", optString(d.content));
    const list = d.tool_calls ?? [];
    if (!Array.isArray(list)) fail("streamed tool_calls that is not an array");
    list.forEach((call: unknown, position: number) => {
      if (!isRec(call)) fail("streamed a tool call that is not an object");
      const index = typeof call.index === "number" && Number.isSafeInteger(call.index) ? call.index : position;
      const fn = isRec(call.function) ? call.function : {};
      let acc = calls.get(index);
      if (!acc) calls.set(index, (acc = toolCallAccumulator("", "")));
      // Later pieces may repeat the id or name as "" (Alibaba, Mistral): only a non-empty value counts.
      acc.id ||= optString(call.id) ?? "";
      acc.name ||= optString(fn.name) ?? "";
      acc.append(optString(fn.arguments) ?? "");
    });
  };
  return {
    /** Whether a finish_reason arrived (a stream may end without `[DONE]` after it). */
    finished: () => stop !== undefined,
    handle(data) {
      if (data.trim() === "[DONE]") return true;
      const chunk = parseEventObject(data, fail);
      const { error } = chunk;
      if (error != null) {
        const e = isRec(error) ? error : {};
        const message = (optString(e.message) ?? (typeof error === "string" ? error : "unknown error")).slice(0, MAX_PROVIDER_ERROR_MESSAGE_CHARS);
        fail(`streamed an error: ${message}`, streamedErrorKind(String(e.code ?? e.type ?? ""), message));
      }
      model = optString(chunk.model) || model;
      if (isRec(chunk.usage)) usage = chunk.usage;
      else if (isRec(chunk.x_groq) && isRec(chunk.x_groq.usage)) usage = chunk.x_groq.usage;
      const choices = chunk.choices ?? [];
      if (!Array.isArray(choices)) fail("streamed a chunk whose choices is not an array");
      for (const choice of choices) {
        if (!isRec(choice) || (choice.index !== undefined && choice.index !== 0)) continue; // one answer is asked for
        if (isRec(choice.delta)) delta(choice.delta);
        if (typeof choice.finish_reason === "string") stop = lookup(FINISH, choice.finish_reason) ?? "other";
      }
    },
    message() {
      const content: AssistantMessage["content"] = [];
      for (const type of ["thinking", "text"] as const) if (streamed[type] !== "") content.push({ type, text: streamed[type] });
      for (const [index, acc] of byIndex(calls)) {
        if (!acc.name) fail(`streamed tool call ${index} without a name`);
        acc.id ||= `call_${crypto.randomUUID()}`; // some local servers send no id
        content.push(acc.finish());
      }
      const details = isRec(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
      return answer(content, stop ?? "other", model, {
        inputTokens: tokens(usage.prompt_tokens),
        outputTokens: tokens(usage.completion_tokens),
        cacheReadTokens: tokens(details.cached_tokens),
        cacheWriteTokens: 0,
      });
    },
  };
}

/**
 * A provider for any OpenAI-compatible Chat Completions endpoint, streaming (R3).
 *
 * Tool results with `isError` are sent prefixed with `OPENAI_TOOL_ERROR_PREFIX`
 * (the format has no error flag); images from tool results follow the results
 * in a user message (tool messages carry text only). Thinking is shown in events
 * but not sent back. Retries 429 / 5xx / network failures before any output,
 * bounded, honouring `retry-after-ms` / `retry-after`. Redirects are refused.
 *
 * @throws from `generate`: ProviderError (`provider`) with kind `auth`,
 * `rate_limited`, `overloaded`, `context_overflow`, `invalid_request` or
 * `bad_response`; TransportError (`transport`); TimeoutError (`timeout`);
 * CancelledError (`cancelled`).
 *
 * @example
 * ```ts
 * const provider = openaiChat({ model: "llama3.2", baseUrl: "http://localhost:11434/v1" }); // Ollama
 * const result = await run({ provider, identity, input: "Hello" });
 * ```
 */
export function openaiChat(options: OpenAiChatOptions): Provider {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey !== undefined) headers.authorization = `Bearer ${options.apiKey}`;
  return streamingProvider(
    "openai-chat",
    options,
    "https://api.openai.com/v1",
    "/chat/completions",
    headers,
    (request) => openaiBody(request, options),
    chatStream,
    options.model,
  );
}
