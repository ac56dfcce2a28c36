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
import { approved, newAction } from "./durable-support.js";
import { storeContract } from "./store-contract.js";

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

async function restartWorkerd(): Promise<void> {
  await stopWorkerd();
  await startWorkerd();
}

storeContract("Durable Object in workerd (W12)", async () => {
  const name = `store-${++stores}`;
  let store = objectStore(name);
  return {
    get store() {
      return store;
    },
    async close() {},
    async reopen() {
      // A real restart: workerd stops and starts again on the same local storage.
      await restartWorkerd();
      store = objectStore(name);
      return store;
    },
    async tamper(id, raw) {
      const res = await fetch(`${origin}/?store=${name}&tamper=${encodeURIComponent(id)}`, { method: "POST", body: JSON.stringify(raw) });
      assert.equal(res.status, 200, await res.text());
    },
  };
});

test("W12: actions, fences and leases survive a restart of workerd between steps", { timeout: 60_000 }, async () => {
  const store = objectStore("restart");
  const a = await approved(store);
  const b = await store.create(newAction());
  await restartWorkerd();
  const claimed = await store.claim({ workerId: "w1", now: 5_000, leaseMs: 1_000 });
  assert.equal(claimed?.id, a.id);
  assert.equal(claimed?.fence, 1);
  await store.transition(a.id, { state: "approved", fence: 1 }, { state: "executing" }, 5_001);
  await restartWorkerd();
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
  await restartWorkerd();
  assert.equal((await store.get(a.id))?.state, "reconciling");
  assert.deepEqual(await store.get(b.id), b);
  assert.deepEqual((await store.list({ tenantId: "acme" })).map((r) => r.id), [a.id, b.id]);
});
