// W5, W7, W10: hostile and broken servers against the execute path. Every test
// counts the mutations a real loopback (or stdio) server received: a send that may
// have reached the server is never reported as not sent, and never sent again.
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { describe, test } from "node:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectMcp, reconnectingMcp } from "../../src/node/tools.js";
import type { McpServerConfig } from "../../src/tools/config.js";
import type { ConfirmTool } from "../../src/tools/types.js";
import { alice, allowAll, calls, mallory, recording, rejection, T, until, using } from "./helpers.js";
import { approve, confirmTool, contractStdio, performed, writeTool } from "./writes-support.js";

const DELETE_TOOL = { name: "delete_item", inputSchema: { type: "object" }, annotations: { readOnlyHint: false } };

/**
 * A legacy (2025-11-25) HTTP server whose `tools/call` answer is an event stream
 * that carries only a priming event id and ends before the response: the client
 * must resume it with a GET. That GET is then refused with `refuseWith` (an HTTP
 * status), or the server stops listening first (`"refused"`: ECONNREFUSED).
 */
async function droppingStreamServer(refuseWith: number | "refused"): Promise<{ url: string; calls: () => number; close(): void }> {
  let calls = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method === "GET") {
      if (req.headers["last-event-id"] === undefined) return void res.writeHead(405).end();
      return void res.writeHead(typeof refuseWith === "number" ? refuseWith : 500, { "www-authenticate": "Bearer" }).end();
    }
    if (req.method !== "POST") return void res.writeHead(405).end();
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      const m = JSON.parse(body) as { id?: number; method?: string };
      const json = (result: unknown): void => void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: m.id, result }));
      if (m.id === undefined) return void res.writeHead(202).end();
      if (m.method === "initialize") return json({ protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "h", version: "1" } });
      if (m.method === "tools/list") return json({ tools: [DELETE_TOOL] });
      if (m.method !== "tools/call") return json({});
      calls++; // the mutation is performed here, then the answer stream is lost
      res.writeHead(200, { "content-type": "text/event-stream", connection: "close" });
      res.write("id: ev-1\nretry: 200\ndata: \n\n");
      if (refuseWith === "refused") {
        server.close();
        server.closeIdleConnections();
      }
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls: () => calls,
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}

describe("W5, W7: a refused resumption is not a refused send", { concurrency: true }, () => {
  for (const refuseWith of [403, 401, "refused"] as const) {
    test(`W5, W7: the answer stream of an execute is lost and its resumption is refused (${refuseWith}): unknown, never notSent, never sent again`, T, async () => {
      const server = await droppingStreamServer(refuseWith);
      try {
        const config: McpServerConfig = { name: "h", url: server.url, confirmTools: ["delete_item"] };
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
          const tool: ConfirmTool = confirmTool(c, "h__delete_item");
          const action = approve(await tool.prepare({ id: "A" }, { identity: alice }));
          const outcome = await tool.execute(action, { identity: alice });
          assert.equal(outcome.status, "unknown", JSON.stringify(outcome));
          assert.notEqual(outcome.status === "unknown" ? outcome.notSent : undefined, true, "the server took the request: it was sent");
          assert.equal(server.calls(), 1);
          // A caller that repeats it is refused before anything is sent.
          const again = await rejection(tool.execute(action, { identity: alice }));
          assert.equal(again.code, "validation");
          assert.equal(server.calls(), 1);
        });
      } finally {
        server.close();
      }
    });
  }
});

// A modern (2026-07-28) stdio server that answers every tools/call with a modern
// error after counting it: -32022 (unsupported protocol version, naming the one the
// client already speaks).
const rejectingModern = `
const rl = require("readline").createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
rl.on("line", (l) => {
  const m = JSON.parse(l);
  if (m.id === undefined) return;
  const ok = (result) => send({ jsonrpc: "2.0", id: m.id, result: { resultType: "complete", ...result } });
  if (m.method === "server/discover") return ok({ supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, ttlMs: 0, cacheScope: "private" });
  if (m.method === "tools/list") return ok({ tools: [${JSON.stringify(DELETE_TOOL)}], ttlMs: 0, cacheScope: "private" });
  if (m.method === "tools/call") {
    return send({ jsonrpc: "2.0", id: m.id, error: { code: -32022, message: "Unsupported protocol version", data: { supported: ["2026-07-28"], requested: "2026-07-28" } } });
  }
  ok({});
});`;

test("W5, W7: a server error to an execute is never answered by sending the mutation again (a -32022 revision retry): unknown, sent once", T, async () => {
  const rec = recording();
  const config: McpServerConfig = { name: "modern", command: process.execPath, args: ["-e", rejectingModern], confirmTools: ["delete_item"] };
  await using(await connectMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
    const tool = confirmTool(c, "modern__delete_item");
    const outcome = await tool.execute(approve(await tool.prepare({ id: "A" }, { identity: alice })), { identity: alice });
    assert.equal(outcome.status, "unknown", JSON.stringify(outcome));
    assert.notEqual(outcome.status === "unknown" ? outcome.notSent : undefined, true);
  });
  assert.deepEqual(calls(rec.sent), ["delete_item"], "one send, never a second");
});

/**
 * A modern (2026-07-28) HTTP server whose confirmed tool declares an `x-mcp-header`
 * parameter under a new name on every tools/list, and that answers every
 * tools/call -32020 (header mismatch) after counting it.
 */
async function headerMismatchServer(then: "mismatch" | 403 | "refused" = "mismatch"): Promise<{ url: string; calls: () => number; close(): void }> {
  let calls = 0;
  let lists = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "POST") return void res.writeHead(405).end();
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      const m = JSON.parse(body) as { id?: number; method?: string };
      const reply = (msg: Record<string, unknown>): void => void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: m.id, ...msg }));
      const ok = (result: Record<string, unknown>): void => reply({ result: { resultType: "complete", ...result } });
      if (m.id === undefined) return void res.writeHead(202).end();
      if (m.method === "server/discover") return ok({ supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, ttlMs: 0, cacheScope: "private" });
      if (m.method === "tools/list") {
        lists++;
        const region = { type: "string", "x-mcp-header": `Region-${lists}` };
        return ok({ tools: [{ ...DELETE_TOOL, inputSchema: { type: "object", properties: { region } } }], ttlMs: 0, cacheScope: "private" });
      }
      if (m.method === "tools/call") {
        calls++;
        if (then === "mismatch") return reply({ error: { code: -32020, message: "Header mismatch" } });
        // The server took the call and asks for one more round; that round is refused.
        if (calls > 1) return void res.writeHead(403).end();
        if (then === "refused") {
          res.setHeader("connection", "close");
          server.close();
          server.closeIdleConnections();
        }
        return ok({ resultType: "input_required", requestState: "round-2" });
      }
      ok({});
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls: () => calls,
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}

test("W5, W7: a -32020 header mismatch to an execute is not answered by re-listing and sending the mutation again: unknown, sent once", T, async () => {
  const server = await headerMismatchServer();
  try {
    const config: McpServerConfig = { name: "modern", url: server.url, confirmTools: ["delete_item"] };
    await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
      const tool = confirmTool(c, "modern__delete_item");
      const outcome = await tool.execute(approve(await tool.prepare({ region: "eu" }, { identity: alice })), { identity: alice });
      assert.equal(outcome.status, "unknown", JSON.stringify(outcome));
      assert.equal(server.calls(), 1, "one send, never a second");
    });
  } finally {
    server.close();
  }
});

test("W5, W10: reconnectingMcp refuses an operation id it already sent, also once it has moved to a new connection: never a second send", T, async () => {
  const dir = mkdtempSync(join(tmpdir(), "yada-hostile-"));
  const log = join(dir, "log.jsonl");
  const rec = recording();
  try {
    const config = { ...contractStdio(log, { modes: "drop-after-perform" }), confirmTools: ["delete_item"] } as McpServerConfig;
    await using(await reconnectingMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
      const rename = writeTool(c);
      const action = approve(await rename.prepare({ id: "A", name: "Once" }, { identity: alice }));
      assert.equal((await rename.execute(action, { identity: alice })).status, "unknown", "the server exited after writing");
      // A careless caller repeats the uncertain execute: the next call would reconnect, but it is refused first.
      assert.equal((await rejection(rename.execute(action, { identity: alice }))).code, "validation");
      const del = confirmTool(c, "contract__delete_item");
      const deletion = approve(await del.prepare({ id: "B" }, { identity: alice }));
      assert.equal((await del.execute(deletion, { identity: alice })).status, "succeeded");
      assert.equal((await rejection(del.execute(deletion, { identity: alice }))).code, "validation");
      // Reconciling stays possible, by receipt only.
      assert.equal((await rename.reconcile(action, { identity: alice })).status, "succeeded");
    });
    assert.deepEqual(calls(rec.sent).filter((n) => n !== "prepare_rename"), ["rename", "delete_item", "rename_receipt"]);
    assert.equal(performed(log), 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

for (const then of [403, "refused"] as const) {
  test(`W5, W7: the server took an execute and asked for another input round, which is refused (${then}): unknown, never notSent`, T, async () => {
    const server = await headerMismatchServer(then);
    try {
      const config: McpServerConfig = { name: "modern", url: server.url, confirmTools: ["delete_item"] };
      await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
        const tool = confirmTool(c, "modern__delete_item");
        const action = approve(await tool.prepare({ region: "eu" }, { identity: alice }));
        const outcome = await tool.execute(action, { identity: alice });
        assert.equal(outcome.status, "unknown", JSON.stringify(outcome));
        assert.notEqual(outcome.status === "unknown" ? outcome.notSent : undefined, true, "the first round reached the server");
        assert.equal((await rejection(tool.execute(action, { identity: alice }))).code, "validation");
      });
    } finally {
      server.close();
    }
  });
}

test("W4: another caller's execute or reconcile is refused as unauthorized before the action is judged, even when its version changed: no outcome, nothing sent", T, async () => {
  const dir = mkdtempSync(join(tmpdir(), "yada-hostile-"));
  const rec = recording();
  try {
    const config = { ...contractStdio(join(dir, "log.jsonl")), confirmTools: ["delete_item"] } as McpServerConfig;
    await using(await connectMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
      const rename = writeTool(c);
      const stale = { ...approve(await rename.prepare({ id: "A", name: "x" }, { identity: alice })), version: "reviewed-0+sha256:00" };
      assert.equal((await rejection(rename.execute(stale, { identity: mallory }))).code, "unauthorized");
      assert.equal((await rejection(rename.reconcile(stale, { identity: mallory }))).code, "unauthorized");
      const del = confirmTool(c, "contract__delete_item");
      const deletion = { ...approve(await del.prepare({ id: "B" }, { identity: alice })), version: "confirm:00" };
      assert.equal((await rejection(del.execute(deletion, { identity: mallory }))).code, "unauthorized");
    });
    assert.deepEqual(calls(rec.sent), ["prepare_rename"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("W5, W7: an execute cancelled once it is out, with a network error as the abort reason, is unknown, never notSent", T, async () => {
  const dir = mkdtempSync(join(tmpdir(), "yada-hostile-"));
  const rec = recording();
  try {
    const config = { ...contractStdio(join(dir, "log.jsonl"), { executeDelayMs: 2_000 }), confirmTools: ["delete_item"] } as McpServerConfig;
    await using(await connectMcp(config, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }), async (c) => {
      const del = confirmTool(c, "contract__delete_item");
      const action = approve(await del.prepare({ id: "B" }, { identity: alice }));
      const controller = new AbortController();
      const pending = del.execute(action, { identity: alice, signal: controller.signal });
      await until(() => calls(rec.sent).includes("delete_item"));
      // A host that stops its work because another connection of its own was refused.
      controller.abort(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }));
      const outcome = await pending;
      assert.equal(outcome.status, "unknown", JSON.stringify(outcome));
      assert.notEqual(outcome.status === "unknown" ? outcome.notSent : undefined, true, "the call was out: it may have been performed");
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
