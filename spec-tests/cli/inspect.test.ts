// X6 with V8 and V9: `yada ping`, `yada info`, `yada complete`, and `yada call` of
// a tool that requires a task, against server-everything over stdio (a real
// process launched by the CLI, itself a real process).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { EXIT } from "../../src/cli/exit.js";
import { repoPath } from "../helpers/paths.js";
import { startEverything } from "../helpers/everything.js";
import { yada } from "./support.js";

const T = { timeout: 60_000 };
const EVERYTHING = `node ${repoPath("node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")} stdio`;

describe("X6: server inspection commands", { concurrency: true }, () => {
  test("X6: ping prints the server and the round-trip time; --json says the era", T, async () => {
    const r = await yada(["ping", "--stdio", EVERYTHING]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.match(r.stdout, /^mcp-servers\/everything answered in \d+(\.\d)? ms\n$/);
    const j = await yada(["ping", "--json", "--stdio", EVERYTHING]);
    const parsed = JSON.parse(j.stdout) as { ok: boolean; era: string; ms: number };
    assert.equal(parsed.ok, true);
    assert.equal(parsed.era, "legacy");
  });

  test("X6: info prints identity, era, revision, capabilities and instructions", T, async () => {
    const r = await yada(["info", "--stdio", EVERYTHING]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.match(r.stdout, /^mcp-servers\/everything 2\.0\.0 · legacy era · protocol 2025-11-25$/m);
    assert.match(r.stdout, /"tasks": \{/);
    assert.match(r.stdout, /^instructions$/m);
    const j = JSON.parse((await yada(["info", "--json", "--stdio", EVERYTHING])).stdout) as { capabilities: { tasks?: unknown }; protocolVersion: string };
    assert.ok(j.capabilities.tasks);
    assert.equal(j.protocolVersion, "2025-11-25");
  });

  test("V9: complete prints a prompt argument's suggestions, narrowed by a context", T, async () => {
    const r = await yada(["complete", "completable-prompt", "name", "", '{"department":"Support"}', "--stdio", EVERYTHING]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.equal(r.stdout, "John\nKim\nLee\n");
    const t = await yada(["complete", "demo://resource/dynamic/text/{resourceId}", "resourceId", "12", "--json", "--stdio", EVERYTHING]);
    assert.deepEqual((JSON.parse(t.stdout) as { values: string[] }).values, ["12"]);
  });

  test("V8: call of a tool that requires a task runs it, with its status as live progress on stderr", T, async () => {
    const r = await yada(["call", "simulate-research-query", '{"topic":"terminals"}', "--stdio", EVERYTHING]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.match(r.stdout, /# Research Report: terminals/);
    assert.match(r.stderr, /yada: progress: simulate-research-query .*Analyzing content/);
  });

  test("H14: --url of a 2024-11-05 HTTP+SSE server (server-everything sse mode) works through the fallback", T, async () => {
    const server = await startEverything("sse");
    try {
      const info = await yada(["info", "--url", server.url]);
      assert.equal(info.code, EXIT.ok, info.stderr);
      assert.match(info.stdout, /^mcp-servers\/everything 2\.0\.0 · legacy era/m);
      const r = await yada(["call", "echo", '{"message":"over sse"}', "--url", server.url]);
      assert.equal(r.code, EXIT.ok, r.stderr);
      assert.equal(r.stdout, "Echo: over sse\n");
    } finally {
      await server.stop();
    }
  });
});
