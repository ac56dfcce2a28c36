/**
 * The MCP data yada reads from servers, as precise types, and the validating
 * parsers that produce them from untrusted JSON (V3, V4).
 *
 * @module
 */
import { MAX_INSTANCE_DEPTH, MAX_QUOTED_CHARS } from "../limits.js";
import { LimitError, ProtocolError } from "../errors.js";
import { asRecord, isRecord, readFields, readList, type FieldRules, type JsonRecord } from "./fields.js";
import { shallowEnough } from "../util/record.js";

export { isRecord, type JsonRecord } from "./fields.js";

/** Tool annotations (hints only; untrusted). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [key: string]: unknown;
}

/** A tool as listed by `tools/list`. */
export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonRecord;
  outputSchema?: JsonRecord;
  annotations?: ToolAnnotations;
  /** How the tool runs (2025-11-25): `taskSupport` is `required`, `optional` or `forbidden` (V8). Untrusted. */
  execution?: JsonRecord;
  _meta?: JsonRecord;
}

/** Text content. */
export interface TextContent {
  type: "text";
  text: string;
  annotations?: JsonRecord;
  _meta?: JsonRecord;
}
/** Image content (base64). */
export interface ImageContent {
  type: "image";
  data: string;
  mimeType: string;
  annotations?: JsonRecord;
  _meta?: JsonRecord;
}
/** Audio content (base64). */
export interface AudioContent {
  type: "audio";
  data: string;
  mimeType: string;
  annotations?: JsonRecord;
  _meta?: JsonRecord;
}
/** The contents of a resource: text or base64 blob. */
export type ResourceContents =
  | { uri: string; mimeType?: string; text: string; _meta?: JsonRecord }
  | { uri: string; mimeType?: string; blob: string; _meta?: JsonRecord };
/** An embedded resource. */
export interface EmbeddedResource {
  type: "resource";
  resource: ResourceContents;
  annotations?: JsonRecord;
  _meta?: JsonRecord;
}
/** A link to a resource. */
export interface ResourceLink {
  type: "resource_link";
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: JsonRecord;
  _meta?: JsonRecord;
}
/**
 * A content kind yada does not model (T16), kept as received in `block`; `kind` is
 * the server's `type`. Its own `type` is `"unknown"` (P3), never one of the known
 * kinds, so `if (b.type === "text") b.text` is a `string`. A server block whose type
 * is literally `"unknown"` is wrapped the same way.
 */
export interface UnknownContent {
  type: "unknown";
  kind: string;
  block: JsonRecord;
}
/** One block of tool or prompt content (V4). */
export type ContentBlock = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink | UnknownContent;

/** The result of `tools/call` (V4). */
export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: JsonRecord;
  isError: boolean;
  _meta?: JsonRecord;
}

/** A resource as listed by `resources/list`. */
export interface McpResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: JsonRecord;
  _meta?: JsonRecord;
}
/** A resource template as listed by `resources/templates/list`. */
export interface McpResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: JsonRecord;
  _meta?: JsonRecord;
}
/** A prompt argument. */
export interface PromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}
/** A prompt as listed by `prompts/list`. */
export interface McpPrompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  _meta?: JsonRecord;
}
/** One message of a rendered prompt. */
export interface PromptMessage {
  role: "user" | "assistant";
  content: ContentBlock;
}
/** The result of `prompts/get`. */
export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
}
/** What the server told about itself in the handshake. */
export interface ServerInfo {
  name: string;
  version: string;
  title?: string;
  [key: string]: unknown;
}

// ── parsing ───────────────────────────────────────────────────────────────────
// Each parser names the fields it reads in a table (see fields.ts); the table's
// order is the order of the parsed object's keys.

const ANNOTATED: FieldRules = { annotations: "object?", _meta: "object?" };
const DESCRIBED: FieldRules = { title: "string?", description: "string?" };
const TOOL: FieldRules = { inputSchema: "object", ...DESCRIBED, outputSchema: "object?", annotations: "object?", execution: "object?", _meta: "object?" };
const RESOURCE: FieldRules = { uri: "string", name: "string", ...DESCRIBED, mimeType: "string?", size: "number hint", ...ANNOTATED };
const TEMPLATE: FieldRules = { uriTemplate: "string", name: "string", ...DESCRIBED, mimeType: "string?", ...ANNOTATED };
const MEDIA: FieldRules = { data: "string", mimeType: "string", ...ANNOTATED };
// The content kinds yada models (V4); `resource` also carries its parsed contents.
const CONTENT: Readonly<Record<string, FieldRules>> = {
  text: { text: "string", ...ANNOTATED },
  image: MEDIA,
  audio: MEDIA,
  resource: ANNOTATED,
  resource_link: RESOURCE,
};
const TOOL_HINTS: FieldRules = { readOnlyHint: "boolean?", destructiveHint: "boolean?", idempotentHint: "boolean?", openWorldHint: "boolean?" };

/** Parses one tool of a `tools/list` page. @throws ProtocolError */
export function parseTool(v: unknown, where: string): McpTool {
  const o = asRecord(v, where, "a tool");
  const tool = readFields<McpTool>(o, where, { name: "string" });
  if (tool.name.length === 0) throw new ProtocolError(`${where}: a tool has an empty name`);
  const at = `${where}: tool '${tool.name.slice(0, MAX_QUOTED_CHARS)}'`;
  readFields(o, at, TOOL, tool as unknown as JsonRecord);
  if (tool.annotations) readFields(tool.annotations, `${at} annotations`, TOOL_HINTS);
  return tool;
}

function parseResourceContents(v: unknown, where: string): ResourceContents {
  const o = asRecord(v, where, "a resource");
  const out = readFields<JsonRecord>(o, where, { uri: "string" });
  if (typeof o.text === "string") out.text = o.text;
  else if (typeof o.blob === "string") out.blob = o.blob;
  else throw new ProtocolError(`${where}: resource contents need "text" or "blob"`);
  return readFields(o, where, { mimeType: "string?", _meta: "object?" }, out);
}

/** The field every content block has. */
const TYPED: FieldRules = { type: "string" };
/** The optional fields of a `tools/call` result besides `content`. */
const CALL_RESULT: FieldRules = { isError: "boolean?", structuredContent: "object?", _meta: "object?" };

/** Parses one content block (V4); unknown kinds are kept as received (T16). @throws ProtocolError */
export function parseContentBlock(v: unknown, where: string): ContentBlock {
  // The common block, text and nothing else, is what CONTENT.text makes of it, read
  // without the table: measured, the table read was most of a tools/call result's parse.
  if (isRecord(v) && v.type === "text" && typeof v.text === "string" && v.annotations === undefined && v._meta === undefined) return { type: "text", text: v.text };
  const o = asRecord(v, where, "a content block");
  const { type } = readFields<{ type: string }>(o, where, TYPED);
  const rules = Object.hasOwn(CONTENT, type) ? CONTENT[type] : undefined;
  if (!rules) return { type: "unknown", kind: type, block: o } satisfies UnknownContent;
  const at = `${where}: ${type} content`;
  const block: JsonRecord = { type };
  if (type === "resource") block.resource = parseResourceContents(o.resource, at);
  return readFields(o, at, rules, block);
}

/**
 * Parses a `tools/call` result (V4). Its `structuredContent` is rendered as JSON
 * text, which runtimes cannot do for values nested thousands of levels deep, so
 * it is bounded like a validated instance.
 *
 * @throws ProtocolError (`protocol`); LimitError (`limit`, `MAX_INSTANCE_DEPTH`).
 */
export function parseCallToolResult(v: JsonRecord, where: string): CallToolResult {
  const content = readList(v, "content", where, parseContentBlock);
  // As CALL_RESULT reads it, without the table, when no field but isError is present.
  const isError = v.isError;
  if (v.structuredContent === undefined && v._meta === undefined && (isError === undefined || typeof isError === "boolean")) return { content, isError: isError === true };
  const parsed = readFields<CallToolResult>(v, where, CALL_RESULT, { content, isError: false });
  if (!shallowEnough(parsed.structuredContent, 0)) {
    throw new LimitError("MAX_INSTANCE_DEPTH", MAX_INSTANCE_DEPTH, `${where}: "structuredContent" nests deeper than ${MAX_INSTANCE_DEPTH} levels`);
  }
  return parsed;
}

/** Parses one resource of a `resources/list` page. @throws ProtocolError */
export function parseResource(v: unknown, where: string): McpResource {
  return readFields(asRecord(v, where, "a resource"), where, RESOURCE);
}

/** Parses one template of a `resources/templates/list` page. @throws ProtocolError */
export function parseResourceTemplate(v: unknown, where: string): McpResourceTemplate {
  return readFields(asRecord(v, where, "a resource template"), where, TEMPLATE);
}

/** Parses a `resources/read` result. @throws ProtocolError */
export function parseReadResourceResult(v: JsonRecord, where: string): ResourceContents[] {
  return readList(v, "contents", where, parseResourceContents);
}

/** Parses one prompt of a `prompts/list` page. @throws ProtocolError */
export function parsePrompt(v: unknown, where: string): McpPrompt {
  const o = asRecord(v, where, "a prompt");
  const prompt = readFields<JsonRecord>(o, where, { name: "string", ...DESCRIBED });
  if (o.arguments !== undefined) {
    prompt.arguments = readList(o, "arguments", where, (a, at) =>
      readFields<PromptArgument>(asRecord(a, at, "a prompt argument"), at, { name: "string", description: "string?", required: "boolean hint" }),
    );
  }
  return readFields(o, where, { _meta: "object?" }, prompt);
}

/** Parses a `prompts/get` result. @throws ProtocolError */
export function parseGetPromptResult(v: JsonRecord, where: string): GetPromptResult {
  const messages = readList(v, "messages", where, (m, at): PromptMessage => {
    if (!isRecord(m) || (m.role !== "user" && m.role !== "assistant")) throw new ProtocolError(`${at}: needs role "user" or "assistant"`);
    return { role: m.role, content: parseContentBlock(m.content, at) };
  });
  return readFields(v, where, { description: "string?" }, { messages });
}
