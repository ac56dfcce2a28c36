/**
 * The y/n question on a terminal (U6, P4): asked on stderr, answered on stdin;
 * anything but y / yes is a no, and Ctrl-C, Ctrl-D or a signal decide nothing.
 *
 * @module
 */
import { createInterface } from "node:readline/promises";

/** The y/n prompt was left with Ctrl-C, Ctrl-D or a signal: nothing was decided. */
export class PromptInterrupted extends Error {}

/** Asks y/n on the terminal; anything but y / yes is a no. @throws PromptInterrupted on Ctrl-C, Ctrl-D or `signal`. */
export async function ask(question: string, signal: AbortSignal): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  // Ctrl-D (end of input) and Ctrl-C (raw mode) both end the question without an answer.
  const ended = new Promise<never>((_, reject) => {
    rl.once("close", () => reject(new PromptInterrupted("closed")));
    rl.once("SIGINT", () => reject(new PromptInterrupted("Ctrl-C")));
  });
  ended.catch(() => {});
  try {
    const answer = await Promise.race([rl.question(question, { signal }), ended]);
    return /^\s*y(es)?\s*$/i.test(answer);
  } catch (e) {
    if (e instanceof PromptInterrupted || signal.aborted || (e as { code?: unknown }).code === "ABORT_ERR") throw new PromptInterrupted("interrupted");
    throw e;
  } finally {
    rl.close();
  }
}
