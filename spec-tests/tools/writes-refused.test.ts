// W7, P4: a confirmed tool's call the server refuses with a JSON-RPC error about
// the request itself (-32700, -32600, -32601, -32602: MCP's "unknown tool" and
// "malformed request" protocol errors) never ran: the outcome is a definitive
// `failed`, sent once. Any other error answer (-32603, a server's own code) may
// come after work began: unknown, sent once.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { connectMcp } from "../../src/node/tools.js";
import type { McpServerConfig } from "../../src/tools/config.js";
import { alice, allowAll, calls, recording, T, using } from "./helpers.js";
import { approve, confirmTool } from "./writes-support.js";

const DELETE_TOOL = { name: "delete_item", inputSchema: { type: "object" }, annotations: { readOnlyHint: false } };

/** A 2025-11-25 stdio server that answers every tools/call with the JSON-RPC error `code`. */
const refusing = (code: number): string => `
const rl = require("readline").createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
rl.on("line", (l) => {
  const m = JSON.parse(l);
  if (m.id === undefined) return;
  const ok = (result) => send({ jsonrpc: "2.0", id: m.id, result });
  if (m.method === "initialize") return ok({ protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "r", version: "1" } });
  if (m.method === "tools/list") return ok({ tools: [${JSON.stringify(DELETE_TOOL)}] });
  if (m.method === "tools/call") return send({ jsonrpc: "2.0", id: m.id, error: { code: ${code}, message: "refused <b>here</b>" } });
  ok({});
});`;

describe("W7: a JSON-RPC answer to a confirmed call", { concurrency: true }, () => {
  for (const [code, expected] of [
    [-32602, "failed"],
    [-32601, "failed"],
    [-32600, "failed"],
    [-32700, "failed"],
    [-32603, "unknown"],
    [-32000, "unknown"],
  ] as const) {
    test(`W7: error ${code} to an execute is ${expected}, sent once`, T, async () => {
      const rec = recording();
      const config: McpServerConfig = { name: "r", command: process.execPath, args: ["-e", refusing(code)], confirmTools: ["delete_item"] };
      await using(await connectMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
        const tool = confirmTool(c, "r__delete_item");
        const outcome = await tool.execute(approve(await tool.prepare({ id: "A" }, { identity: alice })), { identity: alice });
        assert.equal(outcome.status, expected, JSON.stringify(outcome));
        if (outcome.status === "failed") {
          const text = outcome.result.content[0]?.type === "text" ? outcome.result.content[0].text : "";
          const body = JSON.parse(text) as { error: string; message: string };
          assert.equal(body.error, "tool_failed");
          assert.match(body.message, new RegExp(`tools/call: server error ${code}: refused <b>here</b>`));
          assert.equal(outcome.result.isError, true);
          assert.notEqual((outcome as { notSent?: boolean }).notSent, true, "it was sent: the server answered it");
        }
      });
      assert.deepEqual(calls(rec.sent), ["delete_item"], "one send, never a second");
    });
  }
});
