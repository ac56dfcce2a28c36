/**
 * Confirmed tools (W7): any server's mutating tool behind one approval, sent at
 * most once and never retried. There is no receipt: an uncertain outcome is
 * `unknown` (the action ends `outcome_unknown`).
 *
 * @module
 */
import { JsonRpcError, UnauthorizedError } from "../errors.js";
import type { McpClient } from "../mcp/client.js";
import type { McpTool } from "../mcp/types.js";
import { quote } from "../util/text.js";
import { admit, checkedArguments, sendApproved, sentOperations, type ApprovedSend } from "./action-call.js";
import type { SchemaValidator } from "./read-tool.js";
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
  input: SchemaValidator;
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
 *   is `failed` with `{"error":"tool_failed",...}`; a JSON-RPC refusal of the request
 *   itself (-32700, -32600, -32601, -32602: an unknown tool, a malformed call; the
 *   tool never ran) is `failed` the same way, the message naming the error; a result is `succeeded`,
 *   rendered as for reads; a timeout, lost connection, malformed answer or other
 *   server error is `unknown` (`notSent` only when provably not sent). An operation id
 *   this tool already sent (the last `MAX_SENT_OPERATIONS_REMEMBERED`) is refused
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
  const execute: ApprovedSend = {
    gate,
    name,
    version,
    sent: sentOperations(),
    input,
    needsStateVersion: false,
    authorizeAs: [remote.name],
    // W7: at most once (no automatic re-send on a modern error). A JSON-RPC refusal of the
    // request itself (-32700, -32600 to -32602: an unknown tool, a malformed call) means
    // the tool never ran: answered as the server's isError, so the action is failed, not unknown.
    send: (args, _, signal, onSent) =>
      client.callTool(remote.name, args, { signal, timeoutMs, once: true, onSent }).catch((e: unknown) => {
        const code = e instanceof JsonRpcError ? e.rpcCode : 0;
        if (code === -32700 || (code <= -32600 && code >= -32602)) return { content: [{ type: "text" as const, text: (e as Error).message }], isError: true };
        throw e;
      }),
  };
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
      const step = await sendApproved(execute, action, context);
      if ("outcome" in step) return step.outcome;
      const answer = step.answer;
      return answer.isError ? { status: "failed", result: toolFailed(answer) } : { status: "succeeded", result: renderToolResult(answer) };
    },
  };
  return Object.freeze(tool);
}
