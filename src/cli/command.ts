/**
 * What every command gets (its arguments, the terminal, the Ctrl-C signal) and
 * the steps they share: positionals, reading JSON arguments and files, printing
 * JSON. (Connecting for the length of a command is `withClient`, in client.ts.)
 *
 * @module
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { Logger } from "../log.js";
import { isRecord, type JsonRecord } from "../mcp/types.js";
import type { CliArgs } from "./args.js";
import { MAX_CLI_JSON_BYTES } from "../limits.js";
import { UsageError } from "./exit.js";
import { verboseLogger } from "./server.js";
import { jsonText, type Io } from "./terminal.js";

/** The context of one command. */
export interface CommandContext {
  args: CliArgs;
  io: Io;
  /** Aborted by Ctrl-C. */
  signal: AbortSignal;
  /** Reads all of stdin (for `-` arguments). */
  readStdin(): string;
}

/** The diagnostics logger of a command: `--verbose` prints to stderr, otherwise silent. */
export function loggerOf(ctx: CommandContext): Logger | undefined {
  return ctx.args.verbose ? verboseLogger(ctx.io) : undefined;
}

/**
 * Positionals of a command: exactly `min` to `max` of them.
 *
 * @throws UsageError (`usage`) naming the command's usage.
 */
export function positionals(ctx: CommandContext, min: number, max: number, usage: string): string[] {
  const p = ctx.args.positionals;
  if (p.length < min || p.length > max) throw new UsageError(`usage: yada ${usage}`);
  return p;
}

/**
 * A JSON object argument: `text` itself, or stdin for `-`; absent means `{}`.
 *
 * @throws UsageError (`usage`) for text that is not a JSON object, or over `MAX_CLI_JSON_BYTES`.
 */
export function jsonObjectArg(ctx: CommandContext, text: string | undefined, what: string): JsonRecord {
  if (text === undefined) return {};
  const source = text === "-" ? ctx.readStdin() : text;
  if (Buffer.byteLength(source) > MAX_CLI_JSON_BYTES) throw new UsageError(`${what}: larger than ${MAX_CLI_JSON_BYTES} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (e) {
    // The engine's message quotes the input, which may hold secrets: keep only the position.
    const at = e instanceof Error ? /position (\d+)/.exec(e.message)?.[1] : undefined;
    throw new UsageError(`${what}: not valid JSON${at === undefined ? "" : ` (at position ${at})`}`);
  }
  if (!isRecord(value)) throw new UsageError(`${what}: not a JSON object (expected {"name": value, ...})`);
  return value;
}

/** Reads a small file the user named (a plan, arguments), bounded. @throws UsageError (`usage`) when it cannot be read or is too large. */
export function readUserFile(path: string, maxBytes: number, what: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    const code = isRecord(e) && typeof e.code === "string" ? e.code : "unreadable";
    throw new UsageError(`cannot read ${what} ${JSON.stringify(path)} (${code})`);
  }
  if (bytes.length > maxBytes) throw new UsageError(`${what} ${JSON.stringify(path)} is larger than ${maxBytes} bytes`);
  return bytes.toString("utf8");
}

/** Writes a file the user named (`-o`). @throws UsageError (`usage`) when it cannot be written. */
export function writeUserFile(path: string, data: string | Uint8Array, what: string): void {
  try {
    writeFileSync(path, data);
  } catch (e) {
    const code = isRecord(e) && typeof e.code === "string" ? e.code : "unwritable";
    throw new UsageError(`cannot write ${what} ${JSON.stringify(path)} (${code})`);
  }
}

/** Prints `value` as JSON on stdout (`--json`): indented and escaped as {@link jsonText} does. */
export function printJson(io: Io, value: unknown): void {
  io.out(`${jsonText(value)}\n`);
}
