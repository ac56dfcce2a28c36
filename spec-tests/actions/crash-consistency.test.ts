// W9, W15 (A5): power loss, not only kill -9. The file action store and the token file
// store run a workload through a recording file system (spec-tests/helpers/crash-fs.ts);
// then, for every point of the recorded sequence, every disk state a power cut there
// could leave (only what was synced is sure to be kept; what was not is dropped, torn
// or zeroed; directory changes kept only up to the last directory sync, plus any
// prefix of those after) is written out and opened: it must open, every change
// acknowledged before the cut must be there (in that version or a later one), nothing
// that was never written may appear, and the store must go on from it. The harness is
// itself shown to fail a store that skips its file syncs or its directory syncs.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { openFileStoreWith } from "../../src/node/file-store.js";
import { FileTokenStore } from "../../src/node/token-store.js";
import type { ActionRecord } from "../../src/actions/types.js";
import { crashStates, marksBefore, materialize, noSyncFs, RecordingFs } from "../helpers/crash-fs.js";
import { newRecord } from "./store-contract.js";
import { tempDir } from "./support.js";

const approval = { actorId: "bob", tenantId: "acme", at: 1 };
const T = { timeout: 240_000 };

/** A workload of every kind of change: single and concurrent (group commit), batches, a compaction, a reopen. */
async function actionWorkload(fs: RecordingFs, path: string): Promise<Map<string, ActionRecord[]>> {
  const versions = new Map<string, ActionRecord[]>();
  const ack = (r: ActionRecord): ActionRecord => {
    versions.set(r.id, [...(versions.get(r.id) ?? []), r]);
    fs.mark({ id: r.id, version: versions.get(r.id)!.length - 1 });
    return r;
  };
  const approve = (r: ActionRecord) => ({ id: r.id, expected: { state: r.state, fence: r.fence }, patch: { state: "approved" as const, approval } });
  let store = await openFileStoreWith(path, {}, { fs, lock: "socket" });
  const a = ack(await store.create(newRecord()));
  const b = ack(await store.create(newRecord()));
  ack(await store.transition(a.id, approve(a).expected, approve(a).patch, Date.now()));
  // Concurrent changes: one append, one sync.
  await Promise.all([store.create(newRecord()).then(ack), store.create(newRecord()).then(ack), store.transition(b.id, approve(b).expected, approve(b).patch, Date.now()).then(ack)]);
  const claimed = (await store.claimMany({ workerId: "w1", now: Date.now(), leaseMs: 60_000, limit: 8 })).map(ack);
  const executing = await store.transitionMany(claimed.map((r) => ({ id: r.id, expected: { state: r.state, fence: r.fence }, patch: { state: "executing" as const } })), Date.now());
  const running = executing.flatMap((o) => (o.ok ? [ack(o.record)] : []));
  await store.compact();
  const [first, second] = running;
  assert.ok(first && second);
  await Promise.all([
    store.transition(first.id, { state: first.state, fence: first.fence }, { state: "succeeded", outcome: { result: { content: [], isError: false } }, leaseOwner: undefined, leaseUntil: undefined }, Date.now()).then(ack),
    store.create(newRecord()).then(ack),
  ]);
  await store.close();
  store = await openFileStoreWith(path, {}, { fs, lock: "socket" });
  await Promise.all([
    store.transition(second.id, { state: second.state, fence: second.fence }, { state: "failed", outcome: { result: { content: [], isError: true }, reason: "cut" }, leaseOwner: undefined, leaseUntil: undefined }, Date.now()).then(ack),
    store.create(newRecord()).then(ack),
    store.create(newRecord()).then(ack),
  ]);
  await store.close();
  return versions;
}

/** Opens each crash state of the action journal; the problems found. */
async function checkActions(fs: RecordingFs, dir: string, versions: Map<string, ActionRecord[]>): Promise<string[]> {
  const problems: string[] = [];
  for (const state of crashStates(fs.ops, dir)) {
    const where = `cut after op ${state.at}/${fs.ops.length} (${state.variant})`;
    const at = materialize(state);
    try {
      const path = join(at, "actions.jsonl");
      const acked = new Map<string, number>();
      for (const m of marksBefore(fs.ops, state.at) as { id: string; version: number }[]) acked.set(m.id, m.version);
      let store;
      try {
        store = await openFileStoreWith(path, {}, { fs: noSyncFs, lock: "socket" });
      } catch (e) {
        problems.push(`${where}: the journal does not open: ${(e as Error).message}`);
        continue;
      }
      for (const [id, v] of acked) {
        const got = await store.get(id);
        const i = (versions.get(id) ?? []).findIndex((r) => isDeepStrictEqual(r, got));
        if (i < v) problems.push(`${where}: ${id} was acknowledged in version ${v}, the disk has ${got === undefined ? "nothing" : i < 0 ? "an unknown version" : `version ${i}`}`);
      }
      for (const r of await store.list({ tenantId: "acme" })) {
        if (!(versions.get(r.id) ?? []).some((x) => isDeepStrictEqual(x, r))) problems.push(`${where}: ${r.id} is in a version never written`);
      }
      // The store goes on from the state the cut left.
      const next = await store.create(newRecord());
      await store.close();
      const again = await openFileStoreWith(path, {}, { fs: noSyncFs, lock: "socket" });
      if (!isDeepStrictEqual(await again.get(next.id), next)) problems.push(`${where}: a change made after the cut is lost on the next open`);
      await again.close();
    } finally {
      rmSync(at, { recursive: true, force: true });
    }
  }
  return problems;
}

async function tokenWorkload(fs: RecordingFs, path: string): Promise<Map<string, (string | undefined)[]>> {
  const versions = new Map<string, (string | undefined)[]>();
  const store = new FileTokenStore(path, { fs, lock: "socket" });
  const set = async (key: string, value: string | undefined) => {
    const cur = await store.get(key);
    assert.equal(await store.set(key, value, cur?.version), true);
    versions.set(key, [...(versions.get(key) ?? [undefined]), value]);
    fs.mark({ key, version: versions.get(key)!.length - 1 });
  };
  await set("a", "access-1");
  await set("b", "refresh-1");
  await set("a", "access-2");
  await set("b", undefined);
  await set("c", "client-1");
  await set("a", "access-3");
  return versions;
}

async function checkTokens(fs: RecordingFs, dir: string, versions: Map<string, (string | undefined)[]>): Promise<string[]> {
  const problems: string[] = [];
  for (const state of crashStates(fs.ops, dir)) {
    const where = `cut after op ${state.at}/${fs.ops.length} (${state.variant})`;
    const at = materialize(state);
    try {
      const store = new FileTokenStore(join(at, "tokens.json"), { fs: noSyncFs, lock: "socket" });
      const acked = new Map<string, number>();
      for (const m of marksBefore(fs.ops, state.at) as { key: string; version: number }[]) acked.set(m.key, m.version);
      for (const [key, seq] of versions) {
        let got: string | undefined;
        try {
          got = (await store.get(key))?.value;
        } catch (e) {
          problems.push(`${where}: the token file does not open: ${(e as Error).message}`);
          break;
        }
        const v = acked.get(key) ?? 0;
        if (!seq.slice(v).includes(got)) problems.push(`${where}: ${key} was acknowledged as ${JSON.stringify(seq[v])}, the disk has ${JSON.stringify(got)}`);
      }
      if (problems.length === 0 && !(await store.set("after", "x", undefined))) problems.push(`${where}: a set after the cut failed`);
    } finally {
      rmSync(at, { recursive: true, force: true });
    }
  }
  return problems;
}

describe("W9, W15: power loss at every point of the file stores' writes", () => {
  test("W9: every disk state a power cut can leave of the action journal opens, with every acknowledged change, and goes on", T, async () => {
    const dir = tempDir();
    const fs = new RecordingFs();
    const versions = await actionWorkload(fs, join(dir, "actions.jsonl"));
    assert.ok(fs.ops.filter((o) => o.kind === "mark").length >= 14, "the workload acknowledged its changes");
    assert.ok(fs.ops.some((o) => o.kind === "rename"), "and compacted");
    const problems = await checkActions(fs, dir, versions);
    assert.deepEqual(problems.slice(0, 5), [], `${problems.length} problems`);
  });

  test("A5, W15: every disk state a power cut can leave of the token file opens with every acknowledged set", T, async () => {
    const dir = tempDir();
    const fs = new RecordingFs();
    const versions = await tokenWorkload(fs, join(dir, "tokens.json"));
    const problems = await checkTokens(fs, dir, versions);
    assert.deepEqual(problems.slice(0, 5), [], `${problems.length} problems`);
  });

  for (const skip of ["fileSync", "dirSync"] as const) {
    test(`W9: the power-cut check fails a store that skips its ${skip === "fileSync" ? "file syncs" : "directory syncs"} (the harness can fail)`, T, async () => {
      const dir = tempDir();
      const fs = new RecordingFs({ [skip]: true });
      const versions = await actionWorkload(fs, join(dir, "actions.jsonl"));
      assert.ok((await checkActions(fs, dir, versions)).length > 0, "acknowledged changes are lost");
      const tdir = tempDir();
      const tfs = new RecordingFs({ [skip]: true });
      const tversions = await tokenWorkload(tfs, join(tdir, "tokens.json"));
      assert.ok((await checkTokens(tfs, tdir, tversions)).length > 0, "acknowledged sets are lost");
    });
  }
});
