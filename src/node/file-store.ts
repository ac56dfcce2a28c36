/**
 * The file action store (W9, W15, Node): the embedded durable store, one process at a
 * time, an append-only journal of whole records (see ./journal.ts for its lines).
 *
 * **Durable before acknowledged, with group commit.** A change is checked against the
 * store's state at once (its compare-and-swap sees every change asked for before it,
 * written or not) and queued; the queue is written as one append and one `fdatasync`,
 * and only then are its changes acknowledged. While one append is syncing, the changes
 * asked for meanwhile gather into the next one: one change at a time pays one sync, N
 * concurrent changes share one (up to `FILE_STORE_GROUP_COMMIT_BYTES` per append).
 * Reads never see a change before it is on disk: `get` and `list` answer what the
 * journal holds until the append of a later change has synced.
 *
 * **One writer (W15).** The store takes its file's lock (./lock.ts): a Unix socket in
 * the abstract namespace on Linux, which the kernel frees when the holder dies, or
 * generation files elsewhere; a second opener gets a `store` error naming the holder.
 *
 * **A second line inside the journal (W15).** In case two processes hold the store
 * anyway (the lock defeated: containers that share only a volume, a removed lock
 * directory), each open appends a holder line, and an append is acknowledged only if,
 * after its sync, the file at the journal's path is still the one written to and holds
 * exactly the bytes this store knows of (its own and those it read): no other process
 * appended, truncated or replaced it. Otherwise the store closes itself and the change
 * fails with a `store` error. Why two holders cannot both move one action: each one's
 * acknowledged appends extend a prefix of the same file in which, after its own holder
 * line, every byte is its own. Of two such prefixes one contains the other; the longer
 * one's holder line comes after the shorter one's appends, so its holder read them at
 * open before appending that line and checked its move against them. And replay counts
 * a record only if written by the holder of the latest holder line before it, so the
 * late writes of a displaced process count for nothing whatever they interleave with.
 * Compaction seals the journal first (a fenced append): any other writer's append
 * after the seal fails its own check, so no acknowledged change is lost by the rename.
 *
 * **Crash safety.** A torn last line (a crash mid-append) counts for nothing; the next
 * open starts a line after it. Compaction writes a new journal, fsyncs it, renames it
 * over the old one and fsyncs the directory before anything is acknowledged on it. A
 * new journal's directory entry is synced before its first change is acknowledged.
 * After a failed write or sync the store closes itself: nothing more is acknowledged on
 * a journal in an unknown state (open it again).
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { LimitError, StoreError } from "../errors.js";
import { FILE_STORE_COMPACT_BYTES, FILE_STORE_MAX_JOURNAL_BYTES, MAX_FILE_STORE_ACTIONS } from "../limits.js";
import { parseActionRecord } from "../actions/record.js";
import { checkBatch, checkClaimMany, failed, itemError, single } from "../actions/batch.js";
import type { ActionCountQuery, ActionExpectation, ActionPatch, ActionQuery, ActionRecord, ActionStore, ActionTransition, ClaimManyOptions, ClaimOptions, TransitionOutcome } from "../actions/types.js";
import { isHeld, platformLockMechanism, realTarget, tryLock, type HeldLock, type LockMechanism } from "./lock.js";
import { holderLine, replay } from "./journal.js";
import { JournalFile } from "./journal-file.js";
import { JournalWriter } from "./journal-writer.js";
import { nodeStoreFs, syncDir, type StoreFs } from "./store-fs.js";

/** Where {@link openFileStore} keeps its journal when given no path: `.yada/actions.jsonl` under the working directory. */
export const DEFAULT_FILE_STORE_PATH = join(".yada", "actions.jsonl");

/** Options of {@link openFileStore}. */
export interface FileStoreOptions {
  /** Most actions held (default `MAX_FILE_STORE_ACTIONS`). */
  maxActions?: number;
  /** Journal size past which it is compacted (default `FILE_STORE_COMPACT_BYTES`). */
  compactBytes?: number;
}

/**
 * @internal Test seams, not public API: the file system the store uses (a recording
 * one, to replay power cuts) and the lock mechanism (`"files"` exercises the
 * generation-file lock on Linux; `"none"` opens without any lock, to test the journal
 * fence with two holders).
 */
export interface FileStoreSeams {
  fs?: StoreFs;
  lock?: LockMechanism | "none";
}

const encoder = new TextEncoder();

/** The caller's copy of a record the table owns (which it never changes, and shares with no caller). */
const copy = (r: ActionRecord): ActionRecord => structuredClone(r);

const lockedBy = (path: string, holder: { pid?: number; host?: string; where: string }): StoreError =>
  new StoreError(
    holder.pid === undefined
      ? `the action store ${path} is locked by another process (${holder.where}); one process opens a file store at a time`
      : `the action store is locked by process ${holder.pid}${holder.host ? ` on host ${holder.host}` : ""} (${holder.where}); one process opens a file store at a time`,
  );

/**
 * Opens (creating if needed) the file store at `path` (default
 * {@link DEFAULT_FILE_STORE_PATH}) and locks it for this process.
 *
 * @throws StoreError (`store`) when another live process holds the lock (the message
 * names it), another process wrote the journal while it was being opened, the journal
 * is over `FILE_STORE_MAX_JOURNAL_BYTES` or corrupt (a line that is not a journal line,
 * an unreadable line that is not a torn last append); LimitError (`limit`) over
 * `maxActions`. Later calls of the store throw `store` when the journal fence finds
 * another writer or a sync fails (the store is closed then), `conflict` for a
 * compare-and-swap that does not hold, as every {@link ActionStore}.
 *
 * @example
 * ```ts
 * import { openFileStore } from "yada-mcp/node";
 * await using store = await openFileStore("/tmp/yada-example/actions.jsonl");
 * console.log((await store.list({ tenantId: "acme" })).length);
 * ```
 */
export function openFileStore(path: string = DEFAULT_FILE_STORE_PATH, options: FileStoreOptions = {}): Promise<FileActionStore> {
  return openFileStoreWith(path, options, {});
}

/** @internal {@link openFileStore} with test seams (see {@link FileStoreSeams}). */
export async function openFileStoreWith(path: string, options: FileStoreOptions, seams: FileStoreSeams): Promise<FileActionStore> {
  const fs = seams.fs ?? nodeStoreFs;
  const made = fs.mkdirs(dirname(path));
  const real = realTarget(path);
  // New directories: their entries on disk before the journal's is, so a power cut cannot drop the whole store.
  if (made !== undefined) {
    const top = realTarget(made);
    for (let d = dirname(real); d !== dirname(d); d = dirname(d)) {
      await syncDir(fs, dirname(d));
      if (d === top) break;
    }
  }
  const mechanism = seams.lock ?? platformLockMechanism();
  let lock: HeldLock | undefined;
  if (mechanism !== "none") {
    const got = await tryLock(real, mechanism);
    if (!isHeld(got)) throw lockedBy(path, got);
    lock = got;
  }
  let fd: number | undefined;
  try {
    const existed = fs.stat(real) !== undefined;
    fd = fs.open(real, "a+", 0o600);
    const { size } = fs.fstat(fd);
    if (size > FILE_STORE_MAX_JOURNAL_BYTES) throw new StoreError(`the action journal ${path} is ${size} bytes, over FILE_STORE_MAX_JOURNAL_BYTES`);
    const bytes = await fs.read(fd, size, 0);
    const { data } = replay(new TextDecoder().decode(bytes));
    const max = options.maxActions ?? MAX_FILE_STORE_ACTIONS;
    if (data.size > max) throw new LimitError("MAX_FILE_STORE_ACTIONS", max, `the action journal holds ${data.size} actions`);
    const holder = randomBytes(12).toString("base64url");
    // A torn last line (no newline after it) is closed first, so the holder line stands alone.
    const head = (bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a ? "\n" : "") + holderLine(holder, process.pid, Date.now());
    const store = new FileActionStore({ path, real, fs, fd, lock, holder, data, size: bytes.length, options });
    fd = undefined; // the store owns it now
    try {
      await store[START](head, fs, !existed);
      // Compacted on open when the journal as found is past compactBytes and mostly superseded lines.
      if (store[DUE](bytes.length)) await store.compact(true);
    } catch (e) {
      await store.close().catch(() => undefined);
      throw e;
    }
    return store;
  } catch (e) {
    if (fd !== undefined) fs.close(fd);
    await lock?.release();
    throw e;
  }
}

const START = Symbol("start");
const DUE = Symbol("due");

interface State {
  path: string;
  real: string;
  fs: StoreFs;
  fd: number;
  lock: HeldLock | undefined;
  holder: string;
  data: Map<string, string>;
  size: number;
  options: FileStoreOptions;
}

/**
 * The file {@link ActionStore}: see {@link openFileStore}. Each change is on disk
 * before its promise resolves; concurrent changes share one append and one sync.
 */
export class FileActionStore implements ActionStore, AsyncDisposable {
  /** The journal's path, as given. */
  readonly path: string;
  readonly #real: string;
  readonly #journal: JournalFile;
  readonly #writer: JournalWriter;
  #lock: HeldLock | undefined;
  #closed = false;

  /** Use {@link openFileStore}. */
  constructor(state: State) {
    this.path = state.path;
    this.#real = state.real;
    this.#lock = state.lock;
    this.#journal = new JournalFile(state.fs, state.real, state.path, state.holder, state.fd, state.size);
    this.#writer = new JournalWriter({
      journal: this.#journal,
      shown: state.path,
      holder: state.holder,
      data: state.data,
      max: state.options.maxActions ?? MAX_FILE_STORE_ACTIONS,
      compactAt: state.options.compactBytes ?? FILE_STORE_COMPACT_BYTES,
      // Stopped for good (a sync failed, another writer): the lock goes too.
      onStop: () => {
        const lock = this.#lock;
        this.#lock = undefined;
        void lock?.release().catch(() => undefined);
      },
    });
  }

  /** @internal Appends the holder line (fenced) and, for a new journal, syncs its directory entry. */
  async [START](head: string, fs: StoreFs, created: boolean): Promise<void> {
    try {
      const partial = await this.#journal.append([head], "while this store was opening it", true);
      if (partial) throw new StoreError(`cannot append to the action journal ${this.path}`, { cause: partial.cause });
      if (created) await syncDir(fs, dirname(this.#real));
    } catch (e) {
      throw this.#writer.stop(e);
    }
  }

  /** @internal Would a journal of `size` bytes be compacted? */
  [DUE](size: number): boolean {
    return this.#writer.compactDue(size);
  }

  #usable(): void {
    if (this.#writer.down) throw this.#writer.down;
    if (this.#closed) throw new StoreError(`the action store ${this.path} is closed`);
  }

  async create(record: ActionRecord): Promise<ActionRecord> {
    this.#usable();
    const r = this.#writer.table.checkCreate(record);
    await this.#writer.commit([r]);
    return copy(r);
  }

  async get(id: string): Promise<ActionRecord | undefined> {
    this.#usable();
    const onDisk = this.#writer.onDisk;
    if (!onDisk.has(id)) return this.#writer.table.get(id);
    const raw = onDisk.get(id);
    // The text on disk of an action whose change is being written: it was stored by this store, parsed before.
    return raw === undefined ? undefined : parseActionRecord(JSON.parse(raw));
  }

  async list(query: ActionQuery): Promise<ActionRecord[]> {
    this.#usable();
    const onDisk = this.#writer.onDisk;
    return this.#writer.table.list(query, onDisk.size > 0 ? onDisk : undefined);
  }

  async count(query: ActionCountQuery): Promise<number> {
    this.#usable();
    const onDisk = this.#writer.onDisk;
    return this.#writer.table.count(query, onDisk.size > 0 ? onDisk : undefined);
  }

  async transition(id: string, expected: ActionExpectation, patch: ActionPatch, now: number): Promise<ActionRecord> {
    return single(await this.transitionMany([{ id, expected, patch }], now));
  }

  async claim(options: ClaimOptions): Promise<ActionRecord | undefined> {
    return (await this.#claim(options, 1))[0];
  }

  /** Leases up to `limit` actions with one journal append and one sync (see ActionStore.claimMany). */
  async claimMany(options: ClaimManyOptions): Promise<ActionRecord[]> {
    return this.#claim(options, checkClaimMany(options));
  }

  async #claim(options: ClaimOptions, limit: number): Promise<ActionRecord[]> {
    this.#usable();
    const picked = this.#writer.table.pickClaims(options, limit);
    await this.#writer.commit(picked);
    return picked.map(copy);
  }

  /** Applies each compare-and-swap that holds, with one journal append and one sync (see ActionStore.transitionMany). */
  async transitionMany(items: readonly ActionTransition[], now: number): Promise<TransitionOutcome[]> {
    checkBatch(items, now);
    this.#usable();
    // Checked and queued in one synchronous step: no other change interleaves with the batch.
    const seen = new Set<string>();
    const out: TransitionOutcome[] = [];
    const next: ActionRecord[] = [];
    for (const item of items) {
      const bad = itemError(item, seen);
      if (bad) {
        out.push({ ok: false, error: bad });
        continue;
      }
      try {
        const record = this.#writer.table.checkTransition(item.id, item.expected, item.patch, now);
        next.push(record);
        out.push({ ok: true, record });
      } catch (e) {
        out.push(failed(e));
      }
    }
    await this.#writer.commit(next);
    return out.map((o) => (o.ok ? { ok: true, record: copy(o.record) } : o));
  }

  /**
   * Rewrites the journal with one line per action, atomically (a crash leaves the old
   * or the new journal, both whole). With `always` false, only when the journal is past
   * `compactBytes` and more than half of it is superseded lines.
   *
   * @throws StoreError (`store`) when the rewrite fails (the store is closed then).
   */
  async compact(always = true): Promise<void> {
    this.#usable();
    if (!always && !this.#writer.compactDue()) return;
    await this.#writer.compact(always);
  }

  /** Waits for every queued change to be on disk, closes the journal and releases the lock. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#writer.drain();
    this.#journal.close();
    const lock = this.#lock;
    this.#lock = undefined;
    await lock?.release();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
