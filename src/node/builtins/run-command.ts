/**
 * The `runCommand` built-in (R5): a confirm tool that runs one program from
 * the host's allow-list, after a person approves. The command is an argument
 * vector, never a shell string: no shell ever parses it, so `;`, `$(...)` or a
 * glob are plain characters of an argument. It runs in a directory inside the
 * roots, with the environment the host gives (by default only `PATH`), its
 * output bounded to `MAX_BUILTIN_OUTPUT_BYTES` and its time to the host's
 * timeout, after which it and its process group are killed.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { MAX_BUILTIN_ARGUMENT_CHARS, MAX_BUILTIN_COMMAND_ARGS, MAX_BUILTIN_OUTPUT_BYTES } from "../../limits.js";
import type { ActionOutcome, ApprovedAction, ConfirmTool, ToolCallContext } from "../../tools/types.js";
import { argsObject } from "./args.js";
import { builtinConfirmTool, failed } from "./confirm-tool.js";
import { shownText } from "./file-state.js";
import { failure, textResult } from "./output.js";
import { PathRefused, type RootGuard } from "./roots.js";

/** What {@link runCommandTool} needs from the host. */
export interface CommandPolicy {
  /** Programs that may run, exactly as the model must name them (`"git"`, `"/usr/bin/make"`). */
  commands: readonly string[];
  /** The environment of every command. */
  env: Readonly<Record<string, string>>;
  /** Time bound of one command, in ms. */
  timeoutMs: number;
}

/** The checked argument vector and working directory of a call. */
async function commandOf(guard: RootGuard, policy: CommandPolicy, args: unknown): Promise<{ argv: string[]; cwd: string; shownCwd: string }> {
  const a = argsObject(args);
  const argv = a.argv;
  if (!Array.isArray(argv) || argv.length === 0 || argv.length > MAX_BUILTIN_COMMAND_ARGS) {
    throw new PathRefused(`argv must be a list of 1 to ${MAX_BUILTIN_COMMAND_ARGS} strings: the program, then its arguments`);
  }
  for (let i = 0; i < argv.length; i++) {
    const v: unknown = argv[i];
    if (typeof v !== "string" || v.length > MAX_BUILTIN_ARGUMENT_CHARS || v.includes("\u0000")) {
      throw new PathRefused(`argv[${i}] must be a string of at most ${MAX_BUILTIN_ARGUMENT_CHARS} characters`);
    }
  }
  const program = argv[0] as string;
  if (!policy.commands.includes(program)) {
    throw new PathRefused(`${JSON.stringify(program.slice(0, 80))} is not an allowed command (allowed: ${policy.commands.join(", ")})`);
  }
  const dir = await guard.resolve(a.cwd ?? ".");
  if (!dir.isDirectory) throw new PathRefused(`cwd ${String(a.cwd)} is not a directory`);
  return { argv: argv as string[], cwd: dir.real, shownCwd: dir.shown };
}

/** An argument as shown to the approver: bare when plain, else JSON-quoted. */
function shownArg(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : JSON.stringify(s);
}

/** Runs `argv` in `cwd`: exit status and bounded output, killed (with its group) at the timeout or on abort. */
function execute(argv: string[], cwd: string, policy: CommandPolicy, signal: AbortSignal | undefined): Promise<ActionOutcome> {
  return new Promise((resolve) => {
    const child = spawn(argv[0] as string, argv.slice(1), { cwd, env: { ...policy.env }, shell: false, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    let kept = 0;
    let cut = false;
    const keep = (b: Buffer): void => {
      const room = MAX_BUILTIN_OUTPUT_BYTES - 300 - kept;
      if (room <= 0) {
        cut = true;
        return;
      }
      const part = b.length > room ? b.subarray(0, room) : b;
      if (part.length < b.length) cut = true;
      chunks.push(part);
      kept += part.length;
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    let why = "";
    const kill = (reason: string): void => {
      why ||= reason;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    const timer = setTimeout(() => kill(`timed out after ${policy.timeoutMs} ms and was killed`), policy.timeoutMs);
    const onAbort = (): void => kill("was cancelled and killed");
    signal?.addEventListener("abort", onAbort, { once: true });
    const done = (outcome: ActionOutcome): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(outcome);
    };
    child.on("error", (e: NodeJS.ErrnoException) => done(failed(`the command could not start (${e.code ?? "error"})`)));
    child.on("close", (code, sig) => {
      const output = Buffer.concat(chunks).toString("utf8") + (cut ? `\n[output cut at ${MAX_BUILTIN_OUTPUT_BYTES} bytes]` : "");
      const status = why !== "" ? `the command ${why}` : sig !== null ? `the command was killed by ${sig}` : `exit status ${code ?? "unknown"}`;
      const text = `${status}\n${output}`;
      done(code === 0 && why === "" ? { status: "succeeded", result: textResult(text) } : { status: "failed", result: failure(text) });
    });
  });
}

/** The `runCommand` confirm tool, confined by `guard`, running only `policy.commands`. */
export function runCommandTool(guard: RootGuard, policy: CommandPolicy, name: string): ConfirmTool {
  return builtinConfirmTool({
    name,
    description:
      `Runs one program, after a person approves, as an argument vector (no shell: no pipes, redirections or expansions). ` +
      `Allowed programs: ${policy.commands.join(", ")}. Runs in cwd (default ${guard.roots[0] ?? "the first root"}), inside ${guard.roots.join(", ")}; ` +
      `output is cut at ${MAX_BUILTIN_OUTPUT_BYTES} bytes, time at ${policy.timeoutMs} ms.`,
    inputSchema: {
      type: "object",
      properties: {
        argv: { type: "array", items: { type: "string" }, minItems: 1, maxItems: MAX_BUILTIN_COMMAND_ARGS, description: "The program, then its arguments" },
        cwd: { type: "string", description: "Working directory" },
      },
      required: ["argv"],
      additionalProperties: false,
    },
    config: { roots: guard.roots, commands: policy.commands, env: Object.keys(policy.env).sort(), timeoutMs: policy.timeoutMs },
    plan: async (args) => {
      const c = await commandOf(guard, policy, args);
      const a = argsObject(args);
      return {
        arguments: a.cwd === undefined ? { argv: c.argv } : { argv: c.argv, cwd: a.cwd },
        preview: shownText(`run in ${c.shownCwd}: ${c.argv.map(shownArg).join(" ")}`),
      };
    },
    perform: async (action: ApprovedAction, context: ToolCallContext) => {
      let c;
      try {
        c = await commandOf(guard, policy, action.arguments);
      } catch (e) {
        if (e instanceof PathRefused) return failed(e.message);
        throw e;
      }
      return execute(c.argv, c.cwd, policy, context.signal);
    },
  });
}
