/**
 * Tool roles of a configuration (T3, W1, W7): which discovered tools become
 * reads, contract writes (with their hidden helpers) and confirmed tools, and the
 * contract entries of them all. The write roles and their consistency checks are
 * the write module's (write-roles.ts). These checks go alongside the host's review
 * of the server; annotations alone grant nothing.
 *
 * @module
 */
import type { McpTool } from "../mcp/types.js";
import type { McpWrites } from "./action-tools.js";
import type { McpServerConfig, McpWriteMapping } from "./config.js";
import { toolSpec, type ContractEntry } from "./contract.js";
import type { WriteTrio } from "./fingerprint.js";
import { selectReadTools } from "./select.js";

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
 * The roles of `listed` under `config` (T3, W1, W7): with the write module, as its
 * `selectWriteRoles`; without it (a configuration with no write roles) the read
 * tools alone, as {@link selectReadTools}.
 *
 * @throws what {@link selectReadTools} or the write module throws.
 *
 * @example
 * ```ts
 * const { reads } = selectRoles(config, await client.listTools());
 * ```
 */
export function selectRoles(config: McpServerConfig, listed: readonly McpTool[], onSkip?: (tool: string, reason: string) => void, writes?: McpWrites): SelectedRoles {
  return writes ? writes.roles(config, listed, onSkip) : { reads: selectReadTools(config, listed, onSkip), writes: [], confirms: [] };
}

/**
 * The contract entries of everything a configuration exposes (T13, W10): reads,
 * resource tools, writes (the reviewed version and all three tools' specs) and
 * confirmed tools. A change in any of them makes the connection stale. `roles`:
 * what {@link selectRoles} made of the listing.
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
