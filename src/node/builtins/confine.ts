/**
 * Race-free opening inside the roots (Y4), shared by every Node built-in that
 * reads or writes a path. Checking a path and then opening it is a race: another
 * process can swap a directory on the way for a symbolic link in between, and
 * the open follows it out of the root. So the check is made on what was opened:
 * the path is opened (the last component never followed), then the opened
 * descriptor itself is verified. Where the system names a descriptor's file
 * (`/proc/self/fd`, Linux), that name must lie inside a root; elsewhere the
 * descriptor must be the very file (device and inode) now found, links
 * resolved, at a path inside a root. Anything else is refused and closed
 * unread. Directories are listed through their verified descriptor where the
 * system allows it (`/proc/self/fd/N`), so a listing cannot come from elsewhere;
 * other systems list the verified path, and a swap during the listing itself
 * is not detected there.
 *
 * @module
 */
import { constants, type Dir } from "node:fs";
import { opendir, open, readlink, realpath, rename, stat, unlink, type FileHandle } from "node:fs/promises";
import { isInside, PathRefused } from "./roots.js";

// O_NOFOLLOW: the last component is never a link. O_NONBLOCK: a FIFO swapped in
// cannot block a pool thread (the descriptor is then refused as no regular file).
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const DIRECTORY = constants.O_DIRECTORY ?? 0;

/** What an open is for. */
export type OpenMode = "read" | "directory" | "write" | "create";

const FLAGS: Record<OpenMode, number> = {
  read: constants.O_RDONLY | NOFOLLOW | NONBLOCK,
  directory: constants.O_RDONLY | NOFOLLOW | DIRECTORY,
  write: constants.O_WRONLY | NOFOLLOW | NONBLOCK,
  // A new file only: never an existing one, never through a link.
  create: constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW,
};

/** Does the system name an open descriptor's file under /proc/self/fd? Probed once. */
let procFd: Promise<boolean> | undefined;
function hasProcFd(): Promise<boolean> {
  procFd ??= readlink("/proc/self/fd/0").then(
    () => true,
    () => false,
  );
  return procFd;
}

/**
 * Checks that `handle`, opened from `path`, is a file or directory inside
 * `inside` (the roots with their links resolved, see `RootGuard.realRoots`).
 *
 * @throws PathRefused when it is not (the caller closes the handle).
 */
async function verify(handle: FileHandle, path: string, inside: readonly string[], mode: OpenMode): Promise<void> {
  const wantDir = mode === "directory";
  // O_DIRECTORY already refused anything else.
  const info = wantDir && DIRECTORY !== 0 ? null : await handle.stat();
  if (info !== null && (wantDir ? !info.isDirectory() : !info.isFile())) {
    throw new PathRefused(wantDir ? "the path is not a directory" : "the path is not a regular file");
  }
  if (await hasProcFd()) {
    // The name of what was opened, as the kernel resolved it.
    const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => "");
    if (inside.some((r) => isInside(r, opened))) return;
  } else {
    const now = await realpath(path).catch(() => "");
    if (inside.some((r) => isInside(r, now))) {
      const there = await stat(now);
      const mine = info ?? (await handle.stat());
      if (there.dev === mine.dev && there.ino === mine.ino) return;
    }
  }
  throw new PathRefused("the path changed while it was opened and now leads outside the allowed roots");
}

/**
 * Opens `path` for `mode` and verifies the descriptor lies inside `roots`, the
 * allowed roots with their links resolved (Y4).
 *
 * @throws PathRefused when the opened file is not inside a root, is not of the
 *   kind asked for, or a link is met at the last component; the open's own
 *   error (ENOENT, EEXIST, ...) when it fails.
 */
export async function openConfined(path: string, roots: readonly string[], mode: OpenMode): Promise<FileHandle> {
  const handle = await open(path, FLAGS[mode], 0o644);
  try {
    await verify(handle, path, roots, mode);
    return handle;
  } catch (e) {
    await handle.close().catch(() => {});
    throw e;
  }
}

/**
 * Opens the directory `path` confined to `roots` and returns a listing of it:
 * through the verified descriptor where the system allows, else of the
 * verified path (`close` releases both).
 */
export async function openDirConfined(path: string, roots: readonly string[]): Promise<{ dir: Dir; close(): Promise<void> }> {
  const handle = await openConfined(path, roots, "directory");
  try {
    const dir = await opendir((await hasProcFd()) ? `/proc/self/fd/${handle.fd}` : path);
    return {
      dir,
      close: async () => {
        await dir.close().catch(() => {});
        await handle.close().catch(() => {});
      },
    };
  } catch (e) {
    await handle.close().catch(() => {});
    throw e;
  }
}

/**
 * Writes `bytes` as the whole content of the file `name` in the directory
 * `dir`, confined to `inside` (the roots, links resolved) (Y4, R5). The
 * directory is opened and verified first; the new content goes to a fresh
 * temporary file beside the target (created exclusively, never through a link,
 * verified) and replaces the target by a rename, so a reader sees the old file
 * or the new one, never a mix. Where the system allows it, both names are
 * reached through the verified directory's descriptor (`/proc/self/fd/N/...`),
 * so a directory swapped for a link meanwhile cannot redirect the write. An
 * existing target keeps its permission bits; a target that is a link or not a
 * regular file is refused.
 *
 * @throws PathRefused when the directory or a file met is not inside a root,
 *   or the target is not a regular file; the file system's error otherwise.
 */
export async function replaceConfined(dir: string, name: string, bytes: Uint8Array, inside: readonly string[]): Promise<void> {
  const folder = await openConfined(dir, inside, "directory");
  try {
    const base = (await hasProcFd()) ? `/proc/self/fd/${folder.fd}` : dir;
    const target = `${base}/${name}`;
    let mode = 0o644;
    const old = await openConfined(target, inside, "read").catch((e: unknown) => {
      if (e instanceof Error && "code" in e && e.code === "ENOENT") return undefined;
      throw e;
    });
    if (old !== undefined) {
      mode = (await old.stat()).mode & 0o7777;
      await old.close();
    }
    const tmp = `${base}/.${name}.${crypto.randomUUID()}.tmp`;
    const out = await openConfined(tmp, inside, "create");
    try {
      await out.chmod(mode);
      let at = 0;
      while (at < bytes.length) at += (await out.write(bytes, at, bytes.length - at, at)).bytesWritten;
      await out.sync();
    } catch (e) {
      await out.close().catch(() => {});
      await unlink(tmp).catch(() => {});
      throw e;
    }
    await out.close();
    await rename(tmp, target).catch(async (e: unknown) => {
      await unlink(tmp).catch(() => {});
      throw e;
    });
  } finally {
    await folder.close().catch(() => {});
  }
}
