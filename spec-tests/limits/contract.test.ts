// W3 / W5 / W7 bounds of the action contract, crossed against the reference
// contract server over stdio: a state version, preview or receipt message at its
// bound is taken, one character more breaks the contract; an operation id past its
// bound is refused before anything is sent.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { connectMcp } from "../../src/node/tools.js";
import { MAX_CONTRACT_MESSAGE_CHARS, MAX_CONTRACT_OPERATION_ID_CHARS, MAX_CONTRACT_PREVIEW_CHARS, MAX_CONTRACT_STATE_VERSION_CHARS, MAX_SENT_OPERATIONS_REMEMBERED } from "../../src/limits.js";
import { alice, allowAll, T, using } from "../tools/helpers.js";
import { approve, confirmTool, performed, withContract, writeTool } from "../tools/writes-support.js";

type Coded = Error & { code?: string };
const args = { id: "A", name: "renamed" };

/** Connects to a contract server padding `field` to `n` characters and runs `fn` with its rename write tool. */
function padded(field: string, n: number, fn: (rename: ReturnType<typeof writeTool>, log: string) => Promise<void>): Promise<void> {
  return withContract(
    "stdio",
    async ({ config, log }) => {
      await using(await connectMcp(config, { identity: alice, authorize: allowAll }), (c) => fn(writeTool(c), log));
    },
    { args: ["--pad", `${field}:${n}`] },
  );
}

describe("W3: contract fields at their bounds (reference server over stdio)", { concurrency: true }, () => {
  test("W3: a state version of MAX_CONTRACT_STATE_VERSION_CHARS characters is prepared and executed; one more is a contract error", T, async () => {
    await padded("state", MAX_CONTRACT_STATE_VERSION_CHARS, async (rename, log) => {
      const p = await rename.prepare(args, { identity: alice });
      assert.equal(p.stateVersion?.length, MAX_CONTRACT_STATE_VERSION_CHARS);
      assert.equal((await rename.execute(approve(p), { identity: alice })).status, "succeeded");
      assert.equal(performed(log), 1);
    });
    await padded("state", MAX_CONTRACT_STATE_VERSION_CHARS + 1, async (rename) => {
      await assert.rejects(rename.prepare(args, { identity: alice }), (e: Coded) => e.code === "contract" && /stateVersion/.test(e.message));
    });
  });

  test("W3: a preview of MAX_CONTRACT_PREVIEW_CHARS characters is shown whole; one more is a contract error", T, async () => {
    await padded("preview", MAX_CONTRACT_PREVIEW_CHARS, async (rename) => {
      assert.equal((await rename.prepare(args, { identity: alice })).preview?.length, MAX_CONTRACT_PREVIEW_CHARS);
    });
    await padded("preview", MAX_CONTRACT_PREVIEW_CHARS + 1, async (rename) => {
      await assert.rejects(rename.prepare(args, { identity: alice }), (e: Coded) => e.code === "contract" && e.message.includes(`preview must be a string of at most ${MAX_CONTRACT_PREVIEW_CHARS} characters`));
    });
  });

  test("W3: a receipt message of MAX_CONTRACT_MESSAGE_CHARS characters is a success; one more breaks the receipt, so the outcome is unknown", T, async () => {
    await padded("message", MAX_CONTRACT_MESSAGE_CHARS, async (rename) => {
      const o = await rename.execute(approve(await rename.prepare(args, { identity: alice })), { identity: alice });
      assert.equal(o.status, "succeeded");
    });
    await padded("message", MAX_CONTRACT_MESSAGE_CHARS + 1, async (rename, log) => {
      const o = await rename.execute(approve(await rename.prepare(args, { identity: alice })), { identity: alice });
      assert.equal(o.status, "unknown");
      assert.match(o.status === "unknown" ? o.reason : "", new RegExp(`receipt message must be a string of at most ${MAX_CONTRACT_MESSAGE_CHARS} characters`));
      assert.equal(performed(log), 1, "the server did perform it: only the receipt is in doubt");
    });
  });

  test("W3: an operation id of MAX_CONTRACT_OPERATION_ID_CHARS characters is sent; one more is refused and nothing is sent", T, async () => {
    await padded("state", 0, async (rename, log) => {
      const p = await rename.prepare(args, { identity: alice });
      await assert.rejects(rename.execute(approve(p, "o".repeat(MAX_CONTRACT_OPERATION_ID_CHARS + 1)), { identity: alice }), (e: Coded) => e.code === "validation" && /operationId/.test(e.message));
      assert.equal(performed(log), 0);
      assert.equal((await rename.execute(approve(p, "o".repeat(MAX_CONTRACT_OPERATION_ID_CHARS)), { identity: alice })).status, "succeeded");
      assert.equal(performed(log), 1);
    });
  });
});

test("W7: a confirmed tool refuses to resend any of the last MAX_SENT_OPERATIONS_REMEMBERED operations it sent; the oldest past that is forgotten", { timeout: 120_000 }, () =>
  withContract("stdio", async ({ config }) => {
    // get_item as a confirmed tool: each execute is a real call that changes nothing.
    await using(await connectMcp({ ...config, confirmTools: ["get_item"] }, { identity: alice, authorize: allowAll }), async (c) => {
      const get = confirmTool(c, "contract__get_item");
      const p = await get.prepare({ id: "A" }, { identity: alice });
      const send = (id: string) => get.execute(approve(p, id), { identity: alice });
      assert.equal((await send("first")).status, "succeeded");
      for (let i = 1; i < MAX_SENT_OPERATIONS_REMEMBERED; i++) await send(`op-${i}`);
      await assert.rejects(send("first"), (e: Coded) => e.code === "validation" && /already sent/.test(e.message));
      await send("one-more");
      assert.equal((await send("first")).status, "succeeded", "forgotten, so sent again");
    });
  }),
);
