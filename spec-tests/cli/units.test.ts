// X6: the CLI's pure parts: the command line, the shell-like split of --stdio,
// headers, error lines, terminal safety, and the confirmed tool's version.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseCommandLine, parseHeader, splitCommandLine } from "../../src/cli/args.js";
import { confirmVersion } from "../../src/tools/fingerprint.js";
import { CliExit, EXIT, UsageError, errorLine, exitCodeOf } from "../../src/cli/exit.js";
import { parseScript } from "../../src/cli/provider.js";
import { clip, contentText, jsonText, oneLine, progressLine, safe, wantsColor, type Io } from "../../src/cli/terminal.js";
import { printJson } from "../../src/cli/command.js";
import { callResultText } from "../../src/cli/invoke.js";
import { jsonView } from "../../src/cli/view.js";
import { argumentSummary } from "../../src/cli/discover.js";
import { describeServer } from "../../src/cli/server.js";
import type { AgentEvent } from "../../src/agent/events.js";
import { MAX_LINE_BYTES } from "../../src/limits.js";
import { ConnectionClosedError, JsonRpcError, ProviderError, TimeoutError, TransportError } from "../../src/errors.js";
import type { McpTool } from "../../src/mcp/types.js";

describe("X6: the command line", () => {
  test("X6: --stdio is split like a shell splits simple quoting, and nothing more", () => {
    assert.deepEqual(splitCommandLine(`node "my server.mjs" --name 'a b' plain\\ space`), ["node", "my server.mjs", "--name", "a b", "plain space"]);
    assert.deepEqual(splitCommandLine(`say "a \\"quoted\\" \\$HOME \\n" ''`), ["say", 'a "quoted" $HOME \\n', ""]);
    assert.deepEqual(splitCommandLine("  a\tb  "), ["a", "b"]);
    assert.deepEqual(splitCommandLine("echo $HOME | cat > out"), ["echo", "$HOME", "|", "cat", ">", "out"], "no expansion, pipes or redirections");
    assert.deepEqual(splitCommandLine(`a'b'"c"d`), ["abcd"]);
    for (const bad of ["node 'x", 'node "x', "node x\\", "   ", ""]) assert.throws(() => splitCommandLine(bad), UsageError, JSON.stringify(bad));
  });

  test("X6: headers split at the first colon; the value keeps later colons", () => {
    assert.deepEqual(parseHeader("Authorization: Bearer a:b"), ["Authorization", "Bearer a:b"]);
    assert.deepEqual(parseHeader("X-Empty:"), ["X-Empty", ""]);
    assert.throws(() => parseHeader("no colon"), UsageError);
  });

  test("X6: flags anywhere, --flag=value, short flags, repeatable --header, -- ends the flags", () => {
    const a = parseCommandLine(["--json", "call", "lookup", "--header=A: 1", "-v", "--url", "http://h/mcp", "--header", "B: 2", "--", "--not-a-flag"]);
    assert.equal(a.command, "call");
    assert.deepEqual(a.positionals, ["lookup", "--not-a-flag"]);
    assert.deepEqual(a.headers, ["A: 1", "B: 2"]);
    assert.equal(a.json, true);
    assert.equal(a.verbose, true);
    assert.equal(a.url, "http://h/mcp");
  });

  test("X6: --call takes a tool and, when the next word is an object, its JSON", () => {
    const a = parseCommandLine(["record", "-o", "f", "--call", "lookup", '{"sku":"A"}', "--call", "fail", "--stdio", "x"]);
    assert.deepEqual(a.calls, [{ tool: "lookup", json: '{"sku":"A"}' }, { tool: "fail" }]);
    assert.equal(a.output, "f");
  });

  test("X6: a flag of another command, an unknown flag or a missing value is a usage error", () => {
    assert.throws(() => parseCommandLine(["tools", "--script", "p.json"]), /--script does not apply to tools/);
    assert.throws(() => parseCommandLine(["tools", "--call", "x"]), /--call does not apply to tools/);
    assert.throws(() => parseCommandLine(["tools", "--nope"]), /unknown flag/);
    assert.throws(() => parseCommandLine(["tools", "--url"]), /--url needs a value/);
    assert.throws(() => parseCommandLine(["tools", "--json=yes"]), /--json takes no value/);
    assert.throws(() => parseCommandLine(["run", "x", "--max-steps", "0"]), /--max-steps needs a positive integer/);
    assert.deepEqual(parseCommandLine(["run", "x", "--confirm-tools", "*"]).confirmTools, ["*"]);
    assert.throws(() => parseCommandLine(["run", "x", "--read-tools", "a,,b"]), UsageError);
  });

  test("X6: a scripted plan is checked field by field", () => {
    assert.deepEqual(parseScript('[{"text":"hi","toolCalls":[{"name":"a","arguments":{"x":1}}]}]', "p"), [{ text: "hi", toolCalls: [{ name: "a", arguments: { x: 1 } }] }]);
    assert.throws(() => parseScript("[]", "p"), /non-empty JSON array/);
    assert.throws(() => parseScript('[{"txt":"hi"}]', "p"), /step 1: unknown field "txt"/);
    assert.throws(() => parseScript('[{"toolCalls":[{"name":"a","arguments":[1]}]}]', "p"), /arguments must be an object/);
    assert.throws(() => parseScript("{", "p"), /not valid JSON/);
  });
});

describe("X6: errors and exit codes", () => {
  test("X6: every error is one line `yada: <code>: <message>` with its exit code", () => {
    const cases: Array<[unknown, string, number]> = [
      [new UsageError("bad flag"), "yada: usage: bad flag (see yada --help)", EXIT.usage],
      [new TransportError("x: could not start"), "yada: transport: x: could not start", EXIT.connection],
      [new ConnectionClosedError("x exited with code 1; last stderr: line one\nline two"), "yada: connection_closed: x exited with code 1; last stderr: line one line two", EXIT.connection],
      [new TimeoutError("x timed out", 5), "yada: timeout: x timed out", EXIT.connection],
      [new JsonRpcError("tools/call", -32602, "Unknown tool"), "yada: jsonrpc: tools/call: server error -32602: Unknown tool", EXIT.refused],
      [new ProviderError("auth", "anthropic", "401"), "yada: provider: anthropic: 401", EXIT.provider],
      [new CliExit("approval_required", EXIT.approval, "1 call needs approval"), "yada: approval_required: 1 call needs approval", EXIT.approval],
      [new TypeError("boom"), "yada: internal: boom", EXIT.internal],
    ];
    for (const [e, line, code] of cases) {
      assert.equal(errorLine(e), line);
      assert.equal(exitCodeOf(e), code, line);
    }
  });

  test("X6: the operating system's error code of a cause is shown, never the cause's message", () => {
    const cause = Object.assign(new Error("connect ECONNREFUSED 10.0.0.1:443 token=abc"), { code: "ECONNREFUSED" });
    const line = errorLine(new TransportError("HTTP server https://x/mcp: the HTTP exchange failed", { cause: new TypeError("fetch failed", { cause }) }));
    assert.equal(line, "yada: transport: HTTP server https://x/mcp: the HTTP exchange failed (ECONNREFUSED)");
  });
});

describe("X6: terminal safety", () => {
  test("X6: server text cannot drive the terminal: escapes and controls are replaced, newlines and tabs kept", () => {
    assert.equal(safe("ok\u001b[2J\u001b]0;title\u0007\r\nnext\tcol\u009b\u202e"), "ok\uFFFD[2J\uFFFD]0;title\uFFFD\nnext\tcol\uFFFD\uFFFD");
    assert.equal(oneLine("a\n\n b\u001b[1m"), "a b\uFFFD[1m");
    assert.equal(contentText([{ type: "text", text: "\u001b[31mred" }, { type: "image", data: "AAAA", mimeType: "image/png\u001b" }]), "\uFFFD[31mred\n[image: image/png\uFFFD, 3 bytes]");
  });

  test("X6: --json output escapes what a terminal would act on (DEL, C1, bidi overrides) and means the same JSON", () => {
    const value = { text: "a\u009b2Jb\u007f\u202ec\u0085", n: 1 };
    let out = "";
    const io = { out: (t: string) => void (out += t), err: () => {}, color: false, errIsTTY: false, outIsTTY: true, columns: 80, env: {} };
    printJson(io, value);
    jsonView(io).onEvent({ type: "message_delta", kind: "text", text: value.text } as AgentEvent);
    assert.doesNotMatch(out, /[\u007f-\u009f\u202a-\u202e]/);
    const [pretty, event] = [out.slice(0, out.lastIndexOf("\n", out.length - 2) + 1), out.slice(out.lastIndexOf("\n", out.length - 2) + 1)];
    assert.deepEqual(JSON.parse(pretty), value);
    assert.equal(pretty, `${JSON.stringify(value, null, 2).replace(/[\u007f-\u009f\u202e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}\n`);
    assert.equal((JSON.parse(event) as { text: string }).text, value.text);
    assert.equal(jsonText({ a: [1] }), '{\n  "a": [\n    1\n  ]\n}', "small values stay indented");
  });

  test("X6, U6: arguments shown at the terminal hide nothing: zero-width characters, bidi marks, Unicode tags are \\u escapes (the same JSON); safe() replaces bidi marks and zero-width spaces", () => {
    // Two keys that would look alike, a right-to-left mark, an invisible tag run.
    const value = { amount: 1, "amount\u200b": 1000, to: "bob\u200f\u061c", note: "ok\u{E0041}\u{E0042}", sep: "a\u2028b", hangul: "\u3164" };
    const text = jsonText(value);
    assert.doesNotMatch(text, /[\u200b-\u200f\u061c\u2028\u3164]|[\u{E0000}-\u{E007F}]/u, text);
    assert.match(text, /"amount\\u200b": 1000/);
    assert.match(text, /"ok\\udb40\\udc41\\udb40\\udc42"/);
    assert.deepEqual(JSON.parse(text), value);
    assert.equal(jsonText({ a: [1] }), '{\n  "a": [\n    1\n  ]\n}');
    assert.equal(safe("pay\u200f\u061c 100\u200b\u2060\ufeff"), "pay\uFFFD\uFFFD 100\uFFFD\uFFFD\uFFFD");
    assert.equal(safe("emoji \u{1F468}\u200d\u{1F469}"), "emoji \u{1F468}\u200d\u{1F469}", "a joiner inside an emoji stays");
  });

  test("X6: indenting a deeply nested answer cannot multiply its size: past MAX_LINE_BYTES it is printed compact", () => {
    let deep: unknown = new Array(60_000).fill(0);
    for (let i = 0; i < 300; i++) deep = [deep];
    const compact = JSON.stringify(deep);
    for (const text of [jsonText(deep), callResultText({ content: [], isError: false, structuredContent: { deep } as Record<string, unknown> })]) {
      assert.ok(text.length < 2 * compact.length, `${text.length} characters for ${compact.length} of JSON`);
      assert.ok(text.length <= MAX_LINE_BYTES);
    }
    assert.deepEqual(JSON.parse(jsonText(deep)), deep);
  });

  test("X6: a tool with very many properties and required names is summarised in linear time", () => {
    const names = Array.from({ length: 60_000 }, (_, i) => `p${i}`);
    const tool = { name: "t", inputSchema: { type: "object", properties: Object.fromEntries(names.map((k) => [k, {}])), required: [...names].reverse() } } as McpTool;
    const t0 = Date.now();
    const text = argumentSummary(tool);
    assert.ok(Date.now() - t0 < 1_000, `took ${Date.now() - t0} ms`);
    assert.ok(text.startsWith("{p0*, p1*, "));
  });

  test("X6: the run header names a stdio server on one safe, bounded line", () => {
    const line = describeServer({ kind: "stdio", name: "mcp", command: "node\u001b]0;title\u0007", args: ["x\ny", "z".repeat(500)], inheritStderr: false });
    assert.doesNotMatch(line, /[\u0000-\u001f]/);
    assert.ok(line.startsWith("node\uFFFD]0;title\uFFFD x y zzz") && line.endsWith("… (stdio)") && line.length < 220, line);
  });

  test("X6: colour only on a terminal, and never with NO_COLOR set or TERM=dumb", () => {
    assert.equal(wantsColor(true, {}), true);
    assert.equal(wantsColor(false, {}), false);
    assert.equal(wantsColor(true, { NO_COLOR: "1" }), false);
    assert.equal(wantsColor(true, { NO_COLOR: "" }), true, "an empty NO_COLOR does not count (no-color.org)");
    assert.equal(wantsColor(true, { TERM: "dumb" }), false);
  });
});

describe("X6: progress and clipping", () => {
  const fakeIo = (errIsTTY: boolean): Io & { errText: string } => {
    const io = { errText: "", out: () => {}, err: (t: string) => void (io.errText += t), color: false, errIsTTY, outIsTTY: false, columns: 60, env: {} };
    return io;
  };

  test("X6: off a terminal, progress lines are rate-bounded and the last one is always printed", () => {
    const io = fakeIo(false);
    let t = 0;
    const line = progressLine(io, "work", () => t);
    for (let i = 1; i <= 1000; i++) {
      t = i; // one update per ms
      line.update({ progress: i, total: 1000 });
    }
    line.done();
    const lines = io.errText.trim().split("\n");
    assert.ok(lines.length <= 12, `${lines.length} lines`);
    assert.equal(lines[0], "yada: progress: work 1/1000 (0%)");
    assert.equal(lines.at(-1), "yada: progress: work 1000/1000 (100%)");
  });

  test("X6: on a terminal, the progress line rewrites itself, fits the width and is erased when done", () => {
    const io = fakeIo(true);
    const line = progressLine(io, "work");
    line.update({ progress: 1, total: 2, message: "x".repeat(200) });
    line.done();
    const writes = io.errText.split("\r\u001b[2K").filter((w) => w !== "");
    assert.equal(writes.length, 1);
    assert.ok((writes[0] ?? "").length <= 59);
    assert.ok(io.errText.endsWith("\r\u001b[2K"));
  });

  test("X6: long results are clipped with a note of what was left out", () => {
    assert.equal(clip("a\nb\nc\nd", 2, 100), "a\nb\n… (4 more characters, 2 more lines)");
    assert.equal(clip("abcdef", 5, 3), "abc\n… (3 more characters)");
    assert.equal(clip("short", 5, 100), "short");
  });
});

describe("W7: the confirmed tool's version", () => {
  const rename: McpTool = {
    name: "rename",
    description: "Renames a product.",
    inputSchema: { type: "object", properties: { sku: { type: "string" }, name: { type: "string", minLength: 1 } }, required: ["sku", "name"] },
    annotations: { readOnlyHint: false },
  };

  test("W7: the version covers the tool name and input schema, independent of key order", async () => {
    const reordered: McpTool = { ...rename, inputSchema: { required: ["sku", "name"], properties: { name: { minLength: 1, type: "string" }, sku: { type: "string" } }, type: "object" } };
    assert.equal(await confirmVersion(reordered), await confirmVersion(rename));
    assert.notEqual(await confirmVersion({ ...rename, name: "rename2" }), await confirmVersion(rename));
    assert.notEqual(await confirmVersion({ ...rename, inputSchema: { type: "object" } }), await confirmVersion(rename));
    assert.equal(await confirmVersion({ ...rename, description: "Other words." }), await confirmVersion(rename));
    assert.match(await confirmVersion(rename), /^confirm:[0-9a-f]{64}$/);
  });

  test("W7: a schema nesting values deeper than MAX_INSTANCE_DEPTH is a limit error, not a stack overflow", async () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 200; i++) deep = [deep];
    await assert.rejects(confirmVersion({ ...rename, inputSchema: { type: "object", default: deep } }), { code: "limit", limit: "MAX_INSTANCE_DEPTH" });
    let fine: unknown = "leaf";
    for (let i = 0; i < 100; i++) fine = [fine];
    assert.match(await confirmVersion({ ...rename, inputSchema: { type: "object", default: fine } }), /^confirm:[0-9a-f]{64}$/);
  });
});
