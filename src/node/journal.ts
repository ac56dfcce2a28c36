/**
 * The file action store's journal (W9, W15): the lines it is made of and how it is
 * read back. One JSON value per line:
 *
 * - `{"yada":"holder","holder":H,"pid":P,"at":T}`: process P opened the store at T
 *   and holds it from this line on, under the random holder id H;
 * - `{"h":H,"r":RECORD}`: a whole action record written by holder H;
 * - `{"yada":"seal","holder":H}`: holder H is replacing this journal with a compacted
 *   one; nothing after it counts until the next holder line.
 *
 * The fence: a record counts only if it was written by the holder of the latest
 * holder line before it (and no seal came between). A process that opened the store
 * earlier and still writes after another opened it (the lock was defeated: a
 * container in another network namespace, a hand-removed lock file) writes lines that
 * count for nothing, however they interleave. Lines of the journal format before
 * holder lines existed (a bare record per line) count until the first holder line.
 *
 * A crash mid-append leaves a torn last line (cut short, or zeros): the torn line of
 * a holder's last append is ignored, and the next holder line starts after it. An
 * unreadable line that a counting line follows in the same holder's run is not a torn
 * append: the journal is corrupt, a `store` error.
 *
 * @module
 */
import { StoreError } from "../errors.js";
import { MAX_ACTION_RECORD_BYTES } from "../limits.js";
import { isRec } from "../util/record.js";

/** What a journal read back holds. */
export interface Replayed {
  /** Each action's record (its JSON text) as the journal last wrote it. */
  data: Map<string, string>;
  /** Holder lines read: how many times the store was opened since it was last compacted. */
  holders: number;
}

const LEGACY = Symbol("before holder lines");

/** The holder line of holder `holder` (process `pid`, at `at`). */
export const holderLine = (holder: string, pid: number, at: number): string => `{"yada":"holder","holder":"${holder}","pid":${pid},"at":${at}}\n`;

/** The seal line of holder `holder`. */
export const sealLine = (holder: string): string => `{"yada":"seal","holder":"${holder}"}\n`;

/** The journal line of `raw` (a record's JSON text) written by `holder`. */
export const recordLine = (holder: string, raw: string): string => `{"h":"${holder}","r":${raw}}\n`;

/** Characters a record line adds to its record's text. */
export const recordLineOverhead = (holder: string): number => recordLine(holder, "").length;

/** A holder id: 16 base64url characters (96 random bits), so it needs no escaping in a line. */
export const HOLDER_ID = /^[A-Za-z0-9_-]{16}$/;

/**
 * Reads a journal back (see the module comment).
 *
 * @throws StoreError (`store`) for a corrupt journal: an unreadable line that is not
 * a torn append, a line that is no journal line, a record over
 * `MAX_ACTION_RECORD_BYTES` or without an id.
 */
export function replay(text: string): Replayed {
  const data = new Map<string, string>();
  let current: string | null | typeof LEGACY = LEGACY;
  let holders = 0;
  let torn = 0; // line number of an unreadable line in the current run, or 0
  const lines = text.split("\n");
  lines.pop(); // after the last newline: empty, or a torn append
  lines.forEach((line, i) => {
    const n = i + 1;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      torn ||= n;
      return;
    }
    if (!isRec(v)) throw new StoreError(`action journal line ${n} is not a journal line`);
    if (v["yada"] === "holder" && typeof v["holder"] === "string") {
      current = v["holder"];
      holders++;
      torn = 0;
      return;
    }
    if (torn) throw new StoreError(`action journal line ${torn} is not JSON`);
    if (v["yada"] === "seal") {
      if (v["holder"] === current) current = null;
      return;
    }
    let raw: string;
    let record: unknown;
    if ("h" in v || "r" in v) {
      const h = v["h"];
      record = v["r"];
      if (typeof h !== "string" || Object.keys(v).length !== 2) throw new StoreError(`action journal line ${n} is not a journal line`);
      if (h !== current) return; // written by a process that no longer held the store: counts for nothing
      const prefix = `{"h":"${h}","r":`;
      raw = line.startsWith(prefix) && line.endsWith("}") ? line.slice(prefix.length, -1) : JSON.stringify(record);
    } else if (current === LEGACY) {
      record = v;
      raw = line;
    } else {
      throw new StoreError(`action journal line ${n} is not a journal line`);
    }
    if (raw.length > MAX_ACTION_RECORD_BYTES) throw new StoreError(`action journal line ${n} is over MAX_ACTION_RECORD_BYTES`);
    const id = isRec(record) ? record["id"] : undefined;
    if (typeof id !== "string") throw new StoreError(`action journal line ${n} has no action id`);
    data.set(id, raw);
  });
  return { data, holders };
}
