/**
 * The conversation model of the agent loop (R1): user, assistant and tool-result
 * messages made of plain JSON data, so a host can store a run's messages and
 * resume from them. {@link parseMessages} validates a stored list before use.
 *
 * @module
 */
import { ValidationError } from "../errors.js";
import type { ImagePart, TextPart, ToolResultPart } from "../tools/types.js";
import { isRec, type Rec } from "../util/record.js";

/** What the model thought before answering (R2 "thinking"). */
export interface ThinkingPart {
  type: "thinking";
  /** The thinking text ("" when the provider redacted it). */
  text: string;
  /** The provider's signature over the thinking, sent back unchanged on the next turn. */
  signature?: string;
  /** An opaque redacted thinking payload, sent back unchanged on the next turn. */
  redacted?: string;
}

/**
 * A tool call the model made. `arguments` is always an object; when the model's
 * argument text was not a JSON object, `arguments` is `{}` and `argumentsError`
 * says why, and the loop answers the call with an error result (R3).
 */
export interface ToolCallPart {
  type: "tool_call";
  /** The provider's call id; tool results refer to it. */
  id: string;
  /** The tool's model-facing name. */
  name: string;
  arguments: Record<string, unknown>;
  argumentsError?: string;
}

/** Why a model stopped answering, normalised across providers. */
export type ModelStopReason = "end" | "tool_use" | "max_tokens" | "refusal" | "other";

/**
 * Tokens used. `inputTokens` counts every input token, cached ones included;
 * `cacheReadTokens` / `cacheWriteTokens` are the cached share when the provider says.
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** A message from the user (or the host speaking for them). */
export interface UserMessage {
  role: "user";
  content: Array<TextPart | ImagePart>;
}

/** A model's answer: text, thinking and tool calls, in the order the model produced them. */
export interface AssistantMessage {
  role: "assistant";
  content: Array<TextPart | ThinkingPart | ToolCallPart>;
  /** Why the model stopped. */
  stopReason?: ModelStopReason;
  /** The model that answered, as the provider reported it. */
  model?: string;
  /** Tokens this answer used. */
  usage?: Usage;
}

/** The result of one tool call, sent to the model with `isError` (R4). */
export interface ToolResultMessage {
  role: "tool";
  /** The {@link ToolCallPart.id} this answers. */
  toolCallId: string;
  toolName: string;
  content: ToolResultPart[];
  isError: boolean;
}

/** One message of a conversation. */
export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/** Usage with every count zero. */
export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
}

const USAGE_KEYS = ["inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens"] as const;

/** `a + b`, count by count. */
export function addUsage(a: Usage, b: Usage | undefined): Usage {
  if (!b) return a;
  const sum = emptyUsage();
  for (const k of USAGE_KEYS) sum[k] = a[k] + b[k];
  return sum;
}

/** A user message with one text part. */
export function userMessage(text: string): UserMessage {
  return { role: "user", content: [{ type: "text", text }] };
}

/** The text parts of a message, joined in order (thinking and tool calls excluded). */
export function textOf(message: Message): string {
  let out = "";
  for (const part of message.content) if (part.type === "text") out += part.text;
  return out;
}

/** The last assistant message of a conversation, if any. */
export function lastAnswer(messages: readonly Message[]): AssistantMessage | undefined {
  let last: AssistantMessage | undefined;
  for (const m of messages) if (m.role === "assistant") last = m;
  return last;
}

/** The tool calls of an assistant message, in order. */
export function toolCallsOf(message: AssistantMessage): ToolCallPart[] {
  return message.content.filter((p): p is ToolCallPart => p.type === "tool_call");
}

// ── Validation of stored messages ─────────────────────────────────────────────

function fail(where: string, what: string): never {
  throw new ValidationError(`${where}: ${what}`, [{ instancePath: where, schemaPath: "", message: what }]);
}
function str(v: Rec, key: string, where: string): string {
  const s = v[key];
  return typeof s === "string" ? s : fail(`${where}/${key}`, "must be a string");
}
/** `target` with the optional string members `keys` of `v` copied, in order. */
function withOpt<T extends object>(target: T, v: Rec, where: string, ...keys: string[]): T {
  for (const k of keys) if (v[k] !== undefined) (target as Rec)[k] = str(v, k, where);
  return target;
}
function count(v: unknown, where: string): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) fail(where, "must be a non-negative integer");
  return v;
}

function parseMediaPart(v: Rec, where: string): TextPart | ImagePart {
  if (v.type === "text") return { type: "text", text: str(v, "text", where) };
  if (v.type === "image") return { type: "image", mimeType: str(v, "mimeType", where), data: str(v, "data", where) };
  return fail(`${where}/type`, 'must be "text" or "image"');
}

function parseAssistantPart(v: Rec, where: string): TextPart | ThinkingPart | ToolCallPart {
  if (v.type === "text") return { type: "text", text: str(v, "text", where) };
  if (v.type === "thinking") return withOpt<ThinkingPart>({ type: "thinking", text: str(v, "text", where) }, v, where, "signature", "redacted");
  if (v.type === "tool_call") {
    if (!isRec(v.arguments)) fail(`${where}/arguments`, "must be an object");
    const part: ToolCallPart = { type: "tool_call", id: str(v, "id", where), name: str(v, "name", where), arguments: v.arguments };
    return withOpt(part, v, where, "argumentsError");
  }
  return fail(`${where}/type`, 'must be "text", "thinking" or "tool_call"');
}

const STOP_REASONS: readonly string[] = ["end", "tool_use", "max_tokens", "refusal", "other"];

function parseMessage(v: unknown, where: string): Message {
  if (!isRec(v)) fail(where, "must be an object");
  if (!Array.isArray(v.content)) fail(`${where}/content`, "must be an array");
  const at = (i: number): string => `${where}/content/${i}`;
  const parts = v.content.map((p, i) => (isRec(p) ? p : fail(at(i), "must be an object")));
  const { role } = v;
  if (role === "user") return { role, content: parts.map((p, i) => parseMediaPart(p, at(i))) };
  if (role === "tool") {
    if (typeof v.isError !== "boolean") fail(`${where}/isError`, "must be a boolean");
    return {
      role,
      toolCallId: str(v, "toolCallId", where),
      toolName: str(v, "toolName", where),
      content: parts.map((p, i) => parseMediaPart(p, at(i))),
      isError: v.isError,
    };
  }
  if (role !== "assistant") fail(`${where}/role`, 'must be "user", "assistant" or "tool"');
  const message: AssistantMessage = { role, content: parts.map((p, i) => parseAssistantPart(p, at(i))) };
  if (v.stopReason !== undefined) {
    if (typeof v.stopReason !== "string" || !STOP_REASONS.includes(v.stopReason)) fail(`${where}/stopReason`, "is not a known stop reason");
    message.stopReason = v.stopReason as ModelStopReason;
  }
  withOpt(message, v, where, "model");
  const u = v.usage;
  if (u !== undefined) {
    if (!isRec(u)) fail(`${where}/usage`, "must be an object");
    const usage = emptyUsage();
    for (const k of USAGE_KEYS) usage[k] = count(u[k], `${where}/usage/${k}`);
    message.usage = usage;
  }
  return message;
}

/**
 * Validates a stored conversation (e.g. `JSON.parse` of a previous
 * {@link RunResult.messages}) and returns a fresh copy of it. Unknown fields are
 * dropped. Every tool result must answer a tool call of an earlier assistant
 * message, once.
 *
 * @throws ValidationError (`validation`) naming the first offending path, e.g. `/3/content/0/type`.
 *
 * @example
 * ```ts
 * const messages = parseMessages(JSON.parse(await store.get(conversationId)));
 * const next = await run({ provider, identity, input: [...messages, userMessage("And product B?")] });
 * ```
 */
export function parseMessages(value: unknown): Message[] {
  if (!Array.isArray(value)) fail("", "messages must be an array");
  const out = value.map((m, i) => parseMessage(m, `/${i}`));
  const open = new Set<string>();
  out.forEach((m, i) => {
    if (m.role === "assistant") for (const call of toolCallsOf(m)) open.add(call.id);
    if (m.role === "tool") {
      if (!open.has(m.toolCallId)) fail(`/${i}/toolCallId`, "answers no earlier tool call, or answers one twice");
      open.delete(m.toolCallId);
    }
  });
  return out;
}
