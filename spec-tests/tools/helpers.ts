// Shared by the tool-layer tests: catalog servers over stdio and HTTP, a transport
// factory that records every message a connection sends, and small readers.
import { pathToFileURL } from "node:url";
import type { JsonRpcMessage } from "../../src/jsonrpc/messages.js";
import { nodeTransportFactory } from "../../src/node/tools.js";
import type { McpReadConfig } from "../../src/tools/config.js";
import type { McpConnection, TransportFactory } from "../../src/tools/connect.js";
import type { Identity, Tool, ToolResult } from "../../src/tools/types.js";
import type { Transport } from "../../src/transport/types.js";
import { fixtureServer, repoPath } from "../helpers/paths.js";
import { inlineServer as inlineServerArgs, rejection, waitFor } from "../helpers/clients.js";

type CatalogHttpModule = typeof import("../../fixtures/servers/catalog/http.mjs");
const { startCatalogHttp } = (await import(pathToFileURL(fixtureServer("catalog/http.mjs")).href)) as CatalogHttpModule;
export type CatalogHttp = Awaited<ReturnType<typeof startCatalogHttp>>;
export type CatalogHttpOptions = NonNullable<Parameters<typeof startCatalogHttp>[0]>;

/** The authenticated caller every test connects as. */
export const alice: Identity = Object.freeze({ actorId: "alice", tenantId: "acme" });
/** Another caller: same actor id, another tenant. */
export const mallory: Identity = Object.freeze({ actorId: "alice", tenantId: "other" });
/** Allows everything. */
export const allowAll = (): boolean => true;

/** Per-test bound: every test ends within it. */
export const T = { timeout: 20_000 };

/** The two transports the catalog runs on. */
export const KINDS = ["stdio", "http"] as const;
export type Kind = (typeof KINDS)[number];

/** Catalog flags shared by both transports. */
export interface CatalogFlags {
  toolsPageSize?: number;
  repeatCursor?: boolean;
  promptsPageSize?: number;
}

/** A stdio catalog configuration. */
export function catalogStdio(flags: CatalogFlags = {}, extra: Record<string, unknown> = {}): McpReadConfig {
  const args = [fixtureServer("catalog/stdio.mjs")];
  if (flags.toolsPageSize) args.push("--tools-page-size", String(flags.toolsPageSize));
  if (flags.repeatCursor) args.push("--repeat-cursor");
  if (flags.promptsPageSize) args.push("--prompts-page-size", String(flags.promptsPageSize));
  return { name: "catalog", command: process.execPath, args, ...extra } as McpReadConfig;
}

/** What a test gets about its catalog. */
export interface Catalog {
  kind: Kind;
  config: McpReadConfig;
  /** The HTTP server, for kind "http". */
  http?: CatalogHttp;
}

/**
 * Runs `fn` against a fresh catalog of `kind`: a stdio configuration, or an HTTP
 * server on 127.0.0.1 (SSE answers, so list_changed rides on the POST stream)
 * that is closed afterwards.
 */
export async function withCatalog(
  kind: Kind,
  fn: (catalog: Catalog) => Promise<void>,
  options: { flags?: CatalogFlags; extra?: Record<string, unknown>; http?: CatalogHttpOptions } = {},
): Promise<void> {
  if (kind === "stdio") return fn({ kind, config: catalogStdio(options.flags, options.extra) });
  const http = await startCatalogHttp({ sse: true, ...options.flags, ...options.http });
  try {
    await fn({ kind, http, config: { name: "catalog", url: http.url, ...options.extra } as McpReadConfig });
  } finally {
    await http.close();
  }
}

/** A transport factory that records every message the connection sends, and how many transports it built. */
export function recording(base: TransportFactory = nodeTransportFactory): {
  factory: TransportFactory;
  sent: JsonRpcMessage[];
  built: () => number;
  closed: () => number;
} {
  const sent: JsonRpcMessage[] = [];
  let built = 0;
  let closed = 0;
  const factory: TransportFactory = (server, context) => {
    built++;
    const inner = base(server, context);
    // A proxy, so every other member of the transport (present or future) passes through unchanged.
    const wrapped = new Proxy(inner, {
      get(target, key) {
        if (key === "send") {
          return (message: JsonRpcMessage, options?: Parameters<Transport["send"]>[1]) => {
            sent.push(message);
            return target.send(message, options);
          };
        }
        if (key === "close") {
          return () => {
            closed++;
            return target.close();
          };
        }
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    return wrapped;
  };
  return { factory, sent, built: () => built, closed: () => closed };
}

/** The methods of the requests among `sent`. */
export function methods(sent: readonly JsonRpcMessage[]): string[] {
  return sent.flatMap((m) => ("method" in m ? [m.method] : []));
}

/** The tools/call requests among `sent`, by remote tool name. */
export function calls(sent: readonly JsonRpcMessage[]): string[] {
  return sent.flatMap((m) => {
    if (!("method" in m) || m.method !== "tools/call") return [];
    const params = m.params as { name?: unknown } | undefined;
    return [String(params?.name)];
  });
}

/** Closes `connection` after `fn`, whatever happens. */
export async function using<C extends { close(): Promise<void> }, R>(connection: C, fn: (c: C) => Promise<R>): Promise<R> {
  try {
    return await fn(connection);
  } finally {
    await connection.close();
  }
}

/** The tool named `name` (model-facing) of a connection. */
export function tool<T extends Tool>(connection: McpConnection<T>, name: string): T {
  const found = connection.tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name} among ${connection.tools.map((t) => t.name).join(", ")}`);
  return found;
}

/** The text parts of a result, joined. */
export function textOf(result: ToolResult): string {
  return result.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
}

/** The `{error, message}` envelope of an error result. */
export function envelope(result: ToolResult): { error: string; message: string } {
  if (!result.isError) throw new Error(`expected an error result, got: ${textOf(result).slice(0, 200)}`);
  return JSON.parse(textOf(result)) as { error: string; message: string };
}

/** UTF-8 byte length (test-side, independent of the code under test). */
export function bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** Waits until `predicate` holds, polling every 10 ms, for at most `ms`. */
export const until = (predicate: () => boolean, ms = 5_000): Promise<void> => waitFor(predicate, ms);

export { rejection };

/**
 * The one-file stdio server of `inlineServer` in helpers/clients.ts as a server
 * configuration named `name`: `answer(m)` (JavaScript source of a function of a
 * request) returns each result, or a never-settling Promise to stay silent.
 */
export function inlineServer(name: string, answer: string, capabilities = "{ tools: {} }"): McpReadConfig {
  return { name, command: process.execPath, args: inlineServerArgs(answer, capabilities) } as McpReadConfig;
}

/** The server-everything stdio configuration (a real third-party server). */
export function everything(extra: Record<string, unknown> = {}): McpReadConfig {
  return {
    name: "everything",
    command: process.execPath,
    args: [repoPath("node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"), "stdio"],
    ...extra,
  } as McpReadConfig;
}
