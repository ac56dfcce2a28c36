// Shared pieces of the action tests: host-defined write and confirm tools over a
// real stdio child (the reference contract server) and readers of its own log.
import { appendFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpClient } from "../../src/node/client.js";
import type { ActionOutcome, ApprovedAction, ConfirmTool, Identity, ToolCallContext, ToolResult, WriteTool } from "../../src/tools/types.js";
import { fixtureServer } from "../helpers/paths.js";

export const alice: Identity = { actorId: "alice", tenantId: "acme" };
export const bob: Identity = { actorId: "bob", tenantId: "acme" };
export const eve: Identity = { actorId: "eve", tenantId: "evil" };

/** A temporary directory for one test. */
export const tempDir = (): string => mkdtempSync(join(tmpdir(), "yada-actions-"));

/** The holder id of a file store journal's last holder line. */
export function lastHolder(journal: string): string {
  const last = readFileSync(journal, "utf8").split("\n").filter((l) => l.startsWith('{"yada":"holder"')).at(-1);
  if (last === undefined) throw new Error(`${journal} has no holder line`);
  return (JSON.parse(last) as { holder: string }).holder;
}

/** Appends `record` to a closed file store journal behind the store's back, as a corrupt disk or another program would: in the name of its last holder. */
export function plantRecord(journal: string, record: object): void {
  appendFileSync(journal, JSON.stringify({ h: lastHolder(journal), r: record }) + "\n");
}

/** A contract server over stdio with its own durable log. */
export interface ContractServer {
  client: McpClient;
  log: string;
  close(): Promise<void>;
}

export async function startContract(options: { modes?: string[]; log?: string; callTimeoutMs?: number; delayMs?: number } = {}): Promise<ContractServer> {
  const log = options.log ?? join(tempDir(), "contract.log");
  const args = [fixtureServer("contract/stdio.mjs"), "--log", log];
  if (options.modes?.length) args.push("--mode", options.modes.join(","));
  if (options.delayMs) args.push("--execute-delay-ms", String(options.delayMs));
  const client = await McpClient.connectStdio(process.execPath, args, undefined, { name: "items", callTimeoutMs: options.callTimeoutMs ?? 10_000 });
  return { client, log, close: () => client.close() };
}

/** The server's own log lines. */
export function logLines(log: string): Array<Record<string, unknown>> {
  let text = "";
  try {
    text = readFileSync(log, "utf8");
  } catch {
    return [];
  }
  return text.split("\n").filter(Boolean).flatMap((l) => {
    try {
      return [JSON.parse(l) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

/** Mutations the server performed (status succeeded) with this operation id. */
export const performed = (log: string, operationId: string): number =>
  logLines(log).filter((l) => l.status === "succeeded" && l.operationId === operationId && l.tool === "rename").length;

/** Rename calls the server received and logged for this operation id (performed or refused). */
export const renameLines = (log: string, operationId: string): number => logLines(log).filter((l) => l.tool === "rename" && l.operationId === operationId).length;

const text = (t: string, isError = false): ToolResult => ({ content: [{ type: "text", text: t }], isError });
const META = "io.yada/action";
const RENAME_SCHEMA = { type: "object", properties: { id: { type: "string" }, name: { type: "string" } }, required: ["id", "name"] };

/** Parses a receipt strictly: exactly {operationId, status, message} for this operation, else unknown. */
function receipt(result: { structuredContent?: Record<string, unknown>; isError: boolean }, operationId: string): ActionOutcome {
  const s = result.structuredContent;
  if (!s || Object.keys(s).length !== 3 || typeof s.message !== "string" || s.operationId !== operationId) return { status: "unknown", reason: "malformed receipt" };
  if (s.status === "succeeded" && !result.isError) return { status: "succeeded", result: text(s.message) };
  if (s.status === "failed") return { status: "failed", result: text(JSON.stringify({ error: "tool_failed", message: s.message }), true) };
  return { status: "unknown", reason: "the server reports the outcome unknown" };
}

/** A host-defined contract write tool `items__rename` over `client`, for `identity`. */
export function renameTool(client: McpClient, identity: Identity, version = "reviewed-1", onExecute?: (a: ApprovedAction) => void | Promise<void>): WriteTool & { executes: number } {
  const base = { contractVersion: 1, tool: "rename", actorId: identity.actorId, tenantId: identity.tenantId };
  const tool = {
    name: "items__rename",
    description: "Renames an item.",
    inputSchema: RENAME_SCHEMA,
    effect: "write" as const,
    version,
    executes: 0,
    async prepare(args: unknown) {
      const a = args as { id: string; name: string };
      const r = await client.callTool("prepare_rename", a, { meta: { [META]: base } });
      const s = r.structuredContent;
      if (r.isError || !s || typeof s.stateVersion !== "string") throw new Error("preparation failed");
      return { tool: "items__rename", version, arguments: { ...a }, stateVersion: s.stateVersion, preview: String(s.preview) };
    },
    async execute(action: ApprovedAction, context?: ToolCallContext): Promise<ActionOutcome> {
      tool.executes++;
      await onExecute?.(action); // throwing here: nothing was sent
      try {
        // W13: the worker is told when the request was handed over (onSent), so sends overlap.
        const r = await client.callTool("rename", action.arguments as Record<string, string>, { meta: { [META]: { ...base, operationId: action.operationId, stateVersion: action.stateVersion } }, onSent: context?.onSent });
        return receipt(r, action.operationId);
      } catch (e) {
        // Once the request may have left, a failure is an uncertain outcome, never a throw.
        return { status: "unknown", reason: e instanceof Error ? e.message : String(e) };
      }
    },
    async reconcile(action: ApprovedAction): Promise<ActionOutcome> {
      const r = await client.callTool("rename_receipt", {}, { meta: { [META]: { ...base, operationId: action.operationId } } });
      return receipt(r, action.operationId);
    },
  };
  return tool;
}

/** A host-defined confirm tool `items__delete_item` over `client`. */
export function deleteTool(client: McpClient, version = "confirm-1"): ConfirmTool & { executes: number } {
  const tool = {
    name: "items__delete_item",
    description: "Deletes an item.",
    inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    effect: "confirm" as const,
    version,
    executes: 0,
    async prepare(args: unknown) {
      return { tool: "items__delete_item", version, arguments: { ...(args as Record<string, unknown>) } };
    },
    async execute(action: ApprovedAction, context?: ToolCallContext): Promise<ActionOutcome> {
      tool.executes++;
      try {
        const r = await client.callTool("delete_item", action.arguments as Record<string, string>, { onSent: context?.onSent });
        const t = r.content.map((c) => ("text" in c ? c.text : "")).join("");
        return r.isError ? { status: "failed", result: text(JSON.stringify({ error: "tool_failed", message: t }), true) } : { status: "succeeded", result: text(t) };
      } catch (e) {
        return { status: "unknown", reason: e instanceof Error ? e.message : String(e) };
      }
    },
  };
  return tool;
}
