// Power cuts, in the manner of ALICE and CrashMonkey: a StoreFs that passes every call
// to the real file system and records, in order, what a power cut could keep or lose:
// the bytes written to each file (by inode), each file sync, each directory entry
// change (create, rename, unlink) and each directory sync, plus the test's own marks
// (a change acknowledged). Then, for every prefix of that record, the disk states a
// power cut at that point could leave:
//   - a file keeps the bytes it had at its last sync; of what was written after, it
//     keeps nothing, all of it, the first half (a torn append) or zeros in its place
//     (the size reached the disk, the data did not);
//   - a directory keeps its entries as of its last sync, plus any prefix of the entry
//     changes made after (metadata reaches the disk in order, as on a journaling file
//     system, but only a directory sync forces it).
// The model is the POSIX promise and no more: nothing is durable without its sync.
import { mkdirSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { createHash } from "node:crypto";
import { nodeStoreFs, type StoreFs } from "../../src/node/store-fs.js";

export type Op =
  | { kind: "create"; dir: string; name: string; inode: number }
  | { kind: "write"; inode: number; offset: number; data: Uint8Array }
  | { kind: "sync"; inode: number }
  | { kind: "rename"; dir: string; from: string; to: string }
  | { kind: "unlink"; dir: string; name: string }
  | { kind: "syncdir"; dir: string }
  | { kind: "mark"; value: unknown };

interface Fd {
  inode: number;
  dir?: string;
}

/** See the module comment. `skip` drops a kind of sync (it neither happens nor is recorded): a store that forgets it. */
export class RecordingFs implements StoreFs {
  readonly ops: Op[] = [];
  readonly #real: StoreFs;
  readonly #paths = new Map<string, number>();
  readonly #fds = new Map<number, Fd>();
  #next = 1;
  readonly #skip: { fileSync?: boolean; dirSync?: boolean };

  constructor(skip: { fileSync?: boolean; dirSync?: boolean } = {}, real: StoreFs = nodeStoreFs) {
    this.#skip = skip;
    this.#real = real;
  }

  mark(value: unknown): void {
    this.ops.push({ kind: "mark", value });
  }

  open(path: string, flags: string, mode?: number): number {
    const existed = this.#real.stat(path) !== undefined;
    const fd = this.#real.open(path, flags, mode);
    if (flags === "r" && !this.#paths.has(path) && existed && isDirectory(path)) {
      this.#fds.set(fd, { inode: 0, dir: path });
      return fd;
    }
    if (!existed) {
      const inode = this.#next++;
      this.#paths.set(path, inode);
      this.ops.push({ kind: "create", dir: dirname(path), name: basename(path), inode });
    } else if (!this.#paths.has(path)) {
      throw new Error(`crash-fs: ${path} existed before the recording`);
    }
    this.#fds.set(fd, { inode: this.#paths.get(path)! });
    return fd;
  }

  close(fd: number): void {
    this.#fds.delete(fd);
    this.#real.close(fd);
  }

  read(fd: number, length: number, position: number): Promise<Uint8Array> {
    return this.#real.read(fd, length, position);
  }

  write(fd: number, data: Uint8Array, offset: number, length: number): number {
    const f = this.#fds.get(fd)!;
    const at = this.#real.fstat(fd).size;
    const n = this.#real.write(fd, data, offset, length);
    this.ops.push({ kind: "write", inode: f.inode, offset: at, data: data.slice(offset, offset + n) });
    return n;
  }

  fstat(fd: number) {
    return this.#real.fstat(fd);
  }

  stat(path: string) {
    return this.#real.stat(path);
  }

  async datasync(fd: number): Promise<void> {
    await this.#synced(fd, () => this.#real.datasync(fd));
  }

  async sync(fd: number): Promise<void> {
    await this.#synced(fd, () => this.#real.sync(fd));
  }

  syncNow(fd: number): void {
    void this.#synced(fd, async () => this.#real.syncNow(fd));
  }

  async #synced(fd: number, run: () => Promise<void>): Promise<void> {
    const f = this.#fds.get(fd)!;
    if (f.dir !== undefined ? this.#skip.dirSync : this.#skip.fileSync) return;
    await run();
    // Durable once the call returned: recorded then, so an acknowledgement before it shows.
    this.ops.push(f.dir !== undefined ? { kind: "syncdir", dir: f.dir } : { kind: "sync", inode: f.inode });
  }

  rename(from: string, to: string): void {
    if (dirname(from) !== dirname(to)) throw new Error("crash-fs: renames within one directory only");
    this.#real.rename(from, to);
    const inode = this.#paths.get(from)!;
    this.#paths.delete(from);
    this.#paths.set(to, inode);
    this.ops.push({ kind: "rename", dir: dirname(from), from: basename(from), to: basename(to) });
  }

  unlink(path: string): void {
    this.#real.unlink(path);
    this.#paths.delete(path);
    this.ops.push({ kind: "unlink", dir: dirname(path), name: basename(path) });
  }

  mkdirs(path: string): string | undefined {
    return this.#real.mkdirs(path);
  }

  readFile(path: string): Uint8Array | undefined {
    return this.#real.readFile(path);
  }
}

const isDirectory = (path: string): boolean => statSync(path).isDirectory();

/** A disk state after a power cut: the files of the one directory, by name. */
export interface CrashState {
  /** Ops of the record that happened before the cut. */
  at: number;
  variant: string;
  files: Map<string, Uint8Array>;
}

type DirOp = Extract<Op, { kind: "create" | "rename" | "unlink" }>;

function applyDir(entries: Map<string, number>, op: DirOp): void {
  if (op.kind === "create") entries.set(op.name, op.inode);
  else if (op.kind === "unlink") entries.delete(op.name);
  else {
    const inode = entries.get(op.from);
    entries.delete(op.from);
    if (inode !== undefined) entries.set(op.to, inode);
  }
}

function concat(a: Uint8Array, at: number, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.max(a.length, at + b.length));
  out.set(a);
  out.set(b, at);
  return out;
}

/**
 * Every distinct disk state of directory `dir` a power cut could leave at each point
 * of `ops` (see the module comment), with the point it was cut at.
 */
export function crashStates(ops: readonly Op[], dir: string): CrashState[] {
  const out: CrashState[] = [];
  const seen = new Set<string>();
  for (let at = 0; at <= ops.length; at++) {
    const prefix = ops.slice(0, at);
    // Files: the bytes at the last sync, and all the bytes written.
    const durable = new Map<number, Uint8Array>();
    const current = new Map<number, Uint8Array>();
    // The directory: entries at its last sync, and the entry changes since.
    let synced = new Map<string, number>();
    const live = new Map<string, number>();
    let pending: DirOp[] = [];
    for (const op of prefix) {
      if (op.kind === "write") current.set(op.inode, concat(current.get(op.inode) ?? new Uint8Array(0), op.offset, op.data));
      else if (op.kind === "sync") durable.set(op.inode, current.get(op.inode) ?? new Uint8Array(0));
      else if ((op.kind === "create" || op.kind === "rename" || op.kind === "unlink") && op.dir === dir) {
        applyDir(live, op);
        pending.push(op);
      } else if (op.kind === "syncdir" && op.dir === dir) {
        synced = new Map(live);
        pending = [];
      }
    }
    const content = (inode: number, how: "durable" | "all" | "torn" | "zeros"): Uint8Array => {
      const d = durable.get(inode) ?? new Uint8Array(0);
      const c = current.get(inode) ?? new Uint8Array(0);
      if (how === "durable" || c.length <= d.length) return how === "all" ? c : d;
      if (how === "all") return c;
      const tail = c.length - d.length;
      if (how === "torn") return c.slice(0, d.length + Math.max(1, Math.floor(tail / 2)));
      return concat(d, d.length, new Uint8Array(tail));
    };
    const dirStates: Array<[string, Map<string, number>]> = [];
    for (let j = 0; j <= pending.length; j++) {
      const e = new Map(synced);
      for (const op of pending.slice(0, j)) applyDir(e, op);
      dirStates.push([`entries synced+${j} of ${pending.length}`, e]);
    }
    for (const [dirName, entries] of dirStates) {
      for (const how of ["durable", "all", "torn", "zeros"] as const) {
        const files = new Map<string, Uint8Array>();
        for (const [name, inode] of entries) files.set(name, content(inode, how));
        // One check per distinct (disk, acknowledged changes): the same disk after more acknowledgements is checked again.
        const key = createHash("sha256")
          .update(JSON.stringify(marksBefore(ops, at)))
          .update(JSON.stringify([...files.keys()].sort()))
          .update(Buffer.concat([...files.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, v]) => Buffer.from(v))))
          .digest("hex");
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ at, variant: `${dirName}, data ${how}`, files });
      }
    }
  }
  return out;
}

/** Writes a crash state into a fresh directory; returns it. */
export function materialize(state: CrashState): string {
  const dir = mkdtempSync(join(tmpdir(), "yada-crash-"));
  mkdirSync(dir, { recursive: true });
  for (const [name, data] of state.files) writeFileSync(join(dir, name), data);
  return dir;
}

/** The marks recorded before point `at`. */
export const marksBefore = (ops: readonly Op[], at: number): unknown[] => ops.slice(0, at).flatMap((o) => (o.kind === "mark" ? [o.value] : []));

/** The real file system with syncs that return at once: for checking crash states fast. */
export const noSyncFs: StoreFs = { ...nodeStoreFs, datasync: async () => undefined, sync: async () => undefined, syncNow: () => undefined };
