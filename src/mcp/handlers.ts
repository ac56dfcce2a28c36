/**
 * Host handlers for what a server asks of the client: roots, sampling and
 * elicitation (V6), and the capabilities they imply. The same handlers answer
 * legacy server requests and modern `input_required` input requests.
 *
 * @module
 */
import { ConfigError, ValidationError } from "../errors.js";
import { RpcErrorReply } from "../jsonrpc/session.js";
import { isRecord, type JsonRecord } from "./types.js";
import { checkOptions } from "../util/options.js";

/** A root the client exposes (a `file://` URI). */
export interface Root {
  uri: string;
  name?: string;
}

/** What a sampling handler receives: the server's `sampling/createMessage` params (untrusted). */
export interface SamplingRequest {
  messages: JsonRecord[];
  maxTokens: number;
  systemPrompt?: string;
  temperature?: number;
  stopSequences?: string[];
  modelPreferences?: JsonRecord;
  includeContext?: string;
  metadata?: JsonRecord;
  /** Tools the server offers the model (only when the handler declared `tools: true`). */
  tools?: JsonRecord[];
  toolChoice?: JsonRecord;
}

/** What a sampling handler returns. */
export interface SamplingResult {
  role: "assistant";
  content: JsonRecord | JsonRecord[];
  model: string;
  stopReason?: string;
}

/** A form elicitation: the server asks the user for values matching a flat schema. */
export interface FormElicitation {
  mode: "form";
  message: string;
  requestedSchema: JsonRecord;
}

/**
 * A URL elicitation: the server asks the user to visit a URL (out-of-band flow).
 * The host must show `url` in full with its `domain`, ask for consent, and open it
 * only after consent, outside the application (never embedded, never pre-fetched).
 */
export interface UrlElicitation {
  mode: "url";
  message: string;
  url: string;
  /** The URL's host, for the host to show prominently. */
  domain: string;
  /**
   * The server's id for the flow (legacy revisions). Revision 2026-07-28 has none:
   * the server correlates through the `requestState` of the retried request.
   */
  elicitationId?: string;
}

/** The user's answer to an elicitation. */
export type ElicitationAnswer = { action: "accept"; content?: JsonRecord } | { action: "decline" } | { action: "cancel" };

/** Context of a handler call. */
export interface HandlerContext {
  /** Aborted when the server cancels the request or the connection closes. */
  signal: AbortSignal;
}

/**
 * What a host can answer. A capability is declared to the server only when its
 * handler is given (V6).
 */
export interface ClientHandlers {
  /** Lists the client's roots (capability `roots`). */
  roots?: (context: HandlerContext) => Root[] | Promise<Root[]>;
  /** Samples the host's model (capability `sampling`). */
  sampling?: {
    /** Whether the handler accepts `tools` / `toolChoice` (capability `sampling.tools`). */
    tools?: boolean;
    handle: (request: SamplingRequest, context: HandlerContext) => Promise<SamplingResult>;
  };
  /** Asks the user (capability `elicitation`, with `form` and / or `url`). */
  elicitation?: {
    form?: (request: FormElicitation, context: HandlerContext) => Promise<ElicitationAnswer>;
    url?: (request: UrlElicitation, context: HandlerContext) => Promise<ElicitationAnswer>;
    /**
     * The JSON Schema validator that checks each accepted form answer against the
     * server's `requestedSchema` before it is sent: pass `compileSchema` (exported by
     * `yada`). Required with `form` on a bare `McpClient`, so that a client without
     * form elicitation does not carry the validator; `yada-mcp/node`'s `McpClient`,
     * `connectMcp` and the CLI pass it themselves.
     */
    compileSchema?: SchemaCompiler;
  };
}

/** What {@link ClientHandlers} `elicitation.compileSchema` is: `compileSchema`, or one of the same shape. */
export type SchemaCompiler = (schema: JsonRecord) => { assert(value: unknown, what: string): void };

const NO_COMPILER = 'handlers.elicitation: a form handler needs compileSchema (import { compileSchema } from "yada-mcp") to check its answers';

/**
 * The client capabilities implied by `handlers` (V6: only what has a handler).
 *
 * @throws ConfigError (`config`) naming a handler that is not a function.
 */
export function capabilitiesFor(handlers: ClientHandlers | undefined): JsonRecord {
  checkOptions("handlers", handlers, "roots sampling:o elicitation:o");
  checkOptions("handlers.sampling", handlers?.sampling, "handle");
  checkOptions("handlers.elicitation", handlers?.elicitation, "form url compileSchema");
  const caps: JsonRecord = {};
  if (!handlers) return caps;
  if (handlers.elicitation?.form && !handlers.elicitation.compileSchema) throw new ConfigError(NO_COMPILER);
  if (handlers.roots) caps.roots = { listChanged: true };
  if (handlers.sampling) caps.sampling = handlers.sampling.tools ? { tools: {} } : {};
  const e = handlers.elicitation;
  if (e?.form || e?.url) caps.elicitation = { ...(e.form && { form: {} }), ...(e.url && { url: {} }) };
  return caps;
}

/** The server requests the host handlers answer, each with the handler it needs (V6). */
export const HANDLER_OF = {
  "roots/list": "roots",
  "sampling/createMessage": "sampling",
  "elicitation/create": "elicitation",
} as const satisfies Record<string, keyof ClientHandlers>;

/**
 * Answers what a server asks of the client, with the host handlers: a legacy server
 * request, or (with `legacy` false) a modern input request, where a URL elicitation
 * carries no `elicitationId` (revision 2026-07-28).
 *
 * @throws RpcErrorReply -32601 when no handler answers `method`, -32602 for invalid params.
 * @throws ValidationError (`validation`) when a handler's answer is invalid.
 */
export async function answerServerRequest(
  handlers: ClientHandlers,
  method: string,
  params: JsonRecord | undefined,
  context: HandlerContext,
  legacy = true,
): Promise<JsonRecord> {
  if (method === "roots/list" && handlers.roots) return rootsResult(await handlers.roots(context));
  if (method === "sampling/createMessage") return answerSampling(handlers, params, context);
  if (method === "elicitation/create" && handlers.elicitation) return answerElicitation(handlers.elicitation, params, context, legacy);
  throw new RpcErrorReply(-32601, "Method not found");
}

function rootsResult(roots: Root[]): JsonRecord {
  for (const r of roots) {
    if (typeof r.uri !== "string" || !r.uri.startsWith("file://")) throw new ValidationError("a root must have a file:// uri");
  }
  return { roots: roots.map(({ uri, name }) => (name === undefined ? { uri } : { uri, name })) };
}

// The JSON-RPC answer to a request whose params are not what they must be.
const invalidParams = (message: string): RpcErrorReply => new RpcErrorReply(-32602, message);

const isString = (v: unknown): boolean => typeof v === "string";

// The request reaches the host typed as SamplingRequest: every field it declares is
// checked first (the server is untrusted), in this order: the field, whether it is
// required, its test, and what it must be.
const SAMPLING_FIELDS: [key: string, required: boolean, valid: (v: unknown) => boolean, expected: string][] = [
  ["messages", true, (v) => Array.isArray(v) && v.length > 0 && v.every(isSamplingMessage), "a non-empty array of user or assistant messages with content"],
  ["maxTokens", true, (v) => Number.isSafeInteger(v) && (v as number) > 0, "a positive integer"],
  ["systemPrompt", false, isString, "a string"],
  ["temperature", false, Number.isFinite, "a number"],
  ["stopSequences", false, (v) => Array.isArray(v) && v.every(isString), "an array of strings"],
  ["includeContext", false, (v) => ["none", "thisServer", "allServers"].includes(v as string), "none, thisServer or allServers"],
  ["metadata", false, isRecord, "an object"],
  ["modelPreferences", false, isRecord, "an object"],
  ["toolChoice", false, isRecord, "an object"],
  ["tools", false, (v) => Array.isArray(v) && v.every(isRecord), "an array of objects"],
];

function isSamplingMessage(m: unknown): boolean {
  return isRecord(m) && (m.role === "user" || m.role === "assistant") && (isRecord(m.content) || Array.isArray(m.content));
}

/** Answers `sampling/createMessage`; the params are checked before the handler sees them. */
export async function answerSampling(handlers: ClientHandlers, params: JsonRecord | undefined, context: HandlerContext): Promise<JsonRecord> {
  const sampling = handlers.sampling;
  if (!sampling) throw new RpcErrorReply(-32601, "Method not found");
  if (!params) throw invalidParams("sampling/createMessage: params are required");
  for (const [key, required, valid, expected] of SAMPLING_FIELDS) {
    const v = params[key];
    if ((required || v !== undefined) && !valid(v)) throw invalidParams(`sampling/createMessage: ${key} must be ${expected}`);
  }
  if ((params.tools !== undefined || params.toolChoice !== undefined) && !sampling.tools) {
    throw invalidParams("this client does not support tools in sampling");
  }
  const result = await sampling.handle({ ...params } as unknown as SamplingRequest, context);
  if (result.role !== "assistant" || typeof result.model !== "string" || !(isRecord(result.content) || Array.isArray(result.content))) {
    throw new ValidationError("the sampling handler's result needs role assistant, a model and content");
  }
  return { ...result };
}

async function answerElicitation(
  elicitation: NonNullable<ClientHandlers["elicitation"]>,
  params: JsonRecord | undefined,
  context: HandlerContext,
  legacy: boolean,
): Promise<JsonRecord> {
  if (typeof params?.message !== "string") throw invalidParams("elicitation/create needs a message");
  const mode = params.mode ?? "form";
  if (mode === "url") {
    if (!elicitation.url) throw invalidParams("this client does not support URL elicitation");
    return answerOf(await elicitation.url(urlElicitation(params, params.message, legacy), context));
  }
  if (mode !== "form") throw invalidParams("unknown elicitation mode");
  if (!elicitation.form) throw invalidParams("this client does not support form elicitation");
  const schema = params.requestedSchema;
  if (!isRecord(schema)) throw invalidParams("form elicitation needs a requestedSchema");
  const compile = elicitation.compileSchema;
  if (!compile) throw new ConfigError(NO_COMPILER);
  const answer = await elicitation.form({ mode: "form", message: params.message, requestedSchema: schema }, context);
  if (answer.action !== "accept") return answerOf(answer);
  const content = withDefaults(schema, answer.content ?? {});
  compile(schema).assert(content, "the elicitation answer");
  return { action: "accept", content };
}

// Only what the protocol defines is passed on: content rides on an accept alone.
function answerOf(answer: ElicitationAnswer): JsonRecord {
  const { action } = answer;
  if (action !== "accept" && action !== "decline" && action !== "cancel") throw new ValidationError("an elicitation answer must be accept, decline or cancel");
  return action === "accept" && answer.content !== undefined ? { action, content: answer.content } : { action };
}

// Form fields the user left empty take the schema's `default` (the spec lets
// servers give defaults so clients can pre-fill them).
// The names are the server's: collected as pairs, so "__proto__" stays an own key.
function withDefaults(schema: JsonRecord, content: JsonRecord): JsonRecord {
  const out = Object.entries(content);
  const props = schema.properties;
  if (isRecord(props)) {
    for (const [name, prop] of Object.entries(props)) {
      if (!Object.hasOwn(content, name) && isRecord(prop) && prop.default !== undefined) out.push([name, prop.default]);
    }
  }
  return Object.fromEntries(out);
}

// Legacy revisions carry an elicitationId in URL mode; 2026-07-28 has none (the
// server correlates through the requestState of the retried request).
function urlElicitation(params: JsonRecord, message: string, legacy: boolean): UrlElicitation {
  const id = params.elicitationId;
  if (legacy ? typeof id !== "string" : id !== undefined && typeof id !== "string") {
    throw invalidParams("URL elicitation needs a string elicitationId");
  }
  let url: URL | undefined;
  try {
    if (typeof params.url === "string") url = new URL(params.url);
  } catch {
    // not a URL: refused below
  }
  // Credentials in the URL would be shown to the user and leak; only web URLs open.
  const local = ["localhost", "127.0.0.1", "[::1]"].includes(url?.hostname ?? "");
  if (!url || url.username || url.password || !(url.protocol === "https:" || (url.protocol === "http:" && local))) {
    throw invalidParams("URL elicitation needs an https url (or http on localhost) without credentials");
  }
  const request: UrlElicitation = { mode: "url", message, url: url.href, domain: url.hostname };
  if (typeof id === "string") request.elicitationId = id;
  return request;
}
