/**
 * Confirmed tools (W7): any server's mutating tool behind one approval, sent at
 * most once and never retried. There is no receipt: an uncertain outcome is
 * `unknown` (the action ends `outcome_unknown`).
 *
 * @module
 */
import { UnauthorizedError, ValidationError } from "../errors.js";
import { MAX_CONFIRM_SENT_REMEMBERED } from "../limits.js";
import type { McpClient } from "../mcp/client.js";
import type { CallToolResult, McpTool } from "../mcp/types.js";
import type { CompiledSchema } from "../schema/index.js";
import { quote } from "../util/text.js";
import { admit, checkAction, checkedArguments, failureReason, refused, sendFailure } from "./action-call.js";
import type { ConnectionGate } from "./gate.js";
import { prefixedToolName } from "./names.js";
import { renderToolResult, toolFailed } from "./render.js";
import type { ActionOutcome, ConfirmTool, PreparedAction } from "./types.js";

/** What {@link mcpConfirmTool} needs. */
export interface ConfirmToolParts {
  gate: ConnectionGate;
  client: McpClient;
  server: string;
  remote: McpTool;
  input: CompiledSchema;
  /** From {@link confirmVersion}. */
  version: string;
  timeoutMs: number | undefined;
}

/**
 * The {@link ConfirmTool} for one remote tool, named `server__tool` (T2):
 *
 * - `prepare(args)`: checks the caller, the connection, cancellation, `authorize`
 *   for the remote name (else `unauthorized`, thrown) and the arguments (no `_meta`
 *   member, bounded, valid against the input schema); sends nothing.
 * - `execute(action)`: checks the action, its version (else `failed`,
 *   `version_changed`, nothing sent), the caller and `authorize` again (else
 *   `failed`, `unauthorized`, nothing sent); sends `tools/call` once. `isError: true`
 *   is `failed` with `{"error":"tool_failed",...}`; a result is `succeeded`,
 *   rendered as for reads; a timeout, lost connection, malformed answer or server
 *   error is `unknown` (`notSent` only when provably not sent). An operation id
 *   this tool already sent (the last `MAX_CONFIRM_SENT_REMEMBERED`) is refused
 *   with a `validation` error, nothing sent: a confirmed call runs at most once
 *   even when a caller repeats it. Only a provably unsent one may be sent again.
 *
 * @throws LimitError (`limit`) or ConfigError (`config`) for a name the model cannot be given.
 *
 * @example
 * ```ts
 * const tool = mcpConfirmTool({ gate, client, server: "tracker", remote, input, version, timeoutMs });
 * ```
 */
export function mcpConfirmTool(parts: ConfirmToolParts): ConfirmTool {
  const { gate, client, server, remote, input, version, timeoutMs } = parts;
  const name = prefixedToolName(server, remote.name);
  // Operation ids whose send may have reached the server, oldest first.
  const sent = new Set<string>();
  const tool: ConfirmTool = {
    effect: "confirm",
    name,
    description: remote.description ?? remote.title ?? "",
    inputSchema: remote.inputSchema,
    version,

    async prepare(args, context): Promise<PreparedAction> {
      const denied = await admit(gate, name, context, [remote.name]);
      if (denied !== undefined) throw new UnauthorizedError(`${name}: the host denied ${quote(denied)} to this caller; nothing was sent`);
      return { tool: name, version, arguments: checkedArguments(name, args, [input]) };
    },

    async execute(action, context): Promise<ActionOutcome> {
      const approved = checkAction(name, action, false);
      if (approved.version !== version) return refused("version_changed", `${name}: the tool's version is no longer the approved one; nothing was sent`);
      const denied = await admit(gate, name, context, [remote.name]);
      if (denied !== undefined) return refused("unauthorized", `${name}: the host denied ${quote(denied)} to this caller; nothing was sent`);
      let checked;
      try {
        checked = checkedArguments(name, approved.arguments, [input]);
      } catch (e) {
        return refused("invalid_arguments", failureReason(e));
      }
      if (sent.has(approved.operationId)) throw new ValidationError(`${name}: this operation was already sent; a confirmed call runs at most once`);
      sent.add(approved.operationId);
      if (sent.size > MAX_CONFIRM_SENT_REMEMBERED) for (const oldest of sent) if (sent.delete(oldest)) break;
      let result: CallToolResult;
      try {
        result = await client.callTool(remote.name, checked, { signal: context.signal, timeoutMs });
      } catch (e) {
        const outcome = sendFailure(gate, e);
        if (outcome.status === "unknown" && outcome.notSent === true) sent.delete(approved.operationId);
        return outcome;
      }
      return result.isError ? { status: "failed", result: toolFailed(result) } : { status: "succeeded", result: renderToolResult(result) };
    },
  };
  return Object.freeze(tool);
}
