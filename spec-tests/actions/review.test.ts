// W5, W8, W9: adversarial review of the action layer — approvals bound to what was
// shown, a not-sent retry that never follows a takeover, the file store lock.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createActions } from "../../src/actions/approvals.js";
import { MemoryActionStore } from "../../src/actions/memory-store.js";
import { alice, bob } from "./support.js";

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "resolved";
  } catch (e) {
    return String((e as { code?: unknown }).code);
  }
}

describe("review: approvals and the worker", { timeout: 60_000 }, () => {
  test("W8: an approval carrying arguments other than the stored ones is refused, whatever hash it names", async () => {
    const store = new MemoryActionStore();
    const actions = createActions({ store, mayApprove: () => true });
    const a = await actions.propose({ tool: "items__rename", version: "v1", arguments: { id: "A", name: "Gear" } }, { identity: alice, effect: "write" });
    // The approver was shown other arguments (edited in transit) under the stored hash.
    const shown = { ...a, arguments: { id: "A", name: "Harmless" } };
    assert.equal(await code(actions.approve(shown, bob)), "conflict");
    assert.equal(await code(actions.approve({ ...a, preview: "nothing happens" }, bob)), "conflict");
    assert.equal((await store.get(a.id))?.state, "awaiting_approval");
    // Shown exactly as stored (any key order): approved.
    assert.equal((await actions.approve({ ...a, arguments: { name: "Gear", id: "A" } }, bob)).state, "approved");
  });
});
