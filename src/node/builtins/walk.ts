/**
 * A bounded, depth-first walk of a directory for listFiles and searchFiles (R5).
 * Symbolic links are reported, never followed, so a walk that starts inside a
 * root stays inside it. Entries come in name order, so output is stable.
 *
 * @module
 */
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { CancelledError } from "../../errors.js";

/** One entry met by {@link walk}. */
export interface WalkEntry {
  /** Path relative to the start, with `/` separators. */
  rel: string;
  /** Path to open. */
  path: string;
  kind: "file" | "directory" | "link" | "other";
}

/** Options of {@link walk}. */
export interface WalkOptions {
  /** Levels below the start to descend (0 = the start's own entries only). */
  maxDepth: number;
  /** Directory names not descended into (still reported). */
  skip?: ReadonlySet<string>;
  signal?: AbortSignal | undefined;
}

function kindOf(d: Dirent): WalkEntry["kind"] {
  if (d.isSymbolicLink()) return "link";
  if (d.isDirectory()) return "directory";
  if (d.isFile()) return "file";
  return "other";
}

/**
 * Yields the entries under `start` (a real directory path), each directory's
 * contents right after it (pre-order). Recursion depth is bounded by `maxDepth`.
 *
 * @throws CancelledError (`cancelled`) when `signal` aborts.
 */
export async function* walk(start: string, options: WalkOptions, rel = "", depth = 0): AsyncGenerator<WalkEntry> {
  if (options.signal?.aborted) throw new CancelledError("the tool call was cancelled", { cause: options.signal.reason });
  let entries: Dirent[];
  try {
    entries = await readdir(start, { withFileTypes: true });
  } catch {
    return; // an unreadable directory is skipped
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const d of entries) {
    const entry: WalkEntry = { rel: rel === "" ? d.name : `${rel}/${d.name}`, path: join(start, d.name), kind: kindOf(d) };
    yield entry;
    if (entry.kind === "directory" && depth < options.maxDepth && !options.skip?.has(d.name)) {
      yield* walk(entry.path, options, entry.rel, depth + 1);
    }
  }
}
