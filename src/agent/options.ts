/**
 * The checks `run` makes before the first model call (R1): the provider, the
 * identity, the tools (shape, provider-compatible names, no duplicates, T2), the
 * bounds and the input conversation.
 *
 * @module
 */
import { ConfigError, ValidationError } from "../errors.js";
import { DEFAULT_LOOP_THRESHOLD, DEFAULT_MAX_STEPS, DEFAULT_TOOL_CONCURRENCY, MAX_QUOTED_CHARS } from "../limits.js";
import { assertUniqueToolNames } from "../tools/names.js";
import type { Tool } from "../tools/types.js";
import { isRec } from "../util/record.js";
import { lastAnswer, parseMessages, toolCallsOf, userMessage, type Message } from "./messages.js";
import type { Provider } from "./provider.js";

// Both Anthropic and OpenAI accept ^[a-zA-Z0-9_-]{1,64}$ as a tool name (T2).
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const EFFECTS: readonly string[] = ["read", "write", "confirm"];

/** Checks the provider has a `generate` method. */
export function checkProvider(provider: unknown): Provider {
  if (!isRec(provider) || typeof provider.generate !== "function" || typeof provider.name !== "string") {
    throw new ConfigError("run: provider needs a name and a generate method");
  }
  return provider as unknown as Provider;
}

/**
 * Checks the tools: each has a provider-compatible name, a description, an
 * input schema object and a known effect (a read tool an `execute` method); no
 * two share a name.
 *
 * @throws ConfigError (`config`).
 */
export function checkTools(tools: unknown): Tool[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) throw new ConfigError("run: tools must be an array");
  // Array.from turns the holes of a sparse array into undefined (forEach skips them), so each is refused.
  const list: unknown[] = Array.from(tools);
  list.forEach((t, i) => {
    const why = !isRec(t)
      ? "not a tool object"
      : typeof t.name !== "string" || !TOOL_NAME.test(t.name)
        ? "name must be 1 to 64 letters, digits, _ or -"
        : typeof t.description !== "string"
          ? "description must be a string"
          : !isRec(t.inputSchema)
            ? "inputSchema must be a JSON Schema object"
            : !EFFECTS.includes(t.effect as string)
              ? "effect must be read, write or confirm"
              : t.effect === "read" && typeof t.execute !== "function"
                ? "a read tool needs execute()"
                : undefined;
    if (why) throw new ConfigError(`run: tools[${i}]${isRec(t) && typeof t.name === "string" ? ` (${t.name.slice(0, MAX_QUOTED_CHARS)})` : ""}: ${why}`);
  });
  assertUniqueToolNames(list as Tool[]);
  return list as Tool[];
}

/** Checks a positive integer option, or returns its default. */
export function checkCount(value: unknown, name: string, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min) {
    throw new ConfigError(`run: ${name} must be an integer of at least ${min}`);
  }
  return value;
}

/** The bounds of a run with their defaults. */
export function checkBounds(options: { maxSteps?: unknown; toolConcurrency?: unknown; loopThreshold?: unknown }): {
  maxSteps: number;
  concurrency: number;
  loopThreshold: number;
} {
  return {
    maxSteps: checkCount(options.maxSteps, "maxSteps", DEFAULT_MAX_STEPS),
    concurrency: checkCount(options.toolConcurrency, "toolConcurrency", DEFAULT_TOOL_CONCURRENCY),
    loopThreshold: checkCount(options.loopThreshold, "loopThreshold", DEFAULT_LOOP_THRESHOLD, 2),
  };
}

/**
 * The conversation a run starts from: a string becomes one user message; a
 * message list is validated ({@link parseMessages}) and must end with a user
 * message or with the results of every call of the last assistant message.
 *
 * @throws ValidationError (`validation`).
 */
export function initialMessages(input: unknown): Message[] {
  if (typeof input === "string") return [userMessage(input)];
  const messages = parseMessages(input);
  const last = messages.at(-1);
  if (!last) throw new ValidationError("run: input has no messages");
  if (last.role === "assistant") throw new ValidationError("run: input must end with a user message or tool results");
  const lastAssistant = lastAnswer(messages);
  if (lastAssistant) {
    const answered = new Set(messages.map((m) => m.role === "tool" && m.toolCallId));
    const open = toolCallsOf(lastAssistant).filter((c) => !answered.has(c.id));
    if (open[0]) throw new ValidationError(`run: input leaves ${open.length} tool call(s) unanswered, e.g. ${open[0].id}`);
  }
  return messages;
}
