/**
 * `yada run` with decisions (W8, W9, X6): each proposed call is shown (tool,
 * arguments, the server's preview) and decided, by y/n on a terminal or by
 * `--approve all|none`; approved ones are executed once by the worker through the
 * file action store, each outcome is printed, and the run resumes with the
 * outcomes read from the store, until the model answers.
 *
 * @module
 */
import { createInterface } from "node:readline/promises";
import { createActions } from "../actions/approvals.js";
import { isTerminal } from "../actions/states.js";
import type { ActionRecord, ActionStore } from "../actions/types.js";
import { createWorker } from "../actions/worker.js";
import type { RunOptions, RunResult } from "../agent/run.js";
import { run } from "../agent/run.js";
import type { ConfirmTool, Identity, Tool, WriteTool } from "../tools/types.js";
import { oneLine, styles, type Io } from "./terminal.js";
import { printApproval } from "./view.js";

/** How the CLI decides: without asking, or y/n per call on a terminal. */
export type Decide = "all" | "none" | "ask";

/** How long one round waits for its approved actions to settle (receipt back-off included). */
const SETTLE_MS = 60_000;

/** Asks y/n on the terminal; anything but y / yes is a no. */
async function ask(question: string, signal: AbortSignal): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(question, { signal });
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    rl.close();
  }
}

function outcomeLine(a: ActionRecord): string {
  const part = a.outcome?.result?.content[0];
  const text = part?.type === "text" ? part.text : a.outcome?.reason ?? a.rejection?.reason ?? "";
  return `${a.state}${text ? `: ${oneLine(text, 160)}` : ""}`;
}

/**
 * Runs `options` with `store`, deciding every proposed call as `decide` says, and
 * resumes until the run stops for another reason (at most `rounds` pauses).
 */
export async function runWithDecisions(
  io: Io,
  options: RunOptions & { input: string },
  store: ActionStore,
  decide: Decide,
  operator: Identity,
  signal: AbortSignal,
  rounds: number,
): Promise<RunResult> {
  const s = styles(io);
  const runId = crypto.randomUUID();
  const actions = createActions({ store, mayApprove: () => true });
  const tools: readonly Tool[] = options.tools ?? [];
  const worker = createWorker({
    store,
    workerId: `yada-cli-${runId.slice(0, 8)}`,
    // Only this run's actions: another host's action stays untouched (its lease lapses).
    resolveTool: (a) => {
      if (a.runId !== runId) throw new Error("not an action of this run");
      return tools.find((t): t is WriteTool | ConfirmTool => t.name === a.tool && t.effect !== "read");
    },
  });
  let result = await run({ ...options, actions: { store, runId } });
  for (let round = 0; round < rounds && result.stopReason === "approval_required" && result.state; round++) {
    printApproval(io, result.proposedCalls);
    for (const call of result.proposedCalls) {
      const a = call.actionId === undefined ? undefined : await store.get(call.actionId);
      if (!a || a.state !== "awaiting_approval") continue;
      if (a.preview !== undefined) io.out(`     ${s.dim("preview:")} ${oneLine(a.preview, 200)}\n`);
      const yes = decide === "ask" ? await ask(`approve ${oneLine(a.tool, 80)} (call ${oneLine(a.callId ?? "", 40)})? [y/N] `, signal) : decide === "all";
      if (yes) await actions.approve(a, operator);
      else await actions.reject(a, operator, decide === "none" ? "declined (--approve none)" : "declined at the terminal");
    }
    const until = Date.now() + SETTLE_MS;
    let mine: ActionRecord[] = [];
    for (;;) {
      await worker.runOnce();
      mine = await store.list({ tenantId: operator.tenantId, runId });
      if (mine.every((a) => isTerminal(a.state)) || Date.now() > until || signal.aborted) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    for (const a of mine.filter((x) => result.proposedCalls.some((c) => c.actionId === x.id))) {
      const colour = a.state === "succeeded" ? s.green : s.yellow;
      io.out(`  ${colour("←")} ${oneLine(a.tool, 80)} ${colour(outcomeLine(a))}\n`);
    }
    result = await run({ ...options, input: undefined, resume: result.state, actions: { store, runId } });
  }
  return result;
}
