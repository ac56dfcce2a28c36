/**
 * Node built-in tools (R5), opt-in, confined to the roots the host allows: the
 * read tools `readFile`, `listFiles` and `searchFiles`, and the confirm tools
 * `writeFile`, `editFile` and `runCommand`.
 *
 * @module
 */
import { ConfigError } from "../../errors.js";
import { DEFAULT_BUILTIN_COMMAND_TIMEOUT_MS, MAX_TIMER_MS } from "../../limits.js";
import type { ConfirmTool, ReadTool } from "../../tools/types.js";
import { runCommandTool, type CommandPolicy } from "./run-command.js";
import { editFileTool, writeFileTool } from "./write-tools.js";
import { listFilesTool } from "./list-files.js";
import { readFileTool } from "./read-file.js";
import { checkRoots, RootGuard } from "./roots.js";
import { searchFilesTool } from "./search-files.js";

/** Options of {@link nodeReadTools}. */
export interface NodeReadToolsOptions {
  /** Directories the tools may read; relative paths are resolved against the current directory now. The first is the base of relative paths the model uses. */
  roots: readonly string[];
  /** Prefix of the tool names (default none: `readFile`, `listFiles`, `searchFiles`). */
  prefix?: string;
}

/**
 * The read-only file tools, for hosts that opt in: `readFile` (a text file, by
 * line offset and limit), `listFiles` (a directory, optionally recursive) and
 * `searchFiles` (a literal text in files). Every path must be inside `roots`, as
 * written and after resolving symbolic links, so neither `..` nor a link can
 * escape. Output is bounded (`MAX_BUILTIN_OUTPUT_BYTES` and the other
 * `MAX_BUILTIN_*` limits). Refusals and I/O errors are error results the model
 * sees; a tool throws only when its call is cancelled.
 *
 * Paths are checked when used, and again on what was opened (Y4): a file or
 * directory is read only through a descriptor verified to lie inside a root, so
 * a directory swapped for a link between the check and the open is refused.
 *
 * @throws ConfigError (`config`) when `roots` is empty or not a list of paths.
 *
 * @example
 * ```ts
 * import { nodeReadTools, run } from "yada-mcp/node";
 * const result = await run({ provider, identity, tools: nodeReadTools({ roots: ["./docs"] }), input: "Summarise the docs" });
 * ```
 */
export function nodeReadTools(options: NodeReadToolsOptions): ReadTool[] {
  const guard = new RootGuard(checkRoots(options.roots));
  const prefix = options.prefix ?? "";
  return [readFileTool(guard, `${prefix}readFile`), listFilesTool(guard, `${prefix}listFiles`), searchFilesTool(guard, `${prefix}searchFiles`)];
}

/** Options of {@link nodeWriteTools}. */
export interface NodeWriteToolsOptions {
  /** Directories the tools may write in (and run commands in); the first is the base of relative paths. */
  roots: readonly string[];
  /** Prefix of the tool names (default none: `writeFile`, `editFile`, `runCommand`). */
  prefix?: string;
  /**
   * Programs `runCommand` may run, exactly as the model must name them
   * (`["git", "npm"]`). Omitted or empty: no `runCommand` tool.
   */
  commands?: readonly string[];
  /** The environment of every command (default: only `PATH`, from this process). */
  env?: Readonly<Record<string, string>>;
  /** Time bound of one command in ms (default `DEFAULT_BUILTIN_COMMAND_TIMEOUT_MS`). */
  commandTimeoutMs?: number;
}

function checkCommandOptions(options: NodeWriteToolsOptions): CommandPolicy | null {
  const commands: unknown = options.commands ?? [];
  if (!Array.isArray(commands) || !commands.every((c) => typeof c === "string" && c !== "" && !c.includes("\u0000"))) {
    throw new ConfigError("nodeWriteTools: commands must be an array of program names");
  }
  const env: unknown = options.env ?? { PATH: process.env.PATH ?? "" };
  if (typeof env !== "object" || env === null || Array.isArray(env) || !Object.values(env).every((v) => typeof v === "string")) {
    throw new ConfigError("nodeWriteTools: env must be an object of strings");
  }
  const timeoutMs = options.commandTimeoutMs ?? DEFAULT_BUILTIN_COMMAND_TIMEOUT_MS;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_TIMER_MS) {
    throw new ConfigError("nodeWriteTools: commandTimeoutMs must be a positive integer of milliseconds");
  }
  if (commands.length === 0) return null;
  return { commands: [...(commands as string[])], env: { ...(env as Record<string, string>) }, timeoutMs };
}

/**
 * The writing built-ins, for hosts that opt in, as confirm tools (W7): each
 * call stops for a person's approval with a preview, and runs at most once
 * once approved. `writeFile` creates or replaces a text file, `editFile`
 * replaces exact text in one; both preview a diff summary, are bound to the
 * file's content when reviewed (an approved write never overwrites a file that
 * changed since) and replace the file atomically. `runCommand` (only with
 * `commands`) runs one allowed program as an argument vector, never through a
 * shell, with bounded output and time. Every path is confined to `roots`
 * without a check-then-use race (see `nodeReadTools`).
 *
 * @throws ConfigError (`config`) for empty roots, or malformed commands, env or timeout.
 *
 * @example
 * ```ts
 * import { nodeReadTools, nodeWriteTools } from "yada-mcp/node";
 * const tools = [...nodeReadTools({ roots: ["./site"] }), ...nodeWriteTools({ roots: ["./site"], commands: ["npm"] })];
 * console.log(tools.map((t) => `${t.name} (${t.effect})`));
 * ```
 */
export function nodeWriteTools(options: NodeWriteToolsOptions): ConfirmTool[] {
  const guard = new RootGuard(checkRoots(options?.roots, "nodeWriteTools"));
  const prefix = options.prefix ?? "";
  const policy = checkCommandOptions(options);
  const tools = [writeFileTool(guard, `${prefix}writeFile`), editFileTool(guard, `${prefix}editFile`)];
  if (policy !== null) tools.push(runCommandTool(guard, policy, `${prefix}runCommand`));
  return tools;
}
