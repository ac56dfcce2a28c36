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
import { ProviderError } from "../errors.js";
import { isRec, type Rec } from "../util/record.js";
import { toolCallsOf, type AssistantMessage, type Message, type ModelStopReason } from "./messages.js";
import type { GenerateOptions, ModelRequest, Provider } from "./provider.js";
import type { ProviderRetryOptions } from "./retry.js";
import { streamingProvider, type AnswerStream } from "./sse-request.js";
import { toolCallAccumulator, type ToolCallAccumulator } from "./tool-args.js";
import { badResponse, imagesOf, joinedText, optString, parseEventObject, tokens } from "./wire.js";

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
  if (system !== undefined && system !== "") out.push({ role: "system", content: system });
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
      const images = imagesOf(m.content);
      if (images.length === 0) out.push({ role: "user", content: joinedText(m.content) });
      else {
        out.push({
          role: "user",
          content: m.content.map((p) => (p.type === "text" ? { type: "text", text: p.text } : imageUrl(p.mimeType, p.data))),
        });
      }
    } else if (m.role === "tool") {
      const text = joinedText(m.content);
      const images = imagesOf(m.content);
      const body = text !== "" ? text : images.length > 0 ? `[${images.length} image(s), shown below]` : "";
      out.push({ role: "tool", tool_call_id: m.toolCallId, content: (m.isError ? OPENAI_TOOL_ERROR_PREFIX : "") + body });
      for (const img of images) pendingImages.push(imageUrl(img.mimeType, img.data));
    } else {
      const text = m.content.map((p) => (p.type === "text" ? p.text : "")).join("");
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

/** Assembles one streamed answer from Chat Completions chunks. */
class ChatStream implements AnswerStream {
  readonly #name: string;
  readonly #onDelta: GenerateOptions["onDelta"];
  /** The text and the thinking so far. */
  readonly #streamed = { text: "", thinking: "" };
  readonly #calls = new Map<number, ToolCallAccumulator>();
  #model: string | undefined;
  #usage: Rec | undefined;
  #stop: ModelStopReason | undefined;
  /** True once a delta reached the caller (no retry after that). */
  output = false;

  constructor(name: string, onDelta: GenerateOptions["onDelta"]) {
    this.#name = name;
    this.#onDelta = onDelta;
  }

  /** Whether a finish_reason arrived (a stream may end without `[DONE]` after it). */
  get finished(): boolean {
    return this.#stop !== undefined;
  }

  /** Handles one event; returns "stop" at `[DONE]`. */
  handle(data: string): "stop" | void {
    if (data.trim() === "[DONE]") return "stop";
    const chunk = parseEventObject(this.#name, data);
    if (chunk.error !== undefined && chunk.error !== null) this.#streamedError(chunk.error);
    const model = optString(chunk.model);
    if (model) this.#model = model;
    if (isRec(chunk.usage)) this.#usage = chunk.usage;
    else if (isRec(chunk.x_groq) && isRec(chunk.x_groq.usage)) this.#usage = chunk.x_groq.usage;
    const choices = chunk.choices;
    if (choices === undefined || choices === null) return;
    if (!Array.isArray(choices)) badResponse(this.#name, "streamed a chunk whose choices is not an array");
    for (const choice of choices) {
      if (!isRec(choice) || (choice.index !== undefined && choice.index !== 0)) continue; // one answer is asked for
      if (isRec(choice.delta)) this.#delta(choice.delta);
      if (typeof choice.finish_reason === "string") this.#stop = FINISH[choice.finish_reason] ?? "other";
    }
  }

  #streamedError(error: unknown): never {
    const e = isRec(error) ? error : {};
    const message = (optString(e.message) ?? (typeof error === "string" ? error : "unknown error")).slice(0, 500);
    const code = String(e.code ?? e.type ?? "");
    const kind = /context_length|context length/i.test(`${code} ${message}`)
      ? "context_overflow"
      : /rate_limit|429/.test(code)
        ? "rate_limited"
        : /overload|server_error|5\d\d/.test(code)
          ? "overloaded"
          : "bad_response";
    throw new ProviderError(kind, this.#name, `streamed an error: ${message}`);
  }

  #piece(kind: "text" | "thinking", text: string | undefined): void {
    if (!text) return;
    this.#streamed[kind] += text;
    this.output = true;
    this.#onDelta?.({ kind, text });
  }

  #delta(d: Rec): void {
    this.#piece("thinking", optString(d.reasoning_content) ?? optString(d.reasoning));
    this.#piece("text", optString(d.content));
    if (d.tool_calls === undefined || d.tool_calls === null) return;
    if (!Array.isArray(d.tool_calls)) badResponse(this.#name, "streamed tool_calls that is not an array");
    d.tool_calls.forEach((call: unknown, position: number) => {
      if (!isRec(call)) badResponse(this.#name, "streamed a tool call that is not an object");
      const index = typeof call.index === "number" && Number.isSafeInteger(call.index) ? call.index : position;
      const fn = isRec(call.function) ? call.function : {};
      let acc = this.#calls.get(index);
      if (!acc) {
        acc = toolCallAccumulator("", "");
        this.#calls.set(index, acc);
      }
      // Later pieces may repeat the id or name as "" (Alibaba, Mistral): only a non-empty value counts.
      const id = optString(call.id);
      if (id && !acc.id) acc.id = id;
      const name = optString(fn.name);
      if (name && !acc.name) acc.name = name;
      acc.append(optString(fn.arguments) ?? "");
    });
  }

  /** The assembled message. */
  message(): AssistantMessage {
    const content: AssistantMessage["content"] = [];
    for (const type of ["thinking", "text"] as const) if (this.#streamed[type] !== "") content.push({ type, text: this.#streamed[type] });
    for (const [index, acc] of [...this.#calls].sort(([a], [b]) => a - b)) {
      if (!acc.name) badResponse(this.#name, `streamed tool call ${index} without a name`);
      if (!acc.id) acc.id = `call_${crypto.randomUUID()}`; // some local servers send no id
      content.push(acc.finish());
    }
    const u = this.#usage ?? {};
    const details = isRec(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
    const message: AssistantMessage = {
      role: "assistant",
      content,
      stopReason: this.#stop ?? "other",
      usage: {
        inputTokens: tokens(u.prompt_tokens),
        outputTokens: tokens(u.completion_tokens),
        cacheReadTokens: tokens(details.cached_tokens),
        cacheWriteTokens: 0,
      },
    };
    if (this.#model !== undefined) message.model = this.#model;
    return message;
  }
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
    (onDelta) => new ChatStream("openai-chat", onDelta),
  );
}
