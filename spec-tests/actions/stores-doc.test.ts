// W9, W12: the examples of docs/stores.md run as a consumer would run them: the
// PostgreSQL one (a ts block that declares the host's pool) with Node against a real
// PostgreSQL, its `declare const pool` replaced by pg's Pool on DATABASE_URL; the js
// one of a failing driver with Node; the Durable Object one as a Worker module
// inside workerd (importing "yada-mcp", the web bundle), on local storage.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as esbuild from "esbuild";
import { repoPath } from "../helpers/paths.js";
import { startPostgres, type TestPostgres } from "../helpers/postgres.js";
import { bins, requireBinary, start } from "../runtimes/support.js";

const doc = readFileSync(repoPath("docs", "stores.md"), "utf8");
const examples = [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
const nodeExamples = examples.filter((e) => !e.includes("export default"));
const pgExample = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? "").find((e) => e.includes("createWorker") && e.includes("declare const pool:"));
const workerExamples = examples.filter((e) => e.includes("export default"));

let db: TestPostgres;
const dir = mkdtempSync(join(tmpdir(), "yada-stores-doc-"));
before(async () => {
  db = await startPostgres();
});
after(async () => {
  await db?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("W9: the PostgreSQL example of docs/stores.md runs against a real PostgreSQL", { timeout: 60_000 }, async () => {
  assert.ok(pgExample, "no ts example with createWorker and `declare const pool:`");
  const withPool = pgExample.replace(
    /^declare const pool: .*$/m,
    'import pg from "pg";\nconst pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });',
  );
  assert.notEqual(withPool, pgExample);
  const { code } = await esbuild.transform(withPool, { loader: "ts", format: "esm" });
  const out = repoPath("build", "stores-doc");
  mkdirSync(out, { recursive: true });
  const { host, port, user, password, database } = db.config;
  const file = join(out, "example-pg.mjs");
  writeFileSync(file, code);
  const r = spawnSync(process.execPath, [file], {
    cwd: repoPath(),
    encoding: "utf8",
    timeout: 30_000,
    env: { ...process.env, DATABASE_URL: `postgres://${user}:${password}@${host}:${port}/${database}` },
  });
  assert.equal(r.status, 0, `the PostgreSQL example failed:\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /^succeeded$/m);
});

test("W9: the failing-driver example of docs/stores.md prints store errors", { timeout: 60_000 }, () => {
  assert.equal(nodeExamples.length, 1);
  const out = repoPath("build", "stores-doc");
  mkdirSync(out, { recursive: true });
  const file = join(out, "example-driver.mjs");
  writeFileSync(file, nodeExamples[0] ?? "");
  const r = spawnSync(process.execPath, [file], { cwd: repoPath(), encoding: "utf8", timeout: 30_000 });
  assert.equal(r.status, 0, `the example failed:\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /^store postgres store "yada_actions": get failed/m);
  assert.doesNotMatch(r.stdout, /ECONNREFUSED/);
  assert.match(r.stdout, /^store$/m);
});

test("W12: the Durable Object example of docs/stores.md runs as a Worker inside workerd", { timeout: 60_000 }, async () => {
  requireBinary(bins.workerd, "npm ci installs the workerd devDependency");
  assert.equal(workerExamples.length, 1);
  writeFileSync(join(dir, "worker.mjs"), workerExamples[0] ?? "");
  copyFileSync(repoPath("dist", "yada.js"), join(dir, "yada.js"));
  mkdirSync(join(dir, "storage"));
  writeFileSync(
    join(dir, "config.capnp"),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .w), (name = "storage", disk = (path = "storage", writable = true))],
  sockets = [(name = "http", http = (), service = "main")],
);
const w :Workerd.Worker = (
  modules = [(name = "worker.mjs", esModule = embed "worker.mjs"), (name = "yada-mcp", esModule = embed "yada.js")],
  compatibilityDate = "2025-09-01",
  durableObjectNamespaces = [(className = "ActionsObject", uniqueKey = "yada-doc-example", enableSql = true)],
  durableObjectStorage = (localDisk = "storage"),
  bindings = [(name = "ACTIONS", durableObjectNamespace = "ActionsObject")],
);
`,
  );
  const workerd = start(bins.workerd, ["serve", join(dir, "config.capnp"), "--socket-addr", "http=127.0.0.1:0", "--directory-path", `storage=${join(dir, "storage")}`, "--control-fd", "3"], { extraFds: 1, cwd: dir });
  try {
    await workerd.waitFor((o) => /"event":"listen","socket":"http","port":\d+/.test(o), "workerd listened");
    const port = /"event":"listen","socket":"http","port":(\d+)/.exec(workerd.stdout())?.[1];
    const res = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(20_000) });
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual(await res.json(), { pending: 0 });
  } finally {
    const done = await workerd.kill();
    if (done.stderr.includes("Error")) console.log(done.stderr.slice(-2000));
  }
});
