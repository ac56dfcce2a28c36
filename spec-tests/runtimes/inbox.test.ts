// U7: the approval inbox of the web bundle (dist/yada.js) in the runtime matrix:
// inside workerd with the Durable Object action store (the Worker reaches its object
// through remoteActionStore), under Deno.serve and under Bun.serve. From this process
// each one is driven over loopback HTTP as a browser and a JSON client would: the
// pending list, an action's page and its form, an approval from the same origin, a
// refused one from another, a rejection as JSON; the store then says what happened.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createActions } from "../../src/actions/approvals.js";
import { remoteActionStore } from "../../src/actions/durable-object-remote.js";
import { repoPath } from "../helpers/paths.js";
import { formsOf, mainText } from "../inbox/support.js";
import { TEST_TIMEOUT_MS, bins, requireBinary, start, type Child } from "./support.js";

const limits = { timeout: TEST_TIMEOUT_MS };
const script = repoPath("fixtures", "runtimes", "inbox", "serve.mjs");
const bob = { "x-user": "bob@acme" };

/** Runs the inbox's flow against the server at `origin`. */
async function exercise(origin: string, runtime: string): Promise<void> {
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${origin}${path}`, { headers: { ...bob, ...headers }, signal: AbortSignal.timeout(20_000) });
  const store = remoteActionStore({ fetch: (_u, init) => fetch(`${origin}/store`, { ...init, signal: AbortSignal.timeout(20_000) }) }, { name: runtime });
  const actions = createActions({ store, mayApprove: () => true });
  const alice = { actorId: "alice", tenantId: "acme" };
  const a = await actions.propose({ tool: "items__rename", version: "v1", arguments: { id: "A", name: "<b>Apples</b>" }, stateVersion: "sv-1", preview: "Rename A to Apples" }, { identity: alice, effect: "write" });
  const b = await actions.propose({ tool: "items__delete_item", version: "v1", arguments: { id: "B" } }, { identity: alice, effect: "confirm" });

  assert.equal((await fetch(`${origin}/`)).status, 401, `${runtime}: no identity, no inbox`);
  const list = await get("/");
  assert.equal(list.status, 200, runtime);
  assert.match(list.headers.get("content-security-policy") ?? "", /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]{43}='; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/, runtime);
  assert.equal(list.headers.get("x-content-type-options"), "nosniff");
  assert.match(mainText(await list.text()), /2 actions wait for approval/, runtime);

  const page = await (await get(`/actions/${a.id}`)).text();
  assert.ok(page.includes("&lt;b&gt;Apples&lt;/b&gt;"), `${runtime}: the arguments are escaped`);
  const form = formsOf(page).get(`/actions/${a.id}/approve`);
  assert.ok(form, `${runtime}: an approve form`);
  const post = (fields: Record<string, string>, from: string) =>
    fetch(`${origin}/actions/${a.id}/approve`, {
      method: "POST",
      redirect: "manual",
      headers: { ...bob, origin: from, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields),
      signal: AbortSignal.timeout(20_000),
    });
  assert.equal((await post(form, "https://evil.example")).status, 403, `${runtime}: another origin is refused`);
  assert.equal((await store.get(a.id))?.state, "awaiting_approval");
  const approved = await post(form, origin);
  assert.equal(approved.status, 303, runtime);
  assert.equal((await store.get(a.id))?.approval?.actorId, "bob");

  const j = (await (await get(`/actions/${b.id}`, { accept: "application/json" })).json()) as { form: Record<string, string> };
  const rejected = await fetch(`${origin}/actions/${b.id}/reject`, {
    method: "POST",
    headers: { ...bob, accept: "application/json", "content-type": "application/json" },
    body: JSON.stringify({ ...j.form, reason: "not today" }),
    signal: AbortSignal.timeout(20_000),
  });
  assert.equal(rejected.status, 200, runtime);
  assert.equal((await store.get(b.id))?.rejection?.reason, "not today");
  const history = (await (await get("/history", { accept: "application/json" })).json()) as { count: number; items: { id: string }[] };
  assert.equal(history.count, 2, `${runtime}: the store's count`);
  assert.deepEqual(history.items.map((x) => x.id), [b.id, a.id]);
}

async function withServer(command: string, args: string[], env: NodeJS.ProcessEnv, pattern: RegExp, fn: (origin: string) => Promise<void>, extraFds = 0): Promise<void> {
  const child: Child = start(command, args, { env, extraFds });
  try {
    await child.waitFor((out) => pattern.test(out), `${command} listened`);
    const port = pattern.exec(child.stdout())?.[1];
    await fn(`http://127.0.0.1:${port}`);
  } catch (e) {
    const finished = await child.kill();
    throw new Error(`${e instanceof Error ? e.stack : String(e)}\nstderr: ${finished.stderr.slice(-3000)}`);
  } finally {
    await child.kill();
  }
}

test("U7: the inbox runs inside workerd with the Durable Object action store", limits, async () => {
  requireBinary(bins.workerd, "npm ci installs the workerd devDependency");
  const config = repoPath("fixtures", "runtimes", "inbox", "workerd.capnp");
  await withServer(bins.workerd, ["serve", config, "--socket-addr", "http=127.0.0.1:0", "--control-fd", "3"], process.env, /"event":"listen","socket":"http","port":(\d+)/, (o) => exercise(o, "workerd"), 1);
});

test("U7: the inbox runs under Deno.serve (network: 127.0.0.1 only)", limits, async () => {
  requireBinary(bins.deno, "npm ci installs the deno devDependency");
  const env = { ...process.env, DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1" };
  await withServer(bins.deno, ["run", "--no-config", "--no-lock", "--allow-net=127.0.0.1", script], env, /"listening":(\d+),"runtime":"deno /, (o) => exercise(o, "deno"));
});

test("U7: the inbox runs under Bun.serve", limits, async () => {
  requireBinary(bins.bun, "npm ci installs the bun devDependency (its postinstall puts the binary in place)");
  await withServer(bins.bun, [script], { ...process.env, DO_NOT_TRACK: "1" }, /"listening":(\d+),"runtime":"bun /, (o) => exercise(o, "bun"));
});
