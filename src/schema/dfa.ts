/**
 * A lazily built deterministic automaton over a pattern program (Y1, speed).
 * Each state is the set of threads the simulation would hold at a position, so a
 * state costs its set size once and every later character through it is one
 * table load. States are built on demand, deduplicated by their thread set and
 * kept with the compiled pattern, up to `MAX_REGEX_DFA_STATES` states and
 * `MAX_REGEX_DFA_THREADS` threads in all; past that the current state's threads
 * go back to the simulation for the rest of the input. ASCII characters are
 * grouped into classes that every test of the program treats alike, so a state's
 * table has one entry per class.
 *
 * Programs with `\b` / `\B` are not run here (their answer depends on the
 * previous character as well). `^` holds only at position 0 and `$` is kept in a
 * state, unresolved, and checked once the input ends.
 *
 * @module
 */
import { MAX_REGEX_DFA_STATES, MAX_REGEX_DFA_THREADS } from "../limits.js";
import { ASSERT, CHAR, JMP, MATCH, overBudget, SPLIT, type CharTest, type Instr, type Meter } from "./program.js";

/** Distinct character tests above which no automaton is built (classing ASCII costs 128 calls per test). */
const MAX_TESTS = 256;
/** A transition not built yet. */
const UNKNOWN = -1;
/** A transition that would exceed the state bounds: the simulation takes over. */
const OVERFLOW = -2;

/** Where the automaton stopped: the position and the thread set the simulation resumes from. */
export interface Handoff {
  pos: number;
  threads: Int32Array;
}

/** Can `prog` run on an automaton? */
export function dfaEligible(prog: readonly Instr[]): boolean {
  const tests = new Set<CharTest>();
  for (const ins of prog) {
    if (ins.op === ASSERT && (ins.what === "wb" || ins.what === "nwb")) return false;
    if (ins.op === CHAR) tests.add(ins.test as CharTest);
  }
  return tests.size <= MAX_TESTS;
}

export class Dfa {
  readonly #prog: readonly Instr[];
  /** Add the start thread at every position (unanchored search). */
  readonly #restart: boolean;
  /** ASCII code point to its class. */
  readonly #classOf = new Uint16Array(128);
  #classes = 0;
  /** Per state: thread set, whether MATCH was reached, transitions by class, whether it matches at the end (-1 unknown). */
  readonly #threads: Int32Array[] = [];
  readonly #match: boolean[] = [];
  readonly #next: Int32Array[] = [];
  readonly #endMatch: number[] = [];
  readonly #ids = new Map<string, number>();
  #stored = 0;
  #start = -1;
  // Closure scratch.
  readonly #marks: Int32Array;
  #gen = 0;
  readonly #stack: Int32Array;
  readonly #out: Int32Array;

  constructor(prog: readonly Instr[], restart: boolean) {
    this.#prog = prog;
    this.#restart = restart;
    const m = prog.length;
    this.#marks = new Int32Array(m);
    this.#stack = new Int32Array(2 * m + 2);
    this.#out = new Int32Array(m);
  }

  /** Groups ASCII by the answers of every distinct test; charged once, on first use. */
  #classify(meter: Meter): void {
    const tests = [...new Set(this.#prog.filter((i) => i.op === CHAR).map((i) => i.test as CharTest))];
    if ((meter.work -= tests.length * 8 + 1) < 0) throw overBudget();
    const ids = new Map<string, number>();
    for (let c = 0; c < 128; c++) {
      let sig = "";
      for (const t of tests) sig += t(c) ? "1" : "0";
      let id = ids.get(sig);
      if (id === undefined) ids.set(sig, (id = ids.size));
      this.#classOf[c] = id;
    }
    this.#classes = ids.size;
  }

  /**
   * The thread set reached from `seeds` (count `n` in #out's head) without reading
   * a character; `atStart` says whether `^` holds, `atEnd` whether `$` does
   * (otherwise `$` threads are kept, unresolved). Returns the count of threads
   * left in #out, or -1 when MATCH is reached.
   */
  #closure(seeds: ArrayLike<number>, n: number, atStart: boolean, atEnd: boolean, meter: Meter): number {
    const prog = this.#prog;
    const marks = this.#marks;
    const stack = this.#stack;
    const out = this.#out;
    const gen = ++this.#gen;
    let sp = 0;
    for (let i = n - 1; i >= 0; i--) stack[sp++] = seeds[i] as number;
    let count = 0;
    let steps = 0;
    let matched = false;
    while (sp > 0) {
      const pc = stack[--sp] as number;
      if (marks[pc] === gen) continue;
      marks[pc] = gen;
      steps++;
      const ins = prog[pc] as Instr;
      switch (ins.op) {
        case CHAR:
          out[count++] = pc;
          break;
        case JMP:
          stack[sp++] = ins.x;
          break;
        case SPLIT:
          stack[sp++] = ins.y;
          stack[sp++] = ins.x;
          break;
        case ASSERT:
          if (ins.what === "bol") {
            if (atStart) stack[sp++] = ins.x;
          } else if (atEnd) stack[sp++] = ins.x;
          else out[count++] = pc;
          break;
        case MATCH:
          matched = true;
          sp = 0;
      }
    }
    if ((meter.work -= steps) < 0) throw overBudget();
    return matched ? -1 : count;
  }

  /** The state for the threads in #out (or a matching state), or OVERFLOW past the bounds. */
  #intern(count: number, meter: Meter): number {
    const matched = count < 0;
    const threads = matched ? new Int32Array(0) : this.#out.slice(0, count).sort();
    const key = matched ? "m" : threads.join(",");
    const hit = this.#ids.get(key);
    if (hit !== undefined) return hit;
    if (this.#threads.length >= MAX_REGEX_DFA_STATES || this.#stored + threads.length > MAX_REGEX_DFA_THREADS) return OVERFLOW;
    if ((meter.work -= threads.length + 1) < 0) throw overBudget();
    const id = this.#threads.length;
    this.#threads.push(threads);
    this.#match.push(matched);
    this.#next.push(new Int32Array(this.#classes).fill(UNKNOWN));
    this.#endMatch.push(-1);
    this.#ids.set(key, id);
    this.#stored += threads.length;
    return id;
  }

  /** The threads after reading `cp` in state `s` (count in #out, -1 on MATCH). */
  #stepThreads(s: number, cp: number, meter: Meter): number {
    const prog = this.#prog;
    const from = this.#threads[s] as Int32Array;
    const seeds: number[] = [];
    for (let i = 0; i < from.length; i++) {
      const ins = prog[from[i] as number] as Instr;
      if (ins.op === CHAR && (ins.test as CharTest)(cp)) seeds.push(ins.x);
    }
    if (this.#restart) seeds.push(0);
    if ((meter.work -= from.length) < 0) throw overBudget();
    return this.#closure(seeds, seeds.length, false, false, meter);
  }

  /** Does state `s` match once the input ends (its `$` threads resolved)? */
  #matchesAtEnd(s: number, meter: Meter): boolean {
    let known = this.#endMatch[s] as number;
    if (known < 0) {
      const threads = this.#threads[s] as Int32Array;
      known = this.#closure(threads, threads.length, false, true, meter) < 0 ? 1 : 0;
      this.#endMatch[s] = known;
    }
    return known === 1;
  }

  /** The simulation's starting point: the `count` threads in #out at `pos` (or a match). */
  #handoff(count: number, pos: number): boolean | Handoff {
    return count < 0 || { pos, threads: this.#out.slice(0, count) };
  }

  /**
   * Runs the automaton over a non-empty `input`: true or false when it decided,
   * or where the simulation must take over.
   */
  run(input: string, meter: Meter): boolean | Handoff {
    const n = input.length;
    // A cached step is a few nanoseconds: one unit per 8 characters, up front, plus
    // the set-up of a test (measured at about four visits).
    if ((meter.work -= (n >> 3) + 4) < 0) throw overBudget();
    if (this.#start < 0) {
      this.#classify(meter);
      const s = this.#intern(this.#closure([0], 1, true, false, meter), meter);
      if (s === OVERFLOW) return { pos: 0, threads: new Int32Array([0]) };
      this.#start = s;
    }
    const classOf = this.#classOf;
    const next = this.#next;
    let s = this.#start;
    if (this.#match[s]) return true;
    for (let pos = 0; pos < n; ) {
      const c = input.charCodeAt(pos);
      let t: number;
      if (c < 128) {
        const row = next[s] as Int32Array;
        const cls = classOf[c] as number;
        pos++;
        t = row[cls] as number;
        if (t === UNKNOWN) {
          const count = this.#stepThreads(s, c, meter);
          t = this.#intern(count, meter);
          if (t === OVERFLOW) return this.#handoff(count, pos);
          row[cls] = t;
        }
      } else {
        // Outside ASCII: no table, the step is computed (and charged) each time.
        const cp = input.codePointAt(pos) as number;
        pos += cp > 0xffff ? 2 : 1;
        const count = this.#stepThreads(s, cp, meter);
        t = this.#intern(count, meter);
        if (t === OVERFLOW) return this.#handoff(count, pos);
      }
      s = t;
      if (this.#match[s]) return true;
      // An anchored program whose threads all died cannot match any more.
      if ((this.#threads[s] as Int32Array).length === 0 && !this.#restart) return false;
    }
    return this.#matchesAtEnd(s, meter);
  }
}
