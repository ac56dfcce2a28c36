// The spans of run's tool calls and of an action's moves with the real
// OpenTelemetry SDK (O1-O3): errors, refusals, outcomes, the content opt-in, and a
// tracer that misbehaves.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { run } from "../../src/agent/run.js";
import { runTracing } from "../../src/trace/agent.js";
import { scripted } from "../../src/agent/scripted.js";
import { createActions } from "../../src/actions/approvals.js";
import { MemoryActionStore } from "../../src/actions/memory-store.js";
import { createWorker } from "../../src/actions/worker.js";
import { ConfigError, JsonRpcError } from "../../src/errors.js";
import { McpClient } from "../../src/node/client.js";
import { fixtureServer } from "../helpers/paths.js";
import type { Tracer, TraceSpan } from "../../src/trace/types.js";
import type { ConfirmTool, ReadTool, WriteTool } from "../../src/tools/types.js";
import { everythingExported, otel, parentOf, traceparentOf } from "../helpers/otel.js";

const alice = { actorId: "alice", tenantId: "acme" };
const bob = { actorId: "bob", tenantId: "acme" };
const eve = { actorId: "eve", tenantId: "evil" };
const text = (t: string, isError = false) => ({ content: [{ type: "text" as const, text: t }], isError });
const readTool = (name: string, execute: ReadTool["execute"]): ReadTool => ({ name, description: name, inputSchema: { type: "object" }, effect: "read", execute });

test("O1: each read call is an execute_tool span under invoke_agent; a tool that throws is error.type tool_failed; arguments and results only with traceContent", async () => {
  const secret = "arg-secret-0b9c";
  const tools = [readTool("lookup", async () => text(`found ${secret}`)), readTool("broken", async () => Promise.reject(new Error(`down: ${secret}`)))];
  const steps = () => [{ toolCalls: [{ name: "lookup", arguments: { q: secret }, id: "c1" }, { name: "broken", id: "c2" }] }, { text: "done" }];
  const plain = otel();
  await run({ provider: scripted(steps()), tools, identity: alice, input: "go", tracer: plain.tracer, tracing: runTracing });
  const agent = plain.span("invoke_agent");
  const lookup = plain.span("execute_tool lookup");
  const broken = plain.span("execute_tool broken");
  for (const s of [lookup, broken]) assert.equal(parentOf(s), agent.spanContext().spanId);
  assert.deepEqual([lookup.attributes["gen_ai.tool.call.id"], lookup.attributes["yada.tool.effect"], lookup.status.code], ["c1", "read", SpanStatusCode.UNSET]);
  assert.deepEqual([broken.attributes["error.type"], broken.status.code], ["tool_failed", SpanStatusCode.ERROR]);
  assert.equal(agent.attributes["gen_ai.provider.name"], "scripted");
  assert.doesNotMatch(everythingExported(plain.spans()), new RegExp(secret));

  const opted = otel();
  await run({ provider: scripted(steps()), tools, identity: alice, input: "go", tracer: opted.tracer, traceContent: true, tracing: runTracing });
  const open = opted.span("execute_tool lookup");
  assert.equal(open.attributes["gen_ai.tool.call.arguments"], JSON.stringify({ q: secret }));
  assert.match(String(open.attributes["gen_ai.tool.call.result"]), new RegExp(`found ${secret}`));
});

test("O2: a refused approval is an error span linked to the proposal; a rejection is a span of its own, without its reason", async () => {
  const o = otel();
  const store = new MemoryActionStore();
  const actions = createActions({ store, mayApprove: (who, a) => who.actorId !== a.actorId, mayResolve: () => true, tracer: o.tracer });
  const prepared = { tool: "files__rename", version: "v1", arguments: { from: "a", to: "b" } };
  const first = await actions.propose(prepared, { identity: alice, effect: "confirm" });
  assert.equal(first.traceparent, traceparentOf(o.span("propose_action files__rename")));
  await assert.rejects(actions.approve(first, eve));
  await assert.rejects(actions.approve(first, alice));
  await actions.reject(first, bob, "not now");
  const [other, self] = o.spans().filter((s) => s.name === "approve_action files__rename");
  for (const s of [other, self]) {
    assert.equal(s?.attributes["error.type"], "unauthorized");
    assert.equal(s?.status.code, SpanStatusCode.ERROR);
    assert.equal(s?.links[0]?.context.spanId, o.span("propose_action files__rename").spanContext().spanId);
  }
  assert.equal(o.span("reject_action files__rename").attributes["yada.action.state"], "rejected");
  assert.doesNotMatch(everythingExported(o.spans()), /not now/, "the reason is the approver's words: content");
});

test("O2: a worker's execution that fails or whose outcome is unknown is an error span of that state; an operator's resolution is a span; a record without a trace context has no link", async () => {
  const o = otel();
  const store = new MemoryActionStore();
  const actions = createActions({ store, mayApprove: () => true, mayResolve: () => true, tracer: o.tracer });
  const base = { description: "", inputSchema: { type: "object" }, prepare: async () => Promise.reject(new Error("unused")) };
  const write: WriteTool = {
    ...base,
    name: "files__rename",
    effect: "write",
    version: "v2", // the approved one was v1: nothing is sent, the action fails
    execute: async () => ({ status: "succeeded", result: text("ok") }),
    reconcile: async () => ({ status: "unknown", reason: "no receipt yet" }),
  };
  const confirm: ConfirmTool = { ...base, name: "files__delete", effect: "confirm", version: "v1", execute: async () => ({ status: "unknown", reason: "the connection dropped" }) };
  const untraced = createActions({ store, mayApprove: () => true });
  const w = await untraced.propose({ tool: "files__rename", version: "v1", arguments: {}, stateVersion: "s1" }, { identity: alice, effect: "write" });
  assert.equal(w.traceparent, undefined, "an untraced proposer keeps no context");
  const c = await actions.propose({ tool: "files__delete", version: "v1", arguments: {} }, { identity: alice, effect: "confirm" });
  await actions.approve(w, bob);
  await actions.approve(c, bob);
  await createWorker({ store, resolveTool: (a) => (a.tool === write.name ? write : confirm), tracer: o.tracer, concurrency: 1 }).runOnce();
  const failed = o.span("execute_action files__rename");
  assert.deepEqual([failed.kind, failed.attributes["yada.action.state"], failed.attributes["error.type"], failed.status.code], [SpanKind.CONSUMER, "failed", "failed", SpanStatusCode.ERROR]);
  assert.deepEqual(failed.links, []);
  const unknown = o.span("execute_action files__delete");
  assert.deepEqual([unknown.attributes["yada.action.state"], unknown.attributes["error.type"]], ["outcome_unknown", "outcome_unknown"]);
  assert.equal(unknown.links[0]?.context.spanId, o.span("propose_action files__delete").spanContext().spanId);
  const stuck = await store.get(c.id);
  assert.ok(stuck);
  await actions.resolve(stuck, bob, { outcome: "failed", note: "not in the audit log" });
  const resolved = o.span("resolve_action files__delete");
  assert.deepEqual([resolved.attributes["yada.action.state"], resolved.links[0]?.context.spanId], ["failed", o.span("propose_action files__delete").spanContext().spanId]);
});

test("O3: a tracer whose spans throw once the operation is done changes nothing of its outcome; one that is no tracer is a ConfigError", async () => {
  const o = otel();
  // Spans that throw from every call but spanContext: only the operation's result counts.
  const down = (): never => {
    throw new Error("exporter down");
  };
  const broken = (span: TraceSpan): TraceSpan => ({ spanContext: () => span.spanContext(), setAttribute: down, setStatus: down, recordException: down, end: down });
  const hostile: Tracer = {
    startActiveSpan: (name, options, fn) => o.tracer.startActiveSpan(name, options as never, (span) => fn(broken(span))) as never,
    startSpan: (name, options) => broken(o.tracer.startSpan(name, options as never)),
  };
  const store = new MemoryActionStore();
  const result = await run({
    provider: scripted([{ toolCalls: [{ name: "lookup" }] }, { text: "done" }]),
    tools: [readTool("lookup", async () => text("ok"))],
    identity: alice,
    input: "go",
    actions: { store },
    tracer: hostile,
    tracing: runTracing,
  });
  assert.equal(result.stopReason, "end");
  assert.equal(result.text, "done");
  const client = await McpClient.connectStdio("node", [fixtureServer("traced.mjs")], undefined, { tracer: hostile });
  assert.equal((await client.callTool("echo", { text: "x" })).isError, false);
  await assert.rejects(client.callTool("refuse", {}), JsonRpcError, "the server's error, not the tracer's");
  await client.close();
  await assert.rejects(run({ provider: scripted([]), identity: alice, input: "go", tracer: {} as Tracer, tracing: runTracing }), ConfigError);
  assert.throws(() => createWorker({ store, resolveTool: () => undefined, tracer: { startSpan() {} } as unknown as Tracer }), ConfigError);
});

test("O1, X3: run's spans are the runTracing module's: a tracer without { tracing: runTracing } is a ConfigError naming it, before the model is called; with it the run is traced", async () => {
  const o = otel();
  let generated = 0;
  const provider = { ...scripted([{ text: "done" }]) };
  const counted = { ...provider, generate: (...a: Parameters<typeof provider.generate>) => (generated++, provider.generate(...a)) };
  for (const tracing of [undefined, {} as typeof runTracing]) {
    await assert.rejects(run({ provider: counted, identity: alice, input: "go", tracer: o.tracer, tracing }), (e: unknown) => e instanceof ConfigError && e.code === "config" && /tracer needs \{ tracing: runTracing \}/.test(e.message));
  }
  assert.equal(generated, 0, "the model was not called");
  assert.equal(o.spans().length, 0);
  await run({ provider: counted, identity: alice, input: "go", tracer: o.tracer, tracing: runTracing });
  const names = o.spans().map((s) => s.name);
  assert.ok(names.includes("invoke_agent") && names.some((n) => n.startsWith("chat")), names.join(", "));
});
