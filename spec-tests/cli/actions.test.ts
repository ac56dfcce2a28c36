// W8, W9, X6: `yada run --approve all|none --store PATH` executes or rejects the
// proposed calls through the file store and the worker, and `yada actions
// list|show|approve|reject` reads and decides the actions of a store.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { EXIT } from "../../src/cli/exit.js";
import { createActions } from "../../src/actions/approvals.js";
import { openFileStore } from "../../src/node/file-store.js";
import { fixtureServer } from "../helpers/paths.js";
import { errorCodes, yada } from "./support.js";

type CatalogHttpModule = typeof import("../../fixtures/servers/catalog/http.mjs");
const { startCatalogHttp } = (await import(pathToFileURL(fixtureServer("catalog/http.mjs")).href)) as CatalogHttpModule;

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "yada-actions-cli-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const RENAME = [
  { text: "Renaming it.", toolCalls: [{ name: "catalog__rename", arguments: { sku: "ABC-123", name: "Widget Pro" } }] },
  { text: "Done." },
];

describe("X6, W8: yada run decides, the worker executes once", { timeout: 60_000 }, () => {
  test("W8, X6: --approve all runs the approved rename once through the file store and the model gets its result", async () => {
    const http = await startCatalogHttp();
    try {
      const script = join(dir, "rename.json");
      await writeFile(script, JSON.stringify(RENAME));
      const store = join(dir, "all.jsonl");
      const r = await yada(["run", "Rename it", "--url", http.url, "--name", "catalog", "--script", script, "--approve", "all", "--store", store]);
      assert.equal(r.code, EXIT.ok, r.stderr);
      assert.match(r.stdout, /1\. catalog__rename \(confirm, call call_1_1\)/);
      assert.match(r.stdout, /← catalog__rename succeeded: /);
      assert.match(r.stdout, /Done\.\n/);
      const after = await yada(["call", "lookup", '{"sku":"ABC-123"}', "--url", http.url]);
      assert.match(after.stdout, /Widget Pro/, "the server performed the rename");
      const list = await yada(["actions", "list", "--store", store, "--json"]);
      const actions = JSON.parse(list.stdout) as Array<{ state: string; tool: string; approval?: { actorId: string } }>;
      assert.deepEqual(actions.map((a) => [a.tool, a.state, a.approval?.actorId]), [["catalog__rename", "succeeded", "cli"]]);
    } finally {
      await http.close();
    }
  });

  test("W8, X6: --approve none rejects: nothing is sent, the model reads the rejection", async () => {
    const http = await startCatalogHttp();
    try {
      const script = join(dir, "rename-none.json");
      await writeFile(script, JSON.stringify(RENAME));
      const store = join(dir, "none.jsonl");
      const r = await yada(["run", "Rename it", "--url", http.url, "--name", "catalog", "--script", script, "--approve", "none", "--store", store]);
      assert.equal(r.code, EXIT.ok, r.stderr);
      assert.match(r.stdout, /← catalog__rename rejected: declined \(--approve none\)/);
      const after = await yada(["call", "lookup", '{"sku":"ABC-123"}', "--url", http.url]);
      assert.match(after.stdout, /Widget,/, "nothing was renamed");
    } finally {
      await http.close();
    }
  });
});

describe("X6, W9: yada actions", { timeout: 60_000 }, () => {
  test("W9, X6: list, show, approve and reject the actions of a store; a second decision is a conflict", async () => {
    const path = join(dir, "decide.jsonl");
    const store = await openFileStore(path);
    const api = createActions({ store, mayApprove: () => true });
    const who = { actorId: "host-user", tenantId: "local" };
    const a = await api.propose({ tool: "files__write", version: "v1", arguments: { path: "/tmp/x" }, preview: "write /tmp/x" }, { identity: who, effect: "confirm" });
    const b = await api.propose({ tool: "files__delete", version: "v1", arguments: { path: "/tmp/y" } }, { identity: who, effect: "confirm" });
    await store.close();

    const list = await yada(["actions", "list", "--store", path]);
    assert.equal(list.code, EXIT.ok, list.stderr);
    assert.match(list.stdout, new RegExp(`^${a.id} +awaiting_approval +files__write`, "m"));
    const shown = await yada(["actions", "show", a.id, "--store", path]);
    assert.match(shown.stdout, /^files__write awaiting_approval \(confirm\)\n/);
    assert.match(shown.stdout, /preview +write \/tmp\/x\n/);
    assert.match(shown.stdout, /"path": "\/tmp\/x"/);

    const ok = await yada(["actions", "approve", a.id, "--store", path, "--actor", "ops"]);
    assert.equal(ok.code, EXIT.ok, ok.stderr);
    assert.equal(ok.stdout.split("\n")[0], `${a.id} approved by ops@local`);
    const again = await yada(["actions", "approve", a.id, "--store", path]);
    assert.equal(again.code, EXIT.refused);
    assert.deepEqual(errorCodes(again.stderr), ["conflict"]);
    const no = await yada(["actions", "reject", b.id, "not today", "--store", path]);
    assert.equal(no.stdout, `${b.id} rejected by cli@local\n`);
    const other = await yada(["actions", "approve", b.id, "--store", path, "--tenant", "elsewhere"]);
    assert.deepEqual(errorCodes(other.stderr), ["unauthorized"]);

    const after = await openFileStore(path);
    assert.equal((await after.get(a.id))?.state, "approved");
    assert.equal((await after.get(b.id))?.rejection?.reason, "not today");
    // While this process holds the store, the CLI cannot open it.
    const locked = await yada(["actions", "list", "--store", path]);
    assert.equal(locked.code, EXIT.usage);
    assert.deepEqual(errorCodes(locked.stderr), ["store"]);
    await after.close();
  });
});
