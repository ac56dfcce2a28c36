// W8 / W9 bounds of stored actions, crossed through the public approval API, the
// worker and a real file store (its journal written and read on disk): at each
// bound the action is kept, one past it is refused (or cut, where the code cuts).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { appendFileSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createActions } from "../../src/actions/approvals.js";
import { createWorker } from "../../src/actions/worker.js";
import { MemoryActionStore } from "../../src/actions/memory-store.js";
import { openFileStore } from "../../src/node/file-store.js";
import type { ActionRecord, ActionStore } from "../../src/actions/types.js";
import type { WriteTool } from "../../src/tools/types.js";
import {
  DEFAULT_ACTION_LEASE_MS,
  DEFAULT_APPROVAL_TTL_MS,
  DEFAULT_WORKER_POLL_MS,
  FILE_STORE_COMPACT_BYTES,
  FILE_STORE_MAX_JOURNAL_BYTES,
  MAX_ACTION_ID_CHARS,
  MAX_ACTION_PREVIEW_CHARS,
  MAX_ACTION_REASON_CHARS,
  MAX_ACTION_VERSION_CHARS,
  MAX_ACTIONS_PER_PASS,
  MAX_APPROVAL_TTL_MS,
  MAX_FILE_STORE_ACTIONS,
  MAX_STATE_VERSION_CHARS,
  RECONCILE_BASE_DELAY_MS,
} from "../../src/limits.js";
import { newRecord } from "../actions/store-contract.js";
import { plantRecord, tempDir } from "../actions/support.js";
import { limitNamed } from "./support.js";

const T = { timeout: 60_000 };
const alice = { actorId: "alice", tenantId: "acme" };
const bob = { actorId: "bob", tenantId: "acme" };
type Coded = Error & { code?: string };
const coded = (code: string) => (e: Coded) => e.code === code;
const journalPath = (): string => join(tempDir(), "actions.jsonl");
const prepared = (over: Record<string, unknown> = {}) => ({ tool: "files__rename", version: "v1", arguments: { from: "a", to: "b" }, ...over });

describe("W8: record fields at their bounds (file store)", { concurrency: true }, () => {
  // Each field at its bound is stored and read back after a reopen; one character more
  // is refused on create (validation) and, planted in the journal, on read (store).
  const fields: Array<[string, number, (n: number) => Partial<ActionRecord>]> = [
    ["id", MAX_ACTION_ID_CHARS, (n) => ({ id: "i".repeat(n) })],
    ["actorId", MAX_ACTION_ID_CHARS, (n) => ({ actorId: "a".repeat(n) })],
    ["tenantId", MAX_ACTION_ID_CHARS, (n) => ({ tenantId: "t".repeat(n) })],
    ["runId", MAX_ACTION_ID_CHARS, (n) => ({ runId: "r".repeat(n) })],
    ["callId", MAX_ACTION_ID_CHARS, (n) => ({ callId: "c".repeat(n) })],
    ["stateVersion", MAX_STATE_VERSION_CHARS, (n) => ({ stateVersion: "s".repeat(n) })],
    ["version", MAX_ACTION_VERSION_CHARS, (n) => ({ version: "v".repeat(n) })],
    ["preview", MAX_ACTION_PREVIEW_CHARS, (n) => ({ preview: "p".repeat(n) })],
  ];
  for (const [field, max, make] of fields) {
    test(`W8: an action ${field} of ${max} characters is stored; one more is refused on create and on read`, T, async () => {
      const path = journalPath();
      let store = await openFileStore(path);
      try {
        const at = await store.create(newRecord(make(max)));
        await store.close();
        store = await openFileStore(path);
        assert.deepEqual(await store.get(at.id), at);
        await assert.rejects(store.create(newRecord(make(max + 1))), coded("validation"));
        // Written behind the store's back, as a corrupt disk or another program would.
        const planted = newRecord(make(max + 1));
        await store.close();
        plantRecord(path, planted);
        store = await openFileStore(path);
        await assert.rejects(store.get(planted.id), coded("store"));
      } finally {
        await store.close();
      }
    });
  }

  test(`W8: a rejection reason of ${MAX_ACTION_REASON_CHARS} characters is stored; one more is refused on transition and on read`, T, async () => {
    const path = journalPath();
    let store = await openFileStore(path);
    const rejection = (n: number) => ({ state: "rejected" as const, rejection: { actorId: "bob", tenantId: "acme", at: 1, reason: "x".repeat(n) } });
    try {
      const a = await store.create(newRecord());
      await assert.rejects(store.transition(a.id, { state: a.state, fence: a.fence }, rejection(MAX_ACTION_REASON_CHARS + 1), Date.now()), coded("validation"));
      const at = await store.transition(a.id, { state: a.state, fence: a.fence }, rejection(MAX_ACTION_REASON_CHARS), Date.now());
      await store.close();
      store = await openFileStore(path);
      assert.deepEqual(await store.get(at.id), at);
      await store.close();
      plantRecord(path, { ...at, ...rejection(MAX_ACTION_REASON_CHARS + 1) });
      store = await openFileStore(path);
      await assert.rejects(store.get(at.id), coded("store"));
    } finally {
      await store.close();
    }
  });
});

describe("W8: approvals at their bounds", { concurrency: true }, () => {
  test("W8: a preview longer than MAX_ACTION_PREVIEW_CHARS is cut to it when proposed; a reason longer than MAX_ACTION_REASON_CHARS is cut on reject", T, async () => {
    const actions = createActions({ store: new MemoryActionStore(), mayApprove: () => true });
    const whole = await actions.propose(prepared({ preview: "p".repeat(MAX_ACTION_PREVIEW_CHARS) }), { identity: alice, effect: "confirm" });
    assert.equal(whole.preview?.length, MAX_ACTION_PREVIEW_CHARS);
    const cut = await actions.propose(prepared({ preview: `${"p".repeat(MAX_ACTION_PREVIEW_CHARS)}TAIL` }), { identity: alice, effect: "confirm" });
    assert.equal(cut.preview, "p".repeat(MAX_ACTION_PREVIEW_CHARS));
    const rejected = await actions.reject(cut, bob, `${"r".repeat(MAX_ACTION_REASON_CHARS)}TAIL`);
    assert.equal(rejected.rejection?.reason, "r".repeat(MAX_ACTION_REASON_CHARS));
  });

  test("W8: proposals expire after DEFAULT_APPROVAL_TTL_MS; a TTL up to MAX_APPROVAL_TTL_MS is taken, a longer one refused", T, async () => {
    let clock = 1_000_000;
    const actions = createActions({ store: new MemoryActionStore(), mayApprove: () => true, now: () => clock });
    const a = await actions.propose(prepared(), { identity: alice, effect: "confirm" });
    const b = await actions.propose(prepared(), { identity: alice, effect: "confirm" });
    assert.equal(a.expiresAt, clock + DEFAULT_APPROVAL_TTL_MS);
    clock += DEFAULT_APPROVAL_TTL_MS - 1;
    assert.equal((await actions.approve(a, bob)).state, "approved");
    clock += 1;
    await assert.rejects(actions.approve(b, bob), (e: Coded) => e.code === "conflict" && /expired/.test(e.message));
    const longest = createActions({ store: new MemoryActionStore(), mayApprove: () => true, approvalTtlMs: MAX_APPROVAL_TTL_MS, now: () => 0 });
    assert.equal((await longest.propose(prepared(), { identity: alice, effect: "confirm" })).expiresAt, MAX_APPROVAL_TTL_MS);
    assert.throws(() => createActions({ store: new MemoryActionStore(), mayApprove: () => true, approvalTtlMs: MAX_APPROVAL_TTL_MS + 1 }), coded("validation"));
  });
});

// A host write tool whose every send ends with an unknown outcome (a lost answer).
const lostAnswers: WriteTool = {
  effect: "write",
  name: "files__rename",
  description: "rename",
  inputSchema: { type: "object" },
  version: "v1",
  prepare: async () => ({ tool: "files__rename", version: "v1", arguments: { from: "a", to: "b" } }),
  execute: async () => ({ status: "unknown", reason: `the answer was lost ${"x".repeat(2 * MAX_ACTION_REASON_CHARS)}` }),
  reconcile: async () => ({ status: "unknown", reason: "still unknown" }),
};

async function approvedIn(store: ActionStore, n: number, clock: () => number): Promise<ActionRecord[]> {
  const actions = createActions({ store, mayApprove: () => true, now: clock });
  const out: ActionRecord[] = [];
  for (let i = 0; i < n; i++) out.push(await actions.approve(await actions.propose(prepared(), { identity: alice, effect: "write" }), bob));
  return out;
}

describe("W8: the worker at its bounds", { concurrency: true }, () => {
  test("W8: one runOnce handles MAX_ACTIONS_PER_PASS actions; the next one waits for the next pass", T, async () => {
    let clock = 1_000;
    const store = await openFileStore(journalPath());
    try {
      const actions = createActions({ store, mayApprove: () => true, approvalTtlMs: 10, now: () => clock });
      for (let i = 0; i < MAX_ACTIONS_PER_PASS + 1; i++) await actions.propose(prepared(), { identity: alice, effect: "confirm" });
      clock += 1_000; // every proposal is past its TTL: each pass expires what it claims
      const worker = createWorker({ store, resolveTool: () => undefined, now: () => clock });
      assert.equal(await worker.runOnce(), MAX_ACTIONS_PER_PASS);
      assert.equal(await worker.runOnce(), 1);
      assert.equal(await worker.runOnce(), 0);
      assert.equal((await store.list({ tenantId: "acme", state: "expired" })).length, MAX_ACTIONS_PER_PASS + 1);
    } finally {
      await store.close();
    }
  });

  test("W8: a claim holds DEFAULT_ACTION_LEASE_MS by default; an unknown outcome is looked up after RECONCILE_BASE_DELAY_MS, its reason cut to MAX_ACTION_REASON_CHARS", T, async () => {
    const clock = 5_000_000;
    const store = new MemoryActionStore();
    const [held, lost] = await approvedIn(store, 2, () => clock);
    assert.ok(held && lost);
    // A resolver that throws leaves the action approved under the worker's lease.
    const stuck = createWorker({ store, resolveTool: (a) => (a.id === held.id ? Promise.reject(new Error("no tool yet")) : lostAnswers), now: () => clock, random: () => 1 });
    await stuck.runOnce();
    const leased = await store.get(held.id);
    assert.equal(leased?.state, "approved");
    assert.equal(leased?.leaseUntil, clock + DEFAULT_ACTION_LEASE_MS);
    const reconciling = await store.get(lost.id);
    assert.equal(reconciling?.state, "reconciling");
    assert.equal(reconciling?.notBefore, clock + RECONCILE_BASE_DELAY_MS, "jitter 1 gives the full first back-off");
    assert.equal(reconciling?.outcome?.reason?.length, MAX_ACTION_REASON_CHARS);
  });

  test("W8: a started worker that finds nothing looks again after DEFAULT_WORKER_POLL_MS", T, async () => {
    const inner = new MemoryActionStore();
    const claims: number[] = [];
    const store = new Proxy(inner, {
      get(target, key) {
        if (key === "claim") return (o: Parameters<ActionStore["claim"]>[0]) => (claims.push(performance.now()), target.claim(o));
        if (key === "claimMany") return (o: Parameters<NonNullable<ActionStore["claimMany"]>>[0]) => (claims.push(performance.now()), target.claimMany(o));
        const v = Reflect.get(target, key) as unknown;
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const worker = createWorker({ store, resolveTool: () => undefined });
    worker.start();
    try {
      const end = performance.now() + 20_000;
      while (claims.length < 2 && performance.now() < end) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await worker.stop();
    }
    assert.ok(claims.length >= 2, "looked again");
    const gap = (claims[1] as number) - (claims[0] as number);
    assert.ok(gap >= DEFAULT_WORKER_POLL_MS - 20 && gap < DEFAULT_WORKER_POLL_MS * 10, `looked again after ${gap} ms`);
  });
});

describe("W9: file store journal bounds", { concurrency: true }, () => {
  // One record's line, padded to `chars` characters with its newline.
  const lineOf = (chars: number): string => {
    const base = JSON.stringify(newRecord({ id: "one", arguments: { pad: "" } }));
    const line = base.replace('"pad":""', `"pad":"${"x".repeat(chars - 1 - base.length)}"`);
    assert.equal(line.length + 1, chars);
    return line + "\n";
  };

  test("W9: a journal of FILE_STORE_COMPACT_BYTES is opened as it is; past it, one mostly superseded is compacted on open", T, async () => {
    // 1,024-character lines, all versions of one action: only the last is live.
    const line = lineOf(1024);
    const count = FILE_STORE_COMPACT_BYTES / 1024;
    const at = journalPath();
    writeFileSync(at, line.repeat(count));
    const kept = await openFileStore(at);
    await kept.close();
    // Not compacted at the bound: only the opener's holder line was appended.
    const grown = statSync(at).size - FILE_STORE_COMPACT_BYTES;
    assert.ok(grown > 0 && grown < 200, `not compacted at the bound (grew by ${grown} bytes)`);
    const over = journalPath();
    writeFileSync(over, line.repeat(count + 1));
    const compacted = await openFileStore(over);
    try {
      assert.equal((await compacted.get("one"))?.id, "one");
    } finally {
      await compacted.close();
    }
    const lines = readFileSync(over, "utf8").trim().split("\n");
    assert.equal(lines.length, 2, "compacted to its holder line and its one live line");
    assert.equal((JSON.parse(lines[1] ?? "") as { r: { id: string } }).r.id, "one");
    // The bound is the default of compactBytes, which a host may lower.
    const small = journalPath();
    writeFileSync(small, line.repeat(20));
    await (await openFileStore(small, { compactBytes: 4_096 })).close();
    assert.ok(statSync(small).size < 1_300, `compacted to one line (${statSync(small).size} bytes)`);
  });

  test("W9: a journal of MAX_FILE_STORE_ACTIONS actions opens and takes no more; one more action is a limit error on open", T, async () => {
    const ids = (n: number): string => Array.from({ length: n }, (_, i) => `{"id":"a${i}"}\n`).join("");
    const path = journalPath();
    writeFileSync(path, ids(MAX_FILE_STORE_ACTIONS - 1));
    const store = await openFileStore(path);
    try {
      await store.create(newRecord());
      await assert.rejects(store.create(newRecord()), limitNamed("MAX_FILE_STORE_ACTIONS", MAX_FILE_STORE_ACTIONS));
    } finally {
      await store.close();
    }
    const over = journalPath();
    writeFileSync(over, ids(MAX_FILE_STORE_ACTIONS + 1));
    await assert.rejects(openFileStore(over), limitNamed("MAX_FILE_STORE_ACTIONS", MAX_FILE_STORE_ACTIONS));
  });

  test("W9: a journal over FILE_STORE_MAX_JOURNAL_BYTES is refused on open, unread and untouched", T, async () => {
    const path = journalPath();
    writeFileSync(path, "");
    truncateSync(path, FILE_STORE_MAX_JOURNAL_BYTES + 1); // sparse: no disk blocks
    await assert.rejects(openFileStore(path), (e: Coded) => e.code === "store" && e.message.includes("FILE_STORE_MAX_JOURNAL_BYTES"));
    assert.equal(statSync(path).size, FILE_STORE_MAX_JOURNAL_BYTES + 1);
    truncateSync(path, 0);
  });
});
