// U5: onAwaitingApproval, the proposal side of the host's notifications. Called once
// per proposed action after the store's create resolved (the record is durable: a
// copy of the file store's journal, opened as a store of its own, holds it), with a
// copy of the record; a throwing, rejecting or never-settling callback neither blocks
// nor fails the run, and its failure goes to onError (else the run's logger).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { createActions } from "../../src/actions/approvals.js";
import { MemoryActionStore } from "../../src/actions/memory-store.js";
import type { ActionRecord, ActionStore } from "../../src/actions/types.js";
import { run } from "../../src/agent/run.js";
import { scripted } from "../../src/agent/scripted.js";
import type { LogLevel } from "../../src/log.js";
import { openFileStore } from "../../src/node/file-store.js";
import type { ActionOutcome, ConfirmTool } from "../../src/tools/types.js";
import { alice, tempDir } from "./support.js";

function noteTool(name = "notes__save"): ConfirmTool {
  return {
    name,
    description: "Saves a note.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    effect: "confirm",
    version: "notes-1",
    prepare: async (args) => ({ tool: name, version: "notes-1", arguments: { ...(args as Record<string, unknown>) }, preview: "save a note" }),
    execute: async (): Promise<ActionOutcome> => ({ status: "succeeded", result: { content: [{ type: "text", text: "saved" }], isError: false } }),
  };
}

/** A run that proposes two calls in one turn. */
const twoCalls = () => scripted([{ toolCalls: [{ name: "notes__save", arguments: { text: "one" } }, { name: "notes__save", arguments: { text: "two" } }] }, { text: "ok" }]);

describe("U5: onAwaitingApproval", { timeout: 60_000 }, () => {
  test("U5: called once per proposed action, after its record is durable in the file store, with a copy of the record", async () => {
    const dir = tempDir();
    const path = join(dir, "actions.jsonl");
    const store = await openFileStore(path);
    try {
      const seen: Array<{ given: ActionRecord; onDisk: ActionRecord | undefined }> = [];
      const checks: Promise<void>[] = [];
      const onAwaitingApproval = (action: ActionRecord): Promise<void> => {
        // What is on disk at this moment, opened as a store of its own (a copy: the journal is locked).
        const copy = join(dir, `copy-${seen.length}.jsonl`);
        copyFileSync(path, copy);
        const entry: { given: ActionRecord; onDisk: ActionRecord | undefined } = { given: structuredClone(action), onDisk: undefined };
        seen.push(entry);
        action.state = "approved"; // the callback's copy is its own
        const p = openFileStore(copy).then(async (other) => {
          entry.onDisk = await other.get(entry.given.id);
          await other.close();
        });
        checks.push(p);
        return p;
      };
      const result = await run({ provider: twoCalls(), tools: [noteTool()], identity: alice, input: "save two notes", actions: { store, onAwaitingApproval } });
      assert.equal(result.stopReason, "approval_required");
      await Promise.all(checks);
      assert.equal(seen.length, 2, "once per action");
      assert.deepEqual(seen.map((s) => s.given.id).sort(), result.proposedCalls.map((c) => c.actionId).sort());
      for (const { given, onDisk } of seen) {
        assert.equal(given.state, "awaiting_approval");
        assert.deepEqual(onDisk, given, "the journal held the record when the callback ran");
        assert.deepEqual(await store.get(given.id), given, "the store's record is untouched by the callback");
      }
    } finally {
      await store.close();
    }
  });

  test("U5: a throwing, rejecting or never-settling callback neither blocks nor fails the run; failures go to onError", async () => {
    const store = await openFileStore(join(tempDir(), "actions.jsonl"));
    try {
      const boom = new Error("the webhook is down");
      const errors: unknown[] = [];
      const onError = (e: unknown) => void errors.push(e);
      let release: (() => void) | undefined;
      const never = new Promise<void>((r) => (release = r));
      const callbacks: Array<[string, (a: ActionRecord) => void | Promise<void>]> = [
        ["throws", () => {
          throw boom;
        }],
        ["rejects", async () => {
          await Promise.resolve();
          throw boom;
        }],
        ["never settles", () => never],
      ];
      for (const [what, onAwaitingApproval] of callbacks) {
        errors.length = 0;
        const started = Date.now();
        const result = await run({ provider: twoCalls(), tools: [noteTool()], identity: alice, input: "save", actions: { store, onAwaitingApproval, onError } });
        assert.equal(result.stopReason, "approval_required", what);
        assert.equal(result.proposedCalls.length, 2, `${what}: both calls were proposed`);
        assert.ok(Date.now() - started < 5_000, `${what}: the run did not wait`);
        for (const c of result.proposedCalls) assert.equal((await store.get(c.actionId!))?.state, "awaiting_approval");
        await new Promise((r) => setTimeout(r, 20));
        assert.deepEqual(errors, what === "never settles" ? [] : [boom, boom], `${what}: each failure reported once`);
      }
      release?.();
      // An onError that throws itself is dropped: the run still stands.
      const result = await run({
        provider: twoCalls(), tools: [noteTool()], identity: alice, input: "save",
        actions: { store, onAwaitingApproval: () => { throw boom; }, onError: () => { throw new Error("the handler too"); } },
      });
      assert.equal(result.stopReason, "approval_required");
    } finally {
      await store.close();
    }
  });

  test("U5: without onError, a failing callback is an error entry of the run's logger", async () => {
    const logged: Array<[LogLevel, string, Record<string, unknown> | undefined]> = [];
    const result = await run({
      provider: twoCalls(), tools: [noteTool()], identity: alice, input: "save",
      actions: { store: new MemoryActionStore(), onAwaitingApproval: () => Promise.reject(new Error("the webhook is down")) },
      logger: (level, message, data) => void logged.push([level, message, data]),
    });
    assert.equal(result.stopReason, "approval_required");
    await new Promise((r) => setTimeout(r, 20));
    const entries = logged.filter(([, m]) => m.includes("onAwaitingApproval"));
    assert.equal(entries.length, 2);
    for (const [level, , data] of entries) {
      assert.equal(level, "error");
      assert.equal(data?.error, "the webhook is down");
    }
  });

  test("U5: createActions tells of a proposal only once the store holds it; a refused create tells of nothing", async () => {
    const inner = new MemoryActionStore();
    let created = 0;
    let refuse = false;
    const store: ActionStore = new Proxy(inner, {
      get(target, key, receiver) {
        if (key === "create") {
          return async (r: ActionRecord) => {
            if (refuse) throw new Error("disk full");
            await new Promise((res) => setTimeout(res, 30));
            const out = await target.create(r);
            created++;
            return out;
          };
        }
        const v = Reflect.get(target, key, receiver) as unknown;
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const told: Array<[string, number, ActionRecord | undefined]> = [];
    const actions = createActions({
      store,
      mayApprove: () => true,
      onAwaitingApproval: async (a) => {
        a.preview = "changed by the callback"; // its own copy: the proposer's record stays as stored
        told.push([a.id, created, await inner.get(a.id)]);
      },
    });
    const tool = noteTool();
    const a = await actions.propose(await tool.prepare({ text: "x" }, { identity: alice }), { identity: alice, effect: "confirm" });
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(told, [[a.id, 1, a]], "told after create resolved, with the stored record");
    assert.equal(a.preview, "save a note");
    refuse = true;
    await assert.rejects(actions.propose(await tool.prepare({ text: "y" }, { identity: alice }), { identity: alice, effect: "confirm" }), /disk full/);
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(told.length, 1, "a proposal the store refused is not told of");
  });

  test("U5: a callback that is not a function is refused before anything is proposed", async () => {
    const store = new MemoryActionStore();
    await assert.rejects(run({ provider: twoCalls(), tools: [noteTool()], identity: alice, input: "x", actions: { store, onAwaitingApproval: "https://hooks.example" as never } }), { code: "config" });
    await assert.rejects(run({ provider: twoCalls(), tools: [noteTool()], identity: alice, input: "x", actions: { store, onError: 1 as never } }), { code: "config" });
    assert.throws(() => createActions({ store, mayApprove: () => true, onAwaitingApproval: {} as never }), { code: "validation" });
    assert.throws(() => createActions({ store, mayApprove: () => true, mayResolve: "yes" as never }), { code: "validation" });
    assert.deepEqual(await store.list({ tenantId: "acme" }), []);
  });
});
