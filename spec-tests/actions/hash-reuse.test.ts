// W8: the approval check and the worker hash an action's stored arguments again. When
// this process proposed them, the digest it made then answers (a digest is a thread-pool
// round trip in Node); arguments edited in the store are digested anew and refused, and
// a proposal always makes its own digest.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createActions } from "../../src/actions/approvals.js";
import { MemoryActionStore } from "../../src/actions/memory-store.js";
import { createWorker } from "../../src/actions/worker.js";
import type { ConfirmTool } from "../../src/tools/types.js";
import { HASH_MEMO_ENTRIES, HASH_MEMO_MAX_CHARS } from "../../src/limits.js";
import { alice, bob } from "./support.js";

const tool: ConfirmTool = {
  name: "files__touch",
  description: "",
  inputSchema: { type: "object" },
  effect: "confirm",
  version: "v1",
  prepare: async (args) => ({ tool: "files__touch", version: "v1", arguments: args as Record<string, unknown> }),
  execute: async () => ({ status: "succeeded", result: { content: [], isError: false } }),
};

/** Runs `body` counting the calls of crypto.subtle.digest. */
async function countingDigests(body: (count: () => number) => Promise<void>): Promise<void> {
  const subtle = crypto.subtle;
  const real = subtle.digest.bind(subtle);
  let n = 0;
  Object.defineProperty(subtle, "digest", { configurable: true, value: (...a: Parameters<SubtleCrypto["digest"]>) => (n++, real(...a)) });
  try {
    await body(() => n);
  } finally {
    delete (subtle as { digest?: unknown }).digest;
  }
}

test("W8: the approval and the worker check the arguments this process proposed without a digest of their own; a proposal always digests", async () => {
  await countingDigests(async (digests) => {
    const store = new MemoryActionStore();
    const actions = createActions({ store, mayApprove: () => true });
    const a = await actions.propose(await tool.prepare({ path: "/srv/a" }, { identity: alice }), { identity: alice, effect: "confirm" });
    assert.equal(digests(), 1);
    // The binding as an inbox keeps it, without the arguments shown: those are always digested
    // (what an approver hands in never learns from this process's digests).
    const { arguments: shown, ...binding } = a;
    assert.ok(shown);
    await actions.approve(binding, bob);
    assert.equal(await createWorker({ store, resolveTool: () => tool }).runOnce(), 1);
    assert.equal((await store.get(a.id))?.state, "succeeded");
    assert.equal(digests(), 1, "the approval's and the worker's checks reused the proposal's digest");
    // Arguments shown with a binding are digested: another approval, with them, costs one.
    const b = await actions.propose(await tool.prepare({ path: "/srv/b" }, { identity: alice }), { identity: alice, effect: "confirm" });
    await actions.approve(b, bob);
    assert.equal(digests(), 3);
    // The same arguments proposed again are digested again (a proposal's time tells nothing).
    await actions.propose(await tool.prepare({ path: "/srv/a" }, { identity: alice }), { identity: alice, effect: "confirm" });
    assert.equal(digests(), 4);
  });
});

test("W8: arguments edited in the store after the approval are digested anew, and the action fails as arguments_changed", async () => {
  await countingDigests(async (digests) => {
    const data = new Map<string, string>();
    const store = new MemoryActionStore({ data });
    const actions = createActions({ store, mayApprove: () => true });
    const a = await actions.propose(await tool.prepare({ path: "/srv/a" }, { identity: alice }), { identity: alice, effect: "confirm" });
    await actions.approve(a, bob);
    const stored = JSON.parse(data.get(a.id)!) as { arguments: { path: string } };
    stored.arguments.path = "/etc/passwd";
    data.set(a.id, JSON.stringify(stored));
    const before = digests();
    await createWorker({ store, resolveTool: () => tool }).runOnce();
    const done = await store.get(a.id);
    assert.equal(done?.state, "failed");
    assert.match(done.outcome?.reason ?? "", /do not match the approved hash/);
    assert.equal(digests(), before + 1, "the edited arguments were digested");
  });
});

test("W8: the memo of this process's digests is bounded: arguments over HASH_MEMO_MAX_CHARS, and any past HASH_MEMO_ENTRIES proposals, are digested again", async () => {
  await countingDigests(async (digests) => {
    const store = new MemoryActionStore();
    const actions = createActions({ store, mayApprove: () => true });
    const approveBinding = async (a: Awaited<ReturnType<typeof actions.propose>>): Promise<void> => {
      const { arguments: _shown, ...binding } = a;
      await actions.approve(binding, bob);
    };
    // Over the length bound: never kept, so the approval digests it again.
    const big = await actions.propose(await tool.prepare({ path: "x".repeat(HASH_MEMO_MAX_CHARS) }, { identity: alice }), { identity: alice, effect: "confirm" });
    let before = digests();
    await approveBinding(big);
    assert.equal(digests(), before + 1, "a long argument list was taken from the memo");
    // Past the count bound, the first proposal's digest is gone.
    const first = await actions.propose(await tool.prepare({ path: "/srv/0" }, { identity: alice }), { identity: alice, effect: "confirm" });
    for (let i = 1; i <= HASH_MEMO_ENTRIES; i++) await actions.propose(await tool.prepare({ path: `/srv/${i}` }, { identity: alice }), { identity: alice, effect: "confirm" });
    before = digests();
    await approveBinding(first);
    assert.equal(digests(), before + 1, "the memo held more than HASH_MEMO_ENTRIES digests");
  });
});
