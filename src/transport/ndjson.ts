/**
 * Newline-delimited framing: bytes in, lines out (S1, S8). Web-standard, linear in
 * input, bounded in memory.
 *
 * A line is kept as the list of chunks it arrived in and joined once when its
 * newline arrives, then decoded once: an 8 MiB line in 4 KiB chunks costs one copy
 * and one decode, not a re-scan per chunk (the quadratic pattern of appending to a
 * growing buffer and searching it again).
 *
 * @module
 */
import { concatBytes } from "../util/bytes.js";

/** What a {@link LineSplitter} reports. */
export interface LineSink {
  /** One complete line, decoded as UTF-8 (invalid bytes become U+FFFD), without its `\n` / `\r\n`. */
  line(text: string): void;
  /**
   * A line longer than the bound was dropped (S8). `head` holds its first bytes
   * (at most 1 KiB) so the caller can tell which message it was.
   */
  overflow(head: Uint8Array, length: number): void;
}

/** Splits a byte stream into lines. */
export interface LineSplitter {
  /** Feeds the next chunk of bytes. */
  push(chunk: Uint8Array): void;
  /** Ends the input; a final line without a newline is delivered too. */
  end(): void;
}

const LF = 0x0a;
const CR = 0x0d;
const BOM = 0xfeff;
const HEAD_BYTES = 1024;

/**
 * Creates a line splitter with a bound on line length in bytes.
 *
 * @example
 * ```ts
 * const split = createLineSplitter(16 * 1024 * 1024, { line: (t) => console.log(t), overflow: () => {} });
 * split.push(new TextEncoder().encode('{"a":1}\n{"b"'));
 * split.push(new TextEncoder().encode(':2}\n'));
 * ```
 */
export function createLineSplitter(maxLineBytes: number, sink: LineSink): LineSplitter {
  const decoder = new TextDecoder("utf-8");
  // For whole chunks: keeps a BOM, which `lines` strips per line as `decoder` does.
  const whole = new TextDecoder("utf-8", { ignoreBOM: true });
  let parts: Uint8Array[] = [];
  let size = 0;
  // While skipping an over-long line: its length so far and its first bytes.
  let skipping = false;
  let skipped = 0;
  let head: Uint8Array | undefined;

  function emit(last: Uint8Array): void {
    let bytes = last;
    if (parts.length > 0) {
      // A line that spanned chunks: joined once, now that its end arrived.
      parts.push(last);
      bytes = concatBytes(parts);
      parts = [];
      size = 0;
    }
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === CR) end--;
    if (end === 0) return;
    sink.line(decoder.decode(end === bytes.length ? bytes : bytes.subarray(0, end)));
  }

  function keep(piece: Uint8Array): void {
    if (piece.length === 0) return;
    if (skipping) {
      skipped += piece.length;
      return;
    }
    if (size + piece.length > maxLineBytes) {
      skipping = true;
      const all = new Uint8Array(Math.min(HEAD_BYTES, size + piece.length));
      let at = 0;
      for (const p of [...parts, piece]) {
        if (at >= all.length) break;
        const take = p.subarray(0, all.length - at);
        all.set(take, at);
        at += take.length;
      }
      head = all;
      skipped = size + piece.length;
      parts = [];
      size = 0;
      return;
    }
    // Chunks may be views on buffers the caller reuses: keep a copy.
    parts.push(piece.slice());
    size += piece.length;
  }

  function finishSkip(): void {
    sink.overflow(head ?? new Uint8Array(0), skipped);
    skipping = false;
    skipped = 0;
    head = undefined;
  }

  // The lines of a decoded chunk that ends with "\n", each as `emit` gives it: one
  // "\r" before the "\n" and one leading BOM dropped, empty lines skipped. A "\n" byte
  // is never part of a UTF-8 sequence, so decoding the chunk at once decodes each line
  // as `emit` would.
  function lines(text: string): void {
    let start = 0;
    for (;;) {
      const nl = text.indexOf("\n", start);
      if (nl === -1) return;
      const end = nl > start && text.charCodeAt(nl - 1) === CR ? nl - 1 : nl;
      if (end > start) sink.line(text.slice(text.charCodeAt(start) === BOM ? start + 1 : start, end));
      start = nl + 1;
    }
  }

  return {
    push(chunk) {
      // The common chunk: nothing carried over, it ends a line, and no line in it can be
      // over the bound. Measured: half the splitter's time per message went to the
      // per-line search, view and decode this skips.
      const n = chunk.length;
      if (size === 0 && !skipping && n <= maxLineBytes && n > 0 && chunk[n - 1] === LF) return lines(whole.decode(chunk));
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(LF, start);
        if (nl === -1) {
          if (start < chunk.length) keep(chunk.subarray(start));
          return;
        }
        const piece = chunk.subarray(start, nl);
        if (skipping || size + piece.length > maxLineBytes) {
          keep(piece);
          finishSkip();
        } else {
          emit(piece);
        }
        start = nl + 1;
      }
    },
    end() {
      if (skipping) finishSkip();
      else if (size > 0) emit(new Uint8Array(0));
    },
  };
}

/**
 * Reads the top-level `"id"` of a JSON-RPC message from the first bytes of its
 * text, when the id comes before any nested value (as every common encoder writes
 * it). Used to tell which request an over-long line answered (S8).
 */
export function peekMessageId(head: Uint8Array): string | number | undefined {
  const text = new TextDecoder().decode(head);
  const m =
    /^\s*\{(?:\s*"(?:[^"\\]|\\.)*"\s*:\s*(?:"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null)\s*,)*?\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/.exec(
      text,
    );
  const raw = m?.[1];
  if (raw === undefined) return undefined;
  if (raw.startsWith('"')) {
    try {
      return JSON.parse(raw) as string;
    } catch {
      return undefined;
    }
  }
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : undefined;
}
