/**
 * The approval half of the demo (W5, W8): the recorded actions are approved by a
 * reviewer, the worker executes them once, and an answer the server lost is
 * resolved by its receipt, each move printed as it is stored.
 *
 * @module
 */
import { createActions } from "../actions/approvals.js";
import { isTerminal } from "../actions/states.js";
import type { ActionRecord, ActionStore } from "../actions/types.js";
import { createWorker } from "../actions/worker.js";
import type { ConfirmTool, Identity, Tool, WriteTool } from "../tools/types.js";
import { oneLine, styles, type Io } from "./terminal.js";

/** How long the demo waits for its actions to settle (receipt back-off included). */
const SETTLE_MS = 10_000;

function describe(a: ActionRecord): string {
  switch (a.state) {
    case "executing":
      return "executing (stored before the request is sent)";
    case "reconciling":
      return `reconciling: ${oneLine(a.outcome?.reason ?? "the outcome is not known", 90)}; asking the receipt helper, never resending`;
    case "succeeded":
    case "failed": {
      const part = a.outcome?.result?.content[0];
      return `${a.state}: ${oneLine(part?.type === "text" ? part.text : "", 100)}`;
    }
    default:
      return a.state;
  }
}

/**
 * Approves every action of `runId` as `reviewer` and runs the worker until each is
 * terminal (or `SETTLE_MS` passes). Returns the actions as they ended.
 */
export async function approveAndExecute(io: Io, store: ActionStore, tools: readonly Tool[], who: Identity, reviewer: Identity, runId: string): Promise<ActionRecord[]> {
  const s = styles(io);
  const say = (text: string): void => io.out(`${text}\n`);
  const actions = createActions({ store, mayApprove: (approver, action) => approver.actorId !== action.actorId });
  const pending = await actions.pending(who.tenantId, { runId });
  for (const a of pending) {
    say(`  ${s.bold(oneLine(a.tool, 60))} is ${a.state} (action ${a.id.slice(0, 8)}, operation ${a.operationId.slice(0, 8)})`);
    if (a.preview !== undefined) say(`    preview from the server: ${oneLine(a.preview, 100)}`);
    await actions.approve(a, reviewer);
    say(`    approved by ${reviewer.actorId}@${reviewer.tenantId}: binds tool, version, arguments hash ${a.argumentsHash.slice(0, 12)}…${a.stateVersion ? `, state version ${oneLine(a.stateVersion, 40)}` : ""}`);
  }
  const worker = createWorker({
    store,
    resolveTool: (a, identity) => (identity.actorId === who.actorId ? tools.find((t): t is WriteTool | ConfirmTool => t.name === a.tool && t.effect !== "read") : undefined),
    workerId: "demo-worker",
    // The first receipt lookup after a lost answer comes at the short end of its back-off.
    random: () => 0,
    onAction: (a) => say(`    ${s.dim("worker:")} ${oneLine(a.tool, 60)} → ${describe(a)}`),
  });
  const until = Date.now() + SETTLE_MS;
  let ended: ActionRecord[] = [];
  for (;;) {
    await worker.runOnce();
    ended = await store.list({ tenantId: who.tenantId, runId });
    if (ended.every((a) => isTerminal(a.state)) || Date.now() > until) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return ended;
}
