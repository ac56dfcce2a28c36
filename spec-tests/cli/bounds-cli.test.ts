// X6: the CLI's bounds, crossed: input the user hands the real `yada` process
// (stdin JSON, a plan file) and a real server's error, and the bounded parts of
// what the CLI prints (error lines, the run view, progress lines, --stdio).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { splitCommandLine } from "../../src/cli/args.js";
import { EXIT, UsageError } from "../../src/cli/exit.js";
import { parseScript } from "../../src/cli/provider.js";
import { oneLine, progressLine, type Io } from "../../src/cli/terminal.js";
import { textView } from "../../src/cli/view.js";
import {
  MAX_CLI_JSON_BYTES,
  MAX_COMMAND_LINE_CHARS,
  MAX_ERROR_LINE_CHARS,
  MAX_RPC_ERROR_MESSAGE_CHARS,
  MAX_SCRIPT_BYTES,
  MAX_SCRIPT_STEPS,
  PROGRESS_LOG_INTERVAL_MS,
  RUN_ARGUMENT_CHARS,
  RUN_RESULT_CHARS,
  RUN_RESULT_LINES,
} from "../../src/limits.js";
import { quote, yada } from "./support.js";

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "yada-cli-bounds-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const NO_SERVER = "/nonexistent/server-binary";
/** `text` padded with spaces to exactly `bytes` (ASCII) bytes. */
const padded = (text: string, bytes: number): string => text + " ".repeat(bytes - text.length);

const fakeIo = (): Io & { outText: string; errText: string } => {
  const io = { outText: "", errText: "", out: (t: string) => void (io.outText += t), err: (t: string) => void (io.errText += t), color: false, errIsTTY: false, outIsTTY: false, columns: 80, env: {} };
  return io;
};

describe("X6: what the user hands the yada process", { timeout: 60_000 }, () => {
  test("X6: JSON arguments on stdin of MAX_CLI_JSON_BYTES are read; one byte more is a usage error", async () => {
    const at = await yada(["call", "lookup", "-", "--stdio", NO_SERVER], { input: padded('{"sku":"ABC-123"}', MAX_CLI_JSON_BYTES) });
    assert.ok(!/more than \d+ bytes/.test(at.stderr), at.stderr);
    assert.notEqual(at.code, EXIT.usage, "past the argument check: the server could not be started");
    const over = await yada(["call", "lookup", "-", "--stdio", NO_SERVER], { input: padded('{"sku":"ABC-123"}', MAX_CLI_JSON_BYTES + 1) });
    assert.equal(over.code, EXIT.usage);
    assert.match(over.stderr, new RegExp(`^yada: usage: stdin holds more than ${MAX_CLI_JSON_BYTES} bytes`, "m"));
  });

  test("X6: a --script plan of MAX_SCRIPT_BYTES is read; one byte more is a usage error", async () => {
    const plan = JSON.stringify([{ text: "done" }]);
    const at = join(dir, "at.json");
    const over = join(dir, "over.json");
    await writeFile(at, padded(plan, MAX_SCRIPT_BYTES));
    await writeFile(over, padded(plan, MAX_SCRIPT_BYTES + 1));
    const ok = await yada(["run", "go", "--stdio", NO_SERVER, "--script", at]);
    assert.ok(!ok.stderr.includes("larger than"), ok.stderr);
    const refused = await yada(["run", "go", "--stdio", NO_SERVER, "--script", over]);
    assert.equal(refused.code, EXIT.usage);
    assert.ok(refused.stderr.includes(`is larger than ${MAX_SCRIPT_BYTES} bytes`), refused.stderr);
  });

  test("X6: a server's long error message is printed on one line of at most MAX_ERROR_LINE_CHARS characters", async () => {
    // Every call is answered with an error as long as the client keeps (MAX_RPC_ERROR_MESSAGE_CHARS).
    const script = `require("readline").createInterface({ input: process.stdin }).on("line", (l) => {
      const m = JSON.parse(l); if (m.id === undefined) return;
      const send = (x) => process.stdout.write(JSON.stringify(x) + "\\n");
      if (m.method === "initialize") return send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "e", version: "1" } } });
      send({ jsonrpc: "2.0", id: m.id, error: { code: -32000, message: "e".repeat(${MAX_RPC_ERROR_MESSAGE_CHARS}) } });
    });`;
    const r = await yada(["call", "anything", "{}", "--stdio", [process.execPath, "-e", script].map(quote).join(" ")]);
    const line = r.stderr.split("\n").find((l) => l.startsWith("yada: jsonrpc: "));
    assert.ok(line, r.stderr.slice(0, 500));
    const message = line.slice("yada: jsonrpc: ".length);
    assert.equal(message.length, MAX_ERROR_LINE_CHARS, "cut to the bound");
    assert.ok(message.endsWith("e…"));
  });
});

describe("X6: bounded output", () => {
  test("X6: oneLine keeps MAX_ERROR_LINE_CHARS characters whole and cuts a longer text to that many", () => {
    assert.equal(oneLine("x".repeat(MAX_ERROR_LINE_CHARS)), "x".repeat(MAX_ERROR_LINE_CHARS));
    assert.equal(oneLine("x".repeat(MAX_ERROR_LINE_CHARS + 1)), "x".repeat(MAX_ERROR_LINE_CHARS - 1) + "…");
  });

  test("X6: a --script plan may have MAX_SCRIPT_STEPS steps, not one more", () => {
    const steps = (n: number): string => JSON.stringify(Array.from({ length: n }, () => ({ text: "t" })));
    assert.equal(parseScript(steps(MAX_SCRIPT_STEPS), "plan").length, MAX_SCRIPT_STEPS);
    assert.throws(() => parseScript(steps(MAX_SCRIPT_STEPS + 1), "plan"), (e: unknown) => e instanceof UsageError && e.message.includes(String(MAX_SCRIPT_STEPS)));
  });

  test("X6: a --stdio line of MAX_COMMAND_LINE_CHARS characters is split; one more is a usage error", () => {
    assert.deepEqual(splitCommandLine("n".repeat(MAX_COMMAND_LINE_CHARS)), ["n".repeat(MAX_COMMAND_LINE_CHARS)]);
    assert.throws(() => splitCommandLine("n".repeat(MAX_COMMAND_LINE_CHARS + 1)), UsageError);
  });

  test("X6: run shows a call's arguments in at most RUN_ARGUMENT_CHARS characters", () => {
    const io = fakeIo();
    textView(io).onEvent({ type: "tool_execution_start", turn: 1, callId: "c", toolName: "t", arguments: { q: "a".repeat(RUN_ARGUMENT_CHARS * 2) } });
    const shown = io.outText.trim().split(" ").slice(2).join(" ");
    assert.equal(shown.length, RUN_ARGUMENT_CHARS);
    assert.ok(shown.startsWith('{"q":"aaa') && shown.endsWith("…"));
  });

  test("X6: run shows RUN_RESULT_LINES lines and RUN_RESULT_CHARS characters of a result, and says what it left out", () => {
    const shown = (text: string): string => {
      const io = fakeIo();
      textView(io).onEvent({ type: "tool_execution_end", turn: 1, callId: "c", toolName: "t", content: [{ type: "text", text }], isError: false });
      return io.outText.split("\n").slice(1).join("\n").trimEnd();
    };
    const lines = (n: number): string => Array.from({ length: n }, (_, i) => `l${i}`).join("\n");
    assert.equal(shown(lines(RUN_RESULT_LINES)).split("\n").length, RUN_RESULT_LINES);
    const cutLines = shown(lines(RUN_RESULT_LINES + 1)).split("\n");
    assert.equal(cutLines.length, RUN_RESULT_LINES + 1);
    assert.match(cutLines.at(-1) ?? "", /… \(\d+ more characters, 1 more lines\)$/);
    assert.equal(shown("c".repeat(RUN_RESULT_CHARS)).trim(), "c".repeat(RUN_RESULT_CHARS));
    assert.equal(shown("c".repeat(RUN_RESULT_CHARS + 1)).trim(), `${"c".repeat(RUN_RESULT_CHARS)}\n    … (1 more characters)`);
  });

  test("X6: off a terminal, a progress line is printed at most once per PROGRESS_LOG_INTERVAL_MS", () => {
    const io = fakeIo();
    let now = 1_000;
    const line = progressLine(io, "work", () => now);
    line.update({ progress: 1, total: 10 });
    now += PROGRESS_LOG_INTERVAL_MS - 1;
    line.update({ progress: 2, total: 10 });
    assert.equal(io.errText.split("\n").filter(Boolean).length, 1, "not within the interval");
    now += 1;
    line.update({ progress: 3, total: 10 });
    assert.deepEqual(io.errText.split("\n").filter(Boolean), ["yada: progress: work 1/10 (10%)", "yada: progress: work 3/10 (30%)"]);
  });
});
