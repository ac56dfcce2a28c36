/**
 * Contract-bound write tools (W1–W6): a mutation with its read-only preparation
 * and receipt helpers, as one {@link WriteTool}. The helpers are never shown to
 * the model; every phase carries the action envelope built from the connection's
 * identity and the durable action, never from model input.
 *
 * @module
 */
import { ToolFailedError, UnauthorizedError } from "../errors.js";
import type { McpClient } from "../mcp/client.js";
import { isRecord, type CallToolResult } from "../mcp/types.js";
import { quote } from "../util/text.js";
import { admit, checkAction, checkedArguments, failureReason, sendApproved, sentOperations, type ApprovedSend } from "./action-call.js";
import type { SchemaValidator } from "./read-tool.js";
import { actionMeta, parsePrepareEnvelope, parseReceiptEnvelope, type ReceiptEnvelope } from "./envelope.js";
import type { WriteTrio } from "./fingerprint.js";
import type { ConnectionGate } from "./gate.js";
import { prefixedToolName } from "./names.js";
import { errorResult, toolFailed } from "./render.js";
import type { ActionOutcome, Identity, PreparedAction, ToolResult, WriteTool } from "./types.js";

/** What {@link mcpWriteTool} needs. */
export interface WriteToolParts {
  gate: ConnectionGate;
  client: McpClient;
  server: string;
  identity: Identity;
  trio: WriteTrio;
  /** The compiled input schemas of the mutation and the preparation helper. */
  inputs: { mutation: SchemaValidator; prepare: SchemaValidator };
  /** From {@link writeVersion}. */
  version: string;
  timeoutMs: number | undefined;
}

/** What a definitive receipt becomes for the model: the receipt as JSON, or `tool_failed` with its message. */
function receiptOutcome(receipt: ReceiptEnvelope): ActionOutcome {
  if (receipt.status === "succeeded") {
    const result: ToolResult = { content: [{ type: "text", text: JSON.stringify(receipt) }], isError: false };
    return { status: "succeeded", result };
  }
  if (receipt.status === "failed") return { status: "failed", result: errorResult("tool_failed", receipt.message === "" ? "the server reported the operation failed" : receipt.message) };
  return { status: "unknown", reason: "the server reported the outcome as unknown" };
}

/**
 * The {@link WriteTool} for one mapping, named `server__mutation` (T2):
 *
 * - `prepare(args)`: checks the caller, the connection and cancellation; awaits
 *   `authorize` for the mutation and then the preparation helper (W4); checks the
 *   arguments (no `_meta` member, bounded, valid against the mutation's and the
 *   helper's input schemas); calls the helper with the prepare envelope (W2) and
 *   returns its strict `{stateVersion, preview}` (W3).
 * - `execute(action)`: checks the action (this tool, operation id, state version),
 *   that `action.version` is this version (else `failed`, `version_changed`,
 *   nothing sent, W6), the caller, `authorize` for the mutation (else `failed`,
 *   `unauthorized`, nothing sent) and the approved arguments; sends the mutation
 *   once with the execute envelope. A strict receipt decides; anything else is
 *   `unknown` (W3, W5). An operation id this tool already sent is refused
 *   (`validation`, nothing sent): after an uncertain outcome, only `reconcile`.
 * - `reconcile(action)`: checks the caller, `authorize` for the mutation and the
 *   receipt helper; calls only the receipt helper with the receipt envelope. Only
 *   a strict receipt for that operation id is definitive; a denial, a changed
 *   version or any failure is `unknown` (the action stays reconciling).
 *
 * @throws LimitError (`limit`) or ConfigError (`config`) for a name the model cannot be given.
 *
 * @example
 * ```ts
 * const tool = mcpWriteTool({ gate, client, server: "catalog", identity, trio, inputs, version, timeoutMs });
 * const prepared = await tool.prepare({ id: "A", name: "New" }, { identity });
 * ```
 */
export function mcpWriteTool(parts: WriteToolParts): WriteTool {
  const { gate, client, server, identity, trio, inputs, version, timeoutMs } = parts;
  const mutation = trio.mutation.name;
  const sent = sentOperations();
  const name = prefixedToolName(server, mutation);
  const where = (tool: string): string => `${server}: tools/call ${quote(tool)}`;
  // W5: the mutation goes out at most once (no automatic re-send on a modern error).
  const call = (tool: string, args: Record<string, unknown>, meta: Record<string, unknown>, signal: AbortSignal | undefined, onSent?: () => void): Promise<CallToolResult> =>
    client.callTool(tool, args, { signal, timeoutMs, meta, once: tool === mutation, onSent });

  const execute: ApprovedSend = {
    gate,
    name,
    version,
    sent,
    input: inputs.mutation,
    needsStateVersion: true,
    authorizeAs: [mutation],
    send: (args, approved, signal, onSent) =>
      call(mutation, args, actionMeta("execute", mutation, identity, { operationId: approved.operationId, stateVersion: approved.stateVersion }), signal, onSent),
  };
  const tool: WriteTool = {
    effect: "write",
    name,
    description: trio.mutation.description ?? trio.mutation.title ?? "",
    inputSchema: trio.mutation.inputSchema,
    version,

    async prepare(args: unknown, context): Promise<PreparedAction> {
      const denied = await admit(gate, name, context, [mutation, trio.prepare.name]);
      if (denied !== undefined) throw new UnauthorizedError(`${name}: the host denied ${quote(denied)} to this caller; nothing was sent`);
      const checked = checkedArguments(name, args, [inputs.mutation, inputs.prepare]);
      let result: CallToolResult;
      try {
        result = await call(trio.prepare.name, checked, actionMeta("prepare", mutation, identity), context.signal);
      } catch (e) {
        gate.fail(e);
        throw e;
      }
      if (result.isError) {
        const failed = toolFailed(result).content[0];
        throw new ToolFailedError(`${where(trio.prepare.name)}: the preparation failed: ${failed?.type === "text" ? failed.text : ""}`);
      }
      const { stateVersion, preview } = parsePrepareEnvelope(result, where(trio.prepare.name));
      return { tool: name, version, arguments: checked, stateVersion, preview };
    },

    async execute(action, context): Promise<ActionOutcome> {
      const step = await sendApproved(execute, action, context);
      if ("outcome" in step) return step.outcome;
      const receipt = parseReceiptEnvelope(step.answer, action.operationId);
      return typeof receipt === "string" ? { status: "unknown", reason: `${where(mutation)}: ${receipt}` } : receiptOutcome(receipt);
    },

    async reconcile(action, context): Promise<ActionOutcome> {
      const approved = checkAction(name, action, false);
      // W4: another caller is refused before its action is judged (no outcome for it).
      await gate.enter(isRecord(context) ? context.identity : undefined);
      if (approved.version !== version) return { status: "unknown", reason: `${name}: the tool's version is no longer the approved one; no receipt was asked` };
      const denied = await admit(gate, name, context, [mutation, trio.receipt.name]);
      if (denied !== undefined) return { status: "unknown", reason: `${name}: the host denied ${quote(denied)} to this caller; no receipt was asked` };
      let result: CallToolResult;
      try {
        result = await call(trio.receipt.name, {}, actionMeta("receipt", mutation, identity, { operationId: approved.operationId }), context.signal);
      } catch (e) {
        gate.fail(e);
        return { status: "unknown", reason: failureReason(e) };
      }
      const receipt = parseReceiptEnvelope(result, approved.operationId);
      return typeof receipt === "string" ? { status: "unknown", reason: `${where(trio.receipt.name)}: ${receipt}` } : receiptOutcome(receipt);
    },
  };
  return Object.freeze(tool);
}
