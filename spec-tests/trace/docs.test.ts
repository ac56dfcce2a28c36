// O1: the SDK examples of docs/traces.md (```javascript blocks, which import
// OpenTelemetry packages a consumer installs itself, so the consumer-project docs test
// does not run them) run here, against the real SDK of the dev dependencies.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoPath } from "../helpers/paths.js";

test("O1: every OpenTelemetry SDK example of docs/traces.md runs with the real SDK and prints its spans", () => {
  const text = readFileSync(repoPath("docs", "traces.md"), "utf8");
  const blocks = [...text.matchAll(/```javascript\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
  assert.ok(blocks.length >= 1);
  // Inside the package, so that `yada-mcp/node` resolves to this build (a package's self-reference).
  const dir = mkdtempSync(join(repoPath("build"), "doc-traces-"));
  try {
    for (const [n, code] of blocks.entries()) {
      const file = join(dir, `example-${n}.mjs`);
      writeFileSync(file, code);
      const r = spawnSync(process.execPath, [file], { encoding: "utf8", timeout: 60_000 });
      assert.equal(r.status, 0, `example ${n + 1} failed:\n${r.stdout}\n${r.stderr}`);
      assert.match(r.stdout, /invoke_agent \(root\)/, `example ${n + 1} printed:\n${r.stdout}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
