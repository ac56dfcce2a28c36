/**
 * The compiled form of a schema pattern, shared by the two matchers that run it
 * (the simulation of regex.ts and the lazily built automaton of dfa.ts), and the
 * work meter both charge (Y1).
 *
 * @module
 */
import { LimitError } from "../errors.js";
import { MAX_SCHEMA_WORK } from "../limits.js";

/** A test for one code point. */
export type CharTest = (cp: number) => boolean;
/** A zero-width assertion: start, end, word boundary, not a word boundary. */
export type Assertion = "bol" | "eol" | "wb" | "nwb";

export const CHAR = 0;
export const SPLIT = 1;
export const JMP = 2;
export const ASSERT = 3;
export const MATCH = 4;

/** One instruction. `x` is the next instruction (or a jump target), `y` a split's second branch. */
export interface Instr {
  op: number;
  test?: CharTest;
  what?: Assertion;
  x: number;
  y: number;
}

/**
 * Work left in one validation call (Y1). Every matcher step and subschema visit
 * takes from `work`; below zero the validation stops with {@link overBudget}.
 */
export interface Meter {
  work: number;
}

/** A meter that never runs out, for direct use of a matcher outside validation. */
export const UNMETERED: Meter = { work: Infinity };

/** The LimitError of a validation that used up `MAX_SCHEMA_WORK`. */
export function overBudget(): LimitError {
  return new LimitError(
    "MAX_SCHEMA_WORK",
    MAX_SCHEMA_WORK,
    `schema validation needs more than ${MAX_SCHEMA_WORK} steps`,
  );
}

const LINE_TERMINATORS = new Set([0x0a, 0x0d, 0x2028, 0x2029]);
/** `.`: any code point but a line terminator. */
export const notLineTerminator: CharTest = (cp) => !LINE_TERMINATORS.has(cp);

/** Word characters of `\b` (ECMA-262: ASCII only, without the `i` flag). */
export function isWord(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}

/** Scratch of {@link addThreads}: a program's dedupe marks and work stack, and the instructions visited. */
export interface Scratch {
  readonly prog: readonly Instr[];
  readonly marks: Int32Array;
  readonly stack: Int32Array;
  visited: number;
}

/** Fresh scratch for `prog`. */
export function scratch(prog: readonly Instr[]): Scratch {
  return { prog, marks: new Int32Array(prog.length).fill(-1), stack: new Int32Array(2 * prog.length + 2), visited: 0 };
}

/**
 * Adds the thread at `pc0` and every thread it reaches without reading a
 * character to `list` (holding `count`); returns the new count, or -1 once MATCH
 * is reached. Assertions are decided at `pos` of `input`, except that with
 * `defer` a `$` that does not hold yet is kept in the list, unresolved (the
 * automaton's states). `marks[pc] === mark` dedupes threads of one position.
 */
export function addThreads(s: Scratch, list: Int32Array, count: number, pc0: number, mark: number, input: string, pos: number, defer: boolean): number {
  const { prog, marks, stack } = s;
  let sp = 0;
  stack[sp++] = pc0;
  while (sp > 0) {
    const pc = stack[--sp] as number;
    if (marks[pc] === mark) continue;
    marks[pc] = mark;
    s.visited++;
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
        else if (defer && w === "eol") list[count++] = pc;
        break;
      }
      case MATCH:
        return -1;
    }
  }
  return count;
}
