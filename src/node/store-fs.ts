/**
 * The file system calls of the file stores (W9, A5), as one seam: the file action
 * store and the token file store reach the disk only through a {@link StoreFs}, so a
 * test can record every write, sync and directory change they make and replay any
 * prefix of them as a power cut would leave the disk. Internal: the stores use
 * {@link nodeStoreFs} unless a test passes its own.
 *
 * The calls are the few the stores need, synchronous where they are cheap (an append
 * to the page cache, a stat, a rename) and asynchronous where they wait on the disk
 * (the syncs, a whole-journal read), so a flush never blocks the event loop.
 *
 * @module
 */
import { closeSync, fdatasync, fstatSync, fsync, fsyncSync, mkdirSync, openSync, read, readFileSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";

/** The identity and size of a file. */
export interface FileInfo {
  size: number;
  dev: number;
  ino: number;
}

/** See the module comment. Errors are the platform's (with their errno `code`). */
export interface StoreFs {
  /** Opens `path` with `flags` (`"r"`, `"a+"`, `"w"`, `"wx"`); a directory with `"r"`. */
  open(path: string, flags: string, mode?: number): number;
  close(fd: number): void;
  /** Reads up to `length` bytes at `position`. */
  read(fd: number, length: number, position: number): Promise<Uint8Array>;
  /** One write(2) of `length` bytes of `data` from `offset` (at the end, for a file opened to append): the bytes written. */
  write(fd: number, data: Uint8Array, offset: number, length: number): number;
  fstat(fd: number): FileInfo;
  /** The file at `path`, or `undefined` when there is none. */
  stat(path: string): FileInfo | undefined;
  /** fdatasync(2): the file's data (and the size needed to read it) on disk. */
  datasync(fd: number): Promise<void>;
  /** fsync(2): the file's data and metadata; for a directory, its entries. */
  sync(fd: number): Promise<void>;
  /** fsync(2), blocking (the token store works synchronously under its lock). */
  syncNow(fd: number): void;
  rename(from: string, to: string): void;
  unlink(path: string): void;
  /** mkdir -p with mode 0700 for what it creates; the first directory it created, if any. */
  mkdirs(path: string): string | undefined;
  /** The whole file, or `undefined` when there is none. */
  readFile(path: string): Uint8Array | undefined;
}

const isErrno = (e: unknown, code: string): boolean => typeof e === "object" && e !== null && (e as { code?: unknown }).code === code;

const promised = (f: (fd: number, cb: (e: Error | null) => void) => void, fd: number): Promise<void> =>
  new Promise((resolve, reject) => f(fd, (e) => (e ? reject(e) : resolve())));

/** The real file system. */
export const nodeStoreFs: StoreFs = {
  open: (path, flags, mode) => openSync(path, flags, mode),
  close: (fd) => closeSync(fd),
  read: (fd, length, position) =>
    new Promise((resolve, reject) => {
      const buf = Buffer.allocUnsafe(length);
      let got = 0;
      const more = (): void =>
        read(fd, buf, got, length - got, position + got, (e, n) => {
          if (e) return reject(e);
          got += n;
          if (n === 0 || got === length) resolve(buf.subarray(0, got));
          else more();
        });
      if (length === 0) resolve(buf);
      else more();
    }),
  write: (fd, data, offset, length) => writeSync(fd, data, offset, length),
  fstat: (fd) => {
    const s = fstatSync(fd);
    return { size: s.size, dev: s.dev, ino: s.ino };
  },
  stat: (path) => {
    try {
      const s = statSync(path);
      return { size: s.size, dev: s.dev, ino: s.ino };
    } catch (e) {
      if (isErrno(e, "ENOENT")) return undefined;
      throw e;
    }
  },
  datasync: (fd) => promised(fdatasync, fd),
  sync: (fd) => promised(fsync, fd),
  syncNow: (fd) => fsyncSync(fd),
  rename: (from, to) => renameSync(from, to),
  unlink: (path) => unlinkSync(path),
  mkdirs: (path) => mkdirSync(path, { recursive: true, mode: 0o700 }),
  readFile: (path) => {
    try {
      return readFileSync(path);
    } catch (e) {
      if (isErrno(e, "ENOENT")) return undefined;
      throw e;
    }
  },
};

/** Syncs the directory `dir`'s entries (a created, renamed or removed name) to disk. */
export async function syncDir(fs: StoreFs, dir: string): Promise<void> {
  const fd = fs.open(dir, "r");
  try {
    await fs.sync(fd);
  } finally {
    fs.close(fd);
  }
}
