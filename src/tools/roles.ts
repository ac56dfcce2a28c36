/**
 * Tool roles of a configuration (T3, W1, W7): which discovered tools become
 * reads, contract writes (with their hidden helpers) and confirmed tools, and the
 * consistency checks between them. These checks go alongside the host's review of
 * the server; annotations alone grant nothing.
 *
 * @module
 */
import { ConfigError, ToolNotFoundError } from "../errors.js";
import type { McpTool } from "../mcp/types.js";
import { quote } from "../util/text.js";
import type { McpServerConfig, McpWriteMapping } from "./config.js";
import { toolSpec, type ContractEntry } from "./contract.js";
import type { WriteTrio } from "./fingerprint.js";
import { RESERVED_NAMES, selectReadTools } from "./select.js";

/** One write mapping with its listed tools. */
export interface SelectedWrite {
  mapping: McpWriteMapping;
  trio: WriteTrio;
}

/** What a configuration exposes from a catalog. */
export interface SelectedRoles {
  reads: McpTool[];
  writes: SelectedWrite[];
  confirms: McpTool[];
}

/**
 * The checks that need only the configuration (W1, W7): mutation names, helper
 * names, `readTools` and `confirmTools` never overlap; a helper serves one mapping
 * and one role; a mutation is not its own helper.
 *
 * @throws ConfigError (`config`) naming the first conflict.
 *
 * @example
 * ```ts
 * checkRoleNames({ name: "catalog", url, writeTools: { rename: { version: "1", prepareTool: "prepare_rename", receiptTool: "rename_receipt" } } });
 * ```
 */
export function checkRoleNames(config: McpServerConfig): void {
  const role = new Map<string, string>();
  const claim = (tool: string, what: string): void => {
    const had = role.get(tool);
    if (had !== undefined) throw new ConfigError(`${config.name}: ${quote(tool)} is both ${had} and ${what}; tool roles cannot overlap`);
    role.set(tool, what);
  };
  for (const t of config.readTools ?? []) claim(t, "a read tool");
  const mappings = Object.entries(config.writeTools ?? {});
  for (const [mutation] of mappings) claim(mutation, "a write tool");
  for (const [mutation, m] of mappings) {
    claim(m.prepareTool, `the preparation helper of ${quote(mutation)}`);
    claim(m.receiptTool, `the receipt helper of ${quote(mutation)}`);
  }
  if (Array.isArray(config.confirmTools)) for (const t of config.confirmTools) claim(t, "a confirmed tool");
}

function find(config: McpServerConfig, byName: ReadonlyMap<string, McpTool>, tool: string, what: string): McpTool {
  const found = byName.get(tool);
  if (!found) throw new ToolNotFoundError(`${config.name}: ${what} ${quote(tool)} is not listed by the server`);
  return found;
}

function notReserved(config: McpServerConfig, tool: McpTool): McpTool {
  if (RESERVED_NAMES.includes(tool.name)) throw new ConfigError(`${config.name}: tool ${quote(tool.name)} has a name reserved for resource and prompt permissions`);
  return tool;
}

/**
 * The roles of `listed` under `config` (T3, W1, W7), after {@link checkRoleNames}:
 *
 * - writes: each mapping's mutation and helpers must be listed; helpers must be
 *   annotated `readOnlyHint: true`, a mutation must not be.
 * - confirms: the named tools (each listed), or for `"*"` every listed tool with no
 *   other role that is not annotated `readOnlyHint: true`.
 * - reads: as {@link selectReadTools}, never a helper or a named confirmed tool.
 *
 * @throws ToolNotFoundError (`tool_not_found`) for a configured tool the server does
 * not list; ConfigError (`config`) for a helper without `readOnlyHint: true`, a
 * mutation with it, or a reserved name; what {@link selectReadTools} throws.
 *
 * @example
 * ```ts
 * const { reads, writes, confirms } = selectRoles(config, await client.listTools());
 * ```
 */
export function selectRoles(config: McpServerConfig, listed: readonly McpTool[], onSkip?: (tool: string, reason: string) => void): SelectedRoles {
  const byName = new Map(listed.map((t) => [t.name, t]));
  const writes = Object.entries(config.writeTools ?? {}).map(([mutationName, mapping]): SelectedWrite => {
    const mutation = notReserved(config, find(config, byName, mutationName, "writeTools names"));
    const prepare = find(config, byName, mapping.prepareTool, `the preparation helper of ${quote(mutationName)},`);
    const receipt = find(config, byName, mapping.receiptTool, `the receipt helper of ${quote(mutationName)},`);
    if (mutation.annotations?.readOnlyHint === true) throw new ConfigError(`${config.name}: write tool ${quote(mutationName)} is annotated readOnlyHint: true; a mutation cannot be`);
    for (const helper of [prepare, receipt]) {
      if (helper.annotations?.readOnlyHint !== true) throw new ConfigError(`${config.name}: helper ${quote(helper.name)} must be annotated readOnlyHint: true`);
    }
    return { mapping, trio: { mutation, prepare, receipt } };
  });
  const taken = new Set<string>();
  for (const w of writes) for (const t of [w.trio.mutation, w.trio.prepare, w.trio.receipt]) taken.add(t.name);
  const named = Array.isArray(config.confirmTools) ? config.confirmTools : [];
  for (const n of named) taken.add(n);
  // Helpers (and tools the host chose to confirm) are never reads, even when annotated read-only.
  const reads = selectReadTools(config, config.readTools === undefined ? listed.filter((t) => !taken.has(t.name)) : listed, onSkip);
  for (const r of reads) taken.add(r.name);
  const confirms =
    config.confirmTools === "*"
      ? listed.filter((t) => !taken.has(t.name) && t.annotations?.readOnlyHint !== true).map((t) => notReserved(config, t))
      : named.map((n) => notReserved(config, find(config, byName, n, "confirmTools names")));
  return { reads, writes, confirms };
}

/**
 * The contract entries of everything a configuration exposes (T13, W10): reads,
 * resource tools, writes (the reviewed version and all three tools' specs) and
 * confirmed tools. A change in any of them makes the connection stale. `roles`:
 * what {@link selectRoles} made of a listing.
 */
export function roleEntries(config: McpServerConfig, roles: SelectedRoles): ContractEntry[] {
  const { reads, writes, confirms } = roles;
  const entries: ContractEntry[] = reads.map((t) => ({ remote: t.name, effect: "read", spec: toolSpec(t) }));
  if (config.resources === true) {
    entries.push({ remote: "list_resources", effect: "read", spec: "resources/list" }, { remote: "read_resource", effect: "read", spec: "resources/read" });
  }
  for (const { mapping, trio } of writes) {
    const helper = (t: McpTool): unknown => ({ name: t.name, spec: toolSpec(t) });
    entries.push({ remote: trio.mutation.name, effect: "write", spec: { reviewed: mapping.version, mutation: toolSpec(trio.mutation), prepare: helper(trio.prepare), receipt: helper(trio.receipt) } });
  }
  for (const t of confirms) entries.push({ remote: t.name, effect: "confirm", spec: toolSpec(t) });
  return entries;
}
