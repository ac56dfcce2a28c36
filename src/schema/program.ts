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
    `schema validation needed more than ${MAX_SCHEMA_WORK} steps (a pattern or applicator fan-out too costly for this value)`,
  );
}

const LINE_TERMINATORS = new Set([0x0a, 0x0d, 0x2028, 0x2029]);
/** `.`: any code point but a line terminator. */
export const notLineTerminator: CharTest = (cp) => !LINE_TERMINATORS.has(cp);

/** Word characters of `\b` (ECMA-262: ASCII only, without the `i` flag). */
export function isWord(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}
