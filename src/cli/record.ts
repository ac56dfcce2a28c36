/**
 * `yada record -o file`: records a session with a server as a transcript (X4):
 * the handshake, `tools/list`, each `--call`, in the project's JSONL format —
 *
 * ```
 * {"transcript":1,"server":{…serverInfo},"transport":"stdio"|"http","revision":"…","date":"YYYY-MM-DD","command":[…] | "url":"…","note":"…"}
 * {"dir":"c2s","msg":{…}}   one line per message, client to server
 * {"dir":"s2c","msg":{…}}   and server to client, in the order they passed
 * ```
 *
 * Messages are taken through a {@link RecordingTransport}; the replay servers of
 * the test suite play such a file back. Headers are never recorded; a URL is
 * kept without its query string.
 *
 * @module
 */
import { JsonRpcError, YadaError } from "../errors.js";
import type { JsonRecord } from "../mcp/types.js";
import { RecordingTransport, type TranscriptEntry } from "../transport/recording.js";
import { jsonObjectArg, loggerOf, positionals, printJson, writeUserFile, type CommandContext } from "./command.js";
import { EXIT, UsageError, errorLine } from "./exit.js";
import { chooseServer, connectClient, type ServerChoice } from "./server.js";
import { oneLine } from "./terminal.js";

/** The header line of a transcript. */
export interface TranscriptHeader {
  transcript: 1;
  server: JsonRecord | null;
  transport: "stdio" | "http";
  revision: string | null;
  date: string;
  command?: string[];
  url?: string;
  note?: string;
}

/** Where the server was, for the header: the command (node_modules paths made relative) or the URL without query. */
function origin(choice: ServerChoice): Pick<TranscriptHeader, "command" | "url"> {
  if (choice.kind === "http") {
    const u = new URL(choice.url);
    return { url: `${u.origin}${u.pathname}` };
  }
  return { command: [choice.command, ...choice.args].map((part) => part.replace(/^.*[\\/]node_modules[\\/]/, "node_modules/")) };
}

/** Writes a transcript: the header, then one line per message. @throws UsageError (`usage`) when the file cannot be written. */
export function writeTranscript(file: string, header: TranscriptHeader, lines: readonly TranscriptEntry[]): void {
  writeUserFile(file, [header, ...lines].map((l) => JSON.stringify(l)).join("\n") + "\n", "the transcript");
}

/** What happened to one `--call`. */
interface CallOutcome {
  tool: string;
  isError?: boolean;
  error?: string;
}

/**
 * Runs `record`: connects through a recording transport, lists the tools, makes each `--call`
 * (a refused call is recorded and reported, and recording goes on), closes, and
 * writes the transcript. When the connection fails after the handshake, what was
 * recorded is still written, then the error is reported.
 *
 * @throws UsageError (`usage`) without `-o`, or for `--call` arguments that are
 * not a JSON object; connection errors.
 */
export async function recordCommand(ctx: CommandContext): Promise<number> {
  positionals(ctx, 0, 0, "record -o <file> [--call <tool> [json]]...");
  const file = ctx.args.output;
  if (file === undefined || file === "") throw new UsageError("record needs -o <file>");
  const calls = ctx.args.calls.map((c) => ({ tool: c.tool, args: jsonObjectArg(ctx, c.json, `the arguments of --call ${oneLine(c.tool, 40)}`) }));
  const choice = chooseServer(ctx.args, ctx.io.env);
  writeUserFile(file, "", "the transcript"); // fails now, not after the session, when the file cannot be written
  const lines: TranscriptEntry[] = [];
  const logger = loggerOf(ctx);
  const client = await connectClient(choice, {
    signal: ctx.signal,
    ...(logger ? { logger } : {}),
    wrap: (t) => new RecordingTransport(t, (e) => lines.push(structuredClone(e))),
  });
  const outcomes: CallOutcome[] = [];
  let failure: unknown;
  try {
    await client.listTools({ signal: ctx.signal });
    for (const call of calls) {
      try {
        const result = await client.callTool(call.tool, call.args, { signal: ctx.signal });
        outcomes.push({ tool: call.tool, isError: result.isError });
      } catch (e) {
        if (!(e instanceof JsonRpcError)) throw e;
        outcomes.push({ tool: call.tool, error: e.message });
        ctx.io.err(`${errorLine(e)} (recorded)\n`);
      }
    }
  } catch (e) {
    failure = e;
  } finally {
    await client.close().catch(() => {});
  }
  const header: TranscriptHeader = {
    transcript: 1,
    server: { ...client.serverInfo },
    transport: choice.kind,
    revision: client.protocolVersion,
    date: new Date().toISOString().slice(0, 10),
    ...origin(choice),
    ...(ctx.args.note !== undefined ? { note: ctx.args.note } : {}),
  };
  writeTranscript(file, header, lines);
  if (failure !== undefined) {
    if (failure instanceof YadaError) ctx.io.err(`yada: the transcript so far (${lines.length} messages) was written to ${file}\n`);
    throw failure;
  }
  if (ctx.args.json) printJson(ctx.io, { file, messages: lines.length, revision: header.revision, calls: outcomes });
  else {
    const what = calls.length === 0 ? "tools/list" : `tools/list and ${calls.length} call${calls.length === 1 ? "" : "s"}`;
    ctx.io.out(`recorded ${lines.length} messages (${what}, revision ${header.revision ?? "?"}) to ${file}\n`);
  }
  return EXIT.ok;
}
