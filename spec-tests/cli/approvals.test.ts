// U6, W14: `yada actions resolve` settles an action whose outcome is unknown, and
// `yada approvals` serves the approval inbox of a file store on 127.0.0.1 behind a
// random token printed once, while a `yada worker` executes what is approved there.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { request } from "node:http";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { EXIT } from "../../src/cli/exit.js";
import { CLI_INBOX_TOKEN_BYTES } from "../../src/limits.js";
import type { ActionRecord } from "../../src/actions/types.js";
import { fixtureServer, repoRoot } from "../helpers/paths.js";
import { CLI, errorCodes, yada } from "./support.js";

type CatalogHttpModule = typeof import("../../fixtures/servers/catalog/http.mjs");
const { startCatalogHttp } = (await import(pathToFileURL(fixtureServer("catalog/http.mjs")).href)) as CatalogHttpModule;

const T = { timeout: 60_000 };
let dir: string;
before(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "yada-approvals-cli-")));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const list = async (store: string): Promise<ActionRecord[]> => JSON.parse((await yada(["actions", "list", "--store", store, "--json"])).stdout) as ActionRecord[];

describe("W14, U6: yada actions resolve", T, () => {
  test("W14, U6: a confirmed call that timed out is outcome_unknown; resolve settles it with a verdict and a note, once", T, async () => {
    const at = join(dir, "resolve");
    mkdirSync(at, { mode: 0o700 });
    const config = join(at, "yada.json");
    // A per-server bound of 1 s: the slow call's outcome is unknown, and a confirmed call is never retried.
    writeFileSync(config, JSON.stringify([{ name: "catalog", command: process.execPath, args: [fixtureServer("catalog/stdio.mjs")], timeoutMs: 1_000, readTools: ["lookup"], confirmTools: ["slow"] }]), { mode: 0o600 });
    const plan = join(at, "plan.json");
    writeFileSync(plan, JSON.stringify([{ toolCalls: [{ name: "catalog__slow", arguments: { ms: 5_000 } }] }, { text: "done" }]));
    const store = join(at, "actions.jsonl");
    const run = await yada(["run", "be slow", "--server", "catalog", "--config", config, "--provider", "scripted", "--script", plan, "--approve", "all", "--store", store]);
    assert.equal(run.code, EXIT.ok, run.stderr);
    const [a] = await list(store);
    assert.equal(a?.state, "outcome_unknown");

    const usage = await yada(["actions", "resolve", a.id, "--outcome", "failed", "--store", store]);
    assert.equal(usage.code, EXIT.usage);
    assert.match(usage.stderr, /usage: yada actions resolve <id> --outcome succeeded\|failed --note/);
    const r = await yada(["actions", "resolve", a.id, "--outcome", "failed", "--note", "checked the catalog: nothing changed", "--store", store, "--actor", "ops"]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.equal(r.stdout, `${a.id} failed: settled by ops@local\n`);
    const shown = await yada(["actions", "show", a.id, "--store", store]);
    assert.match(shown.stdout, /settled by +ops at \S+ as failed: checked the catalog: nothing changed\n/);
    const again = await yada(["actions", "resolve", a.id, "--outcome", "succeeded", "--note", "no, it did", "--store", store]);
    assert.equal(again.code, EXIT.refused);
    assert.deepEqual(errorCodes(again.stderr), ["conflict"]);
    const other = await yada(["actions", "approve", a.id, "--note", "x", "--store", store]);
    assert.equal(other.code, EXIT.usage);
    assert.match(other.stderr, /--note applies to actions resolve/);
  });
});

/** A running `yada approvals`: its printed URL, its stderr, and how it ended. */
async function startApprovals(args: string[]): Promise<{ url: string; err: () => string; stop(): Promise<number | null> }> {
  const child = spawn(process.execPath, [CLI, "approvals", ...args], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  const killer = setTimeout(() => child.kill("SIGKILL"), 45_000);
  const closed = new Promise<number | null>((resolve) => child.on("close", (code) => (clearTimeout(killer), resolve(code))));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const m = /^ {2}(http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43})$/m.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    void closed.then(() => reject(new Error(`no URL printed:\n${out}\n${err}`)));
  });
  return {
    url,
    err: () => err,
    async stop() {
      child.kill("SIGINT");
      return closed;
    },
  };
}

describe("U6: yada approvals", T, () => {
  test("U6: the inbox on 127.0.0.1 needs the printed token; the link trades it for a cookie; an approval there is executed by a yada worker", T, async () => {
    const http = await startCatalogHttp();
    const store = join(dir, "inbox.jsonl");
    try {
      const plan = join(dir, "inbox-plan.json");
      writeFileSync(plan, JSON.stringify([{ toolCalls: [{ name: "catalog__rename", arguments: { sku: "ABC-123", name: "From the inbox" } }] }, { text: "done" }]));
      const run = await yada(["run", "rename", "--url", http.url, "--name", "catalog", "--provider", "scripted", "--script", plan, "--store", store]);
      assert.equal(run.code, EXIT.approval, run.stderr);
      const [a] = await list(store);
      assert.equal(a?.state, "awaiting_approval");

      const inbox = await startApprovals(["--store", store]);
      try {
        for (let i = 0; i < 50 && !inbox.err().includes("\n"); i++) await new Promise((resolve) => setTimeout(resolve, 20));
        assert.match(inbox.err(), /nothing executes what you approve until a worker runs: yada worker --store /);
        const origin = new URL(inbox.url).origin;
        // The token: CLI_INBOX_TOKEN_BYTES random bytes, base64url.
        assert.equal(Buffer.from(new URL(inbox.url).searchParams.get("token") ?? "", "base64url").length, CLI_INBOX_TOKEN_BYTES);
        // No token, a wrong token: nothing is shown.
        const anonymous = await fetch(`${origin}/`, { headers: { accept: "application/json" } });
        assert.equal(anonymous.status, 401);
        const wrong = await fetch(`${origin}/?token=${"A".repeat(43)}`, { redirect: "manual" });
        assert.equal(wrong.status, 401);
        assert.equal(wrong.headers.get("set-cookie"), null);
        // Another Host (a rebound DNS name) reaches nothing.
        const rebound = await new Promise<number | undefined>((resolve, reject) => {
          const req = request(`${origin}/`, { headers: { host: "attacker.example" } }, (res) => (res.resume(), resolve(res.statusCode)));
          req.on("error", reject).end();
        });
        assert.equal(rebound, 421);
        // The printed link: a cookie, and a redirect that drops the token from the URL.
        const link = await fetch(inbox.url, { redirect: "manual" });
        assert.equal(link.status, 303);
        assert.equal(link.headers.get("location"), `${origin}/`);
        // A path that reads as another host (`//host`) is still a path here: the redirect stays on the inbox.
        const token0 = new URL(inbox.url).searchParams.get("token") ?? "";
        const away = await new Promise<string | undefined>((resolve, reject) => {
          const req = request({ host: "127.0.0.1", port: new URL(origin).port, path: `/.//evil.example/?token=${token0}` }, (res) => (res.resume(), resolve(res.headers.location)));
          req.on("error", reject).end();
        });
        assert.equal(away, `${origin}//evil.example/`);
        const cookie = (link.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
        assert.match(link.headers.get("set-cookie") ?? "", /^yada_inbox_\d+=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/$/);
        const pending = await fetch(`${origin}/`, { headers: { cookie, accept: "application/json" } });
        assert.equal(pending.status, 200);
        const body = (await pending.json()) as { count: number; items: Array<{ id: string }> };
        assert.deepEqual([body.count, body.items.map((i) => i.id)], [1, [a.id]]);
        // Approve as the page does: its form, posted from its own origin.
        const page = (await (await fetch(`${origin}/actions/${a.id}`, { headers: { cookie, accept: "application/json" } })).json()) as { mayDecide: boolean; form: Record<string, string> };
        assert.equal(page.mayDecide, true);
        const token = (link.headers.get("set-cookie") ?? "").split(";")[0]?.split("=")[1] ?? "";
        const approved = await fetch(`${origin}/actions/${a.id}/approve`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, accept: "application/json", "content-type": "application/json", origin },
          body: JSON.stringify(page.form),
        });
        assert.equal(approved.status, 200, await approved.clone().text());
        assert.equal(((await approved.json()) as { action: { state: string } }).action.state, "approved");
        // A yada worker executes it while the inbox still serves the store.
        const worker = await yada(["worker", "--store", store, "--url", http.url, "--name", "catalog", "--once"]);
        assert.equal(worker.code, EXIT.ok, worker.stderr);
        assert.match(worker.stdout, new RegExp(`${a.id}  catalog__rename  succeeded`));
        const history = (await (await fetch(`${origin}/history`, { headers: { cookie, accept: "application/json" } })).json()) as { items: Array<{ id: string; state: string }> };
        assert.deepEqual(history.items.map((i) => [i.id, i.state]), [[a.id, "succeeded"]]);
      } finally {
        assert.equal(await inbox.stop(), EXIT.ok, inbox.err());
      }
    } finally {
      await http.close();
    }
  });

  test("U6: yada approvals refuses a store that does not exist", T, async () => {
    const r = await yada(["approvals", "--store", join(dir, "none", "actions.jsonl")]);
    assert.equal(r.code, EXIT.usage);
    assert.match(r.stderr, /^yada: store: no action store at /m);
  });
});
