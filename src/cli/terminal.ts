/**
 * Terminal output for the CLI: where text goes, when it is coloured (a TTY and
 * no `NO_COLOR`), how untrusted server and model text is made safe to print,
 * how MCP content looks on a terminal, and the progress line on stderr.
 *
 * Server and model text never reaches the terminal raw: escape sequences and
 * other control characters are replaced, so a server cannot move the cursor,
 * rewrite earlier lines or change the window title.
 *
 * @module
 */
import type { Progress } from "../jsonrpc/session.js";
import type { ContentBlock } from "../mcp/types.js";
import { MAX_ERROR_LINE_CHARS, MAX_LINE_BYTES, PROGRESS_LOG_INTERVAL_MS } from "../limits.js";

/** Where the CLI writes, and what it knows about the terminal. */
export interface Io {
  /** Writes to stdout. */
  out(text: string): void;
  /** Writes to stderr. */
  err(text: string): void;
  /** Colour on stdout (a TTY, `NO_COLOR` unset or empty, `TERM` not `dumb`). */
  readonly color: boolean;
  /** Whether stderr is a TTY (the progress line rewrites itself only there). */
  readonly errIsTTY: boolean;
  /** Whether stdout is a TTY. */
  readonly outIsTTY: boolean;
  /** Width of the terminal, or 100 when unknown. */
  readonly columns: number;
  /** The environment the CLI reads (provider keys, `YADA_MCP_SERVERS`, `NO_COLOR`). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** Whether colour is wanted for a stream: a TTY, `NO_COLOR` unset or empty (no-color.org), `TERM` not `dumb`. */
export function wantsColor(isTTY: boolean, env: Readonly<Record<string, string | undefined>>): boolean {
  return isTTY && (env.NO_COLOR === undefined || env.NO_COLOR === "") && env.TERM !== "dumb";
}

let stdoutClosed = false;
let finishOnClosedStdout = false;

/**
 * A command that carries out decided work (`run` executing approved calls,
 * `worker`) calls this: when its reader closes stdout (`| head -1`), it goes on to
 * its end with its output dropped, and its exit code says how that end went (P4).
 */
export function keepRunningWhenStdoutCloses(): void {
  finishOnClosedStdout = true;
}

/**
 * A reader that closes stdout early (`| head -1`) ends the process at once with
 * exit 0 and nothing on stderr (P4): what is left to print has no reader. Its exit
 * hook kills a server process still running (S7). A command that called
 * {@link keepRunningWhenStdoutCloses} is not ended: it finishes without stdout.
 */
export function exitQuietlyOnClosedPipe(): void {
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE" || e.code === "ERR_STREAM_DESTROYED") {
      if (!finishOnClosedStdout) process.exit(0);
      stdoutClosed = true;
      return;
    }
    throw e;
  });
}

/** The {@link Io} of this process. */
export function processIo(): Io {
  const outIsTTY = process.stdout.isTTY === true;
  return {
    out: (text) => {
      if (!stdoutClosed) process.stdout.write(text);
    },
    err: (text) => void process.stderr.write(text),
    color: wantsColor(outIsTTY, process.env),
    errIsTTY: process.stderr.isTTY === true,
    outIsTTY,
    // A pseudo-terminal may report 0 columns.
    columns: process.stdout.columns || process.stderr.columns || 100,
    env: process.env,
  };
}

// C0 controls except tab and newline, DEL, C1 controls, the bidirectional
// overrides / isolates and marks (text that displays in another order than it
// reads), and the zero-width spaces (text that hides where it breaks).
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;

/**
 * `text` with every control character except newline and tab replaced by U+FFFD,
 * so untrusted text cannot drive the terminal. CR LF becomes LF first.
 *
 * @example
 * ```ts
 * safe("ok\u001b[2J"); // "ok\uFFFD[2J"
 * ```
 */
export function safe(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(UNSAFE, "\uFFFD");
}

// What JSON.stringify leaves raw that a terminal may still act on, or that does not
// show as itself: DEL, the C1 controls (U+009B is CSI), format characters (bidi
// overrides, isolates and marks, zero-width characters, Unicode tags), private use,
// line and paragraph separators and other default-ignorable code points. Written as
// \u escapes, which is the same JSON.
const JSON_UNSAFE = /(?!\n)[\p{Cc}\p{Cf}\p{Co}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/gu;

/** Deepest nesting of arrays and objects in JSON text. */
function nestingDepth(json: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) max = Math.max(max, ++depth);
    else if (c === 93 || c === 125) depth--;
  }
  return max;
}

/**
 * `value` as JSON text that is safe to print: one line when `singleLine` is true;
 * otherwise indented by two spaces, unless indenting could make it larger than
 * `MAX_LINE_BYTES` (each value costs up to 2·depth + 3 more characters indented,
 * so deep nesting would multiply what the server or model sent): then it stays
 * compact. Every character a terminal could act on is escaped as `\uXXXX`, so
 * the JSON means the same.
 *
 * @example
 * ```ts
 * jsonText({ a: "\u009b2J" }, true); // '{"a":"\\u009b2J"}'
 * ```
 */
export function jsonText(value: unknown, singleLine = false): string {
  const compact = JSON.stringify(value) ?? "null";
  const indent = !singleLine && compact.length * (2 * nestingDepth(compact) + 3) <= MAX_LINE_BYTES;
  return (indent ? JSON.stringify(value, null, 2) : compact).replace(JSON_UNSAFE, (c) => {
    let out = "";
    for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`;
    return out;
  });
}

/**
 * `text` as one safe line: whitespace runs (newlines included) become one space,
 * bounded to `MAX_ERROR_LINE_CHARS`.
 */
export function oneLine(text: string, max = MAX_ERROR_LINE_CHARS): string {
  const line = safe(text).replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** ANSI styles, applied only when colour is on. */
export interface Styles {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

/** The styles for `io` (identity functions without colour). */
export function styles(io: Pick<Io, "color">): Styles {
  const wrap =
    (open: number, close: number) =>
    (text: string): string =>
      io.color ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return { bold: wrap(1, 22), dim: wrap(2, 22), red: wrap(31, 39), green: wrap(32, 39), yellow: wrap(33, 39), cyan: wrap(36, 39) };
}

/** Decoded size of base64 text, for placeholders (approximate for malformed input). */
export function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/**
 * MCP content as terminal text, blocks in order: text as itself (made safe),
 * everything else as a bracketed line: `[image: image/png, 68 bytes]`,
 * `[resource: uri]` followed by its text, `[resource: uri, mime, N bytes]` for a
 * blob, `[resource_link: uri name]`, `[<type> content]` for kinds MCP does not define.
 */
export function contentText(blocks: readonly ContentBlock[]): string {
  const out: string[] = [];
  for (const block of blocks) {
    const b = block as unknown as Record<string, unknown>;
    const str = (key: string): string => (typeof b[key] === "string" ? oneLine(b[key] as string, 200) : "");
    switch (block.type) {
      case "text":
        out.push(safe(typeof b.text === "string" ? b.text : ""));
        break;
      case "image":
      case "audio":
        out.push(`[${block.type}: ${str("mimeType")}, ${base64Bytes(typeof b.data === "string" ? b.data : "")} bytes]`);
        break;
      case "resource": {
        const r = (typeof b.resource === "object" && b.resource !== null ? b.resource : {}) as Record<string, unknown>;
        const uri = typeof r.uri === "string" ? oneLine(r.uri, 200) : "";
        if (typeof r.text === "string") out.push(`[resource: ${uri}]\n${safe(r.text).replace(/\n$/, "")}`);
        else {
          const mime = typeof r.mimeType === "string" ? `, ${oneLine(r.mimeType, 100)}` : "";
          out.push(`[resource: ${uri}${mime}, ${base64Bytes(typeof r.blob === "string" ? r.blob : "")} bytes]`);
        }
        break;
      }
      case "resource_link":
        out.push(`[resource_link: ${str("uri")} ${str("name")}]`);
        break;
      case "unknown":
        out.push(`[${oneLine(block.kind, 40)} content]`);
        break;
      default:
        out.push(`[${oneLine(String(b.type), 40)} content]`);
    }
  }
  return out.join("\n");
}

/** Indents every line of `text` by `prefix`. */
export function indent(text: string, prefix = "  "): string {
  return text
    .split("\n")
    .map((line) => (line === "" ? line : prefix + line))
    .join("\n");
}

/**
 * `text` cut to at most `maxLines` lines and `maxChars` characters, with a note
 * saying how much was left out.
 */
export function clip(text: string, maxLines: number, maxChars: number): string {
  const lines = text.split("\n");
  let kept = lines.length > maxLines ? lines.slice(0, maxLines).join("\n") : text;
  if (kept.length > maxChars) kept = kept.slice(0, maxChars);
  if (kept.length === text.length) return text;
  const restLines = text.slice(kept.length).split("\n").length - 1;
  return `${kept}\n… (${text.length - kept.length} more characters${restLines > 0 ? `, ${restLines} more lines` : ""})`;
}

/** The progress line of one running call. */
export interface ProgressLine {
  /** Shows an MCP progress update (J6). */
  update(progress: Progress): void;
  /** Removes the line (TTY) once the call is over. */
  done(): void;
}

/**
 * `3/5 (60%) step 3 of 5`, or `3 step 3` without a total, or the message alone when
 * there is no amount to show: a 0 without a total says nothing (a task's status, V8).
 */
export function progressText(p: Progress): string {
  const amount = p.total !== undefined && p.total > 0 ? `${p.progress}/${p.total} (${Math.round((p.progress / p.total) * 100)}%)` : `${p.progress}`;
  if (!p.message) return amount;
  const message = oneLine(p.message, 200);
  return amount === "0" ? message : `${amount} ${message}`;
}

/**
 * A progress line on stderr for `label` (a tool name): on a TTY one line
 * rewritten in place and erased when done; otherwise one line per update,
 * `yada: progress: <label> 3/5 (60%) <message>`, so logs keep them, at most one
 * per `PROGRESS_LOG_INTERVAL_MS` (the last one is always printed).
 */
export function progressLine(io: Io, label: string, now: () => number = Date.now): ProgressLine {
  let shown = false;
  let last = "";
  let loggedAt = Number.NEGATIVE_INFINITY;
  let pending: string | undefined;
  return {
    update(progress) {
      const text = `${oneLine(label, 80)} ${progressText(progress)}`;
      if (text === last) return;
      last = text;
      if (io.errIsTTY) {
        const width = Math.max(20, io.columns - 1);
        const line = `… ${text}`;
        io.err(`\r\u001b[2K${line.length > width ? line.slice(0, width) : line}`);
        shown = true;
      } else if (now() - loggedAt >= PROGRESS_LOG_INTERVAL_MS) {
        io.err(`yada: progress: ${text}\n`);
        loggedAt = now();
        pending = undefined;
      } else pending = text;
    },
    done() {
      if (shown) io.err("\r\u001b[2K");
      if (pending !== undefined) io.err(`yada: progress: ${pending}\n`);
      shown = false;
      pending = undefined;
    },
  };
}

/** Pads `text` with spaces to `width` characters. */
export function pad(text: string, width: number): string {
  return text.length >= width ? text : text + " ".repeat(width - text.length);
}
