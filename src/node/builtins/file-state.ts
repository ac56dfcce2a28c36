/**
 * The file a writing built-in (R5) targets: where it is (a verified directory
 * inside the roots and a plain name), what it holds now (read through a
 * confined descriptor, Y4), and the content hash that an approval is bound to,
 * so an action approved on one content never overwrites another.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { basename, dirname } from "node:path";
import { MAX_BUILTIN_WRITE_BYTES } from "../../limits.js";
import { openConfined } from "./confine.js";
import { PathRefused, type RootGuard } from "./roots.js";

/** A target file and its current content. */
export interface FileState {
  /** The directory, links resolved (inside a root). */
  dir: string;
  /** The file name in it. */
  name: string;
  /** The path as the model wrote it, made absolute, for display. */
  shown: string;
  /** The roots, links resolved. */
  roots: string[];
  /** The current text, or null when the file does not exist. */
  text: string | null;
  /** `sha256:<hex>` of the current bytes, or `absent`. */
  hash: string;
}

/** `sha256:<hex>` of `bytes`. */
export function contentHash(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/**
 * Locates `input` (a model-supplied path) and reads what it holds now.
 *
 * @throws PathRefused when the path is outside the roots, names a directory, a
 *   link or a non-text file, or the file is larger than `MAX_BUILTIN_WRITE_BYTES`.
 */
export async function fileState(guard: RootGuard, input: unknown): Promise<FileState> {
  if (typeof input !== "string" || input === "") throw new PathRefused("path must be a non-empty string");
  const name = basename(input);
  if (name === "" || name === "." || name === ".." || input.endsWith("/")) throw new PathRefused(`${input} does not name a file`);
  const parent = await guard.resolve(dirname(input));
  if (!parent.isDirectory) throw new PathRefused(`${dirname(input)} is not a directory`);
  const roots = await guard.realRoots();
  const shown = `${parent.shown}/${name}`.replace(/\/\/+/g, "/");
  let handle;
  try {
    handle = await openConfined(`${parent.real}/${name}`, roots, "read");
  } catch (e) {
    if (e instanceof Error && "code" in e && e.code === "ENOENT") return { dir: parent.real, name, shown, roots, text: null, hash: "absent" };
    if (e instanceof Error && "code" in e && e.code === "ELOOP") throw new PathRefused(`${input} is a symbolic link; write to its target instead`);
    throw e;
  }
  try {
    const size = (await handle.stat()).size;
    if (size > MAX_BUILTIN_WRITE_BYTES) throw new PathRefused(`${input} is larger than ${MAX_BUILTIN_WRITE_BYTES} bytes`);
    const bytes = new Uint8Array(size);
    let at = 0;
    while (at < size) {
      const { bytesRead } = await handle.read(bytes, at, size - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    const read = bytes.subarray(0, at);
    if (read.subarray(0, 8192).includes(0)) throw new PathRefused(`${input} looks like a binary file`);
    return { dir: parent.real, name, shown, roots, text: new TextDecoder().decode(read), hash: contentHash(read) };
  } finally {
    await handle.close();
  }
}

/** Lines of `text` (none for the empty text). */
/** `1 line`, `2 lines`. */
const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? "" : "s"}`;

function linesOf(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** A one-line summary of the change from `before` (null: no file) to `after`, for the approver. */
export function diffSummary(shown: string, before: string | null, after: string): string {
  const next = linesOf(after);
  const bytes = new TextEncoder().encode(after).length;
  if (before === null) return `create ${shown}: ${count(next.length, "line")}, ${count(bytes, "byte")}`;
  // Lines added and removed, counted as multisets (order-insensitive, linear).
  const counts = new Map<string, number>();
  for (const l of linesOf(before)) counts.set(l, (counts.get(l) ?? 0) + 1);
  let added = 0;
  for (const l of next) {
    const n = counts.get(l) ?? 0;
    if (n > 0) counts.set(l, n - 1);
    else added++;
  }
  let removed = 0;
  for (const n of counts.values()) removed += n;
  return `modify ${shown}: +${added} -${removed} lines, ${linesOf(before).length} -> ${count(next.length, "line")}, ${count(bytes, "byte")}`;
}

/** `text` with C0 controls (but tab and newline) and DEL escaped, so a preview cannot forge the approver's screen. */
export function shownText(text: string): string {
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}
