// W5, W8, W13, W15: the embedded file store under kill, short: one worker process at
// a time (the store has one writer) executes 300 approved actions against the
// reference contract server over stdio, while the worker is SIGKILLed at random
// moments (every other kill while a send is in flight) and a new one opens the store
// at once, and the stdio server under it is SIGKILLed at other moments. The server's
// own log shows no duplicate and none lost; no approval is spent on a send that never
// happened (nothing failed); every uncertain action is settled by its receipt or, past
// the reconcile window, as outcome_unknown, reported once. The long run is
// scripts/fault-loop.mjs --store file.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { repoPath } from "../helpers/paths.js";
import type { FaultLoopResult, RunLoop } from "./loop-result.js";

const dir = mkdtempSync(join(tmpdir(), "yada-file-fault-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("W5, W13, W15: the file store's worker and its stdio server SIGKILLed at random: 300 actions, the server's log shows 0 duplicates, 0 lost, none failed unsent, every uncertain one settled", { timeout: 180_000 }, async () => {
  const { runFileFaultLoop } = (await import(pathToFileURL(repoPath("fixtures", "actions", "file-fault-loop.mjs")).href)) as { runFileFaultLoop: RunLoop<FaultLoopResult> };
  const r = await runFileFaultLoop({ dir, actions: 300, maxKills: 8, serverKills: 8, killMinMs: 150, killMaxMs: 400, leaseMs: 9_000, executeDelayMs: 5, reconcileWindowMs: 3_000, boundMs: 150_000 });
  console.log(`file store fault loop: ${JSON.stringify(r)}`);
  assert.ok(r.settled, `did not settle: ${JSON.stringify(r)}`);
  assert.ok(r.stoppedCleanly, "the last worker did not stop within 15 s of its SIGTERM");
  assert.ok(r.kills >= 6, `only ${r.kills} worker kills`);
  assert.ok((r.serverKills ?? 0) >= 4, `only ${r.serverKills} server kills`);
  assert.equal(r.duplicates, 0);
  assert.equal(r.secondSends, 0, "no execute reached the server twice");
  assert.equal(r.lost, 0);
  assert.equal(r.otherStates, 0);
  assert.equal(r.reconcilingUnsent, 0, "the window settled every uncertain action");
  assert.equal(r.reconciledBySecondSend, 0);
  // W5: the actions of a batch whose server died before their send were tried again, not failed.
  assert.equal(r.failed, 0, "an approval was spent on a send that never happened");
  assert.equal(r.succeeded + (r.outcomeUnknown ?? 0), 300);
  assert.ok(r.sends <= 300 && r.sends >= r.succeeded, `${r.sends} sends`);
  assert.equal(r.attentionTwice, 0, "onNeedsAttention once per action");
});
