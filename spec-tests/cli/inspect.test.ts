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
  // Each command launches its own server process: one run per command keeps the file light.
  test("X6: ping --json reports the round trip, the era and the revision", T, async () => {
    const r = await yada(["ping", "--json", "--stdio", EVERYTHING]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    const parsed = JSON.parse(r.stdout) as { ok: boolean; era: string; ms: number; protocolVersion: string };
    assert.equal(parsed.ok, true);
    assert.equal(parsed.era, "legacy");
    assert.equal(parsed.protocolVersion, "2025-11-25");
    assert.ok(parsed.ms >= 0);
  });

  test("X6: info prints identity, era, revision, capabilities and instructions", T, async () => {
    const r = await yada(["info", "--stdio", EVERYTHING]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.match(r.stdout, /^mcp-servers\/everything 2\.0\.0 · legacy era · protocol 2025-11-25$/m);
    assert.match(r.stdout, /"tasks": \{/);
    assert.match(r.stdout, /^instructions$/m);
  });

  test("V9: complete prints a prompt argument's suggestions, narrowed by a context", T, async () => {
    const r = await yada(["complete", "completable-prompt", "name", "", '{"department":"Support"}', "--stdio", EVERYTHING]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.equal(r.stdout, "John\nKim\nLee\n");
  });

  test("V8: call of a tool that requires a task runs it, with its status as live progress on stderr, each line exactly the status and its message", T, async () => {
    const r = await yada(["call", "simulate-research-query", '{"topic":"terminals"}', "--yes", "--stdio", EVERYTHING]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.match(r.stdout, /# Research Report: terminals/);
    // The status lines, in order (a status a slow poll never saw, or the rate bound folded, may be missing); no amount precedes them.
    const expected = ["Gathering sources", "Analyzing content", "Synthesizing findings", "Generating report"].map((m) => `yada: progress: simulate-research-query working: ${m}...`);
    // P4: the tool is not marked read-only: said first, and called because of --yes.
    assert.match(r.stderr, /^yada: simulate-research-query is not marked read-only: a direct call may change things and bypasses approvals/);
    const lines = r.stderr.split("\n").filter((l) => l.startsWith("yada: progress: "));
    assert.equal(lines.at(-1), "yada: progress: simulate-research-query completed: Generating report...");
    const statuses = lines.slice(0, -1);
    assert.deepEqual(statuses, expected.filter((l) => statuses.includes(l)), `exact lines, in order:\n${r.stderr}`);
  });

  test("H14: --url of a 2024-11-05 HTTP+SSE server (server-everything sse mode) works through the fallback", T, async () => {
    const server = await startEverything("sse");
    try {
      const r = await yada(["call", "echo", '{"message":"over sse"}', "--url", server.url]);
      assert.equal(r.code, EXIT.ok, r.stderr);
      assert.equal(r.stdout, "Echo: over sse\n");
    } finally {
      await server.stop();
    }
  });
});
