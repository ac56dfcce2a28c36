// X6: the `yada` commands against the example catalog server over stdio (a real
// process launched by the CLI, itself a real process).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXIT, EXIT_CODES } from "../../src/cli/exit.js";
import { CATALOG, errorCodes, stdioOf, yada } from "./support.js";

const T = { timeout: 30_000 };

describe("X6: listing a server over stdio", T, () => {
  test("X6: tools lists every tool with its effect hint, arguments and description", async () => {
    const r = await yada(["tools", "--stdio", CATALOG]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.match(r.stdout, /catalog 1\.0\.0 · protocol \d{4}-\d{2}-\d{2} · 12 tools/);
    assert.match(r.stdout, /^lookup +read-only +\{sku\*\} +Look up a product by SKU: name, price and availability\.$/m);
    assert.match(r.stdout, /^rename +mutating +\{sku\*, name\*\} +Renames a product\.$/m);
    assert.match(r.stdout, /^unannotated +- +\{\} +Returns ok\./m);
    assert.equal(r.stderr, "");
  });

  test("X6: tools --json prints the tools/list result as one JSON document", async () => {
    const r = await yada(["tools", "--json", "--stdio", CATALOG]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    const parsed = JSON.parse(r.stdout) as { tools: Array<{ name: string; inputSchema: unknown; annotations?: { readOnlyHint?: boolean } }> };
    assert.equal(parsed.tools.length, 12);
    const rename = parsed.tools.find((t) => t.name === "rename");
    assert.equal(rename?.annotations?.readOnlyHint, false);
    assert.deepEqual((parsed.tools.find((t) => t.name === "lookup")?.inputSchema as { required: string[] }).required, ["sku"]);
  });

  test("X6: resources lists every page of resources, then the templates", async () => {
    const r = await yada(["resources", "--stdio", CATALOG]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    // The catalog pages its 4 resources 2 at a time: both pages are listed.
    for (const uri of ["catalog://products/ABC-123", "catalog://products/DEF-456", "catalog://readme", "catalog://images/logo.png"]) {
      assert.ok(r.stdout.includes(uri), uri);
    }
    assert.match(r.stdout, /templates:\ncatalog:\/\/products\/\{sku\} +application\/json +Product by SKU/);
  });

  test("X6: prompts lists prompts with their arguments, required ones starred", async () => {
    const r = await yada(["prompts", "--stdio", CATALOG]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.match(r.stdout, /^summarize +\{sku\*\} +Asks for a short summary of one product\.$/m);
    assert.match(r.stdout, /^welcome +\{\} +A welcome message/m);
  });
});

describe("X6: call", T, () => {
  test("X6: call prints the tool's content and exits 0", async () => {
    const r = await yada(["call", "lookup", '{"sku":"ABC-123"}', "--stdio", CATALOG]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.equal(r.stdout, "Product ABC-123: Widget, 12.50 EUR, in stock\n");
  });

  test("X6: call exits 1 when the tool answers isError, printing its content and a tool_error line", async () => {
    const r = await yada(["call", "lookup", '{"sku":"ZZZ-999"}', "--stdio", CATALOG]);
    assert.equal(r.code, EXIT.toolError);
    assert.equal(r.stdout, "Unknown SKU: ZZZ-999\n");
    assert.deepEqual(errorCodes(r.stderr), ["tool_error"]);
  });

  test("X6: call with arguments that are not JSON exits 2 before any server is launched", async () => {
    // The command would fail to start (exit 3) if it were launched.
    const r = await yada(["call", "lookup", '{"sku":', "--stdio", "/nonexistent/server-binary"]);
    assert.equal(r.code, EXIT.usage);
    assert.match(r.stderr, /^yada: usage: the tool arguments: not valid JSON( \(at position \d+\))? \(see yada --help\)$/m);
    const notObject = await yada(["call", "lookup", "[1,2]", "--stdio", "/nonexistent/server-binary"]);
    assert.equal(notObject.code, EXIT.usage);
    assert.match(notObject.stderr, /not a JSON object/);
  });

  test("X6: call - reads the arguments from stdin", async () => {
    const r = await yada(["call", "lookup", "-", "--stdio", CATALOG], { input: '{"sku":"DEF-456"}' });
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.equal(r.stdout, "Product DEF-456: Gadget, 8.00 EUR, in stock\n");
  });

  test("X6: call --json prints the whole result, structured content included", async () => {
    const r = await yada(["call", "search", '{"query":"g"}', "--json", "--stdio", CATALOG]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    const result = JSON.parse(r.stdout) as { isError: boolean; structuredContent: { items: Array<{ sku: string }> } };
    assert.equal(result.isError, false);
    assert.deepEqual(
      result.structuredContent.items.map((i) => i.sku),
      ["ABC-123", "DEF-456", "GHI-789"],
    );
  });

  test("X6: every content kind is shown as text or a bracketed placeholder", async () => {
    const r = await yada(["call", "mixed", "--stdio", CATALOG]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.match(r.stdout, /^Here is everything\.\n\[image: image\/png, \d+ bytes\]\n\[audio: audio\/wav, \d+ bytes\]\n\[resource: catalog:\/\/readme\]\nThe catalog lists/);
    assert.match(r.stdout, /\[resource: catalog:\/\/images\/logo\.png, image\/png, \d+ bytes\]\n\[resource_link: catalog:\/\/products\/ABC-123 ABC-123\]\n\[hologram content\]\n$/);
  });

  test("X6, P4: a tool the server does not list is refused before any call: exit 6, tool_not_found", async () => {
    const r = await yada(["call", "nope", "--stdio", CATALOG]);
    assert.equal(r.code, EXIT.refused);
    assert.deepEqual(errorCodes(r.stderr), ["tool_not_found"]);
    assert.match(r.stderr, /no tool "nope" \(yada tools lists them\)/);
  });

  test("X6: a long call shows MCP progress on stderr, one line per update off a terminal", async () => {
    const r = await yada(["call", "work", '{"steps":3,"delayMs":150}', "--stdio", stdioOf("progress.mjs")]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.equal(r.stdout, "done 3 steps\n");
    assert.deepEqual(r.stderr.trim().split("\n"), [
      "yada: progress: work 1/3 (33%) step 1 of 3",
      "yada: progress: work 2/3 (67%) step 2 of 3",
      "yada: progress: work 3/3 (100%) step 3 of 3",
    ]);
  });

  test("X6: --timeout bounds a call: exit 3 with the timeout code", async () => {
    // --timeout bounds the handshake too: leave a loaded machine time to start the server.
    const r = await yada(["call", "slow", '{"ms":20000}', "--timeout", "2000", "--stdio", CATALOG]);
    assert.equal(r.code, EXIT.connection);
    assert.deepEqual(errorCodes(r.stderr), ["timeout"]);
    assert.match(r.stderr, /timed out after 2000 ms.*; the server may still carry the call out/);
  });
});

describe("X6: read and prompt", T, () => {
  test("X6: read prints a text resource", async () => {
    const r = await yada(["read", "catalog://readme", "--stdio", CATALOG]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.equal(r.stdout, "The catalog lists products by SKU (three letters, a dash, three digits).\n");
  });

  test("X6: read shows a blob as a placeholder, and -o writes its decoded bytes", async () => {
    const shown = await yada(["read", "catalog://images/logo.png", "--stdio", CATALOG]);
    assert.equal(shown.code, EXIT.ok, shown.stderr);
    assert.match(shown.stdout, /^\[blob: image\/png, \d+ bytes; -o <file> saves it\]\n$/);
    const json = await yada(["read", "catalog://images/logo.png", "--json", "--stdio", CATALOG]);
    const blob = (JSON.parse(json.stdout) as { contents: Array<{ blob: string }> }).contents[0]?.blob ?? "";
    const dir = await mkdtemp(join(tmpdir(), "yada-cli-"));
    try {
      const file = join(dir, "logo.png");
      const saved = await yada(["read", "catalog://images/logo.png", "-o", file, "--stdio", CATALOG]);
      assert.equal(saved.code, EXIT.ok, saved.stderr);
      const bytes = await readFile(file);
      assert.deepEqual(bytes, Buffer.from(blob, "base64"));
      assert.equal(bytes.subarray(1, 4).toString("latin1"), "PNG");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("X6: reading an unknown resource is refused: exit 6", async () => {
    const r = await yada(["read", "catalog://nope", "--stdio", CATALOG]);
    assert.equal(r.code, EXIT.refused);
    assert.match(r.stderr, /^yada: jsonrpc: .*resources\/read: server error -32002: Resource not found$/m);
  });

  test("X6: prompt renders a prompt with its string arguments", async () => {
    const r = await yada(["prompt", "summarize", '{"sku":"ABC-123"}', "--stdio", CATALOG]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.equal(r.stdout, "Summary of ABC-123\n[user]\nSummarize this product in one sentence. Product ABC-123: Widget, 12.50 EUR, in stock.\n");
    const json = await yada(["prompt", "welcome", "--json", "--stdio", CATALOG]);
    assert.deepEqual((JSON.parse(json.stdout) as { messages: Array<{ role: string }> }).messages.map((m) => m.role), ["user"]);
  });

  test("X6: prompt arguments must be strings: exit 2", async () => {
    const r = await yada(["prompt", "summarize", '{"sku":123}', "--stdio", CATALOG]);
    assert.equal(r.code, EXIT.usage);
    assert.match(r.stderr, /^yada: usage: prompt arguments are strings; "sku" is not/m);
  });
});

describe("X6: errors and usage", T, () => {
  test("X6: a server that exits on start: exit 3, connection_closed, with its stderr", async () => {
    const r = await yada(["tools", "--stdio", stdioOf("exit-on-start.mjs")]);
    assert.equal(r.code, EXIT.connection);
    assert.deepEqual(errorCodes(r.stderr), ["connection_closed"]);
    assert.match(r.stderr, /exited with code 1; last stderr: cannot start: missing API key/);
    assert.equal(r.stderr.trim().split("\n").length, 1, "one line");
  });

  test("X6: a command that cannot be started: exit 3, transport", async () => {
    const r = await yada(["tools", "--stdio", "/nonexistent/server-binary --flag"]);
    assert.equal(r.code, EXIT.connection);
    assert.deepEqual(errorCodes(r.stderr), ["transport"]);
  });

  test("X6: usage mistakes exit 2 with one usage line", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["frobnicate"], /unknown command "frobnicate"/],
      [["tools", "--frob"], /unknown flag "--frob"/],
      [["tools"], /say which server/],
      [["tools", "--stdio", "x", "--url", "http://127.0.0.1:9/mcp"], /give one server, not --stdio and --url/],
      [["tools", "--script", "plan.json", "--stdio", "x"], /--script does not apply to tools/],
      [["tools", "--stdio", "node 'open"], /unterminated ' quote/],
      [["tools", "--stdio", "x", "--header", "A: b"], /--header applies to HTTP servers/],
      [["call", "--stdio", "x"], /usage: yada call <tool>/],
      [["tools", "--timeout", "soon", "--stdio", "x"], /--timeout needs a positive integer/],
    ];
    for (const [argv, message] of cases) {
      const r = await yada(argv);
      assert.equal(r.code, EXIT.usage, argv.join(" "));
      assert.deepEqual(errorCodes(r.stderr), ["usage"], argv.join(" "));
      assert.match(r.stderr, message);
      assert.equal(r.stdout, "");
    }
  });

  test("X6: --help documents every command, flag and exit code", async () => {
    const r = await yada(["--help"]);
    assert.equal(r.code, EXIT.ok);
    for (const cmd of ["tools", "call <tool> [json|-]", "resources", "read <uri>", "prompts", "prompt <name> [json]", "record -o <file>", 'run "<prompt>"']) {
      assert.ok(r.stdout.includes(`  ${cmd}`), cmd);
    }
    for (const flag of ["--stdio", "--url", "--server", "--header", "--json", "--provider", "--model", "--script", "--call"]) assert.ok(r.stdout.includes(flag), flag);
    for (const e of EXIT_CODES) assert.match(r.stdout, new RegExp(`^  ${e.code} +${e.meaning.replace(/[()[\]|.*+?]/g, "\\$&")}`, "m"));
    for (const v of ["YADA_MCP_SERVERS", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "YADA_MODEL"]) assert.ok(r.stdout.includes(v), v);
    const bare = await yada([]);
    assert.equal(bare.code, EXIT.usage);
    assert.ok(bare.stderr.includes("Usage: yada <command>"));
  });
});
