// A whole run with a write's approval, traced with the real OpenTelemetry SDK
// (O1-O3): the run proposes, a person approves through the inbox, the worker
// executes, the run resumes. Each role opens the file store on its own and has
// its own tracer provider, as separate processes would: what joins them is the
// trace context kept on the action record, on disk.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { run, type RunResult } from "../../src/agent/run.js";
import { runTracing } from "../../src/trace/agent.js";
import { openaiChat } from "../../src/agent/openai-chat.js";
import { createWorker } from "../../src/actions/worker.js";
import { createApprovalInbox } from "../../src/inbox/inbox.js";
import { openFileStore } from "../../src/node/file-store.js";
import { connectMcp } from "../../src/node/tools.js";
import type { McpServerConfig } from "../../src/tools/config.js";
import type { WriteTool } from "../../src/tools/types.js";
import { everythingExported, otel, parentOf, traceparentOf, type Otel } from "../helpers/otel.js";
import { byHeader, formsOf, ORIGIN } from "../inbox/support.js";
import { RENAME, startContractHttp } from "../tools/writes-support.js";

const alice = { actorId: "alice", tenantId: "acme" };
const bob = { actorId: "bob", tenantId: "acme" };
// What must never reach a span without traceContent, and two things never at all.
const SECRETS = {
  apiKey: "sk-live-4f1e9a7c2b",
  bearer: "mcp-token-88d2c61e",
  header: "hdr-value-5a7b3c9d",
  argument: "Apples-secret-arg-31",
  input: "user-words-7c1f",
  answer: "model-text-9e2a",
};

/** An OpenAI-compatible endpoint on loopback that streams the queued answers, one per request. */
async function modelServer(answers: string[][]): Promise<{ url: string; server: Server; auth: string[] }> {
  const auth: string[] = [];
  const server = createServer((req, res) => {
    auth.push(String(req.headers.authorization));
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (const chunk of answers.shift() ?? []) res.write(`data: ${chunk}\n\n`);
      res.end("data: [DONE]\n\n");
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  return { url: `http://127.0.0.1:${address.port}/v1`, server, auth };
}

const chunk = (delta: Record<string, unknown>, finish: string | null, usage?: Record<string, number>): string =>
  JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", model: "gpt-test-0613", choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) });
const toolCallAnswer = [
  chunk({ role: "assistant", tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "contract__rename", arguments: JSON.stringify({ id: "A", name: SECRETS.argument }) } }] }, null),
  chunk({}, "tool_calls", { prompt_tokens: 40, completion_tokens: 9 }),
];
const textAnswer = [chunk({ role: "assistant", content: `Renamed. ${SECRETS.answer}` }, null), chunk({}, "stop", { prompt_tokens: 60, completion_tokens: 4 })];

const one = (o: Otel, name: string): ReadableSpan => o.span(name);
const idOf = (s: ReadableSpan): string => s.spanContext().spanId;

test("O1, O2, O3: the spans of a run that proposes a write, its approval in the inbox, the worker's execution and the resume, linked across store handles; no secret in any of them", async () => {
  const dir = mkdtempSync(join(tmpdir(), "yada-trace-"));
  const journal = join(dir, "actions.jsonl");
  const model = await modelServer([toolCallAnswer, textAnswer]);
  const contract = await startContractHttp({ log: join(dir, "contract.log"), tokens: { [SECRETS.bearer]: "alice/acme" } });
  const config = { name: "contract", url: contract.url, headers: { authorization: `Bearer ${SECRETS.bearer}`, "x-tenant-key": SECRETS.header }, writeTools: RENAME } as McpServerConfig;
  const access = { identity: alice, authorize: () => true };
  const provider = openaiChat({ model: "gpt-test", baseUrl: model.url, apiKey: SECRETS.apiKey });
  const proposer = otel("proposer");
  const approver = otel("inbox");
  const worker = otel("worker");
  let paused: RunResult | undefined;
  let runId = "";
  let actionId = "";
  try {
    // 1. The run proposes the write and pauses (the proposer's process).
    {
      await using store = await openFileStore(journal);
      await using mcp = await connectMcp(config, access, { tracer: proposer.tracer });
      paused = await run({ provider, tools: mcp.tools, identity: alice, input: `rename A ${SECRETS.input}`, actions: { store }, tracer: proposer.tracer, tracing: runTracing });
      assert.equal(paused.stopReason, "approval_required");
      assert.ok(paused.state);
      runId = paused.state.runId;
    }
    actionId = paused.proposedCalls[0]?.actionId ?? "";

    // 2. A person approves it through the inbox (the inbox's process).
    {
      await using store = await openFileStore(journal);
      const inbox = createApprovalInbox({ store, authenticate: byHeader, mayApprove: (who, a) => who.actorId !== a.actorId, tracer: approver.tracer });
      const page = await inbox(new Request(`${ORIGIN}/actions/${actionId}`, { headers: { "x-user": "bob@acme", accept: "text/html" } }));
      const form = formsOf(await page.text()).get(`/actions/${actionId}/approve`);
      assert.ok(form, "the page has an approve form");
      const posted = await inbox(
        new Request(`${ORIGIN}/actions/${actionId}/approve`, {
          method: "POST",
          headers: { "x-user": "bob@acme", "content-type": "application/x-www-form-urlencoded", origin: ORIGIN, "sec-fetch-site": "same-origin" },
          body: new URLSearchParams(form).toString(),
        }),
      );
      assert.ok(posted.status < 400, `approve answered ${posted.status}`);
      assert.equal((await store.get(actionId))?.state, "approved");
    }

    // 3. The worker executes it (the worker's process).
    {
      await using store = await openFileStore(journal);
      await using mcp = await connectMcp(config, access, { tracer: worker.tracer });
      const tool = mcp.tools.find((t) => t.name === "contract__rename") as WriteTool;
      const w = createWorker({ store, resolveTool: () => tool, tracer: worker.tracer });
      assert.equal(await w.runOnce(), 1);
      assert.equal((await store.get(actionId))?.state, "succeeded");
    }

    // 4. The run resumes with the outcome (the proposer's process again).
    {
      await using store = await openFileStore(journal);
      await using mcp = await connectMcp(config, access, { tracer: proposer.tracer });
      const done = await run({ provider, tools: mcp.tools, identity: alice, resume: paused.state as NonNullable<RunResult["state"]>, actions: { store }, tracer: proposer.tracer, tracing: runTracing });
      assert.equal(done.stopReason, "end");
      assert.equal((await store.get(actionId))?.traceparent, traceparentOf(one(proposer, "propose_action contract__rename")), "the record keeps the proposal's context");
    }
  } finally {
    await contract.close();
    await new Promise<void>((ok) => model.server.close(() => ok()));
    rmSync(dir, { recursive: true, force: true });
  }

  // The proposer's trace: invoke_agent > chat, execute_tool > (tools/call prepare_rename, propose_action).
  const [first, resumed] = proposer.spans().filter((s) => s.name === "invoke_agent");
  assert.ok(first && resumed);
  assert.equal(first.kind, SpanKind.INTERNAL);
  assert.equal(parentOf(first), undefined);
  assert.deepEqual(
    [first.attributes["gen_ai.operation.name"], first.attributes["gen_ai.provider.name"], first.attributes["gen_ai.request.model"], first.attributes["gen_ai.conversation.id"], first.attributes["yada.run.stop_reason"]],
    ["invoke_agent", "openai", "gpt-test", runId, "approval_required"],
  );
  assert.equal(first.attributes["gen_ai.usage.input_tokens"], 40);
  const chats = proposer.spans().filter((s) => s.name === "chat gpt-test");
  assert.equal(chats.length, 2);
  const chat = chats[0] as ReadableSpan;
  assert.equal(chat.kind, SpanKind.CLIENT);
  assert.equal(parentOf(chat), idOf(first));
  assert.deepEqual(chat.attributes["gen_ai.response.finish_reasons"], ["tool_use"]);
  assert.equal(chat.attributes["gen_ai.response.model"], "gpt-test-0613");
  assert.equal(chat.attributes["gen_ai.usage.output_tokens"], 9);
  assert.equal(chat.attributes["server.address"], "127.0.0.1");
  const exec = one(proposer, "execute_tool contract__rename");
  assert.equal(parentOf(exec), idOf(first));
  assert.deepEqual([exec.kind, exec.attributes["gen_ai.tool.call.id"], exec.attributes["yada.tool.effect"]], [SpanKind.INTERNAL, "call_1", "write"]);
  const prepare = one(proposer, "tools/call prepare_rename");
  assert.equal(parentOf(prepare), idOf(exec), "the preparation's MCP request is inside the tool call");
  assert.equal(prepare.attributes["network.transport"], "tcp");
  const propose = one(proposer, "propose_action contract__rename");
  assert.equal(propose.kind, SpanKind.PRODUCER);
  assert.equal(parentOf(propose), idOf(exec));
  assert.deepEqual([propose.attributes["yada.action.id"], propose.attributes["yada.action.state"], propose.attributes["gen_ai.conversation.id"]], [actionId, "awaiting_approval", runId]);

  // Every later step links to the proposal, from its own trace.
  const linked = (s: ReadableSpan): void => {
    assert.deepEqual(s.links.map((l) => [l.context.traceId, l.context.spanId, l.attributes?.["yada.action.id"]]), [[propose.spanContext().traceId, idOf(propose), actionId]], s.name);
    assert.equal(s.attributes["yada.action.id"], actionId);
  };
  const approve = one(approver, "approve_action contract__rename");
  linked(approve);
  assert.equal(approve.attributes["yada.action.state"], "approved");
  assert.notEqual(approve.spanContext().traceId, propose.spanContext().traceId);
  const execute = one(worker, "execute_action contract__rename");
  linked(execute);
  assert.deepEqual([execute.kind, execute.attributes["yada.action.state"], execute.status.code], [SpanKind.CONSUMER, "succeeded", SpanStatusCode.UNSET]);
  const rename = one(worker, "tools/call rename");
  assert.equal(parentOf(rename), idOf(execute), "the execute request is inside the worker's span");
  const resume = one(proposer, "resume_action contract__rename");
  linked(resume);
  assert.equal(parentOf(resume), idOf(resumed));
  assert.equal(resume.attributes["yada.action.state"], "succeeded");
  assert.deepEqual([resumed.attributes["gen_ai.conversation.id"], resumed.attributes["yada.run.stop_reason"]], [runId, "end"]);
  assert.equal(parentOf(chats[1] as ReadableSpan), idOf(resumed));

  // O3: no secret in any name, attribute, event, status or link of any span of any process.
  const exported = everythingExported([...proposer.spans(), ...approver.spans(), ...worker.spans()]);
  for (const [what, secret] of Object.entries(SECRETS)) assert.ok(!exported.includes(secret), `${what} reached a span`);
  for (const person of ["alice", "bob"]) assert.ok(!exported.includes(`"${person}"`), `the actor id ${person} reached a span`);
});
