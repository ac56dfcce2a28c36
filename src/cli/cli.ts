/**
 * The `yada` command (X6): parses the command line, runs one command against
 * one MCP server, and turns every outcome into an exit code and, on failure,
 * one line on stderr (`yada: <code>: <message>`). See {@link EXIT_CODES}.
 *
 * @module
 */
import { readSync } from "node:fs";
import { parseCommandLine, type CliArgs } from "./args.js";
import { CLI_TIMEOUT_GRACE_MS, MAX_CLI_JSON_BYTES } from "../limits.js";
import { TimeoutError } from "../errors.js";
import type { CommandContext } from "./command.js";
import { promptsCommand, resourcesCommand, toolsCommand } from "./discover.js";
import { CliExit, EXIT, UsageError, errorCodeOf, errorLine, exitCodeOf } from "./exit.js";
import { VERSION, helpText } from "./help.js";
import { callCommand, promptCommand, readCommand } from "./invoke.js";
import { completeCommand, infoCommand, pingCommand } from "./inspect.js";
import { loginCommand } from "./login.js";
import { recordCommand } from "./record.js";
import { runCommand } from "./run.js";
import { actionsCommand } from "./actions.js";
import { workerCommand } from "./worker.js";
import { approvalsCommand } from "./approvals.js";
import { jsonText, oneLine, processIo, type Io } from "./terminal.js";

const HANDLERS: Record<string, (ctx: CommandContext) => Promise<number>> = {
  tools: toolsCommand,
  call: callCommand,
  resources: resourcesCommand,
  read: readCommand,
  prompts: promptsCommand,
  prompt: promptCommand,
  record: recordCommand,
  run: runCommand,
  ping: pingCommand,
  info: infoCommand,
  complete: completeCommand,
  actions: actionsCommand,
  worker: workerCommand,
  approvals: approvalsCommand,
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

/** Hooks of the executable around {@link main}. */
export interface MainHooks {
  /**
   * Called with the exit code once `--timeout` and `CLI_TIMEOUT_GRACE_MS` have
   * passed and the command has not finished closing (P4); the executable exits
   * there (its exit hook kills a server process still running).
   */
  deadlineExit?(code: number): void;
}

/**
 * Reports a failure: one line on stderr, and with `--json` also one JSON object on
 * stdout, `{"code": ..., "message": ..., "exit": N}` (P4), also after a run's
 * JSON lines (an undecided run's exit 4 included); only `call`'s `tool_error`, whose
 * JSON document already says it, writes none.
 */
function report(io: Io, e: unknown, json: boolean): number {
  const exit = exitCodeOf(e);
  io.err(`${errorLine(e)}\n`);
  if (json && !(e instanceof CliExit && e.inDocument)) {
    const message = oneLine(e instanceof Error ? e.message : String(e));
    io.out(`${jsonText({ code: errorCodeOf(e), message, exit }, true)}\n`);
  }
  return exit;
}

/**
 * Runs `yada` with `argv` (without `node` and the script) and returns the exit
 * code. Never throws: every failure is reported on `io.err` (and as JSON on
 * `io.out` with `--json`). With `--timeout`, the command is cancelled when it
 * passes, and `main` returns (or `hooks.deadlineExit` is called) at most
 * `CLI_TIMEOUT_GRACE_MS` later.
 *
 * @example
 * ```ts
 * process.exitCode = await main(["tools", "--stdio", "node server.mjs"]);
 * ```
 */
export async function main(argv: readonly string[], io: Io = processIo(), signal?: AbortSignal, hooks: MainHooks = {}): Promise<number> {
  let args: CliArgs;
  try {
    args = parseCommandLine(argv);
  } catch (e) {
    return report(io, e, argv.includes("--json"));
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
  const cancel = new AbortController();
  const onAbort = () => cancel.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  const ctx: CommandContext = { args, io, signal: cancel.signal, readStdin: () => readStdinBounded() };
  const work = handler(ctx).then(
    (code) => code,
    (e: unknown) => e,
  );
  const timeoutMs = args.timeoutMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    if (timeoutMs === undefined) {
      const outcome = await work;
      return typeof outcome === "number" ? outcome : report(io, outcome, args.json);
    }
    const expired = new Promise<"expired">((resolve) => (timer = setTimeout(() => resolve("expired"), timeoutMs)));
    const first = await Promise.race([work, expired]);
    if (first !== "expired") return typeof first === "number" ? first : report(io, first, args.json);
    // P4: the whole command is bounded: cancel it, report the timeout, and give
    // closing the server CLI_TIMEOUT_GRACE_MS.
    const error = new TimeoutError(`${oneLine(args.command ?? "", 40)} timed out after ${timeoutMs} ms (--timeout); the server may still carry the call out`, timeoutMs);
    cancel.abort(error);
    const code = report(io, error, args.json);
    await Promise.race([work, new Promise((resolve) => setTimeout(resolve, CLI_TIMEOUT_GRACE_MS))]);
    hooks.deadlineExit?.(code);
    return code;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}
