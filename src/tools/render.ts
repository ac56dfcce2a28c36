/**
 * Rendering MCP tool results for a model (T6, T7, T8, T16): structured results as
 * JSON text, text blocks joined in order, other blocks as placeholders or JSON,
 * images as image parts within their bounds, everything bounded.
 *
 * Server content is untrusted data: it is copied into text, never interpreted.
 *
 * @module
 */
import { isRecord, type CallToolResult, type ContentBlock } from "../mcp/types.js";
import {
  MAX_IMAGE_BYTES,
  MAX_IMAGES_PER_RESULT,
  MAX_INLINE_BASE64_CHARS,
  MAX_TOOL_ERROR_CHARS,
  MAX_TOOL_RESULT_BYTES,
  MAX_UNKNOWN_CONTENT_DEPTH,
} from "../limits.js";
import { cutChars, cutUtf8, IMAGE_TYPES } from "./bound.js";
import type { ImagePart, ToolResult } from "./types.js";

/**
 * How blocks other than text and image become text.
 *
 * - `"placeholders"` (connectMcp, T7): `[audio: mime]`, `[resource: uri]`,
 *   `[resource_link: uri name]`; kinds MCP does not define as JSON (T16).
 * - `"inline"` (mcpTools, T15): an embedded text resource as its text; every
 *   other block (audio, blob resource, link, unknown kind) as JSON (T16).
 *
 * In both, base64 payloads inside JSON are replaced by their decoded size.
 */
export type RenderStyle = "placeholders" | "inline";

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decoded size of a base64 string, or undefined when it is not base64. */
function base64Size(data: string): number | undefined {
  if (data.length % 4 !== 0 || !BASE64.test(data)) return undefined;
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return (data.length / 4) * 3 - padding;
}

/** Server text shown inside a placeholder: one line, at most `max` characters (then "…"). */
export function field(value: string, max = 512): string {
  const line = value.replace(/[\u0000-\u001f\u007f]/g, " ");
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** A media type without parameters, lower-cased. */
function essence(mimeType: string): string {
  return (mimeType.split(";")[0] ?? "").trim().toLowerCase();
}

/**
 * `value` as JSON-ready data with base64 payloads replaced by `[base64: N bytes]`
 * (T16): every base64 `data` / `blob` member, and any other base64-looking string
 * longer than `MAX_INLINE_BASE64_CHARS`. Nesting deeper than
 * `MAX_UNKNOWN_CONTENT_DEPTH` is elided.
 */
function elide(value: unknown, depth: number, key: string | undefined): unknown {
  if (typeof value === "string") {
    // MCP's base64 members (image / audio `data`, resource `blob`) are replaced at any length.
    if (value.length <= MAX_INLINE_BASE64_CHARS && key !== "data" && key !== "blob") return value;
    const size = base64Size(value);
    return size === undefined ? value : `[base64: ${size} bytes]`;
  }
  if (typeof value !== "object" || value === null) return value;
  if (depth >= MAX_UNKNOWN_CONTENT_DEPTH) return "[…]";
  if (Array.isArray(value)) return value.map((v) => elide(v, depth + 1, undefined));
  // fromEntries defines each member, so a server's "__proto__" member stays a member
  // (assigned, it would replace the copy's prototype and vanish from the JSON).
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, elide(v, depth + 1, k)]));
}

/** Text of a block of a kind MCP does not define (T16): an embedded text resource reads as its text. */
function receivedText(block: Record<string, unknown>): string {
  const { resource } = block;
  if (isRecord(resource) && typeof resource.text === "string") return resource.text;
  return JSON.stringify(elide(block, 0, undefined));
}

/** Text of one non-image block. */
function blockText(block: ContentBlock, style: RenderStyle): string {
  // P3: an unknown kind arrives wrapped; the block as the server sent it renders.
  if (block.type === "unknown") return receivedText(isRecord(block.block) ? block.block : {});
  const { uri, name, mimeType, resource: embedded } = block as unknown as Record<string, unknown>;
  const resource = isRecord(embedded) ? embedded : {};
  const placeholders = style === "placeholders";
  switch (block.type) {
    case "text":
      if (typeof block.text === "string") return block.text;
      break;
    case "image":
      if (typeof mimeType === "string") return `[image: ${field(mimeType)}]`;
      break;
    case "audio":
      if (placeholders && typeof mimeType === "string") return `[audio: ${field(mimeType)}]`;
      break;
    case "resource_link":
      if (placeholders && typeof uri === "string" && typeof name === "string") return `[resource_link: ${field(uri)} ${field(name)}]`;
      break;
    case "resource":
      if (placeholders && typeof resource.uri === "string") return `[resource: ${field(resource.uri)}]`;
      if (!placeholders && typeof resource.text === "string") return resource.text;
      break;
    default:
      // T16: a block built by the host rather than parsed (its type is not a known one).
      return receivedText(block);
  }
  // One block as JSON text with payloads replaced by their size (T16).
  return JSON.stringify(elide(block, 0, undefined));
}

/** What a list of content blocks renders to: joined text and the image parts. */
export interface RenderedContent {
  /** The text blocks and placeholders, joined with newlines, in order (not yet bounded). */
  text: string;
  /** Images within the T7 bounds, in order. */
  images: ImagePart[];
}

/**
 * Renders content blocks (T7, T16). Images that are png, jpeg, webp or gif, valid
 * base64 of at most `MAX_IMAGE_BYTES` decoded, and among the first
 * `MAX_IMAGES_PER_RESULT` such become image parts; every other image becomes
 * `[image: mime]`. With `images: false` every image is a placeholder.
 *
 * @example
 * ```ts
 * renderContent([{ type: "text", text: "a" }, { type: "audio", data: "", mimeType: "audio/wav" }]).text;
 * // "a\n[audio: audio/wav]"
 * ```
 */
export function renderContent(
  blocks: readonly ContentBlock[],
  options: { style?: RenderStyle; images?: boolean } = {},
): RenderedContent {
  const style = options.style ?? "placeholders";
  const lines: string[] = [];
  const images: ImagePart[] = [];
  for (const block of blocks) {
    if (block.type === "image" && options.images !== false && images.length < MAX_IMAGES_PER_RESULT) {
      const { data, mimeType } = block;
      if (typeof data === "string" && typeof mimeType === "string" && IMAGE_TYPES.has(essence(mimeType))) {
        const size = base64Size(data);
        if (size !== undefined && size <= MAX_IMAGE_BYTES) {
          images.push({ type: "image", mimeType: essence(mimeType), data });
          continue;
        }
      }
    }
    lines.push(blockText(block, style));
  }
  return { text: lines.join("\n"), images };
}

/**
 * Renders a successful `tools/call` result for the model (T6, T7): a result with
 * `structuredContent` becomes its JSON text; otherwise the content blocks render
 * by {@link renderContent}. The text is cut to `MAX_TOOL_RESULT_BYTES` UTF-8 bytes
 * on a character boundary, with a marker.
 *
 * @example
 * ```ts
 * renderToolResult({ content: [], structuredContent: { n: 1 }, isError: false });
 * // { content: [{ type: "text", text: '{"n":1}' }], isError: false }
 * ```
 */
export function renderToolResult(result: CallToolResult, options: { style?: RenderStyle } = {}): ToolResult {
  const rendered: RenderedContent =
    result.structuredContent !== undefined
      ? { text: JSON.stringify(result.structuredContent), images: [] }
      : renderContent(result.content, options);
  const text = cutUtf8(rendered.text, MAX_TOOL_RESULT_BYTES);
  const content: ToolResult["content"] = text !== "" || rendered.images.length === 0 ? [{ type: "text", text }] : [];
  return { content: [...content, ...rendered.images], isError: false };
}

/**
 * An error result the model sees: `{"error": code, "message": ...}` as JSON text,
 * with `isError: true` (R4). The message is cut to `maxChars` (default
 * `MAX_TOOL_ERROR_CHARS`) with a marker.
 *
 * @example
 * ```ts
 * errorResult("unauthorized", "the host denied catalog__lookup");
 * ```
 */
export function errorResult(code: string, message: string, maxChars = MAX_TOOL_ERROR_CHARS): ToolResult {
  const text = JSON.stringify({ error: code, message: cutChars(message, maxChars) });
  return { content: [{ type: "text", text }], isError: true };
}

/**
 * The T8 envelope for a remote `isError: true` result:
 * `{"error":"tool_failed","message":...}`, the message being the rendered text
 * (images as placeholders) cut to `MAX_TOOL_ERROR_CHARS` characters.
 *
 * @example
 * ```ts
 * toolFailed({ content: [{ type: "text", text: "Unknown SKU" }], isError: true });
 * ```
 */
export function toolFailed(result: CallToolResult): ToolResult {
  let message = renderContent(result.content, { images: false }).text;
  if (message === "" && result.structuredContent !== undefined) message = JSON.stringify(result.structuredContent);
  return errorResult("tool_failed", message === "" ? "the tool failed without a message" : message);
}
