/**
 * The `readFile` built-in (R5): reads a text file inside the allowed roots, from
 * a line offset, within the output bound.
 *
 * @module
 */
import { MAX_BUILTIN_FILE_BYTES, MAX_BUILTIN_OUTPUT_BYTES } from "../../limits.js";
import type { ReadTool, ToolResult } from "../../tools/types.js";
import { argsObject, optionalInt } from "./args.js";
import { BoundedLines, refusal, textResult } from "./output.js";
import { openConfined } from "./confine.js";
import { PathRefused, type RootGuard } from "./roots.js";

async function readBounded(path: string, roots: readonly string[]): Promise<{ bytes: Uint8Array; size: number }> {
  // Y4: the descriptor is verified inside the roots before a byte is read.
  const handle = await openConfined(path, roots, "read");
  try {
    const size = (await handle.stat()).size;
    const buffer = new Uint8Array(Math.min(size, MAX_BUILTIN_FILE_BYTES));
    let at = 0;
    while (at < buffer.length) {
      const { bytesRead } = await handle.read(buffer, at, buffer.length - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return { bytes: buffer.subarray(0, at), size };
  } finally {
    await handle.close();
  }
}

async function readFile(guard: RootGuard, args: unknown): Promise<ToolResult> {
  const a = argsObject(args);
  const offset = optionalInt(a, "offset", 1) ?? 1;
  const limit = optionalInt(a, "limit", 1);
  const target = await guard.resolve(a.path);
  if (target.isDirectory) throw new PathRefused(`${String(a.path)} is a directory; use listFiles`);
  const { bytes, size } = await readBounded(target.real, await guard.realRoots());
  if (bytes.subarray(0, 8192).includes(0)) throw new PathRefused(`${String(a.path)} looks like a binary file`);
  const lines = new TextDecoder().decode(bytes).split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  if (offset > Math.max(lines.length, 1)) throw new PathRefused(`offset ${offset} is past the end (${lines.length} lines)`);
  const out = new BoundedLines();
  const end = limit === undefined ? lines.length : Math.min(lines.length, offset - 1 + limit);
  let i = offset - 1;
  for (; i < end; i++) if (!out.add(lines[i] ?? "")) break;
  const notes: string[] = [];
  if (i < end) notes.push(`[output truncated at ${MAX_BUILTIN_OUTPUT_BYTES} bytes: lines ${offset}-${i} of ${lines.length} shown; continue with offset ${i + 1}]`);
  else if (end < lines.length) notes.push(`[lines ${offset}-${end} of ${lines.length} shown; continue with offset ${end + 1}]`);
  if (size > bytes.length) notes.push(`[the file is ${size} bytes; only the first ${MAX_BUILTIN_FILE_BYTES} were read]`);
  return textResult(out.text(notes.length > 0 ? notes.join("\n") : undefined));
}

/** The `readFile` tool, confined by `guard`. */
export function readFileTool(guard: RootGuard, name: string): ReadTool {
  return {
    name,
    effect: "read",
    description:
      `Reads a UTF-8 text file. Relative paths are resolved against ${guard.roots[0] ?? "the first root"}; ` +
      `only files inside ${guard.roots.join(", ")} can be read. Long files are cut; use offset (1-based line) and limit to page.`,
    inputSchema: {
      type: "object",
      properties: {
        path: { type: "string", description: "File path" },
        offset: { type: "integer", minimum: 1, description: "First line to return (1-based)" },
        limit: { type: "integer", minimum: 1, description: "Lines to return at most" },
      },
      required: ["path"],
      additionalProperties: false,
    },
    execute: (args) => readFile(guard, args).catch(refusal),
  };
}
