/**
 * The listing commands: `tools`, `resources`, `prompts`. Text output is one line
 * per item (server text made safe); `--json` prints the lists in MCP's shape
 * (`{tools}`, `{resources, resourceTemplates}`, `{prompts}`).
 *
 * @module
 */
import { JsonRpcError } from "../errors.js";
import type { McpClient } from "../mcp/client.js";
import type { McpTool } from "../mcp/types.js";
import { EXIT } from "./exit.js";
import { positionals, printJson, type CommandContext } from "./command.js";
import { withClient } from "./client.js";
import { oneLine, pad, styles, type Io } from "./terminal.js";

/** The first line of a description, made safe and cut to `max` characters (a terminal's width; whole lines into a pipe). */
function summary(text: string | undefined, max: number): string {
  const first = (text ?? "").split("\n").find((l) => l.trim() !== "") ?? "";
  return oneLine(first, Math.max(20, max));
}

/** What the annotations say about a tool's effect (hints only, untrusted). */
export function effectHint(tool: McpTool): string {
  const readOnly = tool.annotations?.readOnlyHint;
  if (readOnly === true) return "read-only";
  // MCP's default for a tool that is not read-only is destructiveHint: true.
  if (readOnly === false) return tool.annotations?.destructiveHint === false ? "mutating" : "destructive";
  return "-";
}

/** `{sku*, cursor}`: the input properties, required ones starred. */
export function argumentSummary(tool: McpTool): string {
  const props = tool.inputSchema.properties;
  // A Set: a server's schema may list many properties and many required names.
  const required = new Set(Array.isArray(tool.inputSchema.required) ? tool.inputSchema.required : []);
  if (typeof props !== "object" || props === null) return "{}";
  const names = Object.keys(props).map((k) => (required.has(k) ? `${k}*` : k));
  return `{${names.map((n) => oneLine(n, 40)).join(", ")}}`;
}

/**
 * Does the server declare `capability` (P4)? A listing of a capability it does
 * not declare is empty and sends no request (a server answers one with -32601).
 */
export function offers(client: McpClient, capability: "tools" | "resources" | "prompts"): boolean {
  const caps = client.serverCapabilities;
  return typeof caps[capability] === "object" && caps[capability] !== null;
}

function notOffered(io: Io, client: McpClient, capability: string): void {
  if (!offers(client, capability as "tools")) io.out(styles(io).dim(`the server does not offer ${capability}`) + "\n");
}

function header(io: Io, client: McpClient, what: string): void {
  const s = styles(io);
  const info = client.serverInfo;
  io.out(s.dim(`${oneLine(info.name, 80)} ${oneLine(info.version, 40)} · protocol ${client.protocolVersion} · ${what}`) + "\n");
}

/** `yada tools`: the server's tools, their effect hints, arguments and descriptions. */
export async function toolsCommand(ctx: CommandContext): Promise<number> {
  positionals(ctx, 0, 0, "tools");
  return withClient(ctx, async (client) => {
    const tools = offers(client, "tools") ? await client.listTools({ signal: ctx.signal }) : [];
    if (ctx.args.json) {
      printJson(ctx.io, { tools });
      return EXIT.ok;
    }
    const io = ctx.io;
    const s = styles(io);
    header(io, client, `${tools.length} tool${tools.length === 1 ? "" : "s"}`);
    notOffered(io, client, "tools");
    const rows = tools.map((t) => [oneLine(t.name, 64), effectHint(t), argumentSummary(t)] as const);
    const w0 = Math.max(4, ...rows.map((r) => r[0].length));
    const w2 = Math.min(40, Math.max(2, ...rows.map((r) => r[2].length)));
    tools.forEach((t, i) => {
      const [name, hint, argsText] = rows[i] ?? ["", "", ""];
      const room = io.outIsTTY ? io.columns - w0 - w2 - 17 : 1_000;
      io.out(`${s.bold(pad(name, w0))}  ${pad(hint, 11)}  ${pad(argsText, w2)}  ${summary(t.description ?? t.title, room)}\n`);
    });
    io.out(s.dim("read-only / mutating / destructive: the server's annotations (hints, not guarantees); * = required argument") + "\n");
    return EXIT.ok;
  });
}

/** `yada resources`: resources (every page) and resource templates. */
export async function resourcesCommand(ctx: CommandContext): Promise<number> {
  positionals(ctx, 0, 0, "resources");
  return withClient(ctx, async (client) => {
    const has = offers(client, "resources");
    const resources = has ? await client.listResources({ signal: ctx.signal }) : [];
    // Templates are optional in MCP; a server without them answers -32601.
    const resourceTemplates = has
      ? await client.listResourceTemplates({ signal: ctx.signal }).catch((e: unknown) => {
          if (e instanceof JsonRpcError) return [];
          throw e;
        })
      : [];
    if (ctx.args.json) {
      printJson(ctx.io, { resources, resourceTemplates });
      return EXIT.ok;
    }
    const io = ctx.io;
    const s = styles(io);
    header(io, client, `${resources.length} resource${resources.length === 1 ? "" : "s"}, ${resourceTemplates.length} template${resourceTemplates.length === 1 ? "" : "s"}`);
    notOffered(io, client, "resources");
    const w = Math.max(3, ...resources.map((r) => oneLine(r.uri, 120).length), ...resourceTemplates.map((t) => oneLine(t.uriTemplate, 120).length));
    for (const r of resources) {
      const mime = r.mimeType ? oneLine(r.mimeType, 60) : "-";
      io.out(`${s.bold(pad(oneLine(r.uri, 120), w))}  ${pad(mime, 18)}  ${oneLine(r.title ?? r.name, 80)}${r.description ? s.dim(` · ${summary(r.description, 80)}`) : ""}\n`);
    }
    if (resourceTemplates.length > 0) {
      io.out(s.dim("templates:") + "\n");
      for (const t of resourceTemplates) {
        io.out(`${s.bold(pad(oneLine(t.uriTemplate, 120), w))}  ${pad(t.mimeType ? oneLine(t.mimeType, 60) : "-", 18)}  ${oneLine(t.title ?? t.name, 80)}\n`);
      }
    }
    return EXIT.ok;
  });
}

/** `yada prompts`: the prompts and their arguments (required ones starred). */
export async function promptsCommand(ctx: CommandContext): Promise<number> {
  positionals(ctx, 0, 0, "prompts");
  return withClient(ctx, async (client) => {
    const prompts = offers(client, "prompts") ? await client.listPrompts({ signal: ctx.signal }) : [];
    if (ctx.args.json) {
      printJson(ctx.io, { prompts });
      return EXIT.ok;
    }
    const io = ctx.io;
    const s = styles(io);
    header(io, client, `${prompts.length} prompt${prompts.length === 1 ? "" : "s"}`);
    notOffered(io, client, "prompts");
    const rows = prompts.map((p) => [oneLine(p.name, 64), `{${(p.arguments ?? []).map((a) => oneLine(a.required ? `${a.name}*` : a.name, 40)).join(", ")}}`] as const);
    const w0 = Math.max(4, ...rows.map((r) => r[0].length));
    const w1 = Math.min(40, Math.max(2, ...rows.map((r) => r[1].length)));
    prompts.forEach((p, i) => {
      const [name, argsText] = rows[i] ?? ["", ""];
      io.out(`${s.bold(pad(name, w0))}  ${pad(argsText, w1)}  ${summary(p.description ?? p.title, io.outIsTTY ? io.columns - w0 - w1 - 6 : 1_000)}\n`);
    });
    return EXIT.ok;
  });
}
