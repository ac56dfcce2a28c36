/**
 * Prompts as host calls (T12): listing follows at most `MAX_PROMPT_PAGES` cursor
 * pages; a rendered prompt comes back as text messages the host can use as system
 * or user input. The connection runs its gate (identity, authorization as
 * `list_prompts` / `get_prompt`, closure, staleness) before either.
 *
 * @module
 */
import { LimitError, ProtocolError, ValidationError } from "../errors.js";
import { MAX_CURSOR_CHARS, MAX_PROMPT_PAGES, MAX_TOOL_ARGUMENT_BYTES, MAX_TOOL_RESULT_BYTES } from "../limits.js";
import type { McpClient } from "../mcp/client.js";
import { isRecord, parsePrompt, type GetPromptResult, type McpPrompt } from "../mcp/types.js";
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
 * Lists every prompt, following `nextCursor` for at most `MAX_PROMPT_PAGES` pages.
 * Each request is bounded by the client's request timeout.
 *
 * @throws LimitError (`limit`, `MAX_PROMPT_PAGES`) beyond the page bound;
 * ProtocolError (`protocol`) for a repeated cursor or a malformed page; request errors.
 *
 * @example
 * ```ts
 * const names = (await listAllPrompts(client, AbortSignal.timeout(10_000))).map((p) => p.name);
 * ```
 */
export async function listAllPrompts(client: McpClient, signal: AbortSignal | undefined): Promise<McpPrompt[]> {
  const where = `${client.name}: prompts/list`;
  const prompts: McpPrompt[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    if (page > MAX_PROMPT_PAGES) throw new LimitError("MAX_PROMPT_PAGES", MAX_PROMPT_PAGES, `${where} has more than ${MAX_PROMPT_PAGES} pages`);
    const result = await client.request("prompts/list", cursor === undefined ? {} : { cursor }, { signal });
    if (!Array.isArray(result.prompts)) throw new ProtocolError(`${where}: result "prompts" must be an array`);
    result.prompts.forEach((p, i) => prompts.push(parsePrompt(p, `${where} prompts[${i}]`)));
    const next = result.nextCursor;
    if (next === undefined || next === null) return prompts;
    if (typeof next !== "string" || next.length > MAX_CURSOR_CHARS) {
      throw new ProtocolError(`${where}: "nextCursor" must be a string of at most ${MAX_CURSOR_CHARS} characters`);
    }
    if (seen.has(next)) throw new ProtocolError(`${where}: the server repeated a cursor (page ${page + 1})`);
    seen.add(next);
    cursor = next;
  }
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
    if (typeof v !== "string") throw new ValidationError(`prompt argument ${quote(k, 40)} must be a string`);
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
