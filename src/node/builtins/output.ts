/**
 * Bounded text output of the Node built-in tools (R5): lines are cut to
 * `MAX_BUILTIN_LINE_CHARS` and the whole to `MAX_BUILTIN_OUTPUT_BYTES` UTF-8 bytes;
 * the tool then says where it stopped, so the model can ask for the rest.
 *
 * @module
 */
import { MAX_BUILTIN_LINE_CHARS, MAX_BUILTIN_OUTPUT_BYTES } from "../../limits.js";
import type { ToolResult } from "../../tools/types.js";
import { PathRefused } from "./roots.js";

// Room kept for the closing note, so the output with its note stays within the bound.
const NOTE_RESERVE = 300;

/** Collects lines until the byte bound. */
export class BoundedLines {
  readonly #lines: string[] = [];
  #bytes = 0;
  #full = false;
  readonly #max: number;

  constructor(maxBytes = MAX_BUILTIN_OUTPUT_BYTES) {
    this.#max = maxBytes - NOTE_RESERVE;
  }

  /** Adds a line (cut to `MAX_BUILTIN_LINE_CHARS`); false once the bound is reached (the line was not added). */
  add(line: string): boolean {
    if (this.#full) return false;
    const cut = line.length > MAX_BUILTIN_LINE_CHARS ? `${line.slice(0, MAX_BUILTIN_LINE_CHARS)}… [line cut]` : line;
    const bytes = Buffer.byteLength(cut, "utf8") + 1;
    if (this.#bytes + bytes > this.#max) {
      this.#full = true;
      return false;
    }
    this.#bytes += bytes;
    this.#lines.push(cut);
    return true;
  }

  /** Whether a line was refused for lack of room. */
  get full(): boolean {
    return this.#full;
  }

  /** Lines added so far. */
  get count(): number {
    return this.#lines.length;
  }

  /** The text, with `note` on a last line when given. */
  text(note?: string): string {
    return note === undefined ? this.#lines.join("\n") : [...this.#lines, note].join("\n");
  }
}

/** A successful text result. */
export function textResult(text: string): ToolResult {
  return { content: [{ type: "text", text }], isError: false };
}

/** A failed result the model sees (R4). */
export function failure(message: string): ToolResult {
  return { content: [{ type: "text", text: `Error: ${message}` }], isError: true };
}

/** Turns a refusal or an I/O error into an error result the model sees; rethrows cancellation. */
export function refusal(e: unknown): ToolResult {
  if (e instanceof PathRefused) return failure(e.message);
  if (e instanceof Error && "code" in e && e.code === "cancelled") throw e;
  // An I/O error's message holds the real path (a link target, perhaps): only its code is shown.
  const code = e instanceof Error && "code" in e && typeof e.code === "string" ? e.code : "error";
  return failure(`the file system refused the operation (${code})`);
}
