/**
 * What the CLI answers when a server asks something of it (V6, X6), only when
 * asked for on the command line:
 *
 * - `--elicit`: on a terminal, each form elicitation is shown (message and fields,
 *   through the terminal filter) and the user accepts, declines or cancels, then
 *   types each field; a URL elicitation shows the URL in full with its domain and
 *   is never opened by yada. Without a terminal every elicitation is declined.
 *   The answer is checked against the requested schema by the client.
 * - `--sampling`: each `sampling/createMessage` is answered by the provider `run`
 *   would use (flags, then the environment), bounded in time and size.
 *
 * @module
 */
import { createInterface } from "node:readline/promises";
import type { Message } from "../agent/messages.js";
import type { ModelStopReason } from "../agent/messages.js";
import {
  CLI_SAMPLING_TIMEOUT_MS,
  MAX_CLI_ELICIT_ANSWER_CHARS,
  MAX_CLI_ELICIT_FIELDS,
  MAX_CLI_ELICIT_TEXT_CHARS,
  MAX_CLI_ELICIT_TRIES,
  MAX_CLI_SAMPLING_INPUT_CHARS,
  MAX_CLI_SAMPLING_OUTPUT_CHARS,
} from "../limits.js";
import { LimitError, TimeoutError } from "../errors.js";
import type { ClientHandlers, ElicitationAnswer, FormElicitation, SamplingRequest, SamplingResult, UrlElicitation } from "../mcp/handlers.js";
import { isRecord, type JsonRecord } from "../mcp/types.js";
import type { CliArgs } from "./args.js";
import { chooseProvider, type ProviderChoice } from "./provider.js";
import { clip, oneLine, safe, styles, type Io } from "./terminal.js";

/** Asks one question on the terminal and resolves with the line typed. */
export type AskLine = (question: string, signal: AbortSignal) => Promise<string>;

/** Asks on stdin, the question on stderr (stdout stays the command's output). */
export const askOnStdin: AskLine = async (question, signal) => {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(question, { signal });
  } finally {
    rl.close();
  }
};

const shown = (text: string): string => clip(safe(text), 40, MAX_CLI_ELICIT_TEXT_CHARS);

/** accept / decline / cancel from a typed line, or undefined. */
function actionOf(line: string): "accept" | "decline" | "cancel" | undefined {
  const t = line.trim().toLowerCase();
  if (t === "a" || t === "accept") return "accept";
  if (t === "d" || t === "decline") return "decline";
  if (t === "c" || t === "cancel") return "cancel";
  return undefined;
}

/** The choices of an enum field: `const` values with titles, or `enum` values. */
function choicesOf(prop: JsonRecord): Array<{ value: string; title?: string }> | undefined {
  const list = Array.isArray(prop.oneOf) ? prop.oneOf : Array.isArray(prop.anyOf) ? prop.anyOf : undefined;
  if (list) return list.filter(isRecord).filter((c) => typeof c.const === "string").map((c) => ({ value: c.const as string, ...(typeof c.title === "string" ? { title: c.title } : {}) }));
  if (Array.isArray(prop.enum)) {
    const names = Array.isArray(prop.enumNames) ? prop.enumNames : [];
    return prop.enum.filter((v): v is string => typeof v === "string").map((value, i) => ({ value, ...(typeof names[i] === "string" ? { title: names[i] as string } : {}) }));
  }
  return undefined;
}

/** The typed line as the field's value, or a reason it is not one. Empty lines are handled by the caller. */
export function parseField(prop: JsonRecord, line: string): { value: unknown } | { error: string } {
  const text = line.trim();
  const type = prop.type;
  if (type === "array") {
    const items = isRecord(prop.items) ? prop.items : {};
    const choices = choicesOf(items);
    const values: string[] = [];
    for (const part of text.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
      const v = choices ? pick(choices, part) : part;
      if (v === undefined) return { error: `${JSON.stringify(oneLine(part, 40))} is not one of the choices` };
      values.push(v);
    }
    return { value: values };
  }
  if (type === "boolean") {
    if (/^(y|yes|true)$/i.test(text)) return { value: true };
    if (/^(n|no|false)$/i.test(text)) return { value: false };
    return { error: "answer y or n" };
  }
  if (type === "integer" || type === "number") {
    const n = Number(text);
    if (text === "" || !Number.isFinite(n) || (type === "integer" && !Number.isInteger(n))) return { error: `a${type === "integer" ? "n integer" : " number"} is needed` };
    return { value: n };
  }
  const choices = choicesOf(prop);
  if (choices) {
    const v = pick(choices, text);
    return v === undefined ? { error: "not one of the choices" } : { value: v };
  }
  return { value: line };
}

/** A choice by its value, title or 1-based number. */
function pick(choices: Array<{ value: string; title?: string }>, text: string): string | undefined {
  const n = /^\d{1,4}$/.test(text) ? Number(text) : 0;
  if (n >= 1 && n <= choices.length) return choices[n - 1]?.value;
  return choices.find((c) => c.value === text || c.title === text)?.value;
}

/** One field's description line: name, title, type, required, choices, default, description. */
function fieldLine(name: string, prop: JsonRecord, required: boolean): string {
  const parts = [oneLine(name, 80)];
  if (typeof prop.title === "string") parts.push(`(${oneLine(prop.title, 200)})`);
  const type = typeof prop.type === "string" ? prop.type : "string";
  const format = typeof prop.format === "string" ? ` ${oneLine(prop.format, 40)}` : "";
  parts.push(`[${oneLine(type, 20)}${format}${required ? ", required" : ""}]`);
  const choices = choicesOf(type === "array" && isRecord(prop.items) ? prop.items : prop);
  if (choices) parts.push(`one${type === "array" ? " or more (comma-separated)" : ""} of: ${choices.map((c, i) => `${i + 1}) ${oneLine(c.title ?? c.value, 80)}`).join(" ")}`);
  if (prop.default !== undefined) parts.push(`default ${oneLine(JSON.stringify(prop.default) ?? "", 200)}`);
  if (typeof prop.description === "string") parts.push(`— ${oneLine(prop.description, 400)}`);
  return parts.join(" ");
}

/** Asks until `valid` gives a value or the tries run out (undefined). Over-long lines are refused. */
async function askValid<T>(io: Io, ask: AskLine, question: string, signal: AbortSignal, valid: (line: string) => { value: T } | { error: string }): Promise<T | undefined> {
  for (let i = 0; i < MAX_CLI_ELICIT_TRIES; i++) {
    const line = await ask(question, signal);
    const r = line.length > MAX_CLI_ELICIT_ANSWER_CHARS ? { error: `longer than ${MAX_CLI_ELICIT_ANSWER_CHARS} characters` } : valid(line);
    if ("value" in r) return r.value;
    io.err(`  ${r.error}\n`);
  }
  return undefined;
}

const chooseAction = (line: string): { value: "accept" | "decline" | "cancel" } | { error: string } => {
  const a = actionOf(line);
  return a ? { value: a } : { error: "answer a (accept), d (decline) or c (cancel)" };
};

/**
 * Asks a form elicitation on the terminal: shows the message and the fields,
 * asks accept / decline / cancel, then each field (an empty line leaves an
 * optional field out, or takes its default). Too many fields, or too many wrong
 * tries, cancel it.
 */
export async function askForm(io: Io, ask: AskLine, request: FormElicitation, signal: AbortSignal): Promise<ElicitationAnswer> {
  const s = styles({ color: io.errIsTTY && io.color });
  const props = isRecord(request.requestedSchema.properties) ? request.requestedSchema.properties : {};
  const required = Array.isArray(request.requestedSchema.required) ? request.requestedSchema.required : [];
  const fields = Object.entries(props).filter((e): e is [string, JsonRecord] => isRecord(e[1]));
  io.err(`\n${s.bold("The server asks for input:")}\n${shown(request.message)}\n`);
  if (fields.length > MAX_CLI_ELICIT_FIELDS) {
    io.err(`yada: the form has ${fields.length} fields (more than ${MAX_CLI_ELICIT_FIELDS}); cancelled\n`);
    return { action: "cancel" };
  }
  for (const [name, prop] of fields) io.err(`  ${fieldLine(name, prop, required.includes(name))}\n`);
  const action = await askValid(io, ask, "Answer it? [a]ccept, [d]ecline, [c]ancel: ", signal, chooseAction);
  if (action !== "accept") return { action: action ?? "cancel" };
  const content: Array<[string, unknown]> = [];
  for (const [name, prop] of fields) {
    const isRequired = required.includes(name);
    const hint = prop.default !== undefined ? ` [${oneLine(JSON.stringify(prop.default) ?? "", 60)}]` : isRequired ? "" : " (optional)";
    let skipped = false;
    const value = await askValid(io, ask, `${oneLine(name, 80)}${hint}: `, signal, (line) => {
      if (line.trim() === "" && (!isRequired || prop.default !== undefined)) {
        skipped = true;
        return { value: undefined };
      }
      return line.trim() === "" ? { error: "this field is required" } : parseField(prop, line);
    });
    if (skipped) continue;
    if (value === undefined) return { action: "cancel" };
    content.push([name, value]);
  }
  // The names are the server's: built from pairs, so "__proto__" stays an own key.
  return { action: "accept", content: Object.fromEntries(content) as JsonRecord };
}

/** Shows a URL elicitation (the URL in full, its domain) and asks; yada never opens the URL. */
export async function askUrl(io: Io, ask: AskLine, request: UrlElicitation, signal: AbortSignal): Promise<ElicitationAnswer> {
  const s = styles({ color: io.errIsTTY && io.color });
  io.err(`\n${s.bold("The server asks you to open a link:")}\n${shown(request.message)}\n`);
  io.err(`  domain: ${s.bold(oneLine(request.domain, 255))}\n  url:    ${safe(request.url).replace(/\s/g, "%20")}\n`);
  io.err("  yada does not open it; open it yourself in a browser only if you trust that domain.\n");
  const action = await askValid(io, ask, "Go ahead? [a]ccept (I will open it), [d]ecline, [c]ancel: ", signal, chooseAction);
  return { action: action ?? "cancel" };
}

/** The elicitation handlers of `--elicit`: asked on a terminal, declined (with one stderr line) without one. */
export function elicitationHandlers(io: Io, ask: AskLine | undefined): NonNullable<ClientHandlers["elicitation"]> {
  if (!ask) {
    const decline = (kind: string) => async (): Promise<ElicitationAnswer> => {
      io.err(`yada: the server asked for input (${kind}); declined, as there is no terminal to ask on\n`);
      return { action: "decline" };
    };
    return { form: decline("form"), url: decline("url") };
  }
  // One question at a time on the terminal.
  let line: Promise<unknown> = Promise.resolve();
  const serial =
    <R>(fn: (signal: AbortSignal) => Promise<R>) =>
    (signal: AbortSignal): Promise<R> => {
      const p = line.then(() => fn(signal));
      line = p.catch(() => {});
      return p;
    };
  return {
    form: (request, ctx) => serial((signal) => askForm(io, ask, request, signal))(ctx.signal),
    url: (request, ctx) => serial((signal) => askUrl(io, ask, request, signal))(ctx.signal),
  };
}

/** The text of an MCP content value (a block or blocks); other kinds become a bracketed note. */
function textOf(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks
    .filter(isRecord)
    .map((b) => (b.type === "text" && typeof b.text === "string" ? b.text : `[${typeof b.type === "string" ? oneLine(b.type, 40) : "unknown"} content]`))
    .join("\n");
}

const STOP: Record<ModelStopReason, string> = { end: "endTurn", max_tokens: "maxTokens", tool_use: "toolUse", refusal: "refusal", other: "other" };

/**
 * The sampling handler of `--sampling`: the request's messages (text only) go to
 * `choice`'s provider, bounded by `CLI_SAMPLING_TIMEOUT_MS` and the size bounds;
 * the answer's text goes back.
 *
 * @throws LimitError (`limit`) when the request's text is over `MAX_CLI_SAMPLING_INPUT_CHARS`;
 * the provider's errors (`provider`, `transport`, `cancelled`).
 */
export function samplingHandler(io: Io, choice: ProviderChoice): NonNullable<ClientHandlers["sampling"]> {
  return {
    async handle(request: SamplingRequest, ctx): Promise<SamplingResult> {
      let chars = request.systemPrompt?.length ?? 0;
      const messages: Message[] = request.messages.map((m) => {
        const text = textOf(m.content);
        chars += text.length;
        return m.role === "assistant" ? { role: "assistant", content: [{ type: "text", text }] } : { role: "user", content: [{ type: "text", text }] };
      });
      if (chars > MAX_CLI_SAMPLING_INPUT_CHARS) throw new LimitError("MAX_CLI_SAMPLING_INPUT_CHARS", MAX_CLI_SAMPLING_INPUT_CHARS, `sampling/createMessage: the request holds more than ${MAX_CLI_SAMPLING_INPUT_CHARS} characters of text`);
      io.err(`yada: the server asked the model (${messages.length} message${messages.length === 1 ? "" : "s"}); answered by ${choice.label}\n`);
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(new TimeoutError(`sampling/createMessage: the model did not answer within ${CLI_SAMPLING_TIMEOUT_MS} ms`, CLI_SAMPLING_TIMEOUT_MS)), CLI_SAMPLING_TIMEOUT_MS);
      let answer: Awaited<ReturnType<typeof choice.provider.generate>>;
      try {
        answer = await choice.provider.generate({ ...(request.systemPrompt !== undefined ? { system: request.systemPrompt } : {}), messages, tools: [] }, { signal: AbortSignal.any([ctx.signal, timeout.signal]) });
      } finally {
        clearTimeout(timer);
      }
      const text = answer.content.map((p) => (p.type === "text" ? p.text : "")).join("");
      const result: SamplingResult = { role: "assistant", content: { type: "text", text: text.slice(0, MAX_CLI_SAMPLING_OUTPUT_CHARS) }, model: answer.model ?? choice.provider.name };
      if (answer.stopReason) result.stopReason = text.length > MAX_CLI_SAMPLING_OUTPUT_CHARS ? "maxTokens" : STOP[answer.stopReason];
      return result;
    },
  };
}

/**
 * The host handlers the command line asks for: `--elicit` and `--sampling`
 * (none without them). `ask` is the terminal, or undefined without one.
 *
 * @throws UsageError (`usage`): the errors of {@link chooseProvider} for `--sampling`.
 */
export function hostHandlers(args: CliArgs, io: Io, ask: AskLine | undefined): ClientHandlers {
  const handlers: ClientHandlers = {};
  if (args.elicit) handlers.elicitation = elicitationHandlers(io, ask);
  if (args.sampling) handlers.sampling = samplingHandler(io, chooseProvider(args, io.env));
  return handlers;
}
