/**
 * How a run looks in the terminal (R2 events → text): the model's text as it
 * streams, each tool call with its arguments (`→`), each result (`←`, clipped),
 * MCP progress on the stderr progress line, and the calls that stopped for
 * approval. With `--json`, every event is one JSON line instead.
 *
 * @module
 */
import type { AgentEvent, ProposedCall } from "../agent/events.js";
import type { ToolResultPart } from "../tools/types.js";
import { RUN_ARGUMENT_CHARS, RUN_RESULT_CHARS, RUN_RESULT_LINES } from "../limits.js";
import { base64Bytes, clip, indent, jsonText, oneLine, progressLine, safe, styles, type Io, type ProgressLine } from "./terminal.js";

/** Receives the events of a run. */
export interface RunView {
  onEvent(event: AgentEvent): void;
}

/** Options of {@link textView}. */
export interface TextViewOptions {
  /** Also print the model's thinking (dimmed). */
  thinking?: boolean;
  /** Prefix of every line (the demo indents its run). */
  indent?: string;
}

/** A call's arguments on one line, bounded. */
export function argumentsLine(args: Record<string, unknown>): string {
  return oneLine(JSON.stringify(args), RUN_ARGUMENT_CHARS);
}

/** Tool result parts as text: text as itself, images as `[image: mime, N bytes]`. */
export function partsText(parts: readonly ToolResultPart[]): string {
  return parts.map((p) => (p.type === "text" ? safe(p.text) : `[image: ${oneLine(p.mimeType, 60)}, ${base64Bytes(p.data)} bytes]`)).join("\n");
}

/**
 * The human view of a run on `io`: streamed text on stdout; `→ tool {args}` when
 * a call starts and `← tool ok|error` with its result (at most
 * `RUN_RESULT_LINES` lines) when it ends; progress on stderr.
 */
export function textView(io: Io, options: TextViewOptions = {}): RunView {
  const s = styles(io);
  const lead = options.indent ?? "";
  let atLineStart = true;
  let streaming: "text" | "thinking" | undefined;
  const progress = new Map<string, ProgressLine>();
  const write = (text: string): void => {
    if (text === "") return;
    // Every line of streamed text gets the lead, also when a delta ends or starts mid-line.
    let out = "";
    for (const ch of text.split(/(\n)/)) {
      if (ch === "\n") {
        out += "\n";
        atLineStart = true;
      } else if (ch !== "") {
        out += (atLineStart ? lead : "") + ch;
        atLineStart = false;
      }
    }
    io.out(out);
  };
  const endLine = (): void => {
    if (!atLineStart) write("\n");
    streaming = undefined;
  };
  return {
    onEvent(event) {
      switch (event.type) {
        case "message_delta":
          if (event.kind === "thinking" && !options.thinking) return;
          if (streaming !== event.kind) endLine();
          streaming = event.kind;
          write(event.kind === "thinking" ? s.dim(safe(event.text)) : safe(event.text));
          return;
        case "message_end":
          endLine();
          return;
        case "tool_execution_start":
          endLine();
          write(`${s.cyan("→")} ${s.bold(oneLine(event.toolName, 80))} ${s.dim(argumentsLine(event.arguments))}\n`);
          progress.set(event.callId, progressLine(io, event.toolName));
          return;
        case "tool_execution_update":
          progress.get(event.callId)?.update({ progress: event.update.progress ?? 0, ...(event.update.total !== undefined ? { total: event.update.total } : {}), ...(event.update.message !== undefined ? { message: event.update.message } : {}) });
          return;
        case "tool_execution_end": {
          progress.get(event.callId)?.done();
          progress.delete(event.callId);
          endLine();
          const status = event.isError ? s.red("error") : s.green("ok");
          // A resumed run's fed-back outcome was executed by a worker, not by this run (W8).
          const from = event.resumed ? ` ${s.dim("(from the action store)")}` : "";
          write(`${s.cyan("←")} ${s.bold(oneLine(event.toolName, 80))} ${status}${from}\n`);
          const text = clip(partsText(event.content), RUN_RESULT_LINES, RUN_RESULT_CHARS);
          if (text !== "") write(`${indent(text, "    ")}\n`);
          return;
        }
        default:
          return;
      }
    },
  };
}

/** The machine view: every event as one JSON line on stdout (`--json`), escaped as {@link jsonText} does. */
export function jsonView(io: Io): RunView {
  return { onEvent: (event) => io.out(`${jsonText(event, true)}\n`) };
}

/**
 * Lists the calls that stopped for approval, numbered, with their arguments
 * (indented JSON), and says that nothing was executed.
 */
export function printApproval(io: Io, calls: readonly ProposedCall[], lead = ""): void {
  const s = styles(io);
  const n = calls.length;
  io.out(`${lead}${s.yellow(s.bold("approval required"))}: ${n} proposed call${n === 1 ? "" : "s"}, not executed\n`);
  calls.forEach((call, i) => {
    io.out(`${lead}  ${i + 1}. ${s.bold(oneLine(call.toolName, 80))} ${s.dim(`(${call.effect}, call ${oneLine(call.callId, 80)})`)}\n`);
    io.out(`${indent(jsonText(call.arguments), `${lead}     `)}\n`);
  });
}
