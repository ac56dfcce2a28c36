/**
 * One holder per file (W15): the lock behind the file action store and the token
 * file store. Two mechanisms, each with a takeover that can never leave two holders.
 *
 * **socket** (the default on Linux). The lock is a Unix socket in the abstract
 * namespace, named after the file's real identity: the device and inode of its real
 * directory and its real name, so every path to one file (symlinks, bind mounts,
 * relative paths) names one lock. Taking it is `bind(2)`, which the kernel performs
 * atomically: of any number of racing binders exactly one gets the name, the others
 * `EADDRINUSE`. An abstract name has no file behind it: the kernel frees it when the
 * holder's socket closes, and it closes when the holder exits however it exits
 * (kill -9 included). There is no stale lock to judge and none to remove, so there is
 * no check-then-remove window. A refused opener connects to the name and reads the
 * holder's pid (at most `LOCK_PROBE_MAX_BYTES`, within `LOCK_PROBE_TIMEOUT_MS`) for its
 * message. The server is unref'd: it never keeps a process alive.
 *
 * **files** (the default elsewhere, macOS first: it has no abstract namespace). A
 * directory `<file>.locks` holds numbered generation files `g1`, `g2`, …, each
 * written whole to a temporary file and linked in place (`link(2)` fails with `EEXIST`
 * when the name exists, atomically, on every POSIX file system), so a generation file
 * never exists without its holder's pid and host. The holder is the creator of the
 * highest generation. An opener reads the highest generation `n`; if its holder is
 * alive (same host and `kill(pid, 0)` succeeds, or another host: never judged dead)
 * and has not released it (`g<n>.free`), the lock is held. Otherwise it links
 * `g<n+1>`: of racing openers exactly one creates it. The creator then lists the
 * directory again and gives up if a higher generation exists (a slow opener may have
 * recreated a number that was cleaned away), and only then removes the generations
 * below its own. Why no two holders: the highest generation is never removed (only
 * lower ones are, by a holder above them), each generation is created only after its
 * predecessor's holder was seen dead or released (both permanent), and a creator that
 * sees a higher generation after creating yields; so any live holder below the top was
 * seen dead by the creator of the generation above it, a contradiction. A reused pid
 * makes a dead holder look alive: the lock is then refused, never shared, and the
 * message names the pid and the directory to remove.
 *
 * Neither mechanism reaches across machines (a network file system) or, for sockets,
 * across network namespaces (containers that share only a volume): the file action
 * store's journal fence is the second line there.
 *
 * @module
 */
import { createServer, connect } from "node:net";
import { createHash, randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, realpathSync, statSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { StoreError } from "../errors.js";
import { LOCK_LISTEN_TIMEOUT_MS, LOCK_PROBE_MAX_BYTES, LOCK_PROBE_TIMEOUT_MS, LOCK_TAKEOVER_ATTEMPTS, MAX_LOCK_DIR_ENTRIES } from "../limits.js";

/** How a lock is taken: see the module comment. */
export type LockMechanism = "socket" | "files";

/** The mechanism of this platform: `socket` on Linux, `files` elsewhere. */
export const platformLockMechanism = (): LockMechanism => (process.platform === "linux" ? "socket" : "files");

/** A lock this process holds. */
export interface HeldLock {
  readonly mechanism: LockMechanism;
  /** Releases the lock (idempotent); resolves once another opener can take it. */
  release(): Promise<void>;
}

/** Who holds a lock that was refused, as far as it can be told. */
export interface LockHolder {
  pid?: number;
  host?: string;
  /** Where the holder is recorded (the files mechanism), for the message. */
  where: string;
}

const isErrno = (e: unknown, code: string): boolean => typeof e === "object" && e !== null && (e as { code?: unknown }).code === code;

/** The real path of `target` (which may not exist yet): symlinks of the file and its directory resolved. */
export function realTarget(target: string): string {
  try {
    return realpathSync(target);
  } catch (e) {
    if (!isErrno(e, "ENOENT")) throw e;
    return join(realpathSync(dirname(target)), basename(target));
  }
}

/** The abstract socket name of `real`: its directory's device and inode, and its name. */
export function socketName(real: string): string {
  const dir = statSync(dirname(real), { bigint: true });
  const id = createHash("sha256").update(`${dir.dev}:${dir.ino}\0${basename(real)}`).digest("base64url").slice(0, 43);
  return `\0yada-lock/${id}`;
}

/**
 * Tries once to take the lock of `target` (a file whose directory exists). With
 * `probe` false, a refused socket lock does not ask its holder for its pid.
 *
 * @returns the held lock, or who holds it.
 * @throws StoreError (`store`) when the lock cannot be tried (a file system error, a
 * listen past `LOCK_LISTEN_TIMEOUT_MS`, more than `LOCK_TAKEOVER_ATTEMPTS` lost races,
 * a lock directory over `MAX_LOCK_DIR_ENTRIES`).
 */
export async function tryLock(target: string, mechanism: LockMechanism, options: { probe?: boolean } = {}): Promise<HeldLock | LockHolder> {
  try {
    const real = realTarget(target);
    return mechanism === "socket" ? await trySocket(real, options.probe ?? true) : tryFiles(real);
  } catch (e) {
    throw e instanceof StoreError ? e : new StoreError(`cannot take the lock of ${target}`, { cause: e });
  }
}

/** Is `x` a held lock (rather than a holder)? */
export const isHeld = (x: HeldLock | LockHolder): x is HeldLock => "release" in x;

// ── socket ──

async function trySocket(real: string, ask: boolean): Promise<HeldLock | LockHolder> {
  const name = socketName(real);
  const server = createServer((c) => {
    c.on("error", () => undefined);
    c.end(`${process.pid}\n`);
  });
  server.maxConnections = 16; // probes only: each is answered and closed at once
  const outcome = await new Promise<"listening" | "busy" | Error>((resolve) => {
    const timer = setTimeout(() => resolve(new StoreError(`the lock of ${real} did not answer within ${LOCK_LISTEN_TIMEOUT_MS} ms (LOCK_LISTEN_TIMEOUT_MS)`)), LOCK_LISTEN_TIMEOUT_MS);
    const done = (v: "listening" | "busy" | Error) => {
      clearTimeout(timer);
      resolve(v);
    };
    server.once("listening", () => done("listening"));
    server.once("error", (e) => done(isErrno(e, "EADDRINUSE") ? "busy" : e));
    // exclusive: a cluster worker binds its own socket rather than sharing the primary's.
    server.listen({ path: name, exclusive: true });
  });
  if (outcome === "listening") {
    server.unref();
    let released: Promise<void> | undefined;
    return {
      mechanism: "socket",
      release: () => (released ??= new Promise<void>((resolve) => server.close(() => resolve()))),
    };
  }
  server.close();
  if (outcome !== "busy") throw outcome instanceof StoreError ? outcome : new StoreError(`cannot take the lock of ${real}`, { cause: outcome });
  return { ...(ask ? await probe(name) : {}), where: real };
}

/** Asks the holder of `name` for its pid: bounded in bytes and time, `{}` when it does not say. */
function probe(name: string): Promise<{ pid?: number }> {
  return new Promise((resolve) => {
    let text = "";
    const c = connect({ path: name });
    const finish = () => {
      clearTimeout(timer);
      c.destroy();
      const m = /^(\d{1,10})\n/.exec(text);
      resolve(m ? { pid: Number(m[1]) } : {});
    };
    const timer = setTimeout(finish, LOCK_PROBE_TIMEOUT_MS);
    c.setEncoding("latin1");
    c.on("data", (d: string) => {
      text += d;
      if (text.includes("\n") || text.length >= LOCK_PROBE_MAX_BYTES) finish();
    });
    c.on("error", finish);
    c.on("end", finish);
  });
}

// ── files ──

const GEN = /^g([1-9][0-9]{0,14})$/;
const host = (): string => hostname().replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 64);

/** The highest generation in `dir`, or 0. */
function highest(dir: string): number {
  const names = readdirSync(dir);
  if (names.length > MAX_LOCK_DIR_ENTRIES) throw new StoreError(`the lock directory ${dir} holds ${names.length} entries, over MAX_LOCK_DIR_ENTRIES`);
  let top = 0;
  for (const n of names) {
    const m = GEN.exec(n);
    if (m) top = Math.max(top, Number(m[1]));
  }
  return top;
}

/** The holder of generation `n`, or `undefined` when it is released or dead (or the file is gone: a higher one exists). */
function liveHolder(dir: string, n: number): LockHolder | undefined {
  const file = join(dir, `g${n}`);
  let text: string;
  try {
    statSync(`${file}.free`);
    return undefined;
  } catch (e) {
    if (!isErrno(e, "ENOENT")) throw e;
  }
  try {
    text = readFileSync(file, "latin1").slice(0, 256);
  } catch (e) {
    if (isErrno(e, "ENOENT")) return undefined;
    throw e;
  }
  const m = /^yada-lock 1 pid=(\d{1,10}) host=([A-Za-z0-9._-]{0,64})\n$/.exec(text);
  if (!m) return { where: dir }; // not ours to judge: held
  const pid = Number(m[1]);
  const on = m[2] ?? "";
  if (on !== host()) return { pid, host: on, where: dir };
  return alive(pid) ? { pid, where: dir } : undefined;
}

/** Is process `pid` alive on this host (EPERM: alive, another user's)? */
function alive(pid: number): boolean {
  if (pid === process.pid || !(pid > 0)) return true; // pid 0 would signal our own group: never judged dead
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return isErrno(e, "EPERM");
  }
}

/** Creates `path` with `content`, whole or not at all: `false` when it exists. */
function createWhole(dir: string, path: string, content: string): boolean {
  const tmp = join(dir, `t${process.pid}.${randomBytes(6).toString("hex")}`);
  const fd = openSync(tmp, "wx", 0o600);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, path);
    return true;
  } catch (e) {
    if (isErrno(e, "EEXIST")) return false;
    throw e;
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // Already gone: nothing to clean.
    }
  }
}

const unlinkQuiet = (p: string): void => {
  try {
    unlinkSync(p);
  } catch (e) {
    if (!isErrno(e, "ENOENT")) throw e;
  }
};

function tryFiles(real: string): HeldLock | LockHolder {
  const dir = `${real}.locks`;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < LOCK_TAKEOVER_ATTEMPTS; attempt++) {
    const top = highest(dir);
    if (top > 0) {
      const holder = liveHolder(dir, top);
      if (holder) return holder;
    }
    const mine = top + 1;
    if (!Number.isSafeInteger(mine)) throw new StoreError(`the lock directory ${dir} is out of generations`);
    if (!createWhole(dir, join(dir, `g${mine}`), `yada-lock 1 pid=${process.pid} host=${host()}\n`)) continue;
    if (highest(dir) > mine) {
      // A higher generation exists: this one was a number cleaned away and made again. Yield.
      unlinkQuiet(join(dir, `g${mine}`));
      continue;
    }
    for (const n of readdirSync(dir)) {
      // Generations below this one, and the temporary files of creators that died mid-way.
      const g = /^g([1-9][0-9]{0,14})(\.free)?$/.exec(n);
      const t = /^t([0-9]{1,10})\./.exec(n);
      if ((g && Number(g[1]) < mine) || (t && !alive(Number(t[1])))) unlinkQuiet(join(dir, n));
    }
    let released = false;
    return {
      mechanism: "files",
      release: async () => {
        if (released) return;
        released = true;
        // The generation stays (the highest is never removed); its release is a second file.
        const fd = openSync(join(dir, `g${mine}.free`), "w", 0o600);
        closeSync(fd);
      },
    };
  }
  throw new StoreError(`cannot take the lock ${dir}: lost ${LOCK_TAKEOVER_ATTEMPTS} races in a row (LOCK_TAKEOVER_ATTEMPTS)`);
}
