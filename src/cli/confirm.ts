/**
 * The CLI's stand-in for confirmed tools (W7): a server's mutating tools offered
 * to the model as `effect: "confirm"` tools, so a run that wants one stops with
 * `approval_required` and lists the proposed call. They prepare honestly
 * (identity, arguments checked against the input schema) but cannot execute:
 * approving and executing arrives with the approval flow (W8).
 *
 * @module
 */
import { createHash } from "node:crypto";
import { ConfigError, UnauthorizedError, ValidationError, YadaError } from "../errors.js";
import { isRecord, type McpTool } from "../mcp/types.js";
import { canonicalKey } from "../schema/equal.js";
import { compileSchema } from "../schema/index.js";
import { prefixedToolName } from "../tools/names.js";
import type { ConfirmTool, Identity, PreparedAction } from "../tools/types.js";

/**
 * `confirm:<sha-256>` of the remote name and input schema, as canonical JSON (keys
 * sorted): what an approval covers (W7).
 *
 * @throws LimitError (`limit`, `MAX_INSTANCE_DEPTH`) for a schema nesting values deeper than that.
 */
export function confirmVersion(remote: McpTool): string {
  return `confirm:${createHash("sha256").update(canonicalKey({ tool: remote.name, inputSchema: remote.inputSchema })).digest("hex")}`;
}

/**
 * A {@link ConfirmTool} for `remote` on `server`, bound to `identity`.
 *
 * - `prepare` checks the caller is `identity` and the arguments match the input
 *   schema, and returns the action an approver would see.
 * - `execute` throws (code `config`): the approval flow is not available yet, so
 *   nothing is ever sent to the server.
 *
 * @throws LimitError (`limit`) or ConfigError (`config`) for a name the model
 * cannot be given; SchemaError (`schema`) for an input schema that does not compile.
 *
 * @example
 * ```ts
 * const rename = pendingConfirmTool("catalog", listed.find((t) => t.name === "rename")!, identity);
 * const result = await run({ provider, tools: [...connection.tools, rename], identity, input });
 * // result.stopReason === "approval_required" when the model asked for catalog__rename
 * ```
 */
export function pendingConfirmTool(server: string, remote: McpTool, identity: Identity): ConfirmTool {
  const name = prefixedToolName(server, remote.name);
  const input = compileSchema(remote.inputSchema);
  const version = confirmVersion(remote);
  const bound = { actorId: identity.actorId, tenantId: identity.tenantId };
  return Object.freeze({
    effect: "confirm" as const,
    name,
    description: remote.description ?? remote.title ?? "",
    inputSchema: remote.inputSchema,
    version,
    async prepare(args: unknown, context: { identity: Identity }): Promise<PreparedAction> {
      if (context.identity.actorId !== bound.actorId || context.identity.tenantId !== bound.tenantId) {
        throw new UnauthorizedError(`${name}: the caller's identity is not the one this tool is bound to`);
      }
      if (!isRecord(args)) throw new ValidationError(`${name}: arguments must be a JSON object`);
      input.assert(args, `${name} arguments`);
      return { tool: name, version, arguments: { ...args } };
    },
    async execute(): Promise<never> {
      throw new YadaError("config", `${name}: the approval flow is not available yet; the call was not executed`);
    },
  });
}

/**
 * The listed tools to offer behind approval: the named ones, or for `["*"]`
 * every tool that is not exposed as a read and not annotated `readOnlyHint: true`
 * (as `confirmTools: "*"` does, W7).
 *
 * @throws ConfigError (`config`) for a named tool that does not exist or is already a read tool.
 */
export function selectConfirmTools(listed: readonly McpTool[], readNames: ReadonlySet<string>, wanted: readonly string[]): McpTool[] {
  if (wanted.length === 1 && wanted[0] === "*") {
    return listed.filter((t) => !readNames.has(t.name) && t.annotations?.readOnlyHint !== true);
  }
  return wanted.map((n) => {
    const tool = listed.find((t) => t.name === n);
    if (!tool) throw new ConfigError(`--confirm-tools names ${JSON.stringify(n.slice(0, 80))}, which the server does not list`);
    if (readNames.has(n)) throw new ConfigError(`--confirm-tools names ${JSON.stringify(n.slice(0, 80))}, which is already a read tool`);
    return tool;
  });
}
