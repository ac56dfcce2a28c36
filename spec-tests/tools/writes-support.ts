// Shared by the writes tests (W1–W7, W10, W11): the reference contract server
// (fixtures/servers/contract) over stdio and HTTP, configured with the rename
// mapping, and readers of its durable log.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { McpServerConfig } from "../../src/tools/config.js";
import type { McpConnection } from "../../src/tools/connect.js";
import type { ApprovedAction, ConfirmTool, PreparedAction, Tool, WriteTool } from "../../src/tools/types.js";
import { fixtureServer } from "../helpers/paths.js";

type ContractHttpModule = typeof import("../../fixtures/servers/contract/http.mjs");
const { startContractHttp } = (await import(pathToFileURL(fixtureServer("contract/http.mjs")).href)) as ContractHttpModule;
export type ContractHttp = Awaited<ReturnType<typeof startContractHttp>>;
export { startContractHttp };

/** The reviewed mapping of the reference server. */
export const RENAME = { rename: { version: "reviewed-1", prepareTool: "prepare_rename", receiptTool: "rename_receipt" } } as const;

/** What a test gets about its contract server. */
export interface Contract {
  kind: "stdio" | "http";
  config: McpServerConfig;
  /** The durable log of every outcome the server recorded. */
  log: string;
  http?: ContractHttp;
}

/** Options of {@link withContract}. */
export interface ContractOptions {
  modes?: string;
  /** Config fields beside name and endpoint (default: `writeTools: RENAME`). */
  extra?: Record<string, unknown>;
  tokens?: Record<string, string>;
  executeDelayMs?: number;
  /** Extra stdio flags. */
  args?: string[];
}

/** A stdio configuration of the reference server writing its log to `log`. */
export function contractStdio(log: string, options: ContractOptions = {}): McpServerConfig {
  const args = [fixtureServer("contract/stdio.mjs"), "--log", log, ...(options.args ?? [])];
  if (options.modes) args.push("--mode", options.modes);
  if (options.executeDelayMs) args.push("--execute-delay-ms", String(options.executeDelayMs));
  return { name: "contract", command: process.execPath, args, ...(options.extra ?? { writeTools: RENAME }) } as McpServerConfig;
}

/** Runs `fn` against a fresh reference server of `kind` with its own log in a temporary directory. */
export async function withContract(kind: "stdio" | "http", fn: (c: Contract) => Promise<void>, options: ContractOptions = {}): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "yada-contract-"));
  const log = join(dir, "log.jsonl");
  try {
    if (kind === "stdio") return await fn({ kind, config: contractStdio(log, options), log });
    const http = await startContractHttp({ log, modes: options.modes, tokens: options.tokens, executeDelayMs: options.executeDelayMs });
    try {
      const config = { name: "contract", url: http.url, ...(options.extra ?? { writeTools: RENAME }) } as McpServerConfig;
      await fn({ kind, config, log, http });
    } finally {
      await http.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One line of the server's log. */
export interface LogLine {
  tool: string;
  status: string;
  operationId?: string;
  id?: string;
  via?: string;
}

/** The server's log, torn lines left out. */
export function logLines(log: string): LogLine[] {
  let text = "";
  try {
    text = readFileSync(log, "utf8");
  } catch {
    return [];
  }
  return text.split("\n").flatMap((l) => {
    try {
      return [JSON.parse(l) as LogLine];
    } catch {
      return [];
    }
  });
}

/** Mutations the server performed (lines with status succeeded), optionally for one operation id. */
export function performed(log: string, operationId?: string): number {
  return logLines(log).filter((l) => l.status === "succeeded" && (operationId === undefined || l.operationId === operationId)).length;
}

/** The write tool `name` of a connection. */
export function writeTool(c: McpConnection<Tool>, name = "contract__rename"): WriteTool {
  const t = c.tools.find((x) => x.name === name);
  if (!t || t.effect !== "write") throw new Error(`no write tool ${name} among ${c.tools.map((x) => `${x.name}:${x.effect}`).join(", ")}`);
  return t;
}

/** The confirmed tool `name` of a connection. */
export function confirmTool(c: McpConnection<Tool>, name: string): ConfirmTool {
  const t = c.tools.find((x) => x.name === name);
  if (!t || t.effect !== "confirm") throw new Error(`no confirmed tool ${name} among ${c.tools.map((x) => `${x.name}:${x.effect}`).join(", ")}`);
  return t;
}

let nextOperation = 0;
/** The approved action of a prepared one, with a fresh operation id. */
export function approve(prepared: PreparedAction, operationId = `op-${process.pid}-${++nextOperation}`): ApprovedAction {
  return { ...prepared, operationId };
}
