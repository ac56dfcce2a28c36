/**
 * The `searchFiles` built-in (R5): finds the lines that contain a literal text
 * in the files under a path inside the allowed roots. The query is never turned
 * into a regular expression. Bounded in files read, file size, matches and
 * output; binary files, links and the directories `.git` and `node_modules` are
 * skipped.
 *
 * @module
 */
import { CancelledError } from "../../errors.js";
import {
  MAX_BUILTIN_ARGUMENT_CHARS,
  MAX_BUILTIN_DEPTH,
  MAX_BUILTIN_SEARCH_FILE_BYTES,
  MAX_BUILTIN_SEARCH_FILES,
  MAX_BUILTIN_SEARCH_MATCHES,
  MAX_BUILTIN_WALK_ENTRIES,
} from "../../limits.js";
import type { ReadTool, ToolCallContext, ToolResult } from "../../tools/types.js";
import { argsObject, optionalBool } from "./args.js";
import { BoundedLines, refusal, textResult } from "./output.js";
import { PathRefused, type RootGuard } from "./roots.js";
import { openConfined } from "./confine.js";
import { walk, walkBudget, type WalkEntry } from "./walk.js";

const SKIPPED = new Set([".git", "node_modules"]);
/** The file's text, or undefined when it is too large, binary, unreadable or not inside the roots (Y4). */
async function readText(path: string, roots: readonly string[]): Promise<string | undefined> {
  let handle;
  try {
    handle = await openConfined(path, roots, "read");
  } catch {
    return undefined;
  }
  try {
    const { size } = await handle.stat();
    if (size > MAX_BUILTIN_SEARCH_FILE_BYTES) return undefined;
    const buffer = new Uint8Array(size);
    let at = 0;
    while (at < size) {
      const { bytesRead } = await handle.read(buffer, at, size - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    const bytes = buffer.subarray(0, at);
    return bytes.includes(0) ? undefined : new TextDecoder().decode(bytes);
  } catch {
    return undefined;
  } finally {
    await handle.close().catch(() => {});
  }
}

async function searchFiles(guard: RootGuard, args: unknown, context: ToolCallContext): Promise<ToolResult> {
  const a = argsObject(args);
  const query = a.query;
  if (typeof query !== "string" || query === "" || query.length > MAX_BUILTIN_ARGUMENT_CHARS) {
    throw new PathRefused(`query must be a non-empty string of at most ${MAX_BUILTIN_ARGUMENT_CHARS} characters`);
  }
  const ignoreCase = optionalBool(a, "ignoreCase") ?? false;
  const needle = ignoreCase ? query.toLowerCase() : query;
  const target = await guard.resolve(a.path ?? ".");
  const roots = await guard.realRoots();
  const files: WalkEntry[] = [];
  const out = new BoundedLines();
  let matches = 0;
  let filesRead = 0;
  let cut: string | undefined;
  const scan = async (file: { rel: string; path: string }): Promise<boolean> => {
    // Reading can take long (MAX_BUILTIN_SEARCH_FILES files): a cancelled call stops at the next file.
    if (context.signal?.aborted) throw new CancelledError("the tool call was cancelled", { cause: context.signal.reason });
    if (filesRead >= MAX_BUILTIN_SEARCH_FILES) {
      cut = `[search stopped after reading ${MAX_BUILTIN_SEARCH_FILES} files; narrow the path]`;
      return false;
    }
    filesRead++;
    const text = await readText(file.path, roots);
    if (text === undefined) return true;
    const lines = text.split(/\r?\n/);
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] ?? "";
      if (!(ignoreCase ? line.toLowerCase() : line).includes(needle)) continue;
      if (matches >= MAX_BUILTIN_SEARCH_MATCHES || !out.add(`${file.rel}:${i + 1}: ${line}`)) {
        cut = `[search stopped after ${matches} matches; narrow the path or the query]`;
        return false;
      }
      matches++;
    }
    return true;
  };
  if (!target.isDirectory) await scan({ rel: target.shown, path: target.real });
  else {
    const budget = walkBudget();
    for await (const e of walk(target.real, { maxDepth: MAX_BUILTIN_DEPTH, skip: SKIPPED, signal: context.signal, budget, roots })) {
      if (e.kind === "file") files.push(e);
      if (files.length >= MAX_BUILTIN_SEARCH_FILES + 1) break;
    }
    for (const f of files) if (!(await scan(f))) break;
    if (cut === undefined && budget.left === 0) cut = `[search covered the first ${MAX_BUILTIN_WALK_ENTRIES} directory entries; narrow the path]`;
  }
  if (matches === 0 && cut === undefined) return textResult(`no line contains ${JSON.stringify(query)}`);
  return textResult(out.text(cut));
}

/** The `searchFiles` tool, confined by `guard`. */
export function searchFilesTool(guard: RootGuard, name: string): ReadTool {
  return {
    name,
    effect: "read",
    description:
      `Finds lines containing a literal text (not a regular expression) in the files under a path (default ${guard.roots[0] ?? "the first root"}), ` +
      `inside ${guard.roots.join(", ")}. Answers "file:line: text", at most ${MAX_BUILTIN_SEARCH_MATCHES} matches.`,
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: "Literal text to find" },
        path: { type: "string", description: "File or directory to search (default: the first root)" },
        ignoreCase: { type: "boolean", description: "Match regardless of case" },
      },
      required: ["query"],
      additionalProperties: false,
    },
    execute: (args, context) => searchFiles(guard, args, context).catch(refusal),
  };
}
