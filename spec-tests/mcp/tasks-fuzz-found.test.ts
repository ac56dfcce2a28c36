// V8: what fuzzing the task parse found (Y6), against the 2026-07-28 task fixture server.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixtureServer } from "../helpers/paths.js";
import { connectRecorded, readWire, requestsOf, sent } from "../modern/support.js";

test("V8: a task status that is a JSON object with a non-function toString is a protocol error, not a TypeError", { timeout: 60_000 }, async () => {
  const { client, out } = await connectRecorded(["node", fixtureServer("modern-tasks.mjs")]);
  try {
    await assert.rejects(client.callTool("badobject", {}), (e: Error & { code?: string }) => e.code === "protocol" && /task status of type object is not one of working/.test(e.message));
  } finally {
    await client.close();
  }
  // Abandoned before its end, the task is cancelled as for any other protocol error.
  assert.equal(requestsOf(sent(readWire(out)), "tasks/cancel").length, 1);
});
