/**
 * A regular-expression matcher that runs in linear time, for patterns that come
 * from untrusted schemas (`pattern`, `patternProperties`).
 *
 * The engine's own regexes backtrack: a server could send `^(a|a)*$` in an
 * outputSchema together with a result that makes it run for hours, and no timeout
 * can interrupt a regex on the main thread. Here a pattern is parsed into a small
 * program that matcher.ts runs in time bounded by input length × program size,
 * usually one table load per character. Only single-character tests (classes, escapes such as `\d` or `\p{L}`) are
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
import { Matcher } from "./matcher.js";
import { ASSERT, CHAR, JMP, MATCH, notLineTerminator, SPLIT, type Assertion, type CharTest, type Instr, type Meter } from "./program.js";

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
  return new Matcher(prog);
}
