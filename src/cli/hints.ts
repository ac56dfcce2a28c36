/**
 * The commands the CLI prints for later (U6): how to decide an action that is
 * still awaiting approval, and which `yada worker` executes an approved one.
 * Each is a command line that can be pasted as is; secrets (header and `--env`
 * values) are never printed, only named.
 *
 * @module
 */
import type { ActionRecord } from "../actions/types.js";
import type { CliArgs } from "./args.js";
import { runningWorker, serverOfTool, shellWord, storePathOf } from "./store.js";

/** `--store PATH`, and `--tenant T` when not the default. */
function storeFlags(args: CliArgs): string {
  const tenant = args.tenant !== undefined && args.tenant !== "local" ? ` --tenant ${shellWord(args.tenant)}` : "";
  return `--store ${shellWord(storePathOf(args.store))}${tenant}`;
}

/**
 * The server flags of `yada worker` for the servers of this command line: its
 * `--server` names (with `--config`), or its `--stdio` / `--url` with `--name`;
 * `--header` and `--env` are named for the reader to add, never shown.
 */
function serverFlags(args: CliArgs, server: string): string {
  const secret = [args.headers.length > 0 && "--header", args.env.length > 0 && "--env"].filter(Boolean);
  const extra = secret.length > 0 ? ` (plus the same ${secret.join(" and ")} flags)` : "";
  if (args.stdio !== undefined) return `--stdio ${shellWord(args.stdio)} --name ${shellWord(server)}${args.cwd !== undefined ? ` --cwd ${shellWord(args.cwd)}` : ""}${extra}`;
  if (args.url !== undefined) return `--url ${shellWord(args.url)} --name ${shellWord(server)}${extra}`;
  const config = args.config !== undefined ? ` --config ${shellWord(args.config)}` : "";
  const renamed = args.name !== undefined ? ` --name ${shellWord(args.name)}` : "";
  return `--server ${shellWord(args.servers[0] ?? server)}${renamed}${config}${extra}`;
}

/** `yada worker ...` that executes the approved actions of `tool`'s server in this store. */
export function workerCommand(args: CliArgs, tool: string): string {
  return `yada worker ${storeFlags(args)} ${serverFlags(args, serverOfTool(tool))}`;
}

/** The lines that say how to decide the `waiting` actions later and how to execute them then. */
export function decideLaterLines(args: CliArgs, waiting: readonly ActionRecord[]): string[] {
  const lines: string[] = [];
  for (const a of waiting) {
    lines.push(`  yada actions approve ${a.id} ${storeFlags(args)}`);
    lines.push(`  yada actions reject ${a.id} "<reason>" ${storeFlags(args)}`);
  }
  const tools = [...new Set(waiting.map((a) => a.tool))];
  if (tools.length > 0) {
    lines.push("then execute what was approved with:");
    for (const command of new Set(tools.map((t) => workerCommand(args, t)))) lines.push(`  ${command}`);
  }
  return lines;
}

/**
 * What executes `action` now that it is approved: the worker running on the
 * store when it serves the action's server, else the command that starts one.
 */
export function whatExecutes(args: CliArgs, action: ActionRecord): string {
  const store = storePathOf(args.store);
  const worker = runningWorker(store);
  const serves = worker?.servers.some((s) => action.tool.startsWith(`${s}__`)) ?? false;
  if (worker && serves) return `the yada worker running on this store (process ${worker.pid}) executes it on its next pass`;
  const start = `yada worker --store ${shellWord(store)} --server ${shellWord(serverOfTool(action.tool))} [--config FILE]`;
  if (worker) return `the yada worker running on this store (process ${worker.pid}) does not serve ${serverOfTool(action.tool)}; nothing executes it until a worker that does runs: ${start}`;
  return `nothing executes it until a worker runs on this store: ${start} (the --once flag makes one pass)`;
}
