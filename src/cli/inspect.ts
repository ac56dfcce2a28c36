/**
 * The commands that ask about the server itself: `ping` (is it answering, and
 * how fast), `info` (who it is, which protocol era and revision, its
 * capabilities and instructions) and `complete` (argument suggestions, V9).
 *
 * @module
 */
import { complete, type CompletionRequest } from "../mcp/completions.js";
import { jsonObjectArg, positionals, printJson, type CommandContext } from "./command.js";
import { withClient } from "./client.js";
import { EXIT, UsageError } from "./exit.js";
import { jsonText, oneLine, safe, styles } from "./terminal.js";

/** `yada ping`: one round trip (`ping`, or `server/discover` in the modern era); prints its time. */
export async function pingCommand(ctx: CommandContext): Promise<number> {
  positionals(ctx, 0, 0, "ping");
  return withClient(ctx, async (client) => {
    const started = performance.now();
    await client.ping({ signal: ctx.signal });
    const ms = Math.round((performance.now() - started) * 10) / 10;
    if (ctx.args.json) printJson(ctx.io, { ok: true, ms, era: client.era, protocolVersion: client.protocolVersion });
    else ctx.io.out(`${oneLine(client.serverInfo.name, 80)} answered in ${ms} ms\n`);
    return EXIT.ok;
  });
}

/** `yada info`: the server's identity, the era and revision in use, its capabilities and instructions (server text made safe). */
export async function infoCommand(ctx: CommandContext): Promise<number> {
  positionals(ctx, 0, 0, "info");
  return withClient(ctx, async (client) => {
    const info = {
      serverInfo: client.serverInfo,
      era: client.era,
      protocolVersion: client.protocolVersion,
      capabilities: client.serverCapabilities,
      instructions: client.instructions,
    };
    if (ctx.args.json) {
      printJson(ctx.io, info);
      return EXIT.ok;
    }
    const s = styles(ctx.io);
    const { name, version } = client.serverInfo;
    ctx.io.out(`${s.bold(oneLine(name, 80))} ${oneLine(version, 40)} · ${client.era} era · protocol ${oneLine(client.protocolVersion, 20)}\n`);
    ctx.io.out(`${s.bold("capabilities")}\n${jsonText(client.serverCapabilities)}\n`);
    if (client.instructions) ctx.io.out(`${s.bold("instructions")}\n${safe(client.instructions)}\n`);
    return EXIT.ok;
  });
}

/**
 * `yada complete <prompt|template-uri> <argument> [value] [context-json]`: the
 * server's suggestions for one argument of a prompt (by name) or one variable of a
 * resource template (a URI template, recognised by its `://`), one per line.
 *
 * @throws UsageError (`usage`) for a context that is not an object of strings; the request's errors.
 */
export async function completeCommand(ctx: CommandContext): Promise<number> {
  const [target = "", argument = "", value = "", json] = positionals(ctx, 2, 4, "complete <prompt|template-uri> <argument> [value] [context-json]");
  const context: Record<string, string> = {};
  for (const [k, v] of Object.entries(jsonObjectArg(ctx, json, "the context"))) {
    if (typeof v !== "string") throw new UsageError(`context values are strings; ${JSON.stringify(oneLine(k, 40))} is not`);
    context[k] = v;
  }
  const request: CompletionRequest = {
    ref: target.includes("://") ? { type: "ref/resource", uri: target } : { type: "ref/prompt", name: target },
    argument: { name: argument, value },
  };
  if (json !== undefined) request.context = context;
  return withClient(ctx, async (client) => {
    const result = await complete(client, request, { signal: ctx.signal });
    if (ctx.args.json) {
      printJson(ctx.io, result);
      return EXIT.ok;
    }
    for (const v of result.values) ctx.io.out(`${oneLine(v, 400)}\n`);
    if (result.hasMore) ctx.io.err(`yada: ${result.total !== undefined ? `${result.total} values in all` : "more values exist"}; type more to narrow them\n`);
    return EXIT.ok;
  });
}
