// Y1: the lazily built automaton of a pattern keeps at most MAX_REGEX_DFA_THREADS
// threads over all its states; past that the matcher simulates the rest of the
// input and still answers exactly as the platform's RegExp does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { compileLinearRegex } from "../../src/schema/regex.js";
import { MAX_REGEX_DFA_STATES, MAX_REGEX_DFA_THREADS } from "../../src/limits.js";

test("Y1: past MAX_REGEX_DFA_THREADS (long before MAX_REGEX_DFA_STATES) the matcher still answers right", () => {
  // After i characters of the prefix, a state holds the i + 1 prefix positions and the
  // first character of each of the 300 alternatives: about 300 + i threads. The 61
  // prefix states then hold far more than the thread bound in all, while their count
  // stays far below the state bound, so it is the thread bound that ends the caching.
  const alternatives = Array.from({ length: 300 }, (_, i) => `d${String(i).padStart(3, "0")}`);
  const prefix = 60;
  assert.ok((prefix + 1) * alternatives.length > MAX_REGEX_DFA_THREADS);
  assert.ok(prefix + 10 < MAX_REGEX_DFA_STATES);
  const src = `^[a-c]{0,${prefix}}(?:${alternatives.join("|")})$`;
  const mine = compileLinearRegex(src);
  assert.ok(mine, "the pattern compiles to the linear matcher");
  const native = new RegExp(src, "u");
  let seed = 7;
  const r = (): number => (seed = (seed * 16_807) % 2_147_483_647) / 2_147_483_647;
  let matched = 0;
  for (let k = 0; k < 300; k++) {
    let input = "";
    const len = Math.floor(r() * (prefix + 10));
    for (let i = 0; i < len; i++) input += "abc"[Math.floor(r() * 3)];
    input += `d${String(Math.floor(r() * 320)).padStart(3, "0")}`;
    const expected = native.test(input);
    assert.equal(mine.test(input), expected, JSON.stringify(input));
    if (expected) matched++;
  }
  assert.ok(matched > 50 && matched < 300, `${matched} of 300 inputs match: both answers are exercised`);
});
