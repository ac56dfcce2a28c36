/**
 * The file action store's writer (W9): group commit over the journal. A change is
 * checked by the store against the table, which holds every change asked for, written
 * or not; this writer queues it, writes everything queued as one append and one
 * `fdatasync` (see ./journal-file.ts), and only then acknowledges it. While one append
 * syncs, the changes asked for meanwhile gather into the next. It keeps, for every
 * action with a change not yet on disk, its text on disk, so reads answer what is on
 * disk. It runs the compactions between appends, and after an append that failed part
 * way it acknowledges what landed whole and puts the table back as the journal holds it.
 *
 * @module
 */
import { StoreError } from "../errors.js";
import { FILE_STORE_GROUP_COMMIT_BYTES } from "../limits.js";
import { RecordTable } from "../actions/table.js";
import type { ActionRecord } from "../actions/types.js";
import { recordLine, recordLineOverhead } from "./journal.js";
import type { JournalFile } from "./journal-file.js";

interface Entry {
  /** The records of the change, in order, with their JSON texts. */
  records: { id: string; raw: string }[];
  lines: string[];
  seq: number;
  resolve: () => void;
  reject: (e: unknown) => void;
}


/** See the module comment. */
export class JournalWriter {
  readonly #journal: JournalFile;
  /** The journal's path, for messages. */
  readonly #shown: string;
  readonly #holder: string;
  /** The actions' texts by id: the table's own map, which the writer also reads and, to undo a failed write, changes. */
  readonly #data: Map<string, string>;
  readonly #max: number;
  readonly #compactAt: number;
  readonly #overhead: number;
  readonly #onStop: (err: StoreError) => void;
  #table: RecordTable;
  /** Characters of the lines a compacted journal would hold. */
  #live = 0;
  /** No automatic compaction below this journal size (raised after a compaction failed). */
  #compactFloor = 0;
  /** Why the writer stopped: set once. */
  #down: StoreError | undefined;
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

  constructor(options: { journal: JournalFile; shown: string; holder: string; data: Map<string, string>; max: number; compactAt: number; onStop: (err: StoreError) => void }) {
    this.#journal = options.journal;
    this.#shown = options.shown;
    this.#holder = options.holder;
    this.#data = options.data;
    this.#max = options.max;
    this.#compactAt = options.compactAt;
    this.#onStop = options.onStop;
    this.#overhead = recordLineOverhead(options.holder);
    this.#table = new RecordTable(this.#data, this.#max, "MAX_FILE_STORE_ACTIONS");
    this.#live = this.#liveChars();
  }

  /** The table: every change asked for, written or not (what a compare-and-swap is checked against). */
  get table(): RecordTable {
    return this.#table;
  }

  /** Why the writer stopped, if it did. */
  get down(): StoreError | undefined {
    return this.#down;
  }

  /** For the actions with a change not yet on disk, their text on disk (`undefined`: not created yet). */
  get onDisk(): ReadonlyMap<string, string | undefined> {
    return this.#before;
  }

  /** Resolves once nothing is queued or being written. */
  async drain(): Promise<void> {
    while (this.#flushing) await this.#drained;
  }

  #liveChars(): number {
    let n = 0;
    for (const raw of this.#table.texts()) n += raw.length + this.#overhead;
    return n;
  }

  /** Stops for good: every queued change and compaction fails with `cause` (as a `store` error), the journal closes. */
  stop(cause: unknown): StoreError {
    this.#down ??= cause instanceof StoreError ? cause : new StoreError(`cannot write the action journal ${this.#shown}; this store is closed`, { cause });
    for (const e of this.#queue.splice(0)) e.reject(this.#down);
    for (const w of this.#compactWaiters.splice(0)) w.reject(this.#down);
    this.#journal.close();
    this.#onStop(this.#down);
    return this.#down;
  }

  /**
   * Queues `records` (checked, in order) as one change: the table holds them at once,
   * so later checks see them; reads keep answering what is on disk until they are.
   * Resolves once they are on disk.
   */
  commit(records: readonly ActionRecord[]): Promise<void> {
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
          this.stop(e);
          for (const x of batch) x.reject(this.#down);
          break;
        }
        if (partial) this.#undo(batch, partial.landed, partial.cause);
        else this.#settle(batch);
        if (this.compactDue()) this.#compactWanted ??= "due";
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
    const err = new StoreError(`cannot append to the action journal ${this.#shown}; the change was not acknowledged`, { cause });
    for (const e of failed) e.reject(err);
  }

  compactDue(size = this.#journal.size): boolean {
    return size > this.#compactAt && size > 2 * this.#live && size >= this.#compactFloor;
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
    if (!always && !this.compactDue()) return void waiters.forEach((w) => w.resolve());
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
      this.stop(e);
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
    const err = new StoreError(`cannot compact the action journal ${this.#shown}`, { cause: outcome.cause });
    for (const w of waiters) w.reject(err);
  }

  /** Queues a compaction: `always`, or only if due. Resolves once it ran (or was not due). */
  compact(always: boolean): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#compactWaiters.push({ resolve, reject });
      if (this.#compactWanted !== "always") this.#compactWanted = always ? "always" : "due";
      this.#kick();
    });
  }
}
