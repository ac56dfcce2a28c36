/**
 * `yada run` with decisions (W8, W9, X6, U6, P4): each proposed call is shown
 * (tool, arguments, the server's preview) and decided, by y/n on a terminal or
 * by `--approve all|none`; approved ones are executed once by the worker through
 * the file action store, each outcome is printed, and the run resumes with the
 * outcomes read from the store, until the model answers.
 *
 * - Undecided (`later`: no terminal, no `--approve`, and a `--store` named), the
 *   proposed calls are recorded awaiting approval and the run ends with exit 4,
 *   printing the commands that decide them and the worker that executes them.
 * - Ctrl-C or Ctrl-D at the y/n prompt decides nothing more: the action stays
 *   awaiting approval, the commands that decide it later (and the worker that
 *   executes it then) are printed, and the run ends with exit 130.
 * - Decided work is never left undone silently: an approved call that has not
 *   settled (a write still reconciling, an interrupted run) ends the run with a
 *   non-zero exit that says so and how a worker carries on.
 * - With `--json`, the decisions and outcomes are JSON lines on stdout
 *   (`approval_decision`, `action_outcome`) among the run's events; the human
 *   text goes to stderr.
 *
 * @module
 */
import { createActions } from "../actions/approvals.js";
import { isTerminal } from "../actions/states.js";
import type { ActionRecord, ActionStore } from "../actions/types.js";
import { createWorker } from "../actions/worker.js";
import type { RunOptions, RunResult } from "../agent/run.js";
import { run } from "../agent/run.js";
import type { ConfirmTool, Identity, Tool, WriteTool } from "../tools/types.js";
import type { CliArgs } from "./args.js";
import { CliExit, EXIT } from "./exit.js";
import { decideLaterLines, workerCommand } from "./hints.js";
import { jsonText, oneLine, styles, type Io } from "./terminal.js";
import { printApproval } from "./view.js";
import { ask, PromptInterrupted } from "./prompt.js";

/**
 * How the CLI decides: without asking (`all`, `none`), y/n per call on a terminal
 * (`ask`), or not at all (`later`: the calls are recorded awaiting approval, to be
 * decided with `yada actions` and executed by `yada worker`).
 */
export type Decide = "all" | "none" | "ask" | "later";

/** How long one round waits for its approved actions to settle (receipt back-off included). */
const SETTLE_MS = 60_000;

function outcomeLine(a: ActionRecord): string {
  const part = a.outcome?.result?.content[0];
  const text = part?.type === "text" ? part.text : a.outcome?.reason ?? a.rejection?.reason ?? "";
  return `${a.state}${text ? `: ${oneLine(text, 160)}` : ""}`;
}

/** What the decision loop needs besides the run. */
export interface DecisionContext {
  io: Io;
  args: CliArgs;
  /** `--json`: decisions and outcomes as JSON lines on stdout, human text on stderr. */
  json: boolean;
}

/** Writes one JSON event line (escaped as {@link jsonText} does). */
function emit(io: Io, event: Record<string, unknown>): void {
  io.out(`${jsonText(event, true)}\n`);
}

/** The lines printed when the run stops with decided or undecided work left: what is left and the commands that carry on. */
function leftLines(ctx: DecisionContext, waiting: readonly ActionRecord[], approved: readonly ActionRecord[]): string[] {
  const lines: string[] = [];
  if (waiting.length > 0) {
    lines.push(`still awaiting approval (nothing was executed for ${waiting.length === 1 ? "it" : "them"}):`);
    for (const a of waiting) lines.push(`  ${a.id}  ${oneLine(a.tool, 80)}`);
    lines.push("decide later with:", ...decideLaterLines(ctx.args, waiting));
  }
  if (approved.length > 0) {
    lines.push("approved, not finished:");
    for (const a of approved) lines.push(`  ${a.id}  ${oneLine(a.tool, 80)}  ${outcomeLine(a)}`);
    lines.push("a worker carries on (never sending a call twice):");
    for (const command of new Set(approved.map((a) => workerCommand(ctx.args, a.tool)))) lines.push(`  ${command}`);
  }
  return lines;
}

/**
 * Runs `options` with `store`, deciding every proposed call as `decide` says, and
 * resumes until the run stops for another reason (at most `rounds` pauses).
 *
 * @throws CliExit `cancelled` (130) when the prompt was interrupted or the run was
 * cancelled with decided work not done; `incomplete` (7) when an approved call did
 * not settle in time. Both print what is left and the commands that carry on.
 */
export async function runWithDecisions(
  ctx: DecisionContext,
  options: RunOptions & { input: string },
  store: ActionStore,
  decide: Decide,
  operator: Identity,
  signal: AbortSignal,
  rounds: number,
): Promise<RunResult> {
  const io = ctx.io;
  // Human text: stdout, or stderr beside --json's JSON lines (P4).
  const human: Io = ctx.json ? { ...io, out: io.err, color: false } : io;
  const say = (line: string): void => human.out(`${line}\n`);
  const s = styles(human);
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
  const stop = (code: "cancelled" | "incomplete" | "approval_required", message: string, waiting: readonly ActionRecord[], approved: readonly ActionRecord[]): never => {
    for (const line of leftLines(ctx, waiting, approved)) io.err(`${line}\n`);
    throw new CliExit(code, code === "cancelled" ? EXIT.interrupted : code === "incomplete" ? EXIT.incomplete : EXIT.approval, message);
  };
  let result = await run({ ...options, actions: { store, runId } });
  for (let round = 0; round < rounds && result.stopReason === "approval_required" && result.state; round++) {
    printApproval(human, result.proposedCalls);
    const mine: ActionRecord[] = [];
    for (const call of result.proposedCalls) {
      const a = call.actionId === undefined ? undefined : await store.get(call.actionId);
      if (a) mine.push(a);
    }
    if (decide === "later") {
      // W8, U6: recorded, undecided: someone decides them later, and a worker executes them.
      const waiting = mine.filter((a) => a.state === "awaiting_approval");
      const n = waiting.length;
      return stop("approval_required", `${n} call${n === 1 ? "" : "s"} await${n === 1 ? "s" : ""} approval in the action store; nothing was executed (decide with the commands above)`, waiting, []);
    }
    const approvedNow: ActionRecord[] = [];
    for (const [i, a] of mine.entries()) {
      if (a.state !== "awaiting_approval") continue;
      if (a.preview !== undefined) say(`     ${s.dim("preview:")} ${oneLine(a.preview, 200)}`);
      let yes: boolean;
      try {
        yes = decide === "ask" ? await ask(`approve ${oneLine(a.tool, 80)} (call ${oneLine(a.callId ?? "", 40)})? [y/N] `, signal) : decide === "all";
      } catch (e) {
        if (!(e instanceof PromptInterrupted)) throw e;
        // U6: nothing more is decided; the action stays awaiting approval.
        io.err("\n");
        const waiting = mine.slice(i).filter((x) => x.state === "awaiting_approval");
        const n = waiting.length;
        return stop("cancelled", `the approval prompt was interrupted; ${n} action${n === 1 ? "" : "s"} still await${n === 1 ? "s" : ""} approval (decide later with the commands above)`, waiting, approvedNow);
      }
      const decided = yes ? await actions.approve(a, operator) : await actions.reject(a, operator, decide === "none" ? "declined (--approve none)" : "declined at the terminal");
      if (yes) approvedNow.push(decided);
      if (ctx.json) {
        emit(io, {
          type: "approval_decision",
          actionId: decided.id,
          callId: decided.callId ?? null,
          toolName: decided.tool,
          decision: decided.state,
          by: { actorId: operator.actorId, tenantId: operator.tenantId },
          ...(decided.rejection?.reason !== undefined ? { reason: decided.rejection.reason } : {}),
        });
      }
    }
    const until = Date.now() + SETTLE_MS;
    let settled: ActionRecord[] = [];
    for (;;) {
      await worker.runOnce();
      settled = await store.list({ tenantId: operator.tenantId, runId });
      if (settled.every((a) => isTerminal(a.state)) || Date.now() > until || signal.aborted) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const ours = settled.filter((x) => result.proposedCalls.some((c) => c.actionId === x.id));
    for (const a of ours) {
      const colour = a.state === "succeeded" ? s.green : s.yellow;
      say(`  ${colour("←")} ${oneLine(a.tool, 80)} ${colour(outcomeLine(a))}`);
      if (ctx.json && isTerminal(a.state)) {
        emit(io, {
          type: "action_outcome",
          actionId: a.id,
          callId: a.callId ?? null,
          toolName: a.tool,
          state: a.state,
          ...(a.outcome?.result !== undefined ? { result: a.outcome.result } : {}),
          ...(a.outcome?.reason !== undefined ? { reason: a.outcome.reason } : {}),
        });
      }
    }
    // P4: decided work left undone ends the run non-zero, saying so, never as a success.
    const unfinished = ours.filter((a) => !isTerminal(a.state) && a.state !== "awaiting_approval");
    if (unfinished.length > 0) {
      const n = unfinished.length;
      if (signal.aborted) return stop("cancelled", `interrupted with ${n} approved call${n === 1 ? "" : "s"} not finished (see above)`, [], unfinished);
      return stop("incomplete", `${n} approved call${n === 1 ? " has" : "s have"} not finished within ${SETTLE_MS / 1000} s; nothing was sent twice (see above)`, [], unfinished);
    }
    result = await run({ ...options, input: undefined, resume: result.state, actions: { store, runId } });
  }
  return result;
}
