// `await using` (Symbol.asyncDispose) on everything with a lifecycle: leaving the
// block closes it, so a stdio server process is gone and an HTTP session is
// released, whatever the block did. One test per class.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { McpClient } from "../../src/node/client.js";
import { StdioTransport } from "../../src/node/stdio.js";
import { connectMcp, reconnectingMcp } from "../../src/node/tools.js";
import { HttpTransport } from "../../src/transport/http.js";
import { RecordingTransport } from "../../src/transport/recording.js";
import type { JsonRpcMessage } from "../../src/jsonrpc/messages.js";
import { fixtureServer } from "../helpers/paths.js";

type CatalogHttpModule = typeof import("../../fixtures/servers/catalog/http.mjs");
const { startCatalogHttp } = (await import(pathToFileURL(fixtureServer("catalog/http.mjs")).href)) as CatalogHttpModule;

const T = { timeout: 30_000 };
const server = { command: process.execPath, args: [fixtureServer("whereami.mjs")] };
const identity = { actorId: "alice", tenantId: "acme" };
const access = { identity, authorize: () => true };
const sink = { message: (_m: JsonRpcMessage) => {}, requestError: () => {}, closed: () => {} };

/** True when no process has this pid any more (our own children are reaped on exit). */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** Runs `use` with a pid file the whereami server writes; returns the pid it wrote. */
async function withPidFile(use: (env: Record<string, string>) => Promise<void>): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "yada-dispose-"));
  const file = join(dir, "pid");
  try {
    await use({ YADA_TEST_PIDFILE: file });
    assert.ok(existsSync(file), "the server never started");
    return Number(readFileSync(file, "utf8"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("await using: a StdioTransport's process is gone after the block", T, async () => {
  let pid = 0;
  {
    await using transport = new StdioTransport(server);
    await transport.start(sink);
    pid = transport.pid ?? 0;
    assert.ok(pid > 0 && !gone(pid));
  }
  assert.ok(gone(pid), "the server process outlived the block");
});

test("await using: an McpClient's server process is gone after the block", T, async () => {
  const transport = new StdioTransport(server);
  {
    await using client = await McpClient.connect(transport);
    assert.ok((await client.listTools()).some((t) => t.name === "whereami"));
    assert.ok(!gone(transport.pid ?? 0));
  }
  assert.ok(gone(transport.pid ?? 0), "the server process outlived the block");
});

test("await using: a RecordingTransport ends the process of the transport it wraps", T, async () => {
  const inner = new StdioTransport(server);
  const seen: string[] = [];
  {
    await using client = await McpClient.connect(new RecordingTransport(inner, (entry) => seen.push(entry.dir)));
    await client.listTools();
  }
  assert.ok(seen.includes("c2s") && seen.includes("s2c"));
  assert.ok(gone(inner.pid ?? 0), "the server process outlived the block");
});

test("await using: a connectMcp connection's server process is gone after the block", T, async () => {
  const pid = await withPidFile(async (env) => {
    await using connection = await connectMcp({ name: "where", ...server, env }, access);
    assert.ok(connection.tools.some((t) => t.name === "where__whereami"));
  });
  assert.ok(gone(pid), "the server process outlived the block");
});

test("await using: a reconnectingMcp connection's server process is gone after the block", T, async () => {
  const pid = await withPidFile(async (env) => {
    await using connection = await reconnectingMcp({ name: "where", ...server, env }, access);
    assert.ok(connection.isConnected());
  });
  assert.ok(gone(pid), "the server process outlived the block");
});

test("await using: an HttpTransport releases its session (DELETE) after the block", T, async () => {
  const catalog = await startCatalogHttp({ port: 0 });
  try {
    {
      await using transport = new HttpTransport(catalog.url);
      const client = await McpClient.connect(transport, { era: "legacy" });
      await client.listTools();
    }
    assert.ok(catalog.requests.some((r) => r.method === "DELETE"), "no DELETE released the session");
  } finally {
    await catalog.close();
  }
});
