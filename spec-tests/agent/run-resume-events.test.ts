// W8: a resumed run that feeds back the outcomes read from the action store emits
// them as tool events (a start / end pair per outcome, marked resumed, turn 0), so a
// host that renders a transcript shows them; a resume that stays paused emits none.
// The tools talk to the reference contract server (a real stdio child).
import { test } from "node:test";
import assert from "node:assert/strict";
import { run } from "../../src/agent/run.js";
import { scripted } from "../../src/agent/scripted.js";
import type { AgentEvent } from "../../src/agent/events.js";
import type { RunState } from "../../src/agent/run-actions.js";
import { createActions } from "../../src/actions/approvals.js";
import { MemoryActionStore } from "../../src/actions/memory-store.js";
import { createWorker } from "../../src/actions/worker.js";
import { alice, bob, deleteTool, renameTool, startContract } from "../actions/support.js";

const roundTrip = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const textOf = (content: ReadonlyArray<{ type: string; text?: string }>): string => content.map((c) => c.text ?? "").join("");

test("W8: a resumed run emits a tool_execution_start / _end pair, marked resumed, per outcome it feeds back from the store, before its first turn", { timeout: 60_000 }, async () => {
  const server = await startContract();
  try {
    const store = new MemoryActionStore();
    const tools = [renameTool(server.client, alice), deleteTool(server.client)];
    const provider = scripted([
      { toolCalls: [{ name: "items__rename", arguments: { id: "A", name: "Gear" } }, { name: "items__delete_item", arguments: { id: "B" } }] },
      { text: "Renamed; deletion was rejected." },
    ]);
    const paused = await run({ provider, tools, identity: alice, input: "go", actions: { store } });
    const state = roundTrip(paused.state) as RunState;

    const waiting: AgentEvent[] = [];
    await run({ provider, tools, identity: alice, resume: state, actions: { store }, onEvent: (e) => waiting.push(e) });
    assert.deepEqual(waiting.map((e) => e.type), ["agent_start", "approval_required", "agent_end"], "still paused: no outcome, no tool event");

    const actions = createActions({ store, mayApprove: () => true });
    const pending = await actions.pending("acme");
    const w = pending.find((a) => a.tool === "items__rename");
    const c = pending.find((a) => a.tool === "items__delete_item");
    assert.ok(w && c);
    await actions.approve(w, bob);
    await actions.reject(c, bob, "B is still in use");
    await createWorker({ store, resolveTool: (a) => tools.find((t) => t.name === a.tool) }).runOnce();

    const events: AgentEvent[] = [];
    const done = await run({ provider, tools, identity: alice, resume: state, actions: { store }, onEvent: (e) => events.push(e) });
    assert.equal(done.stopReason, "end");
    assert.deepEqual(events.slice(0, 6).map((e) => e.type), ["agent_start", "tool_execution_start", "tool_execution_end", "tool_execution_start", "tool_execution_end", "turn_start"]);
    const [, s1, e1, s2, e2, turn] = events;
    assert.deepEqual(s1, { type: "tool_execution_start", turn: 0, callId: "call_1_1", toolName: "items__rename", resumed: true, arguments: { id: "A", name: "Gear" } });
    assert.deepEqual(s2, { type: "tool_execution_start", turn: 0, callId: "call_1_2", toolName: "items__delete_item", resumed: true, arguments: { id: "B" } });
    assert.ok(e1?.type === "tool_execution_end" && e2?.type === "tool_execution_end");
    assert.deepEqual([e1.callId, e1.resumed, e1.isError, e1.turn], ["call_1_1", true, false, 0]);
    assert.match(textOf(e1.content), /renamed A/);
    assert.deepEqual([e2.callId, e2.resumed, e2.isError], ["call_1_2", true, true]);
    assert.equal(textOf(e2.content), JSON.stringify({ error: "rejected", message: "rejected by the approver: B is still in use" }));
    assert.deepEqual(turn, { type: "turn_start", turn: 1 });
    // The events carry what the model is given: the same results, in the same order.
    const fed = done.messages.filter((m) => m.role === "tool");
    assert.deepEqual(fed.map((m) => m.role === "tool" && [m.toolCallId, m.content]), [e1, e2].map((e) => e.type === "tool_execution_end" && [e.callId, e.content]));
    assert.ok(events.filter((e) => e.type === "tool_execution_start" && e.turn > 0).length === 0, "the resumed run's own turn executes nothing");
  } finally {
    await server.close();
  }
});
