// U7: the Workers example of docs/approvals.md runs as it is written, as a Worker module
// inside workerd (importing "yada-mcp", the web bundle), with its Durable Object
// namespace and its CSRF secret binding: a signed-in approver gets the inbox, nobody else.
import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoPath } from "../helpers/paths.js";
import { bins, requireBinary, start } from "../runtimes/support.js";

const doc = readFileSync(repoPath("docs", "approvals.md"), "utf8");
const workerExamples = [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1] ?? "").filter((e) => e.includes("export default"));

test("U7: the Workers example of docs/approvals.md serves the inbox inside workerd with the Durable Object store", { timeout: 60_000 }, async () => {
  requireBinary(bins.workerd, "npm ci installs the workerd devDependency");
  assert.equal(workerExamples.length, 1);
  const dir = mkdtempSync(join(tmpdir(), "yada-approvals-doc-"));
  try {
    writeFileSync(join(dir, "worker.mjs"), workerExamples[0] ?? "");
    copyFileSync(repoPath("dist", "yada.js"), join(dir, "yada.js"));
    writeFileSync(
      join(dir, "config.capnp"),
      `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (services = [(name = "main", worker = .w)], sockets = [(name = "http", http = (), service = "main")]);
const w :Workerd.Worker = (
  modules = [(name = "worker.mjs", esModule = embed "worker.mjs"), (name = "yada-mcp", esModule = embed "yada.js")],
  compatibilityDate = "2025-09-01",
  durableObjectNamespaces = [(className = "ActionsObject", uniqueKey = "yada-approvals-doc", enableSql = true)],
  durableObjectStorage = (inMemory = void),
  bindings = [(name = "ACTIONS", durableObjectNamespace = "ActionsObject"), (name = "INBOX_CSRF_SECRET", text = "the example's secret, at least 32 bytes long")],
);
`,
    );
    const workerd = start(bins.workerd, ["serve", join(dir, "config.capnp"), "--socket-addr", "http=127.0.0.1:0", "--control-fd", "3"], { extraFds: 1, cwd: dir });
    try {
      await workerd.waitFor((o) => /"event":"listen","socket":"http","port":\d+/.test(o), "workerd listened");
      const origin = `http://127.0.0.1:${/"event":"listen","socket":"http","port":(\d+)/.exec(workerd.stdout())?.[1]}`;
      const nobody = await fetch(`${origin}/approvals/`, { signal: AbortSignal.timeout(20_000) });
      assert.equal(nobody.status, 401);
      const bob = await fetch(`${origin}/approvals/`, { headers: { "cf-access-authenticated-user-email": "bob@acme.example" }, signal: AbortSignal.timeout(20_000) });
      const page = await bob.text();
      assert.equal(bob.status, 200, page.slice(-500));
      assert.match(page, /Nothing waits for approval/);
      assert.match(bob.headers.get("content-security-policy") ?? "", /^default-src 'none'/);
    } finally {
      const done = await workerd.kill();
      if (done.stderr.includes("Error")) console.log(done.stderr.slice(-2000));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
