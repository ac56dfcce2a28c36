/**
 * Prompts as host calls (T12): listing is the client's (`MAX_LIST_PAGES` cursor
 * pages at most); a rendered prompt comes back as text messages the host can use
 * as system or user input. The connection runs its gate (identity, authorization as
 * `list_prompts` / `get_prompt`, closure, staleness) before either.
 *
 * @module
 */
import { LimitError, ValidationError } from "../errors.js";
import { MAX_TOOL_ARGUMENT_BYTES, MAX_TOOL_RESULT_BYTES } from "../limits.js";
import { isRecord, type GetPromptResult } from "../mcp/types.js";
import { quote } from "../util/text.js";
import { cutUtf8, utf8Length } from "./bound.js";
import { renderContent } from "./render.js";

/** A rendered prompt as text (T12). Server text: untrusted. */
export interface McpPromptText {
  /** The server's description of the rendered prompt, if any. */
  description?: string;
  /** The messages in order, each as text (images and other blocks as placeholders), each bounded to `MAX_TOOL_RESULT_BYTES`. */
  messages: Array<{ role: "user" | "assistant"; text: string }>;
}

/**
 * Checks prompt arguments: an object of strings, at most `MAX_TOOL_ARGUMENT_BYTES` as JSON.
 *
 * @throws ValidationError (`validation`) naming the argument, never its value; LimitError (`limit`).
 *
 * @example
 * ```ts
 * checkPromptArgs({ sku: "ABC-123" }); // { sku: "ABC-123" }
 * ```
 */
export function checkPromptArgs(args: unknown): Record<string, string> {
  if (args === undefined) return {};
  if (!isRecord(args)) throw new ValidationError("prompt arguments must be an object of strings");
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(args)) {
    if (typeof v !== "string") throw new ValidationError(`prompt argument ${quote(k)} must be a string`);
    // Assigned, "__proto__" would be dropped (its value is not an object), not sent.
    if (k === "__proto__") throw new ValidationError(`prompt argument "__proto__" is not allowed`);
    out[k] = v;
  }
  const bytes = utf8Length(JSON.stringify(out));
  if (bytes > MAX_TOOL_ARGUMENT_BYTES) {
    throw new LimitError("MAX_TOOL_ARGUMENT_BYTES", MAX_TOOL_ARGUMENT_BYTES, `prompt arguments are ${bytes} UTF-8 bytes; the limit is ${MAX_TOOL_ARGUMENT_BYTES}`);
  }
  return out;
}

/**
 * A `prompts/get` result as text messages (T12): each message's content rendered
 * as text (images as placeholders), bounded to `MAX_TOOL_RESULT_BYTES`.
 *
 * @example
 * ```ts
 * const { messages } = promptText(await client.getPrompt("welcome"));
 * ```
 */
export function promptText(result: GetPromptResult): McpPromptText {
  const messages = result.messages.map((m) => ({
    role: m.role,
    text: cutUtf8(renderContent([m.content], { images: false }).text, MAX_TOOL_RESULT_BYTES),
  }));
  return result.description === undefined ? { messages } : { description: result.description, messages };
}
