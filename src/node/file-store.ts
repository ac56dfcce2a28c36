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
import { FILE_STORE_COMPACT_BYTES, FILE_STORE_GROUP_COMMIT_BYTES, FILE_STORE_MAX_JOURNAL_BYTES, MAX_FILE_STORE_ACTIONS } from "../limits.js";
import { RecordTable } from "../actions/table.js";
import { parseActionRecord } from "../actions/record.js";
import { checkBatch, checkClaimMany, failed, itemError, single } from "../actions/batch.js";
import type { ActionExpectation, ActionPatch, ActionQuery, ActionRecord, ActionStore, ActionTransition, ClaimManyOptions, ClaimOptions, TransitionOutcome } from "../actions/types.js";
import { isHeld, platformLockMechanism, realTarget, tryLock, type HeldLock, type LockMechanism } from "./lock.js";
import { holderLine, recordLine, recordLineOverhead, replay } from "./journal.js";
import { JournalFile } from "./journal-file.js";
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

interface Entry {
  /** The records of the change, in order, with their JSON texts. */
  records: { id: string; raw: string }[];
  lines: string[];
  seq: number;
  resolve: () => void;
  reject: (e: unknown) => void;
}

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
  readonly #holder: string;
  /** The actions' texts by id: the table's own map, which this store also reads and, to undo a failed write, changes. */
  readonly #data: Map<string, string>;
  readonly #max: number;
  #table: RecordTable;
  readonly #compactAt: number;
  readonly #overhead: number;
  readonly #journal: JournalFile;
  #lock: HeldLock | undefined;
  /** Characters of the lines a compacted journal would hold. */
  #live = 0;
  /** No automatic compaction below this journal size (raised after a compaction failed). */
  #compactFloor = 0;
  /** Why the store stopped: set once, thrown by every later call. */
  #down: StoreError | undefined;
  #closed = false;
  #queue: Entry[] = [];
  #flushing = false;
  #drained: Promise<void> = Promise.resolve();
  #seq = 0;
  /** For each action with a change not yet on disk: its text on disk (`undefined`: not created yet). */
  readonly #before = new Map<string, string | undefined>();
  /** For each such action: the sequence number of its latest queued change. */
  readonly #latest = new Map<string, number>();
  #compactWanted: "always" | "due" | undefined;
  #compactWaiters: { resolve: () => void; reject: (e: unknown) => void }[] = [];

  /** Use {@link openFileStore}. */
  constructor(state: State) {
    this.path = state.path;
    this.#real = state.real;
    this.#lock = state.lock;
    this.#holder = state.holder;
    this.#journal = new JournalFile(state.fs, state.real, state.path, state.holder, state.fd, state.size);
    this.#data = state.data;
    this.#max = state.options.maxActions ?? MAX_FILE_STORE_ACTIONS;
    this.#table = new RecordTable(this.#data, this.#max, "MAX_FILE_STORE_ACTIONS");
    this.#compactAt = state.options.compactBytes ?? FILE_STORE_COMPACT_BYTES;
    this.#overhead = recordLineOverhead(state.holder);
    this.#live = this.#liveChars();
  }

  /** @internal Appends the holder line (fenced) and, for a new journal, syncs its directory entry. */
  async [START](head: string, fs: StoreFs, created: boolean): Promise<void> {
    try {
      const partial = await this.#journal.append([head], "while this store was opening it", true);
      if (partial) throw new StoreError(`cannot append to the action journal ${this.path}`, { cause: partial.cause });
      if (created) await syncDir(fs, dirname(this.#real));
    } catch (e) {
      this.#stop(e);
      throw this.#down;
    }
  }

  #liveChars(): number {
    let n = 0;
    for (const raw of this.#table.texts()) n += raw.length + this.#overhead;
    return n;
  }

  #usable(): void {
    if (this.#down) throw this.#down;
    if (this.#closed) throw new StoreError(`the action store ${this.path} is closed`);
  }

  /** Stops the store for good: every queued change fails with `cause` (as a `store` error), the journal closes, the lock is released. */
  #stop(cause: unknown): void {
    this.#down ??= cause instanceof StoreError ? cause : new StoreError(`cannot write the action journal ${this.path}; this store is closed`, { cause });
    for (const e of this.#queue.splice(0)) e.reject(this.#down);
    for (const w of this.#compactWaiters.splice(0)) w.reject(this.#down);
    this.#journal.close();
    const lock = this.#lock;
    this.#lock = undefined;
    void lock?.release().catch(() => undefined);
  }

  /**
   * Queues `records` (checked, in order) as one change: the table holds them at once,
   * so later checks see them; reads keep answering what is on disk until they are.
   * Resolves once they are on disk.
   */
  #commit(records: readonly ActionRecord[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    const seq = ++this.#seq;
    const entry: Entry = { records: [], lines: [], seq, resolve: () => undefined, reject: () => undefined };
    for (const r of records) {
      const raw = JSON.stringify(r);
      const old = this.#data.get(r.id);
      if (!this.#before.has(r.id)) this.#before.set(r.id, old);
      this.#latest.set(r.id, seq);
      this.#live += raw.length - (old === undefined ? -this.#overhead : old.length);
      this.#table.commit(r, raw);
      entry.records.push({ id: r.id, raw });
      entry.lines.push(recordLine(this.#holder, raw));
    }
    return new Promise<void>((resolve, reject) => {
      entry.resolve = resolve;
      entry.reject = reject;
      this.#queue.push(entry);
      this.#kick();
    });
  }

  /** Starts the writer if it is idle, one microtask later: the changes asked for in the same turn go together. */
  #kick(): void {
    if (this.#flushing) return;
    this.#flushing = true;
    this.#drained = new Promise<void>((resolve) => queueMicrotask(() => void this.#flush().finally(resolve)));
  }

  /** The writer: one append per turn of everything queued meanwhile (up to `FILE_STORE_GROUP_COMMIT_BYTES`), or a compaction. */
  async #flush(): Promise<void> {
    try {
      while (!this.#down && (this.#queue.length > 0 || this.#compactWanted)) {
        if (this.#compactWanted) {
          await this.#compactStep();
          continue;
        }
        let chars = 0;
        let n = 0;
        while (n < this.#queue.length && (n === 0 || chars + this.#queue[n]!.lines.reduce((k, l) => k + l.length, 0) <= FILE_STORE_GROUP_COMMIT_BYTES)) {
          chars += this.#queue[n++]!.lines.reduce((k, l) => k + l.length, 0);
        }
        const batch = this.#queue.splice(0, n);
        let partial;
        try {
          partial = await this.#journal.append(batch.flatMap((e) => e.lines));
        } catch (e) {
          this.#stop(e);
          for (const x of batch) x.reject(this.#down);
          break;
        }
        if (partial) this.#undo(batch, partial.landed, partial.cause);
        else this.#settle(batch);
        if (this.#compactDue()) this.#compactWanted ??= "due";
      }
    } finally {
      this.#flushing = false;
    }
  }

  /** Acknowledges changes now on disk: reads see them from here on. */
  #settle(entries: readonly Entry[]): void {
    for (const e of entries) {
      for (const { id } of e.records) {
        if (this.#latest.get(id) === e.seq) {
          this.#latest.delete(id);
          this.#before.delete(id);
        }
      }
      e.resolve();
    }
  }

  /**
   * After an append that failed part way (`landed` of its lines whole and synced):
   * acknowledges the changes that landed whole, puts every other action back as the
   * journal holds it, and fails every other queued change (they were checked against
   * changes that are not on disk).
   */
  #undo(batch: readonly Entry[], landed: number, cause: unknown): void {
    const onDisk = new Map(this.#before);
    const done: Entry[] = [];
    const failed: Entry[] = [];
    let k = 0;
    for (const e of batch) {
      let whole = true;
      for (const r of e.records) {
        if (k++ < landed) onDisk.set(r.id, r.raw);
        else whole = false;
      }
      (whole ? done : failed).push(e);
    }
    failed.push(...this.#queue.splice(0));
    for (const [id, raw] of onDisk) {
      if (raw === undefined) this.#data.delete(id);
      else this.#data.set(id, raw);
    }
    // The table's indexes are rebuilt from what is on disk (rare: a write failed).
    this.#table = new RecordTable(this.#data, this.#max, "MAX_FILE_STORE_ACTIONS");
    this.#before.clear();
    this.#latest.clear();
    this.#live = this.#liveChars();
    for (const e of done) e.resolve();
    const err = new StoreError(`cannot append to the action journal ${this.path}; the change was not acknowledged`, { cause });
    for (const e of failed) e.reject(err);
  }

  #compactDue(size = this.#journal.size): boolean {
    return size > this.#compactAt && size > 2 * this.#live && size >= this.#compactFloor;
  }

  /** @internal Would a journal of `size` bytes be compacted? */
  [DUE](size: number): boolean {
    return this.#compactDue(size);
  }

  /**
   * One compaction (see JournalFile.replace). The changes queued when the new journal
   * is written are in it, and acknowledged with it; if it fails before the rename they
   * go back to the queue and the old journal goes on.
   */
  async #compactStep(): Promise<void> {
    const always = this.#compactWanted === "always";
    this.#compactWanted = undefined;
    const waiters = this.#compactWaiters.splice(0);
    if (!always && !this.#compactDue()) return void waiters.forEach((w) => w.resolve());
    let taken: Entry[] = [];
    let outcome;
    try {
      outcome = await this.#journal.replace(() => {
        taken = this.#queue.splice(0);
        const lines: string[] = [];
        for (const raw of this.#table.texts()) lines.push(recordLine(this.#holder, raw));
        return lines;
      });
    } catch (e) {
      this.#stop(e);
      for (const x of taken) x.reject(this.#down);
      for (const w of waiters) w.reject(this.#down);
      return;
    }
    if (outcome.ok) {
      this.#compactFloor = 0;
      this.#settle(taken);
      for (const w of waiters) w.resolve();
      return;
    }
    this.#queue.unshift(...taken);
    this.#compactFloor = this.#journal.size + this.#compactAt / 4;
    const err = new StoreError(`cannot compact the action journal ${this.path}`, { cause: outcome.cause });
    for (const w of waiters) w.reject(err);
  }

  async create(record: ActionRecord): Promise<ActionRecord> {
    this.#usable();
    const r = this.#table.checkCreate(record);
    await this.#commit([r]);
    return structuredClone(r);
  }

  async get(id: string): Promise<ActionRecord | undefined> {
    this.#usable();
    if (!this.#before.has(id)) return this.#table.get(id);
    const raw = this.#before.get(id);
    // The text on disk of an action whose change is being written: it was stored by this store, parsed before.
    return raw === undefined ? undefined : parseActionRecord(JSON.parse(raw));
  }

  async list(query: ActionQuery): Promise<ActionRecord[]> {
    this.#usable();
    return this.#table.list(query, this.#before.size > 0 ? this.#before : undefined);
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
    const picked = this.#table.pickClaims(options, limit);
    await this.#commit(picked);
    return picked.map((r) => structuredClone(r));
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
        const record = this.#table.checkTransition(item.id, item.expected, item.patch, now);
        next.push(record);
        out.push({ ok: true, record });
      } catch (e) {
        out.push(failed(e));
      }
    }
    await this.#commit(next);
    return out.map((o) => (o.ok ? { ok: true, record: structuredClone(o.record) } : o));
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
    if (!always && !this.#compactDue()) return;
    return new Promise<void>((resolve, reject) => {
      this.#compactWaiters.push({ resolve, reject });
      if (this.#compactWanted !== "always") this.#compactWanted = always ? "always" : "due";
      this.#kick();
    });
  }

  /** Waits for every queued change to be on disk, closes the journal and releases the lock. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    while (this.#flushing) await this.#drained;
    this.#journal.close();
    const lock = this.#lock;
    this.#lock = undefined;
    await lock?.release();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
