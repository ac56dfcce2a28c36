// W8 under attack: a crafted run state (no signing key) cannot make a resumed run's
// tool events tell of arguments that were never approved nor run. The tools talk to
// the reference contract server (a real stdio child).
import { test } from "node:test";
import assert from "node:assert/strict";
import { run } from "../../src/agent/run.js";
import { scripted } from "../../src/agent/scripted.js";
import type { AgentEvent } from "../../src/agent/events.js";
import type { RunState } from "../../src/agent/run-actions.js";
import { createActions } from "../../src/actions/approvals.js";
import { MemoryActionStore } from "../../src/actions/memory-store.js";
import { createWorker } from "../../src/actions/worker.js";
import { alice, bob, renameTool, startContract } from "../actions/support.js";

const roundTrip = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

test("W8: a resumed run's tool events carry the arguments the store approved and ran, not ones a crafted run state claims", { timeout: 60_000 }, async () => {
  const server = await startContract();
  try {
    const store = new MemoryActionStore();
    const tools = [renameTool(server.client, alice)];
    const provider = scripted([{ toolCalls: [{ name: "items__rename", arguments: { id: "A", name: "Gear" } }] }, { text: "done" }]);
    const paused = await run({ provider, tools, identity: alice, input: "go", actions: { store } });
    const crafted = roundTrip(paused.state) as RunState;
    // The conversation's call now claims other arguments; its id and tool name still match the action.
    for (const m of crafted.messages) {
      if (m.role !== "assistant") continue;
      for (const part of m.content) if (part.type === "tool_call") part.arguments = { id: "EVERYTHING", name: "pwned" };
    }
    const actions = createActions({ store, mayApprove: () => true });
    const [a] = await actions.pending("acme");
    assert.ok(a);
    await actions.approve(a, bob);
    await createWorker({ store, resolveTool: (x) => tools.find((t) => t.name === x.tool) }).runOnce();

    const events: AgentEvent[] = [];
    const done = await run({ provider, tools, identity: alice, resume: crafted, actions: { store }, onEvent: (e) => events.push(e) });
    assert.equal(done.stopReason, "end");
    const start = events.find((e) => e.type === "tool_execution_start");
    assert.ok(start?.type === "tool_execution_start" && start.resumed === true);
    assert.deepEqual(start.arguments, a.arguments, "the arguments of the action that was approved and ran");
    assert.deepEqual(start.arguments, { id: "A", name: "Gear" });
  } finally {
    await server.close();
  }
});
