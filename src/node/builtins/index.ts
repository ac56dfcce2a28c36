/**
 * Node read-only built-in tools (R5, read part): `readFile`, `listFiles` and
 * `searchFiles`, opt-in, confined to the roots the host allows.
 *
 * @module
 */
import type { ReadTool } from "../../tools/types.js";
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
 * import { nodeReadTools, run } from "yada/node";
 * const result = await run({ provider, identity, tools: nodeReadTools({ roots: ["./docs"] }), input: "Summarise the docs" });
 * ```
 */
export function nodeReadTools(options: NodeReadToolsOptions): ReadTool[] {
  const guard = new RootGuard(checkRoots(options.roots));
  const prefix = options.prefix ?? "";
  return [readFileTool(guard, `${prefix}readFile`), listFilesTool(guard, `${prefix}listFiles`), searchFilesTool(guard, `${prefix}searchFiles`)];
}
