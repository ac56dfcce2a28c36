// A strict TypeScript consumer: the typed examples of the guides, and the narrowing
// the public types promise. `npm run typecheck` checks it; every @ts-expect-error
// line must stay an error, so a type that stops narrowing fails the check.
import { McpClient, isYadaError, run, scripted, type AgentEvent, type ContentBlock, type RunResult } from "yada-mcp/node";
import { MAX_LINE_BYTES } from "yada-mcp/limits";

/** Content blocks narrow on `type`; an unknown kind is `type: "unknown"` with the server's `kind`. */
export function describe(block: ContentBlock): string {
  if (block.type === "text") return block.text.toUpperCase();
  if (block.type === "image" || block.type === "audio") return `${block.mimeType}, ${block.data.length} base64 chars`;
  if (block.type === "resource") return "text" in block.resource ? block.resource.text : block.resource.mimeType ?? "blob";
  if (block.type === "resource_link") return `${block.uri} ${block.name}`;
  // @ts-expect-error: a text block is handled above, so `text` is gone here.
  void block.text;
  return `[${block.kind} content, ${Object.keys(block.block).length} members]`;
}

export function noCollision(block: ContentBlock): void {
  // @ts-expect-error: no open `{ type: string }` member: an unknown kind is never compared by its own name.
  if (block.type === "hologram") return;
}

/** Events narrow on `type`. */
export function onEvent(e: AgentEvent): string {
  switch (e.type) {
    case "message_delta":
      return e.text;
    case "tool_execution_end":
      return `${e.toolName}: ${e.isError ? "failed" : "ok"}`;
    case "approval_required":
      return e.calls.map((c) => c.toolName).join(", ");
    case "agent_end":
      // @ts-expect-error: an agent_end event has no text.
      return e.text;
    default:
      return e.type;
  }
}

/** Errors narrow on their code. */
export function explain(e: unknown): string {
  if (isYadaError(e, "jsonrpc")) return `server error ${e.rpcCode}: ${e.rpcMessage}`;
  if (isYadaError(e, "timeout")) return `no answer within ${e.timeoutMs} ms`;
  if (isYadaError(e, "connection_closed")) return e.info.stderrTail ?? "closed";
  if (isYadaError(e, "limit")) {
    // @ts-expect-error: a limit error has no HTTP status.
    void e.status;
    return `${e.limit} (${e.max})`;
  }
  return isYadaError(e) ? e.code : "not a yada error";
}

/** A run's outcome: stopReason is a closed set. */
export function outcome(result: RunResult): string {
  // @ts-expect-error: "done" is not a stop reason.
  if (result.stopReason === "done") return "";
  return result.stopReason === "approval_required" ? `${result.proposedCalls.length} to approve` : result.text;
}

export async function quickStart(): Promise<string> {
  const client = await McpClient.connectStdio("node", ["servers/catalog.mjs"], undefined, { name: "catalog" });
  try {
    const result = await client.callTool("lookup", { sku: "ABC-123" });
    const first = result.content[0];
    return first?.type === "text" ? first.text : "";
  } finally {
    await client.close();
  }
}

/** `await using`: leaving the block closes the client, and so ends the server process. */
export async function scoped(): Promise<number> {
  await using client = await McpClient.connectStdio("node", ["servers/catalog.mjs"], undefined, { name: "catalog" });
  return (await client.listTools()).length;
}

export async function agent(): Promise<RunResult> {
  const provider = scripted([{ text: `lines up to ${MAX_LINE_BYTES} bytes` }]);
  return run({ provider, tools: [], identity: { actorId: "user-42", tenantId: "acme" }, input: "hello" });
}
