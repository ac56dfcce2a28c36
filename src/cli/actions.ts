/**
 * `yada actions list|show|approve|reject --store PATH` (W8, W9, X6): the actions
 * of a file action store. `list` shows a tenant's actions (`--tenant`, default
 * `local`), oldest first; `show <id>` one action in full; `approve <id>` and
 * `reject <id> [reason]` decide a pending one as `--actor` (the operator at the
 * terminal), with every binding check of the approval API; `resolve <id> --outcome
 * succeeded|failed --note TEXT` settles one whose outcome is unknown (W14); `approve` says what
 * executes the action (a running `yada worker`, or the command to start one). A
 * store that does not exist is an error: these commands never create one.
 *
 * @module
 */
import { createActions } from "../actions/approvals.js";
import type { ActionRecord } from "../actions/types.js";
import { positionals, printJson, type CommandContext } from "./command.js";
import { whatExecutes } from "./hints.js";
import { openCliStore, storePathOf } from "./store.js";
import { UsageError, EXIT } from "./exit.js";
import { jsonText, oneLine, pad, styles } from "./terminal.js";

const when = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");

function show(ctx: CommandContext, a: ActionRecord): void {
  const io = ctx.io;
  const s = styles(io);
  io.out(`${s.bold(oneLine(a.tool, 80))} ${a.state} (${a.effect})\n`);
  const rows: Array<[string, string]> = [
    ["id", a.id],
    ["operation", a.operationId],
    ["actor", `${a.actorId}@${a.tenantId}`],
    ["version", a.version],
    ["arguments hash", a.argumentsHash],
    ["created", when(a.createdAt)],
    ["expires", when(a.expiresAt)],
  ];
  if (a.stateVersion !== undefined) rows.push(["state version", a.stateVersion]);
  if (a.runId !== undefined) rows.push(["run", `${a.runId}${a.callId ? ` call ${a.callId}` : ""}`]);
  if (a.approval) rows.push(["approved by", `${a.approval.actorId} at ${when(a.approval.at)}`]);
  if (a.rejection) rows.push(["rejected by", `${a.rejection.actorId} at ${when(a.rejection.at)}${a.rejection.reason ? `: ${a.rejection.reason}` : ""}`]);
  if (a.resolution) rows.push(["settled by", `${a.resolution.actorId} at ${when(a.resolution.at)} as ${a.resolution.outcome}: ${a.resolution.note}`]);
  if (a.state === "reconciling") rows.push(["receipt lookups", String(a.attempts)]);
  if (a.preview !== undefined) rows.push(["preview", a.preview]);
  const part = a.outcome?.result?.content[0];
  if (part?.type === "text") rows.push(["result", part.text]);
  if (a.outcome?.reason !== undefined) rows.push(["reason", a.outcome.reason]);
  for (const [k, v] of rows) io.out(`  ${pad(k, 16)} ${oneLine(v, 300)}\n`);
  io.out(`  arguments\n${jsonText(a.arguments).split("\n").map((l) => `    ${l}`).join("\n")}\n`);
}

/**
 * Runs `actions`.
 *
 * @throws UsageError (`usage`); StoreError (`store`: locked by another process,
 * unreadable); ActionConflictError (`conflict`: decided already, changed, expired);
 * UnauthorizedError (`unauthorized`: another tenant).
 */
export async function actionsCommand(ctx: CommandContext): Promise<number> {
  const [verb = "", id, reason] = positionals(ctx, 1, 3, "actions list|show|approve|reject|resolve [id] [reason]");
  if (!["list", "show", "approve", "reject", "resolve"].includes(verb)) throw new UsageError(`unknown actions verb ${JSON.stringify(verb.slice(0, 40))}: list, show, approve, reject or resolve`);
  if (verb === "list" ? id !== undefined : id === undefined || (verb !== "reject" && reason !== undefined)) {
    const usage = verb === "list" ? "list" : verb === "reject" ? "reject <id> [reason]" : verb === "resolve" ? "resolve <id> --outcome succeeded|failed --note <what you checked>" : `${verb} <id>`;
    throw new UsageError(`usage: yada actions ${usage}`);
  }
  // W14: a verdict and a note, both required, and only for resolve.
  if (verb === "resolve" && (ctx.args.outcome === undefined || ctx.args.note === undefined)) {
    throw new UsageError("usage: yada actions resolve <id> --outcome succeeded|failed --note <what you checked on the server>");
  }
  if (verb !== "resolve" && (ctx.args.outcome !== undefined || ctx.args.note !== undefined)) throw new UsageError(`--${ctx.args.outcome !== undefined ? "outcome" : "note"} applies to actions resolve`);
  const operator = { actorId: ctx.args.actor ?? "cli", tenantId: ctx.args.tenant ?? "local" };
  // P4: a store that does not exist is an error (never created), a directory too.
  const store = await openCliStore(ctx.io, storePathOf(ctx.args.store), { mustExist: true, signal: ctx.signal });
  try {
    if (verb === "list") {
      const all = await store.list({ tenantId: operator.tenantId });
      if (ctx.args.json) printJson(ctx.io, all);
      else if (all.length === 0) ctx.io.out(`no actions for tenant ${oneLine(operator.tenantId, 80)}\n`);
      else for (const a of all) ctx.io.out(`${a.id}  ${pad(a.state, 17)} ${pad(oneLine(a.tool, 40), 40)} ${when(a.createdAt)}\n`);
      return EXIT.ok;
    }
    const action = await store.get(id ?? "");
    if (!action) throw new UsageError(`no action ${JSON.stringify((id ?? "").slice(0, 80))} in the store`);
    if (verb === "show") {
      if (ctx.args.json) printJson(ctx.io, action);
      else show(ctx, action);
      return EXIT.ok;
    }
    // The operator at the terminal may decide and settle the actions of their tenant.
    const actions = createActions({ store, mayApprove: () => true, mayResolve: () => true });
    if (verb === "resolve") {
      // W14: only an outcome_unknown action; the verdict and note are recorded, final afterwards.
      const settled = await actions.resolve(action, operator, { outcome: ctx.args.outcome ?? "failed", note: ctx.args.note ?? "" });
      if (ctx.args.json) printJson(ctx.io, settled);
      else ctx.io.out(`${settled.id} ${settled.state}: settled by ${operator.actorId}@${operator.tenantId}\n`);
      return EXIT.ok;
    }
    const decided = verb === "approve" ? await actions.approve(action, operator) : await actions.reject(action, operator, reason);
    if (ctx.args.json) printJson(ctx.io, decided);
    else ctx.io.out(`${decided.id} ${decided.state} by ${operator.actorId}@${operator.tenantId}\n`);
    // U6: an approval says what will execute the action.
    if (decided.state === "approved") {
      const next = whatExecutes(ctx.args, decided);
      if (ctx.args.json) ctx.io.err(`yada: ${next}\n`);
      else ctx.io.out(`${next}\n`);
    }
    return EXIT.ok;
  } finally {
    await store.close();
  }
}
