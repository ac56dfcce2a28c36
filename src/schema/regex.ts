/**
 * A regular-expression matcher that runs in linear time, for patterns that come
 * from untrusted schemas (`pattern`, `patternProperties`).
 *
 * The engine's own regexes backtrack: a server could send `^(a|a)*$` in an
 * outputSchema together with a result that makes it run for hours, and no timeout
 * can interrupt a regex on the main thread. Here a pattern is parsed into a small
 * program and run as a Pike VM: every input position is visited once with at most
 * one thread per instruction, so the time is bounded by input length × program
 * size. Only single-character tests (classes, escapes such as `\d` or `\p{L}`) are
 * delegated to the engine, where one character cannot backtrack.
 *
 * Supported: literals, `.`, classes, character escapes, `^`, `$`, `\b`, `\B`,
 * groups (capturing, `(?:...)`, named), alternation and every quantifier (greedy or
 * lazy: for a yes / no match they are the same). Not supported, refused at compile
 * time: backreferences and lookaround, which need backtracking.
 *
 * @module
 */
import { LimitError, SchemaError } from "../errors.js";
import { MAX_REGEX_PROGRAM } from "../limits.js";
import { Dfa, dfaEligible } from "./dfa.js";
import {
  ASSERT,
  CHAR,
  isWord,
  JMP,
  MATCH,
  notLineTerminator,
  overBudget,
  SPLIT,
  UNMETERED,
  type Assertion,
  type CharTest,
  type Instr,
  type Meter,
} from "./program.js";

/**
 * A compiled pattern: `test` as `RegExp.prototype.test` without flags other than
 * `u`. Each step is charged to `meter` (Y1); past its budget `test` throws
 * LimitError (`limit`, `MAX_SCHEMA_WORK`).
 */
export interface LinearRegex {
  test(input: string, meter?: Meter): boolean;
}

class Unsupported extends Error {}
/** Not a regular expression (the reason is not reported: the caller only learns that). */
class Invalid extends Error {}

// A test for one character, delegated to the engine (it cannot backtrack over a
// single character). ASCII answers are cached per test.
function nativeTest(source: string): CharTest {
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${source})$`, "u");
  } catch {
    try {
      re = new RegExp(`^(?:${source})$`);
    } catch {
      throw new Invalid();
    }
  }
  const ascii = new Uint8Array(128);
  return (cp) => {
    if (cp < 128) {
      const hit = ascii[cp];
      if (hit) return hit === 2;
      const ok = re.test(String.fromCharCode(cp));
      ascii[cp] = ok ? 2 : 1;
      return ok;
    }
    return re.test(String.fromCodePoint(cp));
  };
}

// ── program ───────────────────────────────────────────────────────────────────

/** Appends the instructions of one parsed piece; a counted repeat calls it again. */
type Emit = () => void;

/**
 * Parses `src` into pieces that emit their instructions, then emits them. The
 * parser is a recursive descent over alternation, sequence, quantifier, atom.
 */
function compile(src: string): Instr[] {
  const prog: Instr[] = [];
  let i = 0;
  // The last assertion parsed: an assertion cannot be quantified.
  let assertion: Emit | null = null;

  const emit = (op: number, x: number, test?: CharTest, what?: Assertion): number => {
    if (prog.length >= MAX_REGEX_PROGRAM) {
      throw new LimitError("MAX_REGEX_PROGRAM", MAX_REGEX_PROGRAM, `a schema pattern expands to more than ${MAX_REGEX_PROGRAM} instructions`);
    }
    // One object shape for every instruction keeps the matcher's loads monomorphic.
    prog.push({ op, test, what, x, y: -1 });
    return prog.length - 1;
  };
  const instr = (pc: number): Instr => prog[pc] as Instr;
  const char = (test: CharTest): Emit => () => emit(CHAR, prog.length + 1, test);
  // One test per distinct literal or class source: the automaton classes ASCII by distinct tests.
  const tests = new Map<string | number, CharTest>();
  const literal = (cp: number): CharTest => tests.get(cp) ?? (tests.set(cp, (x) => x === cp), tests.get(cp) as CharTest);
  const native = (source: string): CharTest => tests.get(source) ?? (tests.set(source, nativeTest(source)), tests.get(source) as CharTest);
  const assert = (what: Assertion): Emit => (assertion = () => emit(ASSERT, prog.length + 1, undefined, what));

  function alternation(): Emit {
    const alts = [sequence()];
    while (src[i] === "|") {
      i++;
      alts.push(sequence());
    }
    if (alts.length === 1) return alts[0] as Emit;
    return () => {
      const jumps: number[] = [];
      const last = alts.length - 1;
      for (let a = 0; a < last; a++) {
        const split = emit(SPLIT, prog.length + 1);
        (alts[a] as Emit)();
        jumps.push(emit(JMP, -1));
        instr(split).y = prog.length;
      }
      (alts[last] as Emit)();
      for (const j of jumps) instr(j).x = prog.length;
    };
  }

  function sequence(): Emit {
    const items: Emit[] = [];
    while (i < src.length && src[i] !== "|" && src[i] !== ")") items.push(quantified(atom()));
    return () => {
      for (const item of items) item();
    };
  }

  function quantified(piece: Emit): Emit {
    let out = piece;
    for (;;) {
      const c = src[i];
      let min: number;
      let max: number;
      if (c === "*") [min, max] = [0, Infinity];
      else if (c === "+") [min, max] = [1, Infinity];
      else if (c === "?") [min, max] = [0, 1];
      else if (c === "{") {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(src.slice(i));
        if (!m) return out; // a literal "{" (legacy syntax)
        min = Number(m[1]);
        max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
        if (max < min) throw new Invalid();
        i += m[0].length - 1;
      } else return out;
      i++;
      if (src[i] === "?") i++; // lazy: same yes / no answer
      if (out === assertion) throw new Invalid();
      out = repeat(out, min, max);
    }
  }

  function repeat(piece: Emit, min: number, max: number): Emit {
    return () => {
      const start = prog.length;
      for (let r = 0; r < min; r++) {
        piece();
        // A piece that emits nothing (an empty group) is done: no count can loop on it.
        if (prog.length === start) return;
      }
      if (max === Infinity) {
        const split = emit(SPLIT, prog.length + 1);
        piece();
        emit(JMP, split);
        instr(split).y = prog.length;
        return;
      }
      const splits: number[] = [];
      for (let r = min; r < max; r++) {
        const before = prog.length;
        splits.push(emit(SPLIT, before + 1));
        piece();
        if (prog.length === before + 1) break;
      }
      for (const s of splits) instr(s).y = prog.length;
    };
  }

  function atom(): Emit {
    const c = src[i] as string;
    switch (c) {
      case "(": {
        i++;
        // "(?:", lookaround "(?=", "(?!", "(?<=", "(?<!", a named group "(?<", or "(".
        const kind = /^\?(?::|<?[=!]|<|)/.exec(src.slice(i, i + 3))?.[0] ?? "";
        if (kind === "?") throw new Invalid();
        if (kind.endsWith("=") || kind.endsWith("!")) throw new Unsupported("lookaround");
        i += kind.length;
        if (kind === "?<") {
          const close = src.indexOf(">", i);
          if (close < 0) throw new Invalid();
          i = close + 1;
        }
        const inner = alternation();
        if (src[i] !== ")") throw new Invalid();
        i++;
        return inner;
      }
      case ")":
      case "*":
      case "+":
      case "?":
        throw new Invalid();
      case "^":
        i++;
        return assert("bol");
      case "$":
        i++;
        return assert("eol");
      case ".":
        i++;
        return char(notLineTerminator);
      case "[": {
        const start = i;
        i++;
        if (src[i] === "^") i++;
        if (src[i] === "]") i++; // a leading "]" is a literal in the legacy syntax
        while (i < src.length && src[i] !== "]") i += src[i] === "\\" ? 2 : 1;
        if (i >= src.length) throw new Invalid();
        i++;
        return char(native(src.slice(start, i)));
      }
      case "\\":
        return escape();
      default: {
        const cp = src.codePointAt(i) as number;
        i += cp > 0xffff ? 2 : 1;
        return char(literal(cp));
      }
    }
  }

  function escape(): Emit {
    const start = i;
    const c = src[i + 1];
    if (c === undefined) throw new Invalid();
    if (c === "b" || c === "B") {
      i += 2;
      return assert(c === "b" ? "wb" : "nwb");
    }
    if (/[1-9]/.test(c) || (c === "k" && src[i + 2] === "<")) throw new Unsupported("backreference");
    i += 2;
    if (((c === "p" || c === "P") && src[i] === "{") || (c === "u" && src[i] === "{")) {
      const close = src.indexOf("}", i);
      if (close < 0) throw new Invalid();
      i = close + 1;
    } else if (c === "x") i += 2;
    else if (c === "u") i += 4;
    else if (c === "c") i += 1;
    return char(native(src.slice(start, i)));
  }

  const whole = alternation();
  if (i < src.length) throw new Invalid(); // an unmatched ")"
  whole();
  emit(MATCH, -1);
  return prog;
}

// Runs the program over `input` (positions are UTF-16 indexes; a character is one
// code point). Threads are deduplicated per position by `marks`, so the work is at
// most input length × program size, and each step is charged to the meter. The
// buffers live with the compiled pattern and are reused (a test never re-enters
// itself); `marks` holds `base + position`, so a new test only moves `base`
// instead of clearing them. Common shapes run on the lazily built automaton of
// dfa.ts first, which hands its threads back here when it reaches its bounds.
class Machine implements LinearRegex {
  readonly #prog: Instr[];
  readonly #anchored: boolean;
  readonly #dfa: Dfa | null;
  readonly #marks: Int32Array;
  #clist: Int32Array;
  #nlist: Int32Array;
  readonly #stack: Int32Array;
  #base = 0;
  /** Instructions visited by #add since the last charge. */
  #steps = 0;

  constructor(prog: Instr[]) {
    this.#prog = prog;
    const first = prog[0];
    this.#anchored = first?.what === "bol";
    this.#dfa = dfaEligible(prog) ? new Dfa(prog, !this.#anchored) : null;
    const m = prog.length;
    this.#marks = new Int32Array(m).fill(-1);
    this.#clist = new Int32Array(m);
    this.#nlist = new Int32Array(m);
    this.#stack = new Int32Array(2 * m + 2);
  }

  // Adds the thread at `pc0` for position `pos` and every thread it reaches without
  // reading a character, to `list` (which holds `count` entries); returns the new
  // count, or -1 once MATCH is reached.
  #add(list: Int32Array, count: number, pc0: number, pos: number, input: string): number {
    const prog = this.#prog;
    const marks = this.#marks;
    const stack = this.#stack;
    const mark = this.#base + pos;
    let sp = 0;
    stack[sp++] = pc0;
    while (sp > 0) {
      const pc = stack[--sp] as number;
      if (marks[pc] === mark) continue;
      marks[pc] = mark;
      this.#steps++;
      const ins = prog[pc] as Instr;
      switch (ins.op) {
        case CHAR:
          list[count++] = pc;
          break;
        case JMP:
          stack[sp++] = ins.x;
          break;
        case SPLIT:
          stack[sp++] = ins.y;
          stack[sp++] = ins.x;
          break;
        case ASSERT: {
          const w = ins.what;
          // Word characters are ASCII, so UTF-16 units answer \b exactly.
          const ok =
            w === "bol" ? pos === 0 : w === "eol" ? pos === input.length : (isWord(input.charCodeAt(pos - 1)) !== isWord(input.charCodeAt(pos))) === (w === "wb");
          if (ok) stack[sp++] = ins.x;
          break;
        }
        case MATCH:
          return -1;
      }
    }
    return count;
  }

  test(input: string, meter: Meter = UNMETERED): boolean {
    if (this.#dfa === null || input.length === 0) return this.#simulate(input, 0, null, meter);
    const r = this.#dfa.run(input, meter);
    return typeof r === "boolean" ? r : this.#simulate(input, r.pos, r.threads, meter);
  }

  /** The simulation from `start`, with the threads `resume` (the automaton's) or a fresh start. */
  #simulate(input: string, start: number, resume: Int32Array | null, meter: Meter): boolean {
    const n = input.length;
    if (this.#base > 0x3fffffff - n) {
      this.#marks.fill(-1);
      this.#base = 0;
    }
    const prog = this.#prog;
    let clist = this.#clist;
    let nlist = this.#nlist;
    let ccount = 0;
    this.#steps = 0;
    try {
      if (resume !== null) {
        for (let t = 0; t < resume.length && ccount >= 0; t++) ccount = this.#add(clist, ccount, resume[t] as number, start, input);
        if (ccount < 0) return true;
      }
      for (let pos = start; ; ) {
        // Unanchored search: a new thread starts at every position (only at 0 for "^...").
        if (pos === 0 || !this.#anchored) {
          ccount = this.#add(clist, ccount, 0, pos, input);
          if (ccount < 0) return true;
        }
        if (pos === n || (this.#anchored && ccount === 0)) return false;
        // Charged once per position: at most twice the program size since the last charge.
        if ((meter.work -= this.#steps + ccount) < 0) throw overBudget();
        this.#steps = 0;
        const cp = input.codePointAt(pos) as number;
        const next = pos + (cp > 0xffff ? 2 : 1);
        let ncount = 0;
        for (let t = 0; t < ccount; t++) {
          const ins = prog[clist[t] as number] as Instr;
          if ((ins.test as CharTest)(cp)) {
            ncount = this.#add(nlist, ncount, ins.x, next, input);
            if (ncount < 0) return true;
          }
        }
        [clist, nlist] = [nlist, clist];
        ccount = ncount;
        pos = next;
      }
    } finally {
      meter.work -= this.#steps;
      this.#base += n + 2;
    }
  }
}

/**
 * Compiles `source` for linear-time matching.
 *
 * @returns null when the pattern is not a valid regular expression.
 * @throws SchemaError (`schema`) for backreferences and lookaround, which cannot be
 * matched in linear time; LimitError (`limit`, `MAX_REGEX_PROGRAM`) for a pattern
 * whose counted repetitions expand too far.
 */
export function compileLinearRegex(source: string): LinearRegex | null {
  let prog: Instr[];
  try {
    prog = compile(source);
  } catch (e) {
    if (e instanceof Invalid) return null;
    if (e instanceof Unsupported) {
      throw new SchemaError(`schema pattern uses ${e.message}, which the linear-time matcher does not support`);
    }
    throw e;
  }
  return new Machine(prog);
}
