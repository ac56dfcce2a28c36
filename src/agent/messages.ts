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

// The members of each message role and part type, in the order a parsed copy
// has them: "key" is a required string, "key?" an optional one, and the members
// named in `member` have their own check.
const SHAPES: Record<string, readonly string[]> = {
  user: ["content"],
  assistant: ["content", "stopReason?", "model?", "usage?"],
  tool: ["toolCallId", "toolName", "content", "isError"],
  text: ["text"],
  image: ["mimeType", "data"],
  thinking: ["text", "signature?", "redacted?"],
  tool_call: ["id", "name", "arguments", "argumentsError?"],
};
const ROLES = ["user", "assistant", "tool"];
const MEDIA_PARTS = ["text", "image"];
const ASSISTANT_PARTS = ["text", "thinking", "tool_call"];
const STOP_REASONS: readonly unknown[] = ["end", "tool_use", "max_tokens", "refusal", "other"];

/** A fresh copy of a message (`tag` "role") or part (`tag` "type") whose kind is one of `kinds`, unknown members dropped. */
function parseShape(v: unknown, where: string, tag: "role" | "type", kinds: readonly string[]): Rec {
  if (!isRec(v)) fail(where, "must be an object");
  const kind = v[tag];
  if (typeof kind !== "string" || !kinds.includes(kind)) fail(`${where}/${tag}`, `must be ${kinds.map((k) => `"${k}"`).join(" or ")}`);
  const out: Rec = { [tag]: kind };
  for (const spec of SHAPES[kind] ?? []) {
    const key = spec.replace("?", "");
    const value = v[key];
    if (key !== spec && value === undefined) continue;
    out[key] = member(key, value, `${where}/${key}`, kind);
  }
  return out;
}

/** One checked member of a message or part of kind `kind`. */
function member(key: string, value: unknown, where: string, kind: string): unknown {
  switch (key) {
    case "content":
      if (!Array.isArray(value)) return fail(where, "must be an array");
      // Array.from visits the holes of a sparse array (map skips them), so each is refused.
      return Array.from(value, (p: unknown, i) => parseShape(p, `${where}/${i}`, "type", kind === "assistant" ? ASSISTANT_PARTS : MEDIA_PARTS));
    case "isError":
      return typeof value === "boolean" ? value : fail(where, "must be a boolean");
    case "arguments":
      return isRec(value) ? value : fail(where, "must be an object");
    case "stopReason":
      return STOP_REASONS.includes(value) ? value : fail(where, "is not a known stop reason");
    case "usage": {
      if (!isRec(value)) return fail(where, "must be an object");
      const usage = emptyUsage();
      for (const k of USAGE_KEYS) {
        const n = value[k];
        usage[k] = typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : fail(`${where}/${k}`, "must be a non-negative integer");
      }
      return usage;
    }
    default:
      return typeof value === "string" ? value : fail(where, "must be a string");
  }
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
  const out = Array.from(value, (m: unknown, i) => parseShape(m, `/${i}`, "role", ROLES) as unknown as Message);
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
