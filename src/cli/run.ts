/**
 * `yada run "<prompt>"`: the agent loop in the terminal (R1, R2, X6).
 *
 * The model gets the server's read tools (through connectMcp: every call is
 * authorized, validated and bounded) and its other tools behind approval. The
 * CLI's user is the operator, so `authorize` allows every call for the identity
 * `--actor` / `--tenant` (default `cli` / `local`). A call to a tool behind
 * approval is decided on a terminal (y/n) or by `--approve all|none`, recorded in
 * the file action store and run once by the worker (W8, W9); undecided (no
 * terminal, no `--approve`), the run stops, the proposed calls are listed with
 * their arguments, and the exit code is 4 (`approval_required`).
 *
 * @module
 */
import type { RunResult } from "../agent/run.js";
import { run } from "../agent/run.js";
import type { Authorize, Identity } from "../tools/types.js";
import { connectAgentTools } from "./agent-tools.js";
import { loginOf, withLoginAdvice } from "./login-hints.js";
import { loggerOf, positionals, type CommandContext } from "./command.js";
import { CliExit, EXIT, UsageError } from "./exit.js";
import { chooseProvider } from "./provider.js";
import { chooseServer, describeServer } from "./server.js";
import { keepRunningWhenStdoutCloses, oneLine, styles, type Io } from "./terminal.js";
import { runWithDecisions, type Decide } from "./run-approvals.js";
import { openFileStore } from "../node/file-store.js";
import { checkStorePath, storePathOf } from "./store.js";
import { DEFAULT_MAX_STEPS } from "../limits.js";
import type { AgentEvent } from "../agent/events.js";
import { jsonView, printApproval, textView } from "./view.js";

/** The CLI's identity defaults: one local operator. */
export const CLI_IDENTITY: Identity = { actorId: "cli", tenantId: "local" };

/** The CLI's authorization: the person at the terminal may run every read tool (writes still stop for approval). */
export const allowAll: Authorize = () => true;

/**
 * Ends a run the way the CLI reports it: `end` → exit 0; `approval_required` →
 * the proposed calls listed, exit 4; `max_steps` / `loop_detected` → exit 7;
 * `cancelled` → exit 130.
 *
 * @throws CliExit for every stop but `end`.
 */
export function finishRun(io: Io, result: RunResult, json: boolean): number {
  switch (result.stopReason) {
    case "end":
      return EXIT.ok;
    case "approval_required": {
      if (!json) printApproval(io, result.proposedCalls);
      const n = result.proposedCalls.length;
      throw new CliExit("approval_required", EXIT.approval, `${n} call${n === 1 ? "" : "s"} need${n === 1 ? "s" : ""} approval; nothing was executed (decide with --approve all|none, or run on a terminal)`);
    }
    case "max_steps":
      throw new CliExit("incomplete", EXIT.incomplete, `stopped after ${result.steps} model calls without a final answer (--max-steps)`);
    case "loop_detected":
      throw new CliExit("incomplete", EXIT.incomplete, `stopped: the model repeated the same call to ${oneLine(result.loop?.toolName ?? "a tool", 80)} ${result.loop?.count ?? ""} times`);
    case "cancelled":
      throw new CliExit("cancelled", EXIT.interrupted, "interrupted");
  }
}

function identityOf(ctx: CommandContext): Identity {
  const actorId = ctx.args.actor ?? CLI_IDENTITY.actorId;
  const tenantId = ctx.args.tenant ?? CLI_IDENTITY.tenantId;
  if (actorId === "" || tenantId === "") throw new UsageError("--actor and --tenant must not be empty");
  return { actorId, tenantId };
}

/**
 * Runs `run`. The provider and server flags are checked before anything is
 * launched; the server is closed whatever happens.
 *
 * @throws UsageError (`usage`); ConfigError (`config`); ProviderError (`provider`);
 * connection errors; CliExit for approval (4), an incomplete run (7), Ctrl-C (130).
 */
export async function runCommand(ctx: CommandContext): Promise<number> {
  const [promptArg = ""] = positionals(ctx, 1, 1, 'run "<prompt>"');
  const input = promptArg === "-" ? ctx.readStdin() : promptArg;
  if (input.trim() === "") throw new UsageError("the prompt is empty");
  const { provider, label } = chooseProvider(ctx.args, ctx.io.env);
  const choice = chooseServer(ctx.args, ctx.io.env);
  const identity = identityOf(ctx);
  const logger = loggerOf(ctx);
  const io = ctx.io;
  // A6: the stored login of `yada login`; P4: a server that wants one says how to log in.
  const auth = await loginOf(choice, ctx.io.env, logger);
  const agent = await connectAgentTools(choice, {
    identity,
    authorize: allowAll,
    ...(ctx.args.readTools ? { readTools: ctx.args.readTools } : {}),
    ...(ctx.args.confirmTools ? { confirmTools: ctx.args.confirmTools } : {}),
    resources: ctx.args.resources,
    signal: ctx.signal,
    ...(logger ? { logger } : {}),
    ...(auth ? { auth } : {}),
  }).catch((e: unknown) => {
    throw withLoginAdvice(e, choice, auth);
  });
  try {
    if (!ctx.args.json) {
      const s = styles(io);
      const confirms = agent.confirms.map((t) => t.name).join(", ") || "none";
      io.out(s.dim(`yada run · ${label} · ${describeServer(choice)}`) + "\n");
      io.out(s.dim(`tools: ${agent.reads.length} read (run directly as ${identity.actorId}@${identity.tenantId}), behind approval: ${confirms}`) + "\n");
    }
    const view = ctx.args.json ? jsonView(io) : textView(io);
    const options = {
      provider,
      tools: agent.tools,
      identity,
      input,
      ...(ctx.args.system !== undefined ? { system: ctx.args.system } : {}),
      ...(ctx.args.maxSteps !== undefined ? { maxSteps: ctx.args.maxSteps } : {}),
      signal: ctx.signal,
      onEvent: (e: AgentEvent) => view.onEvent(e),
      ...(logger ? { logger } : {}),
    };
    // W8: decided calls go through the file action store and the worker; undecided ones stop the run.
    // Undecided with a --store named: the calls are recorded there for `yada actions` and `yada worker` (U6).
    const decide: Decide | undefined = ctx.args.approve ?? (process.stdin.isTTY === true && !ctx.args.json ? "ask" : ctx.args.store !== undefined ? "later" : undefined);
    let result: RunResult;
    if (decide === undefined || agent.confirms.length === 0) result = await run(options);
    else {
      // P4: decided work is done (or the exit says it was not) even when the reader of stdout is gone.
      keepRunningWhenStdoutCloses();
      const path = storePathOf(ctx.args.store);
      checkStorePath(path, false);
      const store = await openFileStore(path);
      try {
        result = await runWithDecisions({ io, args: ctx.args, json: ctx.args.json }, options, store, decide, identity, ctx.signal, ctx.args.maxSteps ?? DEFAULT_MAX_STEPS);
      } finally {
        await store.close();
      }
    }
    return finishRun(io, result, ctx.args.json);
  } finally {
    await agent.connection.close().catch(() => {});
  }
}
