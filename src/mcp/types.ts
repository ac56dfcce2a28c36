/**
 * The MCP data yada reads from servers, as precise types, and the validating
 * parsers that produce them from untrusted JSON (V3, V4).
 *
 * @module
 */
import { ProtocolError } from "../errors.js";

/** A JSON object as received. */
export type JsonRecord = Record<string, unknown>;

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
/** A content kind yada does not model; kept as received (T16). */
export interface UnknownContent {
  type: string;
  [key: string]: unknown;
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

/** Is `v` a plain JSON object? */
export function isRecord(v: unknown): v is JsonRecord {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(o: JsonRecord, key: string, where: string): string {
  const v = o[key];
  if (typeof v !== "string") throw new ProtocolError(`${where}: "${key}" must be a string`);
  return v;
}
function optStr(o: JsonRecord, key: string, where: string): string | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== "string") throw new ProtocolError(`${where}: "${key}" must be a string when present`);
  return v;
}
function optRec(o: JsonRecord, key: string, where: string): JsonRecord | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (!isRecord(v)) throw new ProtocolError(`${where}: "${key}" must be an object when present`);
  return v;
}
function assign<T extends object>(target: T, key: string, value: unknown): T {
  if (value !== undefined) (target as Record<string, unknown>)[key] = value;
  return target;
}

/** Parses one tool of a `tools/list` page. @throws ProtocolError */
export function parseTool(v: unknown, where: string): McpTool {
  if (!isRecord(v)) throw new ProtocolError(`${where}: a tool is not an object`);
  const name = str(v, "name", where);
  if (name.length === 0) throw new ProtocolError(`${where}: a tool has an empty name`);
  const at = `${where}: tool '${name.slice(0, 80)}'`;
  const inputSchema = optRec(v, "inputSchema", at);
  if (!inputSchema) throw new ProtocolError(`${at}: "inputSchema" must be an object`);
  const tool: McpTool = { name, inputSchema };
  assign(tool, "title", optStr(v, "title", at));
  assign(tool, "description", optStr(v, "description", at));
  assign(tool, "outputSchema", optRec(v, "outputSchema", at));
  const annotations = optRec(v, "annotations", at);
  if (annotations) {
    for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]) {
      const h = annotations[hint];
      if (h !== undefined && typeof h !== "boolean") throw new ProtocolError(`${at}: annotation ${hint} must be a boolean`);
    }
    tool.annotations = annotations as ToolAnnotations;
  }
  assign(tool, "_meta", optRec(v, "_meta", at));
  return tool;
}

function parseResourceContents(v: unknown, where: string): ResourceContents {
  if (!isRecord(v)) throw new ProtocolError(`${where}: resource contents must be an object`);
  const uri = str(v, "uri", where);
  const mimeType = optStr(v, "mimeType", where);
  let out: ResourceContents;
  if (typeof v.text === "string") out = { uri, text: v.text };
  else if (typeof v.blob === "string") out = { uri, blob: v.blob };
  else throw new ProtocolError(`${where}: resource contents need "text" or "blob"`);
  assign(out, "mimeType", mimeType);
  assign(out, "_meta", optRec(v, "_meta", where));
  return out;
}

/** Parses one content block (V4); unknown kinds are kept as received (T16). @throws ProtocolError */
export function parseContentBlock(v: unknown, where: string): ContentBlock {
  if (!isRecord(v)) throw new ProtocolError(`${where}: a content block is not an object`);
  const type = str(v, "type", where);
  const at = `${where}: ${type.slice(0, 40)} content`;
  let block: ContentBlock;
  switch (type) {
    case "text":
      block = { type, text: str(v, "text", at) };
      break;
    case "image":
    case "audio":
      block = { type, data: str(v, "data", at), mimeType: str(v, "mimeType", at) };
      break;
    case "resource":
      block = { type, resource: parseResourceContents(v.resource, at) };
      break;
    case "resource_link": {
      const link: ResourceLink = { type, uri: str(v, "uri", at), name: str(v, "name", at) };
      assign(link, "title", optStr(v, "title", at));
      assign(link, "description", optStr(v, "description", at));
      assign(link, "mimeType", optStr(v, "mimeType", at));
      if (typeof v.size === "number") link.size = v.size;
      block = link;
      break;
    }
    default:
      return v as UnknownContent;
  }
  assign(block, "annotations", optRec(v, "annotations", at));
  assign(block, "_meta", optRec(v, "_meta", at));
  return block;
}

/** Parses a `tools/call` result (V4). @throws ProtocolError */
export function parseCallToolResult(v: JsonRecord, where: string): CallToolResult {
  const content = v.content;
  if (!Array.isArray(content)) throw new ProtocolError(`${where}: result "content" must be an array`);
  const result: CallToolResult = {
    content: content.map((c, i) => parseContentBlock(c, `${where} content[${i}]`)),
    isError: false,
  };
  if (v.isError !== undefined) {
    if (typeof v.isError !== "boolean") throw new ProtocolError(`${where}: "isError" must be a boolean`);
    result.isError = v.isError;
  }
  assign(result, "structuredContent", optRec(v, "structuredContent", where));
  assign(result, "_meta", optRec(v, "_meta", where));
  return result;
}

/** Parses one resource of a `resources/list` page. @throws ProtocolError */
export function parseResource(v: unknown, where: string): McpResource {
  if (!isRecord(v)) throw new ProtocolError(`${where}: a resource is not an object`);
  const r: McpResource = { uri: str(v, "uri", where), name: str(v, "name", where) };
  for (const k of ["title", "description", "mimeType"]) assign(r, k, optStr(v, k, where));
  if (typeof v.size === "number") r.size = v.size;
  assign(r, "annotations", optRec(v, "annotations", where));
  assign(r, "_meta", optRec(v, "_meta", where));
  return r;
}

/** Parses one template of a `resources/templates/list` page. @throws ProtocolError */
export function parseResourceTemplate(v: unknown, where: string): McpResourceTemplate {
  if (!isRecord(v)) throw new ProtocolError(`${where}: a resource template is not an object`);
  const r: McpResourceTemplate = { uriTemplate: str(v, "uriTemplate", where), name: str(v, "name", where) };
  for (const k of ["title", "description", "mimeType"]) assign(r, k, optStr(v, k, where));
  assign(r, "annotations", optRec(v, "annotations", where));
  assign(r, "_meta", optRec(v, "_meta", where));
  return r;
}

/** Parses a `resources/read` result. @throws ProtocolError */
export function parseReadResourceResult(v: JsonRecord, where: string): ResourceContents[] {
  if (!Array.isArray(v.contents)) throw new ProtocolError(`${where}: result "contents" must be an array`);
  return v.contents.map((c, i) => parseResourceContents(c, `${where} contents[${i}]`));
}

/** Parses one prompt of a `prompts/list` page. @throws ProtocolError */
export function parsePrompt(v: unknown, where: string): McpPrompt {
  if (!isRecord(v)) throw new ProtocolError(`${where}: a prompt is not an object`);
  const p: McpPrompt = { name: str(v, "name", where) };
  assign(p, "title", optStr(v, "title", where));
  assign(p, "description", optStr(v, "description", where));
  if (v.arguments !== undefined) {
    if (!Array.isArray(v.arguments)) throw new ProtocolError(`${where}: prompt "arguments" must be an array`);
    p.arguments = v.arguments.map((a) => {
      if (!isRecord(a)) throw new ProtocolError(`${where}: a prompt argument is not an object`);
      const arg: PromptArgument = { name: str(a, "name", where) };
      assign(arg, "description", optStr(a, "description", where));
      if (typeof a.required === "boolean") arg.required = a.required;
      return arg;
    });
  }
  assign(p, "_meta", optRec(v, "_meta", where));
  return p;
}

/** Parses a `prompts/get` result. @throws ProtocolError */
export function parseGetPromptResult(v: JsonRecord, where: string): GetPromptResult {
  if (!Array.isArray(v.messages)) throw new ProtocolError(`${where}: result "messages" must be an array`);
  const r: GetPromptResult = {
    messages: v.messages.map((m, i) => {
      if (!isRecord(m) || (m.role !== "user" && m.role !== "assistant")) {
        throw new ProtocolError(`${where}: messages[${i}] needs role "user" or "assistant"`);
      }
      return { role: m.role, content: parseContentBlock(m.content, `${where} messages[${i}]`) };
    }),
  };
  assign(r, "description", optStr(v, "description", where));
  return r;
}
