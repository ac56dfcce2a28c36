/**
 * The `yada` command (X6): parses the command line, runs one command against
 * one MCP server, and turns every outcome into an exit code and, on failure,
 * one line on stderr (`yada: <code>: <message>`). See {@link EXIT_CODES}.
 *
 * @module
 */
import { readSync } from "node:fs";
import { parseCommandLine, type CliArgs } from "./args.js";
import { MAX_CLI_JSON_BYTES } from "../limits.js";
import type { CommandContext } from "./command.js";
import { promptsCommand, resourcesCommand, toolsCommand } from "./discover.js";
import { EXIT, UsageError, errorLine, exitCodeOf } from "./exit.js";
import { VERSION, helpText } from "./help.js";
import { callCommand, promptCommand, readCommand } from "./invoke.js";
import { loginCommand } from "./login.js";
import { recordCommand } from "./record.js";
import { runCommand } from "./run.js";
import { processIo, type Io } from "./terminal.js";

const HANDLERS: Record<string, (ctx: CommandContext) => Promise<number>> = {
  tools: toolsCommand,
  call: callCommand,
  resources: resourcesCommand,
  read: readCommand,
  prompts: promptsCommand,
  prompt: promptCommand,
  record: recordCommand,
  run: runCommand,
  login: loginCommand,
};

/**
 * Reads stdin to its end, at most `MAX_CLI_JSON_BYTES`.
 *
 * @throws UsageError (`usage`) when stdin holds more.
 */
export function readStdinBounded(fd = 0): string {
  const chunks: Buffer[] = [];
  let size = 0;
  const chunk = Buffer.alloc(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, chunk, 0, chunk.length, null);
    } catch (e) {
      if ((e as { code?: string }).code === "EAGAIN") {
        // A non-blocking stdin with nothing yet: wait a little instead of spinning.
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
        continue;
      }
      if ((e as { code?: string }).code === "EOF") break;
      throw e;
    }
    if (n === 0) break;
    size += n;
    if (size > MAX_CLI_JSON_BYTES) throw new UsageError(`stdin holds more than ${MAX_CLI_JSON_BYTES} bytes`);
    chunks.push(Buffer.from(chunk.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Runs `yada` with `argv` (without `node` and the script) and returns the exit
 * code. Never throws: every failure is reported on `io.err`.
 *
 * @example
 * ```ts
 * process.exitCode = await main(["tools", "--stdio", "node server.mjs"]);
 * ```
 */
export async function main(argv: readonly string[], io: Io = processIo(), signal?: AbortSignal): Promise<number> {
  let args: CliArgs;
  try {
    args = parseCommandLine(argv);
  } catch (e) {
    io.err(`${errorLine(e)}\n`);
    return exitCodeOf(e);
  }
  if (args.version) {
    io.out(`${VERSION}\n`);
    return EXIT.ok;
  }
  if (args.help) {
    io.out(helpText());
    return EXIT.ok;
  }
  const handler = args.command === undefined ? undefined : HANDLERS[args.command];
  if (!handler) {
    io.err(helpText());
    return EXIT.usage;
  }
  const ctx: CommandContext = { args, io, signal: signal ?? new AbortController().signal, readStdin: () => readStdinBounded() };
  try {
    return await handler(ctx);
  } catch (e) {
    io.err(`${errorLine(e)}\n`);
    return exitCodeOf(e);
  }
}
