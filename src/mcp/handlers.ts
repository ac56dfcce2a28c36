/**
 * Host handlers for what a server asks of the client: roots, sampling and
 * elicitation (V6), and the capabilities they imply. The same handlers answer
 * legacy server requests and modern `input_required` input requests.
 *
 * @module
 */
import { ProtocolError, ValidationError } from "../errors.js";
import { RpcErrorReply } from "../jsonrpc/session.js";
import { compileSchema } from "../schema/index.js";
import { isRecord, type JsonRecord } from "./types.js";

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
  };
}

/** The client capabilities implied by `handlers` (V6: only what has a handler). */
export function capabilitiesFor(handlers: ClientHandlers | undefined): JsonRecord {
  const caps: JsonRecord = {};
  if (!handlers) return caps;
  if (handlers.roots) caps.roots = { listChanged: true };
  if (handlers.sampling) caps.sampling = handlers.sampling.tools ? { tools: {} } : {};
  const e = handlers.elicitation;
  if (e?.form || e?.url) {
    const modes: JsonRecord = {};
    if (e.form) modes.form = {};
    if (e.url) modes.url = {};
    caps.elicitation = modes;
  }
  return caps;
}

/** Answers `roots/list`. */
export async function answerRoots(handlers: ClientHandlers, context: HandlerContext): Promise<JsonRecord> {
  if (!handlers.roots) throw new RpcErrorReply(-32601, "Method not found");
  const roots = await handlers.roots(context);
  for (const r of roots) {
    if (typeof r.uri !== "string" || !r.uri.startsWith("file://")) throw new ValidationError("a root must have a file:// uri");
  }
  return { roots: roots.map((r) => (r.name === undefined ? { uri: r.uri } : { uri: r.uri, name: r.name })) };
}

// The request reaches the host typed as SamplingRequest: every field it declares is
// checked first (the server is untrusted).
function samplingProblem(p: JsonRecord | undefined): string | undefined {
  if (!p) return "params are required";
  if (!Array.isArray(p.messages) || p.messages.length === 0) return "messages must be a non-empty array";
  for (const m of p.messages) {
    if (!isRecord(m) || (m.role !== "user" && m.role !== "assistant") || !(isRecord(m.content) || Array.isArray(m.content))) {
      return "each message needs role user or assistant and content";
    }
  }
  if (typeof p.maxTokens !== "number" || !Number.isSafeInteger(p.maxTokens) || p.maxTokens <= 0) return "maxTokens must be a positive integer";
  if (p.systemPrompt !== undefined && typeof p.systemPrompt !== "string") return "systemPrompt must be a string";
  if (p.temperature !== undefined && (typeof p.temperature !== "number" || !Number.isFinite(p.temperature))) return "temperature must be a number";
  if (p.stopSequences !== undefined && !(Array.isArray(p.stopSequences) && p.stopSequences.every((x) => typeof x === "string"))) {
    return "stopSequences must be strings";
  }
  if (p.includeContext !== undefined && !["none", "thisServer", "allServers"].includes(p.includeContext as string)) return "includeContext is not none, thisServer or allServers";
  for (const key of ["metadata", "modelPreferences", "toolChoice"]) if (p[key] !== undefined && !isRecord(p[key])) return `${key} must be an object`;
  if (p.tools !== undefined && !(Array.isArray(p.tools) && p.tools.every(isRecord))) return "tools must be an array of objects";
  return undefined;
}

/** Answers `sampling/createMessage`; the params are checked before the handler sees them. */
export async function answerSampling(handlers: ClientHandlers, params: JsonRecord | undefined, context: HandlerContext): Promise<JsonRecord> {
  const s = handlers.sampling;
  if (!s) throw new RpcErrorReply(-32601, "Method not found");
  const problem = samplingProblem(params);
  if (problem) throw new RpcErrorReply(-32602, `sampling/createMessage: ${problem}`);
  if ((params?.tools !== undefined || params?.toolChoice !== undefined) && !s.tools) {
    throw new RpcErrorReply(-32602, "this client does not support tools in sampling");
  }
  const request = { ...params } as unknown as SamplingRequest;
  const result = await s.handle(request, context);
  if (result.role !== "assistant" || typeof result.model !== "string" || !(isRecord(result.content) || Array.isArray(result.content))) {
    throw new ValidationError("the sampling handler returned an invalid result (role, model and content are required)");
  }
  return { ...result };
}

/**
 * Answers `elicitation/create` (form or URL mode). `legacy` is true for a server
 * request (revisions before 2026-07-28, where a URL elicitation carries an
 * `elicitationId`) and false for a modern input request (where it has none).
 */
export async function answerElicitation(
  handlers: ClientHandlers,
  params: JsonRecord | undefined,
  context: HandlerContext,
  legacy = true,
): Promise<JsonRecord> {
  const e = handlers.elicitation;
  if (!e || !params || typeof params.message !== "string") {
    throw new RpcErrorReply(e ? -32602 : -32601, e ? "elicitation/create needs a message" : "Method not found");
  }
  const mode = params.mode ?? "form";
  if (mode === "url") {
    if (!e.url) throw new RpcErrorReply(-32602, "this client does not support URL elicitation");
    const request = urlElicitation(params, legacy);
    return answerOf(await e.url(request, context));
  }
  if (mode !== "form") throw new RpcErrorReply(-32602, "unknown elicitation mode");
  if (!e.form) throw new RpcErrorReply(-32602, "this client does not support form elicitation");
  if (!isRecord(params.requestedSchema)) throw new RpcErrorReply(-32602, "form elicitation needs a requestedSchema");
  const schema = params.requestedSchema;
  const answer = await e.form({ mode: "form", message: params.message, requestedSchema: schema }, context);
  if (answer.action !== "accept") return answerOf(answer);
  const content = withDefaults(schema, answer.content ?? {});
  compileSchema(schema).assert(content, "the elicitation answer");
  return { action: "accept", content };
}

function answerOf(answer: ElicitationAnswer): JsonRecord {
  if (answer.action === "accept") return answer.content === undefined ? { action: "accept" } : { action: "accept", content: answer.content };
  if (answer.action === "decline" || answer.action === "cancel") return { action: answer.action };
  throw new ValidationError("an elicitation answer must be accept, decline or cancel");
}

// Form fields the user left empty take the schema's `default` (the spec lets
// servers give defaults so clients can pre-fill them).
function withDefaults(schema: JsonRecord, content: JsonRecord): JsonRecord {
  const out: JsonRecord = { ...content };
  const props = schema.properties;
  if (!isRecord(props)) return out;
  for (const [name, prop] of Object.entries(props)) {
    if (!Object.hasOwn(out, name) && isRecord(prop) && prop.default !== undefined) out[name] = prop.default;
  }
  return out;
}

function urlElicitation(params: JsonRecord, legacy: boolean): UrlElicitation {
  if (typeof params.url !== "string" || typeof params.message !== "string") throw new RpcErrorReply(-32602, "URL elicitation needs url and message");
  const id = params.elicitationId;
  if (legacy ? typeof id !== "string" : id !== undefined && typeof id !== "string") {
    throw new RpcErrorReply(-32602, "URL elicitation needs a string elicitationId");
  }
  let url: URL;
  try {
    url = new URL(params.url);
  } catch {
    throw new RpcErrorReply(-32602, "URL elicitation url is not a valid URL");
  }
  // Credentials in the URL would be shown to the user and leak; only web URLs open.
  const local = url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]";
  if (url.username || url.password || !(url.protocol === "https:" || (url.protocol === "http:" && local))) {
    throw new RpcErrorReply(-32602, "URL elicitation url must be https (or http on localhost) without credentials");
  }
  const request: UrlElicitation = { mode: "url", message: params.message, url: url.href, domain: url.hostname };
  if (typeof id === "string") request.elicitationId = id;
  return request;
}

/** Parses `notifications/message` params for the host logger (V7). */
export function parseLogMessage(params: JsonRecord | undefined): { level: string; logger?: string; data: unknown } {
  if (!params || typeof params.level !== "string" || !("data" in params)) throw new ProtocolError("notifications/message needs level and data");
  const out: { level: string; logger?: string; data: unknown } = { level: params.level, data: params.data };
  if (typeof params.logger === "string") out.logger = params.logger;
  return out;
}
