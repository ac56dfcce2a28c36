// R1, X6: `yada run` — the agent loop in the terminal against the catalog
// server, with the scripted provider from a plan file, or an OpenAI-compatible
// provider (a loopback replay server) chosen from the environment.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { EXIT } from "../../src/cli/exit.js";
import { fixtureServer } from "../helpers/paths.js";
import { startReplay, type Replay } from "../agent/support.js";
import { CATALOG, errorCodes, yada } from "./support.js";

type CatalogHttpModule = typeof import("../../fixtures/servers/catalog/http.mjs");
const { startCatalogHttp } = (await import(pathToFileURL(fixtureServer("catalog/http.mjs")).href)) as CatalogHttpModule;

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "yada-run-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes a scripted plan and returns its path. */
async function plan(name: string, steps: unknown[]): Promise<string> {
  const file = join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify(steps));
  return file;
}

const LOOKUP_THEN_RENAME = [
  { text: "Looking it up.", toolCalls: [{ name: "catalog__lookup", arguments: { sku: "ABC-123" } }] },
  { text: "Renaming it.", toolCalls: [{ name: "catalog__rename", arguments: { sku: "ABC-123", name: "Widget Pro" } }] },
];

describe("R1, X6: run with the scripted provider", { timeout: 30_000 }, () => {
  test("R1, X6: reads run, the rename stops for approval: the call is listed with its arguments, exit 4", async () => {
    const script = await plan("rename", LOOKUP_THEN_RENAME);
    const r = await yada(["run", "Rename ABC-123 to Widget Pro", "--stdio", CATALOG, "--name", "catalog", "--provider", "scripted", "--script", script]);
    assert.equal(r.code, EXIT.approval, r.stderr);
    assert.match(r.stdout, /tools: 10 read \(run directly as cli@local\), behind approval: catalog__rename, catalog__unannotated/);
    assert.match(r.stdout, /^Looking it up\.\n→ catalog__lookup \{"sku":"ABC-123"\}\n← catalog__lookup ok\n {4}Product ABC-123: Widget, 12\.50 EUR, in stock\nRenaming it\.\n/m);
    assert.match(r.stdout, /approval required: 1 proposed call, not executed\n {2}1\. catalog__rename \(confirm, call call_2_1\)\n {5}\{\n {7}"sku": "ABC-123",\n {7}"name": "Widget Pro"\n {5}\}\n$/);
    assert.ok(!r.stdout.includes("← catalog__rename"), "the rename was not executed");
    assert.deepEqual(errorCodes(r.stderr), ["approval_required"]);
  });

  test("R1, X6: the proposed write is never sent to the server", async () => {
    const http = await startCatalogHttp(); // one catalog shared by every session: a rename would show
    try {
      const script = await plan("rename-http", LOOKUP_THEN_RENAME);
      const r = await yada(["run", "Rename it", "--url", http.url, "--name", "catalog", "--script", script]);
      assert.equal(r.code, EXIT.approval, r.stderr);
      const after = await yada(["call", "lookup", '{"sku":"ABC-123"}', "--url", http.url]);
      assert.equal(after.stdout, "Product ABC-123: Widget, 12.50 EUR, in stock\n");
    } finally {
      await http.close();
    }
  });

  test("R1, X6: run --json prints every event as one JSON line, approval_required with the calls", async () => {
    const script = await plan("rename-json", LOOKUP_THEN_RENAME);
    const r = await yada(["run", "go", "--json", "--stdio", CATALOG, "--name", "catalog", "--script", script, "--actor", "ops", "--tenant", "acme"]);
    assert.equal(r.code, EXIT.approval, r.stderr);
    const events = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as { type: string; calls?: unknown; toolName?: string; stopReason?: string });
    assert.equal(events[0]?.type, "agent_start");
    // P4: the undecided run's exit is its last line, as every --json error is.
    assert.deepEqual(events.at(-1), { code: "approval_required", message: "1 call needs approval; nothing was executed (decide with --approve all|none, or run on a terminal)", exit: EXIT.approval });
    assert.deepEqual(events.at(-2), { type: "agent_end", stopReason: "approval_required", usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, steps: 2 });
    const approval = events.find((e) => e.type === "approval_required");
    assert.deepEqual(approval?.calls, [{ callId: "call_2_1", toolName: "catalog__rename", effect: "confirm", arguments: { sku: "ABC-123", name: "Widget Pro" } }]);
    assert.deepEqual(
      events.filter((e) => e.type === "tool_execution_end").map((e) => e.toolName),
      ["catalog__lookup"],
    );
  });

  test("R1, X6: a run that ends with an answer streams its text and exits 0", async () => {
    const script = await plan("answer", [
      { toolCalls: [{ name: "mcp__search", arguments: { query: "gadget" } }] },
      { text: "Gadget costs 8 EUR." },
    ]);
    const r = await yada(["run", "What does the gadget cost?", "--stdio", CATALOG, "--script", script]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.match(r.stdout, /→ mcp__search \{"query":"gadget"\}\n← mcp__search ok\n {4}\{"items":\[\{"sku":"DEF-456","name":"Gadget","price":8\}\]\}\nGadget costs 8 EUR\.\n$/);
    assert.equal(r.stderr, "");
  });

  test("R1, X6: --read-tools and --confirm-tools choose what runs and what waits", async () => {
    const script = await plan("chosen", [{ toolCalls: [{ name: "catalog__unannotated" }, { name: "catalog__lookup", arguments: { sku: "ABC-123" } }] }, { text: "ok" }]);
    const r = await yada(["run", "go", "--stdio", CATALOG, "--name", "catalog", "--script", script, "--read-tools", "unannotated", "--confirm-tools", "rename"]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.match(r.stdout, /tools: 1 read .* behind approval: catalog__rename\n/);
    assert.match(r.stdout, /← catalog__unannotated ok\n {4}ok\n/);
    assert.match(r.stdout, /← catalog__lookup error\n {4}.*unknown_tool/);
  });

  test("R1, T14, X6: --server takes the read selection and resources of its YADA_MCP_SERVERS entry", async () => {
    const servers = JSON.stringify([{ name: "shop", command: process.execPath, args: [fixtureServer("catalog/stdio.mjs")], readTools: ["lookup"], resources: true }]);
    const script = await plan("env", [{ toolCalls: [{ name: "shop__read_resource", arguments: { uri: "catalog://readme" } }] }, { text: "Read it." }]);
    const r = await yada(["run", "go", "--server", "shop", "--script", script], { env: { YADA_MCP_SERVERS: servers } });
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.match(r.stdout, /tools: 3 read .*behind approval: shop__rename, shop__unannotated\n/);
    assert.match(r.stdout, /← shop__read_resource ok\n {4}.*The catalog lists products by SKU/);
  });

  test("R1, X6: a run that hits --max-steps exits 7 (incomplete)", async () => {
    const step = { toolCalls: [{ name: "catalog__lookup", arguments: { sku: "ABC-123" } }] };
    const script = await plan("steps", [step, step, step]);
    const r = await yada(["run", "go", "--stdio", CATALOG, "--name", "catalog", "--script", script, "--max-steps", "1"]);
    assert.equal(r.code, EXIT.incomplete);
    assert.deepEqual(errorCodes(r.stderr), ["incomplete"]);
  });

  test("X6: run without a provider, with an invalid plan, or with a missing key exits 2", async () => {
    const none = await yada(["run", "go", "--stdio", CATALOG]);
    assert.equal(none.code, EXIT.usage);
    assert.match(none.stderr, /no model provider: set ANTHROPIC_API_KEY or OPENAI_API_KEY/);
    const bad = await plan("bad", [{ toolCalls: [{ arguments: {} }] }]);
    const invalid = await yada(["run", "go", "--stdio", CATALOG, "--script", bad]);
    assert.equal(invalid.code, EXIT.usage);
    assert.match(invalid.stderr, /step 1 toolCalls\[0\] needs a name/);
    const key = await yada(["run", "go", "--stdio", CATALOG, "--provider", "anthropic"]);
    assert.equal(key.code, EXIT.usage);
    assert.match(key.stderr, /needs ANTHROPIC_API_KEY/);
    const model = await yada(["run", "go", "--stdio", CATALOG], { env: { OPENAI_BASE_URL: "http://127.0.0.1:9/v1" } });
    assert.match(model.stderr, /with OPENAI_BASE_URL, name the model/);
  });
});

/** OpenAI Chat Completions stream chunks (the `data:` payloads). */
const chunk = (delta: Record<string, unknown>, finish?: string): string => JSON.stringify({ model: "fake-model", choices: [{ index: 0, delta, finish_reason: finish ?? null }] });
const toolCall = (id: string, name: string, args: unknown): string[] => [
  chunk({ role: "assistant", tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: JSON.stringify(args) } }] }),
  chunk({}, "tool_calls"),
];

describe("R1, R3, X6: run with a provider from the environment", { timeout: 30_000 }, () => {
  let replay: Replay;
  before(async () => {
    replay = await startReplay();
  });
  after(async () => {
    await replay.close();
  });

  test("R3, X6: OPENAI_API_KEY, OPENAI_BASE_URL and YADA_MODEL choose an OpenAI-compatible model; the key is sent, never shown", async () => {
    await replay.reset();
    await replay.queue(
      { lines: [chunk({ role: "assistant", content: "Checking. " }), ...toolCall("c1", "catalog__lookup", { sku: "GHI-789" })], done: true },
      { lines: [chunk({ content: "Gizmo is out of stock." }), chunk({}, "stop")], done: true },
    );
    const env = { OPENAI_API_KEY: "sk-test-secret", OPENAI_BASE_URL: `${replay.baseUrl}/v1`, YADA_MODEL: "fake-model" };
    const r = await yada(["run", "Is GHI-789 in stock?", "--stdio", CATALOG, "--name", "catalog"], { env });
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.match(r.stdout, /yada run · openai fake-model at http:\/\/127\.0\.0\.1:\d+ ·/);
    assert.match(r.stdout, /Checking\. \n→ catalog__lookup \{"sku":"GHI-789"\}\n← catalog__lookup ok\n {4}Product GHI-789: Gizmo, 99\.90 EUR, out of stock\nGizmo is out of stock\.\n$/);
    assert.ok(!r.stdout.includes("sk-test-secret") && !r.stderr.includes("sk-test-secret"));
    const requests = await replay.requests();
    assert.equal(requests.length, 2);
    assert.equal(requests[0]?.url, "/v1/chat/completions");
    assert.equal(requests[0]?.headers.authorization, "Bearer sk-test-secret");
    const body = JSON.parse(requests[0]?.body ?? "{}") as { model: string; tools: Array<{ function: { name: string } }> };
    assert.equal(body.model, "fake-model");
    assert.ok(body.tools.some((t) => t.function.name === "catalog__rename"), "the write is offered to the model");
  });

  test("R3, X6: a provider that refuses the key: exit 5 with the provider code", async () => {
    await replay.reset();
    await replay.queue({ status: 401, body: JSON.stringify({ error: { message: "invalid api key" } }) });
    const env = { OPENAI_API_KEY: "sk-wrong", OPENAI_BASE_URL: `${replay.baseUrl}/v1`, YADA_MODEL: "fake-model" };
    const r = await yada(["run", "hello", "--stdio", CATALOG], { env });
    assert.equal(r.code, EXIT.provider);
    assert.deepEqual(errorCodes(r.stderr), ["provider"]);
    assert.ok(!r.stderr.includes("sk-wrong"));
  });
});
