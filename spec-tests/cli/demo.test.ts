// X6, R1: the demo behind `npm start` (build/demo.js): offline with no key, the
// same flow driven by a model when a key is set.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { EXIT } from "../../src/cli/exit.js";
import { startReplay, type Replay } from "../agent/support.js";
import { DEMO, errorCodes, runNode } from "./support.js";

describe("X6: the demo", { timeout: 30_000 }, () => {
  test("X6, R1, W8: with no API key the offline demo shows discovery, authorized reads with results, a write stopped for approval, its approval, execution, receipt and the final answer", async () => {
    const r = await runNode(DEMO, [], { env: { ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined } });
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.equal(r.stderr, "");
    const out = r.stdout;
    assert.match(out, /^yada demo · OFFLINE DEMO: scripted model, bundled catalog server over stdio, no network, no API key\n/);
    // Discovery: the server's catalog, and what the model gets.
    assert.match(out, /1 · Discovery\n {2}connected to catalog 1\.0\.0 over stdio: node fixtures\/servers\/catalog\/stdio\.mjs\n {2}the server lists 12 tools; the model gets 3:\n/);
    assert.match(out, /^ {4}read +catalog__lookup +Look up a product by SKU/m);
    assert.match(out, /^ {4}confirm +catalog__rename +Renames a product\. \(stops for approval\)$/m);
    // The authorized read call and its rendered result.
    assert.match(out, /→ catalog__lookup \{"sku":"ABC-123"\}/);
    assert.match(out, /authorize\(demo-user@demo, lookup\) → allowed/);
    assert.match(out, /← catalog__lookup ok\n {6}Product ABC-123: Widget, 12\.50 EUR, in stock\n/);
    assert.match(out, /← catalog__search ok\n {6}\{"items":\[\{"sku":"ABC-123","name":"Widget","price":12\.5\}/);
    // The write that stops, recorded for approval.
    assert.match(out, /^ {4}write +items__rename +Renames an item/m);
    assert.match(out, /3 · Stopped: approval_required\n {2}approval required: 1 proposed call, not executed\n {4}1\. items__rename \(write, call call_2_1\)\n {7}\{\n {9}"id": "A",\n {9}"name": "Widget Pro"\n {7}\}\n/);
    const beforeApproval = out.slice(0, out.indexOf("4 · Approval"));
    assert.ok(!beforeApproval.includes("← items__rename"), "the rename was not executed inside the run");
    assert.match(out, /5 · The run resumes with the outcomes read from the store\n {2}→ items__rename .*\n {2}← items__rename ok \(from the action store\)\n/);
    // W8: approved by another person, executing stored before the send, the lost answer resolved by receipt, once.
    assert.match(out, /preview from the server: Rename A from "Product A" to "Widget Pro"\n {4}approved by demo-reviewer@demo: binds tool, version, arguments hash [0-9a-f]{12}…, state version A:1\n/);
    assert.match(out, /worker: items__rename → executing \(stored before the request is sent\)\n(.*\n)*? {4}worker: items__rename → reconciling: .*unknown.*never resending\n(.*\n)*? {4}authorize\(demo-user@demo, rename_receipt\) → allowed\n {4}worker: items__rename → succeeded: /);
    assert.match(out, /the inventory's own log: 1 mutation performed; 1 approved action in all\n/);
    assert.match(out, /6 · Stopped: end\n {2}Done: renamed A to "Widget Pro"\.\n/);
    assert.ok(!out.includes("\u001b["), "no colours off a terminal");
  });

  test("X6: --offline runs the offline demo even when a key is set", async () => {
    const r = await runNode(DEMO, ["--offline"], { env: { ANTHROPIC_API_KEY: "sk-ant-not-used" } });
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.match(r.stdout, /OFFLINE DEMO/);
  });
});

const chunk = (delta: Record<string, unknown>, finish?: string): string => JSON.stringify({ model: "fake-model", choices: [{ index: 0, delta, finish_reason: finish ?? null }] });
const toolCall = (id: string, name: string, args: unknown): string[] => [
  chunk({ role: "assistant", tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: JSON.stringify(args) } }] }),
  chunk({}, "tool_calls"),
];

describe("X6: the demo with a model", { timeout: 30_000 }, () => {
  let replay: Replay;
  before(async () => {
    replay = await startReplay();
  });
  after(async () => {
    await replay.close();
  });

  test("X6, R1, W8: with OPENAI_API_KEY set the model drives the same flow, through the approval to its final answer", async () => {
    await replay.queue(
      { lines: toolCall("c1", "catalog__lookup", { sku: "ABC-123" }), done: true },
      { lines: [chunk({ content: "Proposing the rename." }), ...toolCall("c2", "catalog__rename", { sku: "ABC-123", name: "Widget Pro" })], done: true },
      { lines: [chunk({ content: "Renamed it." }), chunk({}, "stop")], done: true },
    );
    const env = { OPENAI_API_KEY: "sk-demo", OPENAI_BASE_URL: `${replay.baseUrl}/v1`, YADA_MODEL: "fake-model", ANTHROPIC_API_KEY: undefined };
    const r = await runNode(DEMO, [], { env });
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.match(r.stdout, /^yada demo · live: openai fake-model at http:\/\/127\.0\.0\.1:\d+ drives the agent/);
    assert.ok(!r.stdout.includes("OFFLINE"));
    assert.match(r.stdout, /← catalog__lookup ok\n {6}Product ABC-123: Widget/);
    assert.match(r.stdout, /1\. catalog__rename \(confirm, call c2\)/);
    assert.match(r.stdout, /worker: catalog__rename → succeeded/);
    assert.match(r.stdout, /6 · Stopped: end\n {2}Renamed it\.\n/);
    const bodies = await replay.bodies();
    assert.equal(bodies.length, 3);
    assert.deepEqual(
      (bodies[0]?.tools as Array<{ function: { name: string } }>).map((t) => t.function.name),
      ["catalog__lookup", "catalog__search", "catalog__rename", "items__get_item", "items__rename"],
    );
  });

  test("X6: a provider failure in the demo is one error line and its exit code", async () => {
    await replay.reset();
    await replay.queue({ status: 401, body: JSON.stringify({ error: { message: "bad key" } }) });
    const env = { OPENAI_API_KEY: "sk-demo", OPENAI_BASE_URL: `${replay.baseUrl}/v1`, YADA_MODEL: "fake-model" };
    const r = await runNode(DEMO, [], { env });
    assert.equal(r.code, EXIT.provider);
    assert.deepEqual(errorCodes(r.stderr), ["provider"]);
  });
});
