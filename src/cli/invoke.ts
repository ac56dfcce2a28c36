/**
 * The commands that ask the server for one thing: `call` (a tool, with a
 * progress line on stderr while it runs), `read` (a resource), `prompt` (a
 * rendered prompt). Arguments are checked before anything is launched.
 *
 * @module
 */
import type { CallToolResult, ResourceContents } from "../mcp/types.js";
import { jsonObjectArg, positionals, printJson, writeUserFile, type CommandContext } from "./command.js";
import { withClient } from "./client.js";
import { ToolNotFoundError } from "../errors.js";
import { offers } from "./discover.js";
import { CliExit, EXIT, UsageError } from "./exit.js";
import { ask, PromptInterrupted } from "./prompt.js";
import { base64Bytes, contentText, jsonText, oneLine, progressLine, safe, styles } from "./terminal.js";

/** A call result as terminal text: its content, or its structured content when there is no content. */
export function callResultText(result: CallToolResult): string {
  if (result.content.length === 0 && result.structuredContent !== undefined) return jsonText(result.structuredContent);
  return contentText(result.content);
}

function withNewline(text: string): string {
  return text === "" || text.endsWith("\n") ? text : `${text}\n`;
}

/**
 * `yada call <tool> [json|-]`: calls the tool and prints its content. While it
 * runs, MCP progress is shown on stderr (J6), and so is the status of a task the
 * call runs as (V8); with `--timeout`, progress restarts the bound. Exit 1 when the tool answers `isError: true`.
 * A tool not annotated `readOnlyHint: true` is called only with `--yes` or a y at
 * the terminal (P4): a direct call bypasses approvals.
 *
 * @throws UsageError (`usage`) for arguments that are not a JSON object; the
 * call's errors (`jsonrpc` for an unknown tool or arguments the server refuses).
 */
export async function callCommand(ctx: CommandContext): Promise<number> {
  const [tool = "", json] = positionals(ctx, 1, 2, "call <tool> [json|-]");
  const args = jsonObjectArg(ctx, json, "the tool arguments");
  return withClient(ctx, async (client) => {
    // P4: a tool the server does not list is refused before any call (exit 6), whatever the server would answer.
    const listed = offers(client, "tools") ? await client.listTools({ signal: ctx.signal }) : [];
    const remote = listed.find((t) => t.name === tool);
    if (!remote) {
      throw new ToolNotFoundError(`${client.name}: no tool ${JSON.stringify(oneLine(tool, 80))} (yada tools lists them)`);
    }
    // P4: a direct call of a tool that may write bypasses approvals: said, and confirmed by --yes or at the terminal.
    if (remote.annotations?.readOnlyHint !== true) await confirmDirectCall(ctx, tool, json === "-");
    const progress = progressLine(ctx.io, tool);
    let result: CallToolResult;
    try {
      result = await client.callTool(tool, args, {
        signal: ctx.signal,
        onProgress: (p) => progress.update(p),
        resetTimeoutOnProgress: true,
      });
    } finally {
      progress.done();
    }
    if (ctx.args.json) printJson(ctx.io, result);
    else ctx.io.out(withNewline(callResultText(result)));
    if (result.isError) throw new CliExit("tool_error", EXIT.toolError, `${oneLine(tool, 80)} answered with isError: true`, { inDocument: true });
    return EXIT.ok;
  });
}

/**
 * Says on stderr that `tool` is not marked read-only and that a direct call
 * bypasses approvals, then goes on with `--yes`, or asks y/n when stdin is a
 * terminal (and not the arguments' source).
 *
 * @throws CliExit `approval_required` (4) without `--yes` off a terminal, or on a
 * no; `cancelled` (130) when the question is interrupted. Nothing is called then.
 */
async function confirmDirectCall(ctx: CommandContext, tool: string, argsOnStdin: boolean): Promise<void> {
  const name = oneLine(tool, 80);
  ctx.io.err(`yada: ${name} is not marked read-only: a direct call may change things and bypasses approvals (yada run records and asks for writes)\n`);
  if (ctx.args.yes) return;
  if (process.stdin.isTTY !== true || argsOnStdin) throw new CliExit("approval_required", EXIT.approval, `${name} was not called: confirm a direct call with --yes`);
  let yes: boolean;
  try {
    yes = await ask(`call ${name} now? [y/N] `, ctx.signal);
  } catch (e) {
    if (e instanceof PromptInterrupted) throw new CliExit("cancelled", EXIT.interrupted, `${name} was not called (interrupted)`);
    throw e;
  }
  if (!yes) throw new CliExit("approval_required", EXIT.approval, `${name} was not called (declined at the terminal)`);
}

/** The bytes of one resource content: its text as UTF-8, or its blob decoded. */
function contentBytes(content: ResourceContents): Buffer {
  return "text" in content ? Buffer.from(content.text, "utf8") : Buffer.from(content.blob, "base64");
}

/**
 * `yada read <uri>`: reads a resource and prints its text; blobs are shown as a
 * placeholder (`-o file` writes the bytes, `--json` prints them as base64).
 *
 * @throws UsageError (`usage`) for `-o` with a resource of several contents; the
 * request's errors (`jsonrpc` for an unknown resource).
 */
export async function readCommand(ctx: CommandContext): Promise<number> {
  const [uri = ""] = positionals(ctx, 1, 1, "read <uri>");
  return withClient(ctx, async (client) => {
    const contents = await client.readResource(uri, { signal: ctx.signal });
    const io = ctx.io;
    if (ctx.args.output !== undefined) {
      const only = contents[0];
      if (contents.length !== 1 || !only) throw new UsageError(`-o needs a resource with one content; ${oneLine(uri, 120)} has ${contents.length} (use --json)`);
      const bytes = contentBytes(only);
      writeUserFile(ctx.args.output, bytes, "the resource to");
      if (ctx.args.json) printJson(io, { uri: only.uri, mimeType: only.mimeType, bytes: bytes.length, file: ctx.args.output });
      else io.out(`wrote ${bytes.length} bytes to ${ctx.args.output}\n`);
      return EXIT.ok;
    }
    if (ctx.args.json) {
      printJson(io, { contents });
      return EXIT.ok;
    }
    const s = styles(io);
    for (const c of contents) {
      if (contents.length > 1) io.out(s.dim(`[${oneLine(c.uri, 200)}${c.mimeType ? ` ${oneLine(c.mimeType, 60)}` : ""}]`) + "\n");
      if ("text" in c) io.out(withNewline(safe(c.text)));
      else io.out(`[blob: ${c.mimeType ? oneLine(c.mimeType, 60) : "application/octet-stream"}, ${base64Bytes(c.blob)} bytes; -o <file> saves it]\n`);
    }
    return EXIT.ok;
  });
}

/**
 * `yada prompt <name> [json]`: renders a prompt; the JSON object's values must be strings (MCP prompt arguments).
 *
 * @throws UsageError (`usage`) for arguments that are not an object of strings; the request's errors.
 */
export async function promptCommand(ctx: CommandContext): Promise<number> {
  const [name = "", json] = positionals(ctx, 1, 2, "prompt <name> [json]");
  const raw = jsonObjectArg(ctx, json, "the prompt arguments");
  const args: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v !== "string") throw new UsageError(`prompt arguments are strings; ${JSON.stringify(oneLine(k, 40))} is not`);
    args[k] = v;
  }
  return withClient(ctx, async (client) => {
    const result = await client.getPrompt(name, args, { signal: ctx.signal });
    const io = ctx.io;
    if (ctx.args.json) {
      printJson(io, result);
      return EXIT.ok;
    }
    const s = styles(io);
    if (result.description) io.out(s.dim(oneLine(result.description, 400)) + "\n");
    for (const m of result.messages) io.out(`${s.bold(`[${m.role}]`)}\n${withNewline(contentText([m.content]))}`);
    return EXIT.ok;
  });
}
