// W12: the Durable Object action store inside workerd, on local on-disk storage.
// The store contract runs against it from this process: each operation goes to the
// Worker, which forwards it through remoteActionStore to the object serving its
// DurableObjectActionStore. workerd is restarted between steps to show the
// actions, their fences and leases survive.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { remoteActionStore } from "../../src/actions/durable-object-remote.js";
import type { ActionStore } from "../../src/actions/types.js";
import { isYadaError } from "../../src/errors.js";
import { repoPath } from "../helpers/paths.js";
import { bins, requireBinary, start, type Child } from "../runtimes/support.js";
import { approval, approved, durableStoreCases, newAction } from "./durable-store-cases.js";

const config = repoPath("fixtures", "runtimes", "do-store", "workerd.capnp");
const storageDir = mkdtempSync(join(tmpdir(), "yada-do-"));
let workerd: Child | undefined;
let origin = "";

async function startWorkerd(): Promise<void> {
  requireBinary(bins.workerd, "npm ci installs the workerd devDependency");
  const child = start(bins.workerd, ["serve", config, "--socket-addr", "http=127.0.0.1:0", "--directory-path", `do-storage=${storageDir}`, "--control-fd", "3"], {
    extraFds: 1,
    boundMs: 180_000,
  });
  workerd = child;
  await child.waitFor((out) => /"event":"listen","socket":"http","port":\d+/.test(out), "workerd listened");
  origin = `http://127.0.0.1:${/"event":"listen","socket":"http","port":(\d+)/.exec(child.stdout())?.[1]}`;
}

async function stopWorkerd(): Promise<void> {
  await workerd?.kill();
  workerd = undefined;
}

before(startWorkerd);
after(async () => {
  await stopWorkerd();
  rmSync(storageDir, { recursive: true, force: true });
});

let stores = 0;
/** A store on its own object; requests go to whatever workerd runs now. */
function objectStore(name = `store-${++stores}`): ActionStore {
  return remoteActionStore({ fetch: (_url, init) => fetch(`${origin}/?store=${name}`, { ...init, signal: AbortSignal.timeout(20_000) }) }, { name });
}

durableStoreCases("W12", "Durable Object store in workerd", async () => objectStore());

test("W12: actions, fences and leases survive a restart of workerd between steps", { timeout: 60_000 }, async () => {
  const store = objectStore("restart");
  const a = await approved(store);
  const b = await store.create(newAction());
  await stopWorkerd();
  await startWorkerd();
  const claimed = await store.claim({ workerId: "w1", now: 5_000, leaseMs: 1_000 });
  assert.equal(claimed?.id, a.id);
  assert.equal(claimed?.fence, 1);
  await store.transition(a.id, { state: "approved", fence: 1 }, { state: "executing" }, 5_001);
  await stopWorkerd();
  await startWorkerd();
  // Still leased: nobody else gets it; once the lease lapsed, the next claim bumps the fence.
  assert.equal(await store.claim({ workerId: "w2", now: 5_500, leaseMs: 1_000 }), undefined);
  const lapsed = await store.claim({ workerId: "w2", now: 6_000, leaseMs: 1_000 });
  assert.equal(lapsed?.state, "executing");
  assert.equal(lapsed?.fence, 2);
  await assert.rejects(
    store.transition(a.id, { state: "executing", fence: 1 }, { state: "succeeded", outcome: { result: { content: [], isError: false } } }, 6_100),
    (e: unknown) => isYadaError(e, "conflict"),
  );
  await store.transition(a.id, { state: "executing", fence: 2 }, { state: "reconciling", attempts: 0 }, 6_101);
  await stopWorkerd();
  await startWorkerd();
  assert.equal((await store.get(a.id))?.state, "reconciling");
  assert.deepEqual(await store.get(b.id), b);
  assert.deepEqual((await store.list({ tenantId: "acme" })).map((r) => r.id), [a.id, b.id]);
});

test("W12: a record edited by hand into an impossible state is a store error and is never claimed", async () => {
  const name = "poked";
  const store = objectStore(name);
  const good = await approved(store);
  const bad = await approved(store);
  // The second record (seq 2) loses its approval while it stays approved.
  const { approval: _dropped, ...withoutApproval } = bad;
  const res = await fetch(`${origin}/?store=${name}&poke=${encodeURIComponent("a:0000000000000002")}`, { method: "POST", body: JSON.stringify(withoutApproval) });
  assert.equal(res.status, 200);
  await res.text();
  await assert.rejects(store.get(bad.id), (e: unknown) => isYadaError(e, "store"));
  const first = await store.claim({ workerId: "w", now: 5_000, leaseMs: 60_000 });
  assert.equal(first?.id, good.id);
  await assert.rejects(store.claim({ workerId: "w", now: 5_000, leaseMs: 60_000 }), (e: unknown) => isYadaError(e, "store"));
  assert.equal(approval.tenantId, "acme");
});
