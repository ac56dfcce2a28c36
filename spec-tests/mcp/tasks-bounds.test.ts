// V8, Y2: a task's status message is the server's text: it reaches onProgress cut to
// MAX_QUOTED_TEXT_CHARS, however long the server makes it. Against the 2026-07-28
// tasks fixture server (a real stdio child) whose status messages are padded to
// four times the bound.
import { test } from "node:test";
import assert from "node:assert/strict";
import { McpClient } from "../../src/node/client.js";
import type { Progress } from "../../src/jsonrpc/session.js";
import { MAX_QUOTED_TEXT_CHARS } from "../../src/limits.js";
import { fixtureServer } from "../helpers/paths.js";

test("V8, Y2: a task's statusMessage is cut to MAX_QUOTED_TEXT_CHARS before it reaches onProgress", { timeout: 30_000 }, async () => {
  const client = await McpClient.connectStdio("node", [fixtureServer("modern-tasks.mjs")], undefined, { era: "modern", handshakeTimeoutMs: 30_000 });
  try {
    const progress: Progress[] = [];
    const pad = 4 * MAX_QUOTED_TEXT_CHARS;
    const r = await client.callTool("research", { steps: 2, pad }, { onProgress: (p) => progress.push(p) });
    assert.deepEqual(r.content, [{ type: "text", text: "researched in 2 steps" }]);
    const shown = progress.map((p) => p.message ?? "").filter((m) => m.includes("step "));
    assert.ok(shown.length >= 1, `status messages were shown: ${JSON.stringify(progress.map((p) => p.message?.slice(0, 40)))}`);
    for (const m of shown) {
      const [status, ...rest] = m.split(": ");
      const text = rest.join(": ");
      assert.ok(status === "working" || status === "completed", status);
      assert.equal(text.length, MAX_QUOTED_TEXT_CHARS, "cut to the bound, not longer");
      assert.match(text, /^step \d of 2x+$/);
    }
  } finally {
    await client.close();
  }
});

test("W5, V8: a task call whose poll fails after the connection closed does not read as not sent: the call itself reached the server", { timeout: 30_000 }, async () => {
  const client = await McpClient.connectStdio("node", [fixtureServer("modern-tasks.mjs")], undefined, { era: "modern", handshakeTimeoutMs: 30_000 });
  let first: () => void = () => {};
  const answered = new Promise<void>((r) => (first = r));
  // Its failure is taken at once: the close below may reject it before close itself resolves.
  const call = client.callTool("research", { steps: 1_000 }, { onProgress: () => first() }).then(
    () => undefined,
    (err: unknown) => err as { code?: string; notSent?: boolean },
  );
  await answered; // the task was created: tools/call reached the server and was answered
  await client.close(); // the next poll is refused before it is sent
  const e = await call;
  assert.ok(e, "the call failed");
  assert.equal(e.code, "connection_closed");
  assert.equal(e.notSent, false, "a refused poll of a call that was sent is no proof of anything");
});
