/**
 * The file action store (W9, Node): the embedded durable store. An append-only
 * journal of whole records, one JSON line per change, flushed to disk (fdatasync)
 * before the change is acknowledged, so `executing` is on disk before the send.
 * A torn last line (a crash mid-append) is ignored on open; a lock file keeps a
 * second process out; compaction rewrites the journal atomically (temp file,
 * fsync, rename, directory fsync).
 *
 * @module
 */
import { link, mkdir, open, readFile, rename, stat, truncate, unlink, type FileHandle } from "node:fs/promises";
import { dirname, join } from "node:path";
import { LimitError, StoreError } from "../errors.js";
import { FILE_STORE_COMPACT_BYTES, FILE_STORE_MAX_JOURNAL_BYTES, MAX_ACTION_RECORD_BYTES, MAX_FILE_STORE_ACTIONS } from "../limits.js";
import { RecordTable } from "../actions/table.js";
import { checkBatch, checkClaimMany, eachItem, single } from "../actions/batch.js";
import type { ActionCountQuery, ActionExpectation, ActionPatch, ActionQuery, ActionRecord, ActionStore, ActionTransition, ClaimManyOptions, ClaimOptions, TransitionOutcome } from "../actions/types.js";

/** Where {@link openFileStore} keeps its journal when given no path: `.yada/actions.jsonl` under the working directory. */
export const DEFAULT_FILE_STORE_PATH = join(".yada", "actions.jsonl");

/** Options of {@link openFileStore}. */
export interface FileStoreOptions {
  /** Most actions held (default `MAX_FILE_STORE_ACTIONS`). */
  maxActions?: number;
  /** Journal size past which it is compacted (default `FILE_STORE_COMPACT_BYTES`). */
  compactBytes?: number;
}

const parses = (line: string): boolean => {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
};

const isErrno = (e: unknown, code: string): boolean => typeof e === "object" && e !== null && (e as { code?: unknown }).code === code;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return isErrno(e, "EPERM");
  }
}

async function fsyncDir(dir: string): Promise<void> {
  const h = await open(dir, "r");
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}

/**
 * Creates `path` holding this process's pid, atomically: the pid is written to a
 * unique file first and linked in place, so the lock never exists without its
 * holder (an opener never reads an empty lock and takes it for stale). `false` when
 * `path` exists.
 */
async function createLock(path: string): Promise<boolean> {
  const mine = `${path}.${process.pid}.${crypto.randomUUID()}`;
  const h = await open(mine, "wx", 0o600);
  try {
    await h.writeFile(`${process.pid}\n`);
    await h.sync();
  } finally {
    await h.close();
  }
  try {
    await link(mine, path);
    return true;
  } catch (e) {
    if (isErrno(e, "EEXIST")) return false;
    throw e;
  } finally {
    await unlink(mine).catch(() => undefined);
  }
}

/** The live process holding the lock at `path`, or `undefined` when it is gone (or no lock is there). */
async function holder(path: string): Promise<number | undefined> {
  const pid = Number.parseInt(await readFile(path, "utf8").catch(() => ""), 10);
  return Number.isSafeInteger(pid) && pid > 0 && alive(pid) ? pid : undefined;
}

const lockedBy = (pid: number, lockPath: string) =>
  new StoreError(`the action store is locked by process ${pid} (${lockPath}); one process opens a file store at a time`);

/**
 * Takes the lock file of the journal, or throws a `store` error naming the process
 * that holds it. A stale lock (its holder died) is removed only under a second,
 * short-lived lock (`.break`) and after checking its holder again there, so two
 * openers racing for a stale lock never both remove one (the second removing the
 * first's fresh lock) and at most one of them gets the store.
 */
async function lock(lockPath: string): Promise<void> {
  const breakPath = `${lockPath}.break`;
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 5 * attempt));
      if (await createLock(lockPath)) return;
      const pid = await holder(lockPath);
      if (pid !== undefined) throw lockedBy(pid, lockPath);
      if (!(await createLock(breakPath))) {
        // Another opener is breaking the stale lock; a break lock whose holder died is removed.
        if ((await holder(breakPath)) === undefined) await unlink(breakPath).catch(() => undefined);
        continue;
      }
      try {
        const again = await holder(lockPath);
        if (again !== undefined) throw lockedBy(again, lockPath);
        await unlink(lockPath).catch((e: unknown) => {
          if (!isErrno(e, "ENOENT")) throw e;
        });
      } finally {
        await unlink(breakPath).catch(() => undefined);
      }
    }
  } catch (e) {
    throw e instanceof StoreError ? e : new StoreError(`cannot create the action store lock ${lockPath}`, { cause: e });
  }
  throw new StoreError(`cannot take the action store lock ${lockPath}`);
}

/**
 * Opens (creating if needed) the file store at `path` (default
 * {@link DEFAULT_FILE_STORE_PATH}) and locks it for this process.
 *
 * @throws StoreError (`store`) when another live process holds the lock, the journal
 * is over `FILE_STORE_MAX_JOURNAL_BYTES`, or a line before the last is not a record;
 * LimitError (`limit`) over `maxActions`.
 *
 * @example
 * ```ts
 * import { openFileStore } from "yada-mcp/node";
 * await using store = await openFileStore("/tmp/yada-example/actions.jsonl");
 * console.log((await store.list({ tenantId: "acme" })).length);
 * ```
 */
export async function openFileStore(path: string = DEFAULT_FILE_STORE_PATH, options: FileStoreOptions = {}): Promise<FileActionStore> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const lockPath = `${path}.lock`;
  await lock(lockPath);
  try {
    const data = new Map<string, string>();
    let size = 0;
    let journal = 0; // characters of every line kept, superseded ones included (what compaction weighs)
    try {
      size = (await stat(path)).size;
    } catch (e) {
      if (!isErrno(e, "ENOENT")) throw e;
    }
    if (size > FILE_STORE_MAX_JOURNAL_BYTES) throw new StoreError(`the action journal ${path} is ${size} bytes, over FILE_STORE_MAX_JOURNAL_BYTES`);
    if (size > 0) {
      const text = await readFile(path, "utf8");
      const end = text.lastIndexOf("\n") + 1;
      // A torn tail: the bytes after the last newline were never acknowledged.
      if (end < text.length) await truncate(path, Buffer.byteLength(text.slice(0, end)));
      const lines = text.slice(0, end).split("\n");
      lines.pop(); // after the last newline
      // The last line may be torn in another way (zeros after a crash): unparsable, it was never acknowledged either.
      const last = lines.at(-1);
      if (last !== undefined && !parses(last)) {
        lines.pop();
        await truncate(path, Buffer.byteLength(lines.map((l) => l + "\n").join("")));
      }
      lines.forEach((line, i) => {
        if (line.length > MAX_ACTION_RECORD_BYTES) throw new StoreError(`action journal line ${i + 1} is over MAX_ACTION_RECORD_BYTES`);
        let id: unknown;
        try {
          id = (JSON.parse(line) as { id?: unknown }).id;
        } catch (cause) {
          throw new StoreError(`action journal line ${i + 1} is not JSON`, { cause });
        }
        if (typeof id !== "string") throw new StoreError(`action journal line ${i + 1} has no action id`);
        data.set(id, line);
        journal += line.length + 1;
      });
    }
    const max = options.maxActions ?? MAX_FILE_STORE_ACTIONS;
    if (data.size > max) throw new LimitError("MAX_FILE_STORE_ACTIONS", max, `the action journal holds ${data.size} actions`);
    const handle = await open(path, "a", 0o600);
    if (size === 0) await fsyncDir(dirname(path));
    const store = new FileActionStore(path, lockPath, handle, data, options, journal);
    await store.compact(false);
    return store;
  } catch (e) {
    await unlink(lockPath).catch(() => undefined);
    throw e;
  }
}

/**
 * The file {@link ActionStore}: see {@link openFileStore}. Changes are serialized
 * within the process; each is on disk before its promise resolves.
 */
export class FileActionStore implements ActionStore, AsyncDisposable {
  readonly path: string;
  readonly #lockPath: string;
  #handle: FileHandle | undefined;
  readonly #table: RecordTable;
  readonly #compactAt: number;
  #bytes = 0;
  #queue: Promise<unknown> = Promise.resolve();

  /** Use {@link openFileStore}. */
  constructor(path: string, lockPath: string, handle: FileHandle, data: Map<string, string>, options: FileStoreOptions, journalChars?: number) {
    this.path = path;
    this.#lockPath = lockPath;
    this.#handle = handle;
    this.#table = new RecordTable(data, options.maxActions ?? MAX_FILE_STORE_ACTIONS, "MAX_FILE_STORE_ACTIONS");
    this.#compactAt = options.compactBytes ?? FILE_STORE_COMPACT_BYTES;
    if (journalChars !== undefined) this.#bytes = journalChars;
    else for (const raw of data.values()) this.#bytes += raw.length + 1;
  }

  /** Runs `fn` after every earlier change: a read-modify-append is never interleaved. */
  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(fn, fn);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  #open(): FileHandle {
    if (!this.#handle) throw new StoreError(`the action store ${this.path} is closed`);
    return this.#handle;
  }

  /** Appends and flushes one record, then makes it visible. */
  async #append(record: ActionRecord): Promise<ActionRecord> {
    const [r] = await this.#appendAll([record]);
    return r!;
  }

  /** Appends the records' lines in one write and one flush, then makes them visible. */
  async #appendAll(records: readonly ActionRecord[]): Promise<ActionRecord[]> {
    if (records.length === 0) return [];
    const lines = records.map((r) => JSON.stringify(r));
    const h = this.#open();
    const at = (await h.stat()).size;
    try {
      await h.appendFile(lines.join("\n") + "\n");
      await h.datasync();
    } catch (e) {
      // A failed append may have left part of its line: cut it off, so a later record is
      // never glued to it (and lost as a torn line on the next open). If even that fails,
      // the store closes: nothing more is acknowledged on a journal in an unknown shape.
      try {
        await h.truncate(at);
        await h.datasync();
      } catch {
        this.#handle = undefined;
        await h.close().catch(() => undefined);
      }
      throw new StoreError(`cannot append to the action journal ${this.path}`, { cause: e });
    }
    return records.map((record, i) => {
      this.#table.commit(record, lines[i]!);
      this.#bytes += lines[i]!.length + 1;
      return structuredClone(record);
    });
  }

  async create(record: ActionRecord): Promise<ActionRecord> {
    return this.#serial(async () => {
      const r = await this.#append(this.#table.checkCreate(record));
      await this.#maybeCompact();
      return r;
    });
  }

  async get(id: string): Promise<ActionRecord | undefined> {
    this.#open();
    return this.#table.get(id);
  }

  async list(query: ActionQuery): Promise<ActionRecord[]> {
    this.#open();
    return this.#table.list(query);
  }

  async count(query: ActionCountQuery): Promise<number> {
    this.#open();
    return this.#table.count(query);
  }

  async transition(id: string, expected: ActionExpectation, patch: ActionPatch, now: number): Promise<ActionRecord> {
    return single(await this.transitionMany([{ id, expected, patch }], now));
  }

  async claim(options: ClaimOptions): Promise<ActionRecord | undefined> {
    return (await this.#claim(options, 1))[0];
  }

  /** Leases up to `limit` actions with one journal append and one flush (see ActionStore.claimMany). */
  async claimMany(options: ClaimManyOptions): Promise<ActionRecord[]> {
    return this.#claim(options, checkClaimMany(options));
  }

  #claim(options: ClaimOptions, limit: number): Promise<ActionRecord[]> {
    return this.#serial(async () => {
      this.#open();
      return this.#appendAll(this.#table.pickClaims(options, limit));
    });
  }

  /** Applies each compare-and-swap that holds, with one journal append and one flush (see ActionStore.transitionMany). */
  async transitionMany(items: readonly ActionTransition[], now: number): Promise<TransitionOutcome[]> {
    checkBatch(items, now);
    return this.#serial(async () => {
      this.#open();
      const next: ActionRecord[] = [];
      const checked = await eachItem(items, (item) => {
        const record = this.#table.checkTransition(item.id, item.expected, item.patch, now);
        next.push(record);
        return { ok: true, record };
      });
      const written = await this.#appendAll(next);
      let k = 0;
      const out = checked.map((o): TransitionOutcome => (o.ok ? { ok: true, record: written[k++]! } : o));
      await this.#maybeCompact();
      return out;
    });
  }

  async #maybeCompact(): Promise<void> {
    if (this.#bytes > this.#compactAt && this.#bytes > 2 * this.#liveBytes()) await this.#compactNow();
  }

  #liveBytes(): number {
    let n = 0;
    for (const raw of this.#table.texts()) n += raw.length + 1;
    return n;
  }

  async #compactNow(): Promise<void> {
    const tmp = `${this.path}.compact`;
    const h = await open(tmp, "w", 0o600);
    try {
      let text = "";
      for (const raw of this.#table.texts()) text += raw + "\n";
      await h.writeFile(text);
      await h.sync();
    } finally {
      await h.close();
    }
    await this.#open().close();
    this.#handle = undefined;
    await rename(tmp, this.path);
    await fsyncDir(dirname(this.path));
    this.#handle = await open(this.path, "a", 0o600);
    this.#bytes = this.#liveBytes();
  }

  /**
   * Rewrites the journal with one line per action, atomically (a crash leaves the old
   * or the new journal). With `always` false, only when the journal is past
   * `compactBytes` and more than half of it is superseded lines.
   */
  compact(always = true): Promise<void> {
    return this.#serial(() => (always ? this.#compactNow() : this.#maybeCompact()));
  }

  /** Flushes, closes the journal and releases the lock. Idempotent. */
  close(): Promise<void> {
    return this.#serial(async () => {
      if (!this.#handle) return;
      await this.#handle.close();
      this.#handle = undefined;
      await unlink(this.#lockPath).catch(() => undefined);
    });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
