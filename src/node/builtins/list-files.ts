/**
 * The `listFiles` built-in (R5): lists a directory inside the allowed roots,
 * optionally recursively, within the entry and output bounds. Directories end in
 * `/`, symbolic links in `@` (never followed).
 *
 * @module
 */
import { MAX_BUILTIN_DEPTH, MAX_BUILTIN_LIST_ENTRIES } from "../../limits.js";
import type { ReadTool, ToolCallContext, ToolResult } from "../../tools/types.js";
import { argsObject, optionalBool } from "./args.js";
import { BoundedLines, refusal, textResult } from "./output.js";
import { PathRefused, type RootGuard } from "./roots.js";
import { walk, walkBudget } from "./walk.js";

const SUFFIX = { file: "", directory: "/", link: "@", other: "" } as const;

async function listFiles(guard: RootGuard, args: unknown, context: ToolCallContext): Promise<ToolResult> {
  const a = argsObject(args);
  const recursive = optionalBool(a, "recursive") ?? false;
  const target = await guard.resolve(a.path ?? ".");
  if (!target.isDirectory) throw new PathRefused(`${String(a.path)} is not a directory`);
  const out = new BoundedLines();
  let entries = 0;
  let stopped = false;
  const budget = walkBudget();
  for await (const e of walk(target.real, { maxDepth: recursive ? MAX_BUILTIN_DEPTH : 0, signal: context.signal, budget, roots: await guard.realRoots() })) {
    if (entries >= MAX_BUILTIN_LIST_ENTRIES || !out.add(e.rel + SUFFIX[e.kind])) {
      stopped = true;
      break;
    }
    entries++;
  }
  const header = `${target.shown}:`;
  if (entries === 0) return textResult(`${header}\n(empty)`);
  const note = stopped || budget.left === 0 ? `[listing cut after ${entries} entries; list a subdirectory for more]` : undefined;
  return textResult(`${header}\n${out.text(note)}`);
}

/** The `listFiles` tool, confined by `guard`. */
export function listFilesTool(guard: RootGuard, name: string): ReadTool {
  return {
    name,
    effect: "read",
    description:
      `Lists a directory (default ${guard.roots[0] ?? "the first root"}); only directories inside ${guard.roots.join(", ")} can be listed. ` +
      `Directories end in "/", symbolic links in "@". recursive: true descends up to ${MAX_BUILTIN_DEPTH} levels; at most ${MAX_BUILTIN_LIST_ENTRIES} entries.`,
    inputSchema: {
      type: "object",
      properties: {
        path: { type: "string", description: "Directory path (default: the first root)" },
        recursive: { type: "boolean", description: "List subdirectories too" },
      },
      additionalProperties: false,
    },
    execute: (args, context) => listFiles(guard, args, context).catch(refusal),
  };
}
