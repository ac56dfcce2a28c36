/**
 * A bounded, depth-first walk of a directory for listFiles and searchFiles (R5).
 * Symbolic links are reported, never followed, so a walk that starts inside a
 * root stays inside it. Entries come in name order, so output is stable. A walk
 * reads at most `MAX_BUILTIN_WALK_ENTRIES` directory entries in all; names are
 * shown with control characters escaped, so a file name cannot forge output lines.
 *
 * @module
 */
import type { Dirent } from "node:fs";
import { join } from "node:path";
import { CancelledError } from "../../errors.js";
import { MAX_BUILTIN_WALK_ENTRIES } from "../../limits.js";
import { openDirConfined } from "./confine.js";

/** One entry met by {@link walk}. */
export interface WalkEntry {
  /** Path relative to the start, with `/` separators and control characters escaped (`\x0a`): for display. */
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
  /**
   * Directory entries the walk may still read; shared by the whole walk and
   * counted down as entries are read. At 0 the walk stops reading: {@link walkBudget}.
   */
  budget: { left: number };
  /** The allowed roots, links resolved: every directory read is opened and verified inside them (Y4). */
  roots: readonly string[];
}

/** A fresh budget of `MAX_BUILTIN_WALK_ENTRIES` entries; `left === 0` afterwards means the walk was cut. */
export function walkBudget(): { left: number } {
  return { left: MAX_BUILTIN_WALK_ENTRIES };
}

/** A name as shown: C0 controls and DEL escaped as `\xHH`, so it stays on its line. */
function shownName(name: string): string {
  return name.replace(/[\x00-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/** Reads at most `budget.left` entries of a directory (not the whole of a huge one), verified inside `roots`. */
async function readEntries(path: string, budget: { left: number }, roots: readonly string[]): Promise<Dirent[]> {
  const entries: Dirent[] = [];
  let listing: Awaited<ReturnType<typeof openDirConfined>> | undefined;
  try {
    listing = await openDirConfined(path, roots);
    while (budget.left > 0) {
      const d = await listing.dir.read();
      if (d === null) break;
      budget.left--;
      entries.push(d);
    }
  } catch {
    // an unreadable directory is skipped
  } finally {
    await listing?.close();
  }
  return entries;
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
  const entries = await readEntries(start, options.budget, options.roots);
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const d of entries) {
    const name = shownName(d.name);
    const entry: WalkEntry = { rel: rel === "" ? name : `${rel}/${name}`, path: join(start, d.name), kind: kindOf(d) };
    yield entry;
    if (entry.kind === "directory" && depth < options.maxDepth && !options.skip?.has(d.name)) {
      yield* walk(entry.path, options, entry.rel, depth + 1);
    }
  }
}
