/**
 * The file action store's journal on disk (W9, W15): appends that are synced and
 * fenced, and the atomic replacement by a compacted journal. The store above it
 * decides what to write and when to acknowledge.
 *
 * The fence: after every append and its sync, the file at the journal's path must
 * still be the one written to (device and inode) and hold exactly the bytes this
 * writer knows of. Anything else means another process wrote or replaced the journal,
 * and the append is not acknowledged (see ./file-store.ts for why that is enough).
 *
 * The journal is only ever appended to, never cut: a failed append's partial bytes
 * stay, are synced and accounted for, and the next append starts on a fresh line with
 * the holder line again, so replay reads the partial line as a torn append (./journal.ts).
 *
 * @module
 */
import { dirname } from "node:path";
import { StoreError } from "../errors.js";
import { FILE_STORE_GROUP_COMMIT_BYTES } from "../limits.js";
import { isRec } from "../util/record.js";
import { holderLine, sealLine } from "./journal.js";
import { syncDir, type FileInfo, type StoreFs } from "./store-fs.js";

const encoder = new TextEncoder();

/** What an append that failed part way left: how many of its lines landed whole, and synced. */
export interface PartialAppend {
  /** Lines of the append (in order) that are in the journal whole and on disk. */
  landed: number;
  /** The error of the write. */
  cause: unknown;
}

/** One journal file, appended to by one store. */
export class JournalFile {
  readonly #fs: StoreFs;
  /** The journal's real path. */
  readonly #real: string;
  /** The journal's path for messages. */
  readonly #shown: string;
  readonly #holder: string;
  #fd: number | undefined;
  /** The device and inode of `#fd`, which an open file keeps: the fence compares the path's with them. */
  #id: FileInfo;
  #end: number;
  /** Written before the next append's lines: a newline closing a torn line and the holder line, after a failed append. */
  #prefix = "";

  constructor(fs: StoreFs, real: string, shown: string, holder: string, fd: number, size: number) {
    this.#fs = fs;
    this.#real = real;
    this.#shown = shown;
    this.#holder = holder;
    this.#fd = fd;
    this.#id = fs.fstat(fd);
    this.#end = size;
  }

  /** Bytes of the journal (what was read at open and everything appended since). */
  get size(): number {
    return this.#end;
  }

  #open(): number {
    if (this.#fd === undefined) throw new StoreError(`the action store ${this.#shown} is closed`);
    return this.#fd;
  }

  /**
   * Appends `lines` (each ending in a newline) in one write and one `fdatasync`, then
   * checks the fence. On a write that fails part way, syncs what landed and returns
   * how many lines landed whole; the next append starts a fresh line. `exclusive`: the
   * fence holds only if no other byte was written at all (the first holder line: a
   * line that lands before it was written by the holder then, and counts).
   *
   * @throws StoreError (`store`) when the sync fails or the fence does not hold: the
   * journal is in a state this writer cannot vouch for (the caller stops).
   */
  async append(lines: readonly string[], when = "since this store opened it", exclusive = false): Promise<PartialAppend | undefined> {
    const fd = this.#open();
    const prefix = this.#prefix;
    const data = encoder.encode(prefix + lines.join(""));
    let written = 0;
    let cause: unknown;
    try {
      while (written < data.length) written += this.#fs.write(fd, data, written, data.length - written);
    } catch (e) {
      cause = e;
    }
    const at = this.#end;
    this.#end += written;
    if (written > 0) await this.#sync(fd);
    // After a torn append of this writer, another's bytes would be glued to its torn line: none may be there.
    await this.#fence(fd, when, at, data.subarray(0, written), exclusive || prefix.startsWith("\n"));
    if (cause === undefined) {
      this.#prefix = "";
      return undefined;
    }
    let newlines = 0;
    for (let i = 0; i < written; i++) if (data[i] === 0x0a) newlines++;
    const prefixLines = prefix.split("\n").length - 1;
    const torn = written > 0 && data[written - 1] !== 0x0a;
    this.#prefix = (torn ? "\n" : "") + holderLine(this.#holder, process.pid, Date.now());
    return { landed: Math.max(0, newlines - prefixLines), cause };
  }

  async #sync(fd: number): Promise<void> {
    try {
      await this.#fs.datasync(fd);
    } catch (cause) {
      // After a failed sync the kernel may have dropped the pages it could not write: nothing is vouched for.
      throw new StoreError(`cannot sync the action journal ${this.#shown}; this store is closed (open it again)`, { cause });
    }
  }

  /**
   * The fence: the path names this file, and the file holds what this writer knows,
   * plus at most lines that count for nothing (another holder's records and seals,
   * written after this writer's holder line: a displaced process's late writes). A
   * holder line (a later holder), a torn or unreadable line, or this writer's own
   * bytes not found whole: the fence does not hold.
   */
  async #fence(fd: number, when: string, from = this.#end, own: Uint8Array = new Uint8Array(0), exclusive = false): Promise<void> {
    // One stat per append: the file at the path is this file when device and inode match, and then its size is this file's.
    const mine = this.#fs.stat(this.#real);
    const fail = () => new StoreError(`another process wrote the action journal ${this.#shown} ${when}: this store is closed and nothing more is acknowledged on it (open it again)`);
    if (mine === undefined || mine.ino !== this.#id.ino || mine.dev !== this.#id.dev || mine.size < this.#end) throw fail();
    if (mine.size === this.#end) return;
    // Bytes this writer did not write: judged line by line, within a bound on the work.
    const extra = mine.size - this.#end;
    if (exclusive || extra > 2 * FILE_STORE_GROUP_COMMIT_BYTES) throw fail();
    const text = new TextDecoder().decode(await this.#fs.read(fd, mine.size - from, from));
    const ownText = new TextDecoder().decode(own);
    const i = ownText.length === 0 ? 0 : text.indexOf(ownText);
    if (i < 0 || (i > 0 && text[i - 1] !== "\n")) throw fail();
    const foreign = text.slice(0, i) + text.slice(i + ownText.length);
    if (!foreign.endsWith("\n")) throw fail();
    for (const line of foreign.slice(0, -1).split("\n")) {
      let v: unknown;
      try {
        v = JSON.parse(line);
      } catch {
        throw fail();
      }
      const voidLine = isRec(v) && ((typeof v["h"] === "string" && v["h"] !== this.#holder && "r" in v) || (v["yada"] === "seal" && v["holder"] !== this.#holder));
      if (!voidLine) throw fail();
    }
    this.#end = mine.size;
  }

  /**
   * Replaces the journal by one holding `lines` under this holder, atomically: seals
   * the current journal (a fenced append: another writer's later append fails its own
   * fence), writes the new one beside it, fsyncs it, renames it over the old one and
   * fsyncs the directory. Returns `false` when it failed before the rename (the old
   * journal goes on, reopened by the holder line); `lines` is called once the seal is
   * on disk.
   *
   * @throws StoreError (`store`) when the seal's sync or fence fails, or the rename
   * happened but its directory sync failed (the caller stops).
   */
  async replace(lines: () => readonly string[]): Promise<{ ok: true } | { ok: false; cause: unknown }> {
    const sealed = await this.append([sealLine(this.#holder)], "before a compaction");
    if (sealed) {
      // The seal itself did not land whole: the old journal goes on after the holder line.
      return { ok: false, cause: sealed.cause };
    }
    const fs = this.#fs;
    const tmp = `${this.#real}.compact`;
    let fd: number | undefined;
    let size = 0;
    let id: FileInfo | undefined;
    try {
      if (fs.stat(tmp) !== undefined) fs.unlink(tmp);
      fd = fs.open(tmp, "ax+", 0o600);
      id = fs.fstat(fd);
      const data = encoder.encode(holderLine(this.#holder, process.pid, Date.now()) + lines().join(""));
      for (let at = 0; at < data.length; ) at += fs.write(fd, data, at, data.length - at);
      size = data.length;
      await fs.sync(fd);
      fs.rename(tmp, this.#real);
    } catch (cause) {
      if (fd !== undefined) fs.close(fd);
      // The old journal is still the journal, sealed: the next append reopens it with the holder line.
      this.#prefix = holderLine(this.#holder, process.pid, Date.now());
      return { ok: false, cause };
    }
    const old = this.#fd;
    this.#fd = fd;
    this.#id = id!;
    this.#end = size;
    this.#prefix = "";
    if (old !== undefined) fs.close(old);
    try {
      await syncDir(fs, dirname(this.#real));
    } catch (cause) {
      throw new StoreError(`cannot sync the directory of the action journal ${this.#shown}; this store is closed (open it again)`, { cause });
    }
    await this.#fence(fd, "during a compaction");
    return { ok: true };
  }

  /** Closes the file (idempotent). */
  close(): void {
    const fd = this.#fd;
    this.#fd = undefined;
    if (fd === undefined) return;
    try {
      this.#fs.close(fd);
    } catch {
      // Closing a journal that failed: nothing more to do.
    }
  }
}
