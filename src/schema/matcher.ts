/**
 * Runs a pattern program in linear time (T9, Y1). The matcher keeps the set of
 * threads alive at each input position (a Pike VM without captures: every
 * position is visited once with at most one thread per instruction), and caches
 * those sets as the states of a lazily built automaton: a set costs its size
 * once, and every later character through it is one table load. States are
 * deduplicated by their thread set and kept with the compiled pattern, up to
 * `MAX_REGEX_DFA_STATES` states and `MAX_REGEX_DFA_THREADS` threads in all; past
 * that (and for programs with `\b` / `\B`, whose answer depends on the previous
 * character too) the sets are computed at each position without being kept.
 * ASCII characters are grouped into classes every test of the program treats
 * alike, so a state's table has one entry per class. Every step is charged to
 * the validation's meter.
 *
 * In a kept state `^` holds only at position 0 and a `$` that does not hold yet
 * stays in the set, unresolved, until the input ends.
 *
 * @module
 */
import { MAX_REGEX_DFA_STATES, MAX_REGEX_DFA_THREADS } from "../limits.js";
import { addThreads, ASSERT, CHAR, overBudget, scratch, UNMETERED, type CharTest, type Instr, type Meter, type Scratch } from "./program.js";

/** Distinct character tests above which no state is kept (classing ASCII costs 128 calls per test). */
const MAX_TESTS = 256;
/** A transition not built yet. */
const UNKNOWN = -1;
/** A transition past the state bounds. */
const OVERFLOW = -2;

export class Matcher {
  readonly #prog: readonly Instr[];
  /** Add the start thread at every position (an unanchored search). */
  readonly #restart: boolean;
  /** States may be kept (no `\b`, few tests). */
  readonly #cacheable: boolean;
  /** ASCII code point to its class; 0 classes until first use. */
  readonly #classOf = new Uint16Array(128);
  #classes = 0;
  /** Per kept state (by id): its threads. */
  readonly #threads: Int32Array[] = [];
  /**
   * Every kept state's transitions in one table: state `id` owns the row at
   * `id * (#classes + 1)`: an entry per class holds the next state's row offset
   * (states are named by their offsets) or UNKNOWN, and the last one whether the
   * state matches once the input ends (1 or 0; UNKNOWN). Grown by doubling.
   */
  #table = new Int32Array(0);
  /** The states that decide the answer: MATCH reached, no thread left in an anchored search (-3: none yet). */
  #matchAt = -3;
  #deadAt = -3;
  readonly #ids = new Map<string, number>();
  #start = -1;
  #stored = 0;
  readonly #s: Scratch;
  #gen = 0;
  /** The set being built, and the current one when no state is kept. */
  #out: Int32Array;
  #cur: Int32Array;
  readonly #seeds: Int32Array;

  constructor(prog: readonly Instr[]) {
    this.#prog = prog;
    this.#restart = prog[0]?.what !== "bol";
    const tests = new Set<CharTest>();
    let wb = false;
    for (const ins of prog) {
      if (ins.op === CHAR) tests.add(ins.test as CharTest);
      else if (ins.op === ASSERT && (ins.what === "wb" || ins.what === "nwb")) wb = true;
    }
    this.#cacheable = !wb && tests.size <= MAX_TESTS;
    this.#s = scratch(prog);
    const m = prog.length;
    this.#out = new Int32Array(m);
    this.#cur = new Int32Array(m);
    this.#seeds = new Int32Array(m + 1);
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
   * The set reached from the first `n` of `seeds` without reading a character,
   * into #out, with assertions decided at `pos` of `input` (`defer`: an
   * unresolved `$` is kept). Returns its size, or -1 when MATCH is reached.
   */
  #closure(seeds: ArrayLike<number>, n: number, input: string, pos: number, defer: boolean, meter: Meter): number {
    const sc = this.#s;
    if (this.#gen > 0x3fffffff) {
      sc.marks.fill(-1);
      this.#gen = 0;
    }
    const mark = ++this.#gen;
    sc.visited = 0;
    let count = 0;
    for (let i = 0; i < n && count >= 0; i++) count = addThreads(sc, this.#out, count, seeds[i] as number, mark, input, pos, defer);
    if ((meter.work -= sc.visited + 1) < 0) throw overBudget();
    return count;
  }

  /** The set after reading `cp` from the `n` threads of `from`, at `pos` of `input` (stand-in inputs for kept states). */
  #step(from: Int32Array, n: number, cp: number, input: string, pos: number, defer: boolean, meter: Meter): number {
    const prog = this.#prog;
    const seeds = this.#seeds;
    let k = 0;
    for (let i = 0; i < n; i++) {
      const ins = prog[from[i] as number] as Instr;
      if (ins.op === CHAR && (ins.test as CharTest)(cp)) seeds[k++] = ins.x;
    }
    if (this.#restart) seeds[k++] = 0;
    if ((meter.work -= n) < 0) throw overBudget();
    return this.#closure(seeds, k, input, pos, defer, meter);
  }

  /**
   * The kept state (its row offset) for the `count` threads in #out (or the
   * matching state), or OVERFLOW past the bounds. A state that decides the
   * answer (a match, or a dead anchored search) gets no transition: the test
   * stops at the first character read in it.
   */
  #intern(count: number, meter: Meter): number {
    const matched = count < 0;
    const threads = matched ? new Int32Array(0) : this.#out.slice(0, count).sort();
    if ((meter.work -= threads.length + 1) < 0) throw overBudget();
    const key = matched ? "m" : threads.join();
    const hit = this.#ids.get(key);
    if (hit !== undefined) return hit;
    const id = this.#threads.length;
    if (id >= MAX_REGEX_DFA_STATES || this.#stored + threads.length > MAX_REGEX_DFA_THREADS) return OVERFLOW;
    const k = this.#classes;
    const at = id * (k + 1);
    if (at + k >= this.#table.length) {
      const grown = new Int32Array(Math.max(8 * (k + 1), 2 * this.#table.length)).fill(UNKNOWN);
      grown.set(this.#table);
      this.#table = grown;
    }
    this.#threads.push(threads);
    // An anchored search whose threads all died cannot match any more.
    const dead = threads.length === 0 && !this.#restart;
    if (matched || dead) {
      // Its transitions stay unknown: the first character read in it leaves the fast loop, which decides.
      this.#table[at + k] = matched ? 1 : 0;
      if (matched) this.#matchAt = at;
      else this.#deadAt = at;
    }
    this.#ids.set(key, at);
    this.#stored += threads.length;
    return at;
  }

  /** Does kept state `s` (a row offset) match once the input ends (its `$` threads resolved)? */
  #matchesAtEnd(s: number, meter: Meter): boolean {
    const k = this.#classes;
    let known = this.#table[s + k] as number;
    if (known < 0) {
      const threads = this.#threads[s / (k + 1)] as Int32Array;
      known = this.#closure(threads, threads.length, ".", 1, false, meter) < 0 ? 1 : 0;
      this.#table[s + k] = known;
    }
    return known === 1;
  }

  /**
   * `RegExp.prototype.test` with flag `u` only. @throws LimitError (`MAX_SCHEMA_WORK`) past the meter's budget.
   * Only the common case is here (small enough for V8 to inline at its call sites):
   * ASCII characters through transitions already built, the answer at the end known.
   */
  test(input: string, meter: Meter = UNMETERED): boolean {
    const n = input.length;
    // A kept step is a few nanoseconds: one unit per 8 characters, up front, plus
    // the set-up of a test (measured at about four visits).
    if ((meter.work -= (n >> 3) + 4) < 0) throw overBudget();
    let s = this.#start;
    if (s < 0 || n === 0) return this.#first(input, meter);
    const classOf = this.#classOf;
    const table = this.#table;
    let pos = 0;
    for (; pos < n; pos++) {
      const c = input.charCodeAt(pos);
      if (c >= 128) break;
      const t = table[s + (classOf[c] as number)] as number;
      if (t < 0) break;
      s = t;
    }
    if (pos < n) return this.#resume(input, pos, s, meter);
    const end = table[s + this.#classes] as number;
    return end < 0 ? this.#matchesAtEnd(s, meter) : end === 1;
  }

  /** {@link test} without a start state yet, on an empty input, or without kept states. */
  #first(input: string, meter: Meter): boolean {
    if (!this.#cacheable || input.length === 0) return this.#simulate(input, 0, this.#closure([0], 1, input, 0, false, meter), meter);
    if (this.#classes === 0) this.#classify(meter);
    // `^` holds in the start state only.
    const s = this.#intern(this.#closure([0], 1, "..", 0, true, meter), meter);
    if (s === OVERFLOW) return this.#simulate(input, 0, this.#closure([0], 1, input, 0, false, meter), meter);
    this.#start = s;
    return this.#resume(input, 0, s, meter);
  }

  /** {@link test} on from `pos` of `input`, in kept state `s`, building transitions as needed. */
  #resume(input: string, pos: number, s: number, meter: Meter): boolean {
    const n = input.length;
    const classOf = this.#classOf;
    const k = this.#classes;
    while (pos < n) {
      // A deciding state has no transition built: the answer is known.
      if (s === this.#matchAt) return true;
      if (s === this.#deadAt) return false;
      const c = input.charCodeAt(pos);
      const cp = c < 128 ? c : (input.codePointAt(pos) as number);
      pos += cp > 0xffff ? 2 : 1;
      const threads = this.#threads[s / (k + 1)] as Int32Array;
      const t = this.#intern(this.#step(threads, threads.length, cp, "..", 1, true, meter), meter);
      if (t === OVERFLOW) {
        // Past the bounds: the same step on the real input, then on without keeping sets.
        return this.#simulate(input, pos, this.#step(threads, threads.length, cp, input, pos, false, meter), meter);
      }
      // Transitions outside ASCII are not kept (no class): computed again each time.
      if (c < 128) this.#table[s + (classOf[c] as number)] = t;
      s = t;
      // The common steps again.
      const table = this.#table;
      for (; pos < n; pos++) {
        const d = input.charCodeAt(pos);
        if (d >= 128) break;
        const u = table[s + (classOf[d] as number)] as number;
        if (u < 0) break;
        s = u;
      }
    }
    return s === this.#matchAt || this.#matchesAtEnd(s, meter);
  }

  /** Runs on from `pos`, where the set in #out (`count` threads, -1 for a match) is alive, keeping no state. */
  #simulate(input: string, pos: number, count: number, meter: Meter): boolean {
    const n = input.length;
    while (count >= 0) {
      if (pos >= n || (count === 0 && !this.#restart)) return false;
      // The set becomes the current one; the next is built in #out.
      [this.#cur, this.#out] = [this.#out, this.#cur];
      const cp = input.codePointAt(pos) as number;
      pos += cp > 0xffff ? 2 : 1;
      count = this.#step(this.#cur, count, cp, input, pos, false, meter);
    }
    return true;
  }
}
