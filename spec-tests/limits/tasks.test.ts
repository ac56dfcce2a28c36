// V8 bounds of task-augmented calls, crossed by a real 2025-11-25 stdio server.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { DEFAULT_TASK_POLL_MS, MAX_TASK_ID_CHARS, MAX_TASK_INPUT_KEYS, MAX_TASK_POLL_MS } from "../../src/limits.js";
import { McpClient } from "../../src/node/client.js";
import { waitFor } from "../helpers/clients.js";
import { fixtureServer } from "../helpers/paths.js";
import { limitNamed } from "./support.js";
import { connect, text } from "./task-server.js";

const T = { timeout: 90_000 };

describe("V8: task bounds (2025-11-25 server over stdio)", { concurrency: true }, () => {
  test("V8: a task id of MAX_TASK_ID_CHARS characters is followed; one character more is a limit error naming the bound", T, async () => {
    for (const [n, ok] of [[MAX_TASK_ID_CHARS, true], [MAX_TASK_ID_CHARS + 1, false]] as const) {
      const { client } = await connect(`id:${n}`);
      try {
        const call = client.callTool("t", {}, { task: true });
        if (ok) assert.equal(text(await call), "polled 0");
        else await assert.rejects(call, limitNamed("MAX_TASK_ID_CHARS", MAX_TASK_ID_CHARS));
      } finally {
        await client.close();
      }
    }
  });

  test("V8: a task whose server suggests no interval is polled after DEFAULT_TASK_POLL_MS", T, async () => {
    const { client, seen } = await connect("default:0");
    try {
      const t0 = Date.now();
      assert.equal(text(await client.callTool("t", {}, { task: true })), "polled 1");
      const elapsed = Date.now() - t0;
      // Timers never fire early: the poll waited the default; far less than the longest interval.
      assert.ok(elapsed >= DEFAULT_TASK_POLL_MS - 20, `polled after ${elapsed} ms`);
      assert.ok(elapsed < MAX_TASK_POLL_MS / 2, `polled after ${elapsed} ms`);
      // The server logs on stderr, which may come in after the answer on stdout (bounded wait).
      await waitFor(() => seen().length >= 2, 2_000).catch(() => {}); // the assertion below says what came
      assert.deepEqual(seen().map((s) => s.method), ["tasks/get", "tasks/result"]);
    } finally {
      await client.close();
    }
  });

  test("V8: a 2026-07-28 task raising MAX_TASK_INPUT_KEYS inputs over its life is answered; one more is a limit error naming the bound", T, async () => {
    const handlers = { elicitation: { form: async () => ({ action: "accept" as const, content: {} }) } };
    const run = async (total: number): Promise<string> => {
      const client = await McpClient.connectStdio("node", [fixtureServer("modern-tasks.mjs")], undefined, { handlers, discoverTimeoutMs: 20_000, name: "modern-tasks" });
      try {
        assert.equal(client.era, "modern");
        return text(await client.callTool("many", { total }));
      } finally {
        await client.close();
      }
    };
    const [ok, over] = await Promise.allSettled([run(MAX_TASK_INPUT_KEYS), run(MAX_TASK_INPUT_KEYS + 1)]);
    assert.deepEqual(ok, { status: "fulfilled", value: `answered ${MAX_TASK_INPUT_KEYS}` });
    assert.equal(over.status, "rejected");
    assert.ok(limitNamed("MAX_TASK_INPUT_KEYS", MAX_TASK_INPUT_KEYS)((over as PromiseRejectedResult).reason), String((over as PromiseRejectedResult).reason));
  });
});
