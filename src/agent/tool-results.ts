/**
 * What goes back to the model for a tool call (R4): a tool's own result, checked
 * and bounded, or an error result the loop writes (the tool threw, the model
 * named an unknown tool, its arguments were not a JSON object, a loop was
 * detected, the run was cancelled). Error results are JSON text
 * `{"error": <kind>, "message": ...}`, the shape seed 003 uses for tool_failed.
 *
 * @module
 */
import { YadaError } from "../errors.js";
import {
  MAX_AGENT_IMAGE_BASE64_CHARS,
  MAX_AGENT_TOOL_ERROR_CHARS,
  MAX_AGENT_TOOL_RESULT_BYTES,
  MAX_AGENT_TOOL_RESULT_IMAGES,
  MAX_QUOTED_CHARS,
} from "../limits.js";
import { IMAGE_TYPES, utf8Length, utf8Prefix } from "../tools/bound.js";
import { errorResult as toolError } from "../tools/render.js";
import type { ToolResult, ToolResultPart, ToolUpdate } from "../tools/types.js";
import { isRec } from "../util/record.js";

/** The kinds of error result the loop writes. */
export type LoopErrorKind = "tool_failed" | "unknown_tool" | "invalid_arguments" | "loop_detected" | "cancelled" | "rejected" | "expired" | "outcome_unknown";

/**
 * An error result: `{"error": kind, "message": message}` as text, `isError: true`;
 * the message cut to `MAX_AGENT_TOOL_ERROR_CHARS` (with a marker).
 */
export function errorResult(kind: LoopErrorKind, message: string): ToolResult {
  return toolError(kind, message, MAX_AGENT_TOOL_ERROR_CHARS);
}

/** The error result for a value a tool threw. */
export function thrownResult(error: unknown): ToolResult {
  let message = error instanceof Error ? error.message : typeof error === "string" ? error : "the tool failed";
  // A closed connection's message carries the server's stderr and stray stdout for
  // the host (S4), where secrets can show up: the model gets only how it ended.
  if (error instanceof YadaError && error.code === "connection_closed") message = message.split("; ")[0] ?? "the connection closed";
  return errorResult("tool_failed", message);
}

/**
 * Checks what a tool returned and bounds it: text parts together at most
 * `MAX_AGENT_TOOL_RESULT_BYTES` (cut with a note), at most
 * `MAX_AGENT_TOOL_RESULT_IMAGES` png / jpeg / webp / gif images within
 * `MAX_AGENT_IMAGE_BASE64_CHARS` (others become `[image: mime]`), any other part
 * `[unsupported content: type]`. A value that is not a ToolResult becomes an
 * error result.
 */
export function boundedResult(value: unknown): ToolResult {
  if (!isRec(value) || !Array.isArray(value.content) || (value.isError !== undefined && typeof value.isError !== "boolean")) {
    return errorResult("tool_failed", "the tool returned something that is not a tool result");
  }
  const content: ToolResultPart[] = [];
  // The cut note counts against the bound too: room for it is kept once a cut is needed.
  const note = `\n[truncated: the result exceeds ${MAX_AGENT_TOOL_RESULT_BYTES} bytes]`;
  let budget = MAX_AGENT_TOOL_RESULT_BYTES;
  let images = 0;
  let cut = false;
  const addText = (text: string): void => {
    if (cut) return;
    const size = utf8Length(text);
    let kept = text;
    if (size > budget) {
      kept = utf8Prefix(text, Math.max(0, budget - note.length));
      cut = true; // nothing is added after a cut, so the budget is not read again
    }
    budget -= size;
    content.push({ type: "text", text: kept });
  };
  for (const part of value.content as unknown[]) {
    if (!isRec(part)) continue;
    if (part.type === "text" && typeof part.text === "string") addText(part.text);
    else if (part.type === "image" && typeof part.mimeType === "string" && typeof part.data === "string") {
      const ok = IMAGE_TYPES.has(part.mimeType) && part.data.length <= MAX_AGENT_IMAGE_BASE64_CHARS && images < MAX_AGENT_TOOL_RESULT_IMAGES;
      if (ok) {
        images++;
        content.push({ type: "image", mimeType: part.mimeType, data: part.data });
      } else addText(`[image: ${part.mimeType.slice(0, MAX_QUOTED_CHARS)}]`);
    } else addText(`[unsupported content: ${String(part.type).slice(0, MAX_QUOTED_CHARS)}]`);
  }
  if (cut) content.push({ type: "text", text: note });
  return { content, isError: value.isError === true };
}

/** A progress update as plain data (only the known fields, of the right types). */
export function plainUpdate(update: unknown): ToolUpdate {
  const out: ToolUpdate = {};
  if (!isRec(update)) return out;
  // Number.isFinite is false for anything that is not a number.
  if (Number.isFinite(update.progress)) out.progress = update.progress as number;
  if (Number.isFinite(update.total)) out.total = update.total as number;
  if (typeof update.message === "string") out.message = update.message.slice(0, MAX_AGENT_TOOL_ERROR_CHARS);
  return out;
}
