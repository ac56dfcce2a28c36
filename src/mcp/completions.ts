/**
 * Argument completion (V9): `completion/complete` for a prompt's arguments or a
 * resource template's variables, with the answer checked and bounded.
 *
 * @module
 */
import { LimitError, ProtocolError, ValidationError } from "../errors.js";
import type { RequestOptions } from "../jsonrpc/session.js";
import { MAX_COMPLETION_VALUE_CHARS, MAX_COMPLETION_VALUES } from "../limits.js";
import { isRecord, type JsonRecord } from "./fields.js";

/** What is being completed: a prompt by name, or a resource template by its URI template. */
export type CompletionRef = { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string };

/** One completion request. */
export interface CompletionRequest {
  ref: CompletionRef;
  /** The argument (prompt) or template variable (resource) being typed, and its value so far. */
  argument: { name: string; value: string };
  /** Values of the other arguments already chosen (narrow the suggestions, 2025-06-18 and later). */
  context?: Record<string, string>;
}

/** The server's suggestions (untrusted text). */
export interface Completion {
  /** At most `MAX_COMPLETION_VALUES`, each at most `MAX_COMPLETION_VALUE_CHARS` characters. */
  values: string[];
  /** How many values exist in all, when the server says. */
  total?: number;
  /** Whether more values exist than were returned. */
  hasMore?: boolean;
}

/** Something that sends one request (an `McpClient`). */
export interface CompletionSender {
  request(method: string, params?: JsonRecord, options?: RequestOptions): Promise<JsonRecord>;
  readonly name: string;
}

/**
 * Asks the server for completions of one argument (`completion/complete`).
 *
 * @throws ValidationError (`validation`) for a malformed request (nothing is sent).
 * @throws ProtocolError (`protocol`) for a malformed answer; LimitError (`limit`) past
 * `MAX_COMPLETION_VALUES` values or `MAX_COMPLETION_VALUE_CHARS` characters in one; request errors
 * (a server without the completions capability answers JsonRpcError -32601).
 *
 * @example
 * ```ts
 * import { complete } from "yada-mcp";
 * const { values } = await complete(client, {
 *   ref: { type: "ref/prompt", name: "completable-prompt" },
 *   argument: { name: "department", value: "En" },
 * });
 * ```
 */
export async function complete(client: CompletionSender, request: CompletionRequest, options: { signal?: AbortSignal } = {}): Promise<Completion> {
  const { ref, argument, context } = request;
  const refOk = ref?.type === "ref/prompt" ? typeof ref.name === "string" : ref?.type === "ref/resource" && typeof ref.uri === "string";
  if (!refOk) throw new ValidationError("complete: ref must be { type: \"ref/prompt\", name } or { type: \"ref/resource\", uri }");
  if (typeof argument?.name !== "string" || typeof argument.value !== "string") throw new ValidationError("complete: argument needs a string name and value");
  const params: JsonRecord = { ref: { ...ref }, argument: { name: argument.name, value: argument.value } };
  if (context !== undefined) {
    if (!isRecord(context) || Object.values(context).some((v) => typeof v !== "string")) throw new ValidationError("complete: context must map names to strings");
    params.context = { arguments: { ...context } };
  }
  const result = await client.request("completion/complete", params, { signal: options.signal });
  return parseCompletion(result, `${client.name}: completion/complete`);
}

/** Parses a `completion/complete` result. @throws ProtocolError (`protocol`), LimitError (`limit`) */
export function parseCompletion(result: JsonRecord, where: string): Completion {
  const c = result.completion;
  if (!isRecord(c) || !Array.isArray(c.values)) throw new ProtocolError(`${where}: the answer has no "completion.values" array`);
  if (c.values.length > MAX_COMPLETION_VALUES) {
    throw new LimitError("MAX_COMPLETION_VALUES", MAX_COMPLETION_VALUES, `${where}: the answer carries ${c.values.length} values; the limit is ${MAX_COMPLETION_VALUES}`);
  }
  const values: string[] = [];
  for (const v of c.values) {
    if (typeof v !== "string") throw new ProtocolError(`${where}: a completion value is not a string`);
    if (v.length > MAX_COMPLETION_VALUE_CHARS) throw new LimitError("MAX_COMPLETION_VALUE_CHARS", MAX_COMPLETION_VALUE_CHARS, `${where}: a completion value is longer than ${MAX_COMPLETION_VALUE_CHARS} characters`);
    values.push(v);
  }
  const out: Completion = { values };
  // Advisory fields: kept only when well-typed.
  if (typeof c.total === "number" && Number.isSafeInteger(c.total) && c.total >= 0) out.total = c.total;
  if (typeof c.hasMore === "boolean") out.hasMore = c.hasMore;
  return out;
}
