// W14: operator resolution. A person who checked the server settles an
// outcome_unknown action as succeeded or failed: bound like an approval (tenant,
// the host's mayResolve, what was shown), recorded with who, when and the note, final
// afterwards, and fed back on resume as the person's verdict, told apart from the
// server's. On the file store (a real journal in a temporary directory).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { createActions, type ApprovalBinding } from "../../src/actions/approvals.js";
import { createWorker } from "../../src/actions/worker.js";
import type { ActionRecord, ActionStore } from "../../src/actions/types.js";
import { run } from "../../src/agent/run.js";
import { scripted } from "../../src/agent/scripted.js";
import type { AgentEvent } from "../../src/agent/events.js";
import type { ToolResultMessage } from "../../src/agent/messages.js";
import { MAX_RESOLUTION_NOTE_CHARS } from "../../src/limits.js";
import { openFileStore, type FileActionStore } from "../../src/node/file-store.js";
import type { ActionOutcome, ConfirmTool, Identity } from "../../src/tools/types.js";
import { alice, bob, eve, tempDir } from "./support.js";
import { rejectsWith } from "./store-contract.js";

const carol: Identity = { actorId: "carol", tenantId: "acme" };
const NOTE = "checked the billing console: the refund of order 7 is there, at 10:42";
const at = 1_790_000_000_000;

/** A confirm tool whose execute answers `outcome` (by default: the answer was lost). */
function refundTool(outcome: ActionOutcome = { status: "unknown", reason: "the connection dropped after the request was written" }): ConfirmTool & { executes: number } {
  const tool = {
    name: "billing__refund",
    description: "Refunds an order.",
    inputSchema: { type: "object", properties: { order: { type: "string" } }, required: ["order"] },
    effect: "confirm" as const,
    version: "billing-1",
    executes: 0,
    prepare: async (args: unknown) => ({ tool: "billing__refund", version: "billing-1", arguments: { ...(args as Record<string, unknown>) }, preview: "refund order 7" }),
    execute: async (): Promise<ActionOutcome> => {
      tool.executes++;
      return outcome;
    },
  };
  return tool;
}

/** Runs `fn` on a fresh file store in a temporary directory, and closes it. */
const withStore = (fn: (store: FileActionStore, path: string) => Promise<void>) => async () => {
  const path = join(tempDir(), "actions.jsonl");
  const store = await openFileStore(path);
  try {
    await fn(store, path);
  } finally {
    await store.close();
  }
};

/** Proposes, approves and executes a refund whose answer was lost: the action ends outcome_unknown. */
async function unknownAction(store: ActionStore, tool = refundTool()): Promise<ActionRecord> {
  const actions = createActions({ store, mayApprove: () => true });
  const proposed = await actions.propose(await tool.prepare({ order: "7" }, { identity: alice }), { identity: alice, effect: "confirm", runId: "run-1", callId: "call-1" });
  await actions.approve(proposed, bob);
  await createWorker({ store, resolveTool: () => tool }).runOnce();
  const a = await store.get(proposed.id);
  assert.equal(a?.state, "outcome_unknown");
  return a;
}

describe("W14: operator resolution", { timeout: 60_000 }, () => {
  test("W14: resolve settles an outcome_unknown action with who, when and the note; it is final and survives a reopen", withStore(async (store, path) => {
    const tool = refundTool();
    const a = await unknownAction(store, tool);
    const seen: Array<[string, string]> = [];
    const actions = createActions({ store, mayApprove: () => false, mayResolve: (who, action) => (seen.push([who.actorId, action.id]), who.actorId === "carol"), now: () => at });
    const settled = await actions.resolve(a, carol, { outcome: "succeeded", note: NOTE });
    assert.deepEqual(seen, [["carol", a.id]], "mayResolve decided, with the stored action");
    assert.equal(settled.state, "succeeded");
    assert.deepEqual(settled.resolution, { actorId: "carol", tenantId: "acme", at, outcome: "succeeded", note: NOTE });
    assert.deepEqual(settled.outcome, a.outcome, "what the worker recorded stays");
    assert.equal(settled.updatedAt, at);
    assert.equal(tool.executes, 1, "a resolution sends nothing");
    // Final: a second resolution, either way, is a conflict.
    await rejectsWith(actions.resolve(a, carol, { outcome: "failed", note: "no" }), "conflict", "second resolution");
    await rejectsWith(actions.resolve(settled, carol, { outcome: "failed", note: "no" }), "conflict", "second resolution with the new record");
    await store.close();
    const again = await openFileStore(path);
    try {
      assert.deepEqual(await again.get(a.id), settled);
      assert.equal(await again.claim({ workerId: "w", now: Date.now(), leaseMs: 1_000 }), undefined);
    } finally {
      await again.close();
    }
  }));

  test("W14: without mayResolve every resolution is refused unauthorized; another tenant and a refusing mayResolve too; nothing changes", withStore(async (store) => {
    const a = await unknownAction(store);
    await rejectsWith(createActions({ store, mayApprove: () => true }).resolve(a, carol, { outcome: "failed", note: NOTE }), "unauthorized", "no mayResolve (mayApprove says yes)");
    let asked = 0;
    const actions = createActions({ store, mayApprove: () => true, mayResolve: (who) => (asked++, who.actorId !== "bob") });
    await rejectsWith(actions.resolve({ ...a, tenantId: "evil" }, eve, { outcome: "failed", note: NOTE }), "unauthorized", "another tenant");
    assert.equal(asked, 0, "the tenant is checked before the host's callback");
    await rejectsWith(actions.resolve(a, bob, { outcome: "failed", note: NOTE }), "unauthorized", "mayResolve refuses");
    await rejectsWith(actions.resolve(a, { actorId: "", tenantId: "acme" }, { outcome: "failed", note: NOTE }), "validation", "no operator identity");
    assert.deepEqual(await store.get(a.id), a);
    // The async form of the callback is honoured too.
    const asyncNo = createActions({ store, mayApprove: () => true, mayResolve: async () => false });
    await rejectsWith(asyncNo.resolve(a, carol, { outcome: "failed", note: NOTE }), "unauthorized", "async mayResolve refuses");
    assert.deepEqual(await store.get(a.id), a);
  }));

  test("W14: resolve binds what the operator was shown: another id's fields, arguments or preview are a conflict", withStore(async (store) => {
    const a = await unknownAction(store);
    const actions = createActions({ store, mayApprove: () => true, mayResolve: () => true });
    const changes: Array<[string, Partial<ApprovalBinding>]> = [
      ["tool", { tool: "billing__charge" }],
      ["version", { version: "billing-2" }],
      ["argumentsHash", { argumentsHash: "f".repeat(64) }],
      ["actorId", { actorId: "mallory" }],
      ["stateVersion", { stateVersion: "sv-9" }],
      ["arguments", { arguments: { order: "8" } }],
      ["preview", { preview: "refund order 8" }],
    ];
    for (const [what, change] of changes) {
      await rejectsWith(actions.resolve({ ...a, ...change }, carol, { outcome: "succeeded", note: NOTE }), "conflict", what);
    }
    await rejectsWith(actions.resolve({ ...a, id: "no-such-action" }, carol, { outcome: "succeeded", note: NOTE }), "store", "unknown id");
    assert.deepEqual(await store.get(a.id), a);
    // The binding alone (no arguments or preview handed back) is enough.
    const binding: ApprovalBinding = { id: a.id, tool: a.tool, version: a.version, argumentsHash: a.argumentsHash, actorId: a.actorId, tenantId: a.tenantId, stateVersion: a.stateVersion };
    assert.equal((await actions.resolve(binding, carol, { outcome: "failed", note: NOTE })).state, "failed");
  }));

  test("W14: only an outcome_unknown action can be resolved: pending, approved, reconciling and settled ones are conflicts", withStore(async (store) => {
    const actions = createActions({ store, mayApprove: () => true, mayResolve: () => true });
    const tool = refundTool({ status: "succeeded", result: { content: [{ type: "text", text: "refunded" }], isError: false } });
    const pending = await actions.propose(await tool.prepare({ order: "7" }, { identity: alice }), { identity: alice, effect: "confirm" });
    await rejectsWith(actions.resolve(pending, carol, { outcome: "succeeded", note: NOTE }), "conflict", "awaiting_approval");
    const approved = await actions.approve(pending, bob);
    await rejectsWith(actions.resolve(approved, carol, { outcome: "succeeded", note: NOTE }), "conflict", "approved");
    await createWorker({ store, resolveTool: () => tool }).runOnce();
    assert.equal((await store.get(pending.id))?.state, "succeeded");
    await rejectsWith(actions.resolve(pending, carol, { outcome: "failed", note: NOTE }), "conflict", "succeeded by the server");
    // A write whose receipt is still being looked up stays with the worker.
    const write = { ...tool, effect: "write" as const, execute: async (): Promise<ActionOutcome> => ({ status: "unknown", reason: "timeout" }), reconcile: async (): Promise<ActionOutcome> => ({ status: "unknown", reason: "no receipt yet" }) };
    const w = await actions.propose(await write.prepare({ order: "9" }, { identity: alice }), { identity: alice, effect: "write" });
    await actions.approve(w, bob);
    await createWorker({ store, resolveTool: () => write }).runOnce();
    assert.equal((await store.get(w.id))?.state, "reconciling");
    await rejectsWith(actions.resolve(w, carol, { outcome: "failed", note: NOTE }), "conflict", "reconciling");
    assert.equal((await store.get(w.id))?.resolution, undefined);
  }));

  test("W14: a verdict is succeeded or failed with a nonempty note of at most MAX_RESOLUTION_NOTE_CHARS", withStore(async (store) => {
    const a = await unknownAction(store);
    const actions = createActions({ store, mayApprove: () => true, mayResolve: () => true });
    for (const bad of [undefined, {}, { outcome: "maybe", note: NOTE }, { outcome: "succeeded" }, { outcome: "succeeded", note: "" }, { outcome: "failed", note: "   " }, { outcome: "failed", note: 42 }]) {
      await rejectsWith(actions.resolve(a, carol, bad as never), "validation", JSON.stringify(bad));
    }
    await assert.rejects(actions.resolve(a, carol, { outcome: "failed", note: "n".repeat(MAX_RESOLUTION_NOTE_CHARS + 1) }), (e: unknown) => {
      assert.equal((e as { code?: unknown }).code, "limit");
      assert.equal((e as { limit?: unknown }).limit, "MAX_RESOLUTION_NOTE_CHARS");
      return true;
    });
    assert.deepEqual(await store.get(a.id), a);
    const longest = "n".repeat(MAX_RESOLUTION_NOTE_CHARS);
    assert.equal((await actions.resolve(a, carol, { outcome: "failed", note: longest })).resolution?.note, longest);
  }));

  test("W14: two operators resolving at once: one verdict is recorded, the other is a conflict", withStore(async (store) => {
    const a = await unknownAction(store);
    const dave: Identity = { actorId: "dave", tenantId: "acme" };
    const actions = createActions({ store, mayApprove: () => true, mayResolve: () => true });
    const results = await Promise.allSettled([
      actions.resolve(a, carol, { outcome: "succeeded", note: "it is in the log" }),
      actions.resolve(a, dave, { outcome: "failed", note: "it is not in the log" }),
    ]);
    const won = results.filter((r): r is PromiseFulfilledResult<ActionRecord> => r.status === "fulfilled");
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    assert.equal(won.length, 1);
    assert.equal(lost.length, 1);
    assert.equal((lost[0]?.reason as { code?: unknown }).code, "conflict");
    assert.deepEqual(await store.get(a.id), won[0]?.value);
  }));

  test("W14: a resumed run tells the model a person settled the call, with the note; failed is resolved_failed, not the server's tool_failed", withStore(async (store) => {
    for (const outcome of ["succeeded", "failed"] as const) {
      const tool = refundTool();
      const provider = scripted([{ toolCalls: [{ name: "billing__refund", arguments: { order: "7" } }] }, { text: "Noted." }, { text: "Noted again." }]);
      const paused = await run({ provider, tools: [tool], identity: alice, input: "refund order 7", actions: { store } });
      assert.ok(paused.state);
      const [a] = await store.list({ tenantId: "acme", runId: paused.state.runId });
      assert.ok(a);
      await createActions({ store, mayApprove: () => true }).approve(a, bob);
      await createWorker({ store, resolveTool: () => tool }).runOnce();
      // Resumed before anyone resolved it: the model reads that the outcome is unknown.
      const early = await run({ provider, tools: [tool], identity: alice, resume: paused.state, actions: { store } });
      const earlyAnswer = early.messages.filter((m): m is ToolResultMessage => m.role === "tool").at(-1);
      assert.deepEqual(JSON.parse(earlyAnswer?.content[0] && "text" in earlyAnswer.content[0] ? earlyAnswer.content[0].text : "{}"), { error: "outcome_unknown", message: "outcome unknown: not retried" });

      await createActions({ store, mayApprove: () => false, mayResolve: () => true }).resolve(a, carol, { outcome, note: NOTE });
      const events: AgentEvent[] = [];
      const done = await run({ provider, tools: [tool], identity: alice, resume: paused.state, actions: { store }, onEvent: (e) => events.push(e) });
      assert.equal(done.stopReason, "end");
      const answer = provider.requests.at(-1)?.messages.filter((m): m is ToolResultMessage => m.role === "tool").at(-1);
      assert.ok(answer);
      const text = answer.content.map((c) => ("text" in c ? c.text : "")).join("");
      const body = JSON.parse(text) as Record<string, unknown>;
      assert.equal(body.settled_by, "person");
      assert.equal(body.outcome, outcome);
      assert.equal(body.note, NOTE);
      assert.match(String(body.message), /A person checked the server/);
      assert.notEqual(body.error, "tool_failed");
      assert.equal(body.error, outcome === "failed" ? "resolved_failed" : undefined);
      assert.equal(answer.isError, outcome === "failed");
      assert.ok(!text.includes("carol"), "who resolved it is the host's record, not the model's business");
      const end = events.find((e) => e.type === "tool_execution_end");
      assert.ok(end && end.type === "tool_execution_end" && end.resumed === true && end.isError === (outcome === "failed"));
      assert.equal(tool.executes, 1, "nothing was sent again");
    }
  }));
});
