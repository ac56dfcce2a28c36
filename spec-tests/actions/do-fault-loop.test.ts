// W12: the Durable Object store under kill, short: 2 worker processes execute 800
// approved actions against the reference contract server through the Durable Object
// store in workerd (local on-disk storage), while workerd itself is SIGKILLed at
// random moments (every other kill while a send is in flight) and started again on
// the same storage. The server's own log shows no duplicate, none lost, and every
// uncertain action resolved by receipt only. The long run is
// scripts/fault-loop.mjs --store durable-object.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { repoPath } from "../helpers/paths.js";
import { bins, requireBinary } from "../runtimes/support.js";
import type { DoFaultLoopResult, RunLoop } from "./loop-result.js";

const dir = mkdtempSync(join(tmpdir(), "yada-do-fault-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("W12: workerd SIGKILLed at random under 2 workers on the Durable Object store: 800 actions, the server's log shows 0 duplicates, 0 lost, uncertain ones resolved by receipt only", { timeout: 180_000 }, async () => {
  requireBinary(bins.workerd, "npm ci installs the workerd devDependency");
  const { runDoFaultLoop } = (await import(pathToFileURL(repoPath("fixtures", "actions", "do-fault-loop.mjs")).href)) as { runDoFaultLoop: RunLoop<DoFaultLoopResult> };
  const r = await runDoFaultLoop({ dir, actions: 800, workers: 2, killMinMs: 100, killMaxMs: 400, downMaxMs: 150, minKills: 12, maxKills: 24, leaseMs: 1_200, executeDelayMs: 5, boundMs: 150_000 });
  console.log(`durable object fault loop: ${JSON.stringify(r)}`);
  assert.ok(r.settled, `did not settle: ${JSON.stringify(r)}`);
  assert.ok(r.kills >= 12, `only ${r.kills} kills of workerd`);
  assert.equal(r.duplicates, 0);
  assert.equal(r.secondSends, 0, "no execute reached the server twice");
  assert.equal(r.lost, 0);
  assert.equal(r.otherStates, 0);
  assert.equal(r.reconciledBySecondSend, 0);
  assert.equal(r.succeeded + r.failed + r.reconcilingUnsent, 800);
  assert.ok(r.sends <= 800 && r.sends >= r.succeeded, `${r.sends} sends`);
  // Kills landed mid-send: some answers were lost with workerd, and each was settled without a second send.
  assert.ok(r.killsDuringSend >= 1, "no kill landed while a send was in flight");
  assert.ok(r.reconciled + r.reconcilingUnsent >= 1, "no action was left uncertain by a kill");
});
