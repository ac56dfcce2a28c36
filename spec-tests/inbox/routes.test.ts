// U1: the approval inbox as a web-standard handler: the pending list of the
// approver's tenant (oldest first, paged, with counts and time left), each action's
// page, approve and reject through createActions, the history, the attention queue,
// the same routes as JSON, and identity only from the host's authenticate.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryActionStore } from "../../src/actions/memory-store.js";
import type { ActionStore } from "../../src/actions/types.js";
import { createApprovalInbox } from "../../src/inbox/inbox.js";
import { INBOX_ATTENTION_AFTER_MS, INBOX_PAGE_SIZE } from "../../src/limits.js";
import { alice, approveForm, bob, eve, formsOf, mainText, setup } from "./support.js";

test("U1: without an identity from authenticate every route is a 401, as HTML and as JSON, and shows nothing", async () => {
  const s = setup();
  const a = await s.propose();
  for (const path of ["/", "/history", "/attention", `/actions/${a.id}`]) {
    const res = await s.get(path);
    assert.equal(res.status, 401, path);
    const text = await res.text();
    assert.ok(!text.includes(a.id) && !text.includes("items__rename"), `${path} shows nothing of the tenant`);
    const j = await s.get(path, undefined, true);
    assert.equal(j.status, 401);
    assert.equal(((await j.json()) as { error: { code: string } }).error.code, "unauthenticated");
  }
  const post = await s.post(`/actions/${a.id}/approve`, await approveForm(s, a.id));
  assert.equal(post.status, 401);
  assert.equal((await s.store.get(a.id))?.state, "awaiting_approval");
  // An identity the host got wrong is nobody too: the inbox never makes one up.
  const broken = createApprovalInbox({ store: s.store, authenticate: () => ({ actorId: "", tenantId: "acme" }), mayApprove: () => true });
  assert.equal((await broken(new Request("https://inbox.test/"))).status, 401);
  const reported: unknown[] = [];
  const thrower = createApprovalInbox({ store: s.store, authenticate: () => { throw new Error("session store down"); }, mayApprove: () => true, onError: (e) => reported.push(e) });
  const res = await thrower(new Request("https://inbox.test/"));
  assert.equal(res.status, 500);
  assert.ok(!(await res.text()).includes("session store down"), "a host error's words stay out of the page");
  assert.equal(reported.length, 1);
});

test("U1: the pending list holds the approver's tenant only, oldest first, with the count and the time left before each expires", async () => {
  const s = setup();
  const first = await s.propose({ tool: "items__first" });
  s.clock.now += 60 * 60_000;
  const second = await s.propose({ tool: "items__second" });
  await s.propose({ tool: "other__secret", who: eve });
  const decided = await s.propose({ tool: "items__decided" });
  await s.actions.reject(decided, bob, "no");
  const res = await s.get("/", bob);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/html; charset=utf-8/);
  const page = await res.text();
  const text = mainText(page);
  assert.match(text, /2 actions wait for approval/);
  assert.ok(text.indexOf("items__first") < text.indexOf("items__second"), "oldest first");
  assert.ok(!text.includes("other__secret") && !text.includes("items__decided"));
  // Default TTL 24 h: the first was proposed an hour and a second before the second.
  assert.match(text, /22 h 59 min left/);
  assert.match(text, /23 h 59 min left/);
  assert.match(page, new RegExp(`href="/actions/${first.id}"`));
  assert.match(page, new RegExp(`href="/actions/${second.id}"`));
  assert.match(page, /Pending \(2\)/);
});

test("U1: pages of the pending list follow one another by cursor; the default page size is INBOX_PAGE_SIZE", async () => {
  const s = setup();
  const made = [];
  for (let i = 0; i < INBOX_PAGE_SIZE + 3; i++) made.push(await s.propose({ tool: `items__t${i}` }));
  const j = (await (await s.get("/", bob, true)).json()) as { count: number; items: { id: string }[]; next: string | null };
  assert.equal(j.count, INBOX_PAGE_SIZE + 3);
  assert.deepEqual(j.items.map((a) => a.id), made.slice(0, INBOX_PAGE_SIZE).map((a) => a.id));
  assert.ok(j.next);
  const second = (await (await s.get(`/?after=${encodeURIComponent(j.next)}`, bob, true)).json()) as { items: { id: string }[]; next: string | null };
  assert.deepEqual(second.items.map((a) => a.id), made.slice(INBOX_PAGE_SIZE).map((a) => a.id));
  assert.equal(second.next, null);
  // The HTML page links the next page, and the page after it links back to the first.
  const page = await (await s.get("/?limit=2", bob)).text();
  const next = /href="([^"]*)" rel="next"/.exec(page)?.[1]?.replace(/&amp;/g, "&");
  assert.ok(next, "a next link");
  const p2 = await (await s.get(next, bob)).text();
  assert.ok(mainText(p2).includes("items__t2") && !mainText(p2).includes("items__t1 "), "the next page starts after the first");
  assert.match(p2, /First page/);
});

test("U1: the action page shows tool, effect, arguments as JSON, the preview as the server's text, proposer, times, version, hashes", async () => {
  const s = setup();
  const a = await s.propose({ arguments: { id: "A", name: "Apples", nested: { list: [1, 2] } }, stateVersion: "sv-7", preview: "Rename A from Apple to Apples", runId: "run-9" });
  const res = await s.get(`/actions/${a.id}`, bob);
  assert.equal(res.status, 200);
  const page = await res.text();
  const text = mainText(page);
  for (const shown of ["items__rename", "write", "alice", "acme", "run-9", "v1", a.argumentsHash, "sv-7", a.operationId, a.id, "2026-05-01 09:00:00 UTC"]) {
    assert.ok(text.includes(shown), `the page shows ${shown}`);
  }
  // Each string of the JSON sits in an isolate of its own (<bdi>), which adds no text.
  assert.match(mainText(page.replace(/<\/?bdi>/g, "")), /"nested": \{\s+"list": \[\s+1,\s+2\s+\]/, "the arguments as indented JSON");
  assert.match(page, /<section class="server"[^>]*><p class="from">Preview — text from the server[^<]*<\/p><pre>Rename A from Apple to Apples<\/pre>/);
  assert.ok(formsOf(page).has(`/actions/${a.id}/approve`) && formsOf(page).has(`/actions/${a.id}/reject`));
  // alice proposed it; the host's rule lets her see it but not decide it.
  const own = await (await s.get(`/actions/${a.id}`, alice)).text();
  assert.equal(formsOf(own).size, 0);
  assert.match(mainText(own), /You may not decide this action/);
});

test("U1: approve and reject go through createActions: the record carries the approver, the reason, and nothing else was written", async () => {
  const inner = new MemoryActionStore();
  const writes: string[] = [];
  const store: ActionStore = {
    create: (r) => inner.create(r),
    get: (id) => inner.get(id),
    list: (q) => inner.list(q),
    count: (q) => inner.count(q),
    claim: (o) => inner.claim(o),
    transition: (id, e, p, n) => (writes.push(`${id}:${p.state}`), inner.transition(id, e, p, n)),
  };
  const s = setup({ store });
  const a = await s.propose();
  const b = await s.propose();
  for (const path of ["/", "/history", "/attention", `/actions/${a.id}`]) await s.get(path, bob);
  assert.deepEqual(writes, [], "pages write nothing");
  const approved = await s.post(`/actions/${a.id}/approve`, await approveForm(s, a.id), bob);
  assert.equal(approved.status, 303);
  assert.equal(approved.headers.get("location"), `/actions/${a.id}?done=approved`);
  const form = await approveForm(s, b.id, bob, "reject");
  const rejected = await s.post(`/actions/${b.id}/reject`, { ...form, reason: "Not during the freeze" }, bob);
  assert.equal(rejected.status, 303);
  assert.deepEqual(writes, [`${a.id}:approved`, `${b.id}:rejected`]);
  const ra = await s.store.get(a.id);
  assert.deepEqual(ra?.approval, { actorId: "bob", tenantId: "acme", at: s.clock.now });
  assert.equal((await s.store.get(b.id))?.rejection?.reason, "Not during the freeze");
  const after = mainText(await (await s.get(`/actions/${a.id}?done=approved`, bob)).text());
  assert.match(after, /Approved\. A worker sends it next\./);
  assert.match(after, /Approved by bob at 2026-05-01/);
});

test("U1: the history lists decided actions newest first: who decided, when, the outcome", async () => {
  const s = setup();
  const a = await s.propose({ tool: "items__older" });
  const b = await s.propose({ tool: "items__newer" });
  const c = await s.propose({ tool: "items__waiting" });
  await s.actions.approve(a, bob);
  await s.actions.reject(b, { actorId: "carol", tenantId: "acme" }, "no");
  const page = await (await s.get("/history", bob)).text();
  const text = mainText(page);
  assert.ok(text.indexOf("items__newer") < text.indexOf("items__older"), "newest first");
  assert.ok(!text.includes("items__waiting"));
  assert.match(text, /rejected\s+carol/);
  assert.match(text, /approved\s+bob/);
  assert.match(text, /2 decided actions/);
  const j = (await (await s.get("/history", bob, true)).json()) as { items: { id: string; state: string; rejection?: { actorId: string } }[] };
  assert.deepEqual(j.items.map((x) => [x.id, x.state]), [[b.id, "rejected"], [a.id, "approved"]]);
  assert.equal(c.state, "awaiting_approval");
});

test("U1: the attention queue holds outcome_unknown actions and those reconciling past INBOX_ATTENTION_AFTER_MS since their approval", async () => {
  const s = setup();
  const unknown = await s.propose({ tool: "items__delete" });
  const longWrite = await s.propose({ tool: "items__rename_long", stateVersion: "sv" });
  const freshWrite = await s.propose({ tool: "items__rename_fresh", stateVersion: "sv" });
  const drive = async (id: string, to: "outcome_unknown" | "reconciling") => {
    let r = await s.actions.approve((await s.store.get(id))!, bob);
    r = await s.store.transition(id, { state: r.state, fence: r.fence }, { state: "executing" }, s.clock.now);
    await s.store.transition(id, { state: r.state, fence: r.fence }, to === "reconciling" ? { state: to } : { state: to, outcome: { reason: "the connection dropped after the send" } }, s.clock.now);
  };
  await drive(unknown.id, "outcome_unknown");
  await drive(longWrite.id, "reconciling");
  s.clock.now += INBOX_ATTENTION_AFTER_MS;
  await drive(freshWrite.id, "reconciling");
  const page = await (await s.get("/attention", bob)).text();
  const text = mainText(page);
  assert.match(text, /Outcome unknown \(1\)/);
  assert.ok(text.includes("items__delete") && text.includes("items__rename_long"));
  assert.ok(!text.includes("items__rename_fresh"), "a reconciliation just begun is not a person's business yet");
  assert.match(text, /\(1 of 2 reconciling\)/);
  assert.match(page, /Attention \(1\)/);
  const j = (await (await s.get("/attention", bob, true)).json()) as { outcomeUnknown: { count: number; items: { id: string }[] }; reconciling: { count: number; items: { id: string }[] } };
  assert.deepEqual(j.outcomeUnknown.items.map((x) => x.id), [unknown.id]);
  assert.deepEqual(j.reconciling.items.map((x) => x.id), [longWrite.id]);
  assert.equal(j.reconciling.count, 2);
  const action = mainText(await (await s.get(`/actions/${unknown.id}`, bob)).text());
  assert.match(action, /Nobody knows whether the server carried this call out/);
  assert.match(action, /the connection dropped after the send/);
});

test("U1: every route answers JSON with Accept: application/json: lists, the action with its form, decisions", async () => {
  const s = setup();
  const a = await s.propose({ preview: "p", stateVersion: "sv" });
  const list = await s.get("/", bob, true);
  assert.match(list.headers.get("content-type") ?? "", /^application\/json/);
  const l = (await list.json()) as { tenantId: string; count: number; items: Record<string, unknown>[]; next: null };
  assert.equal(l.tenantId, "acme");
  assert.equal(l.count, 1);
  assert.equal(l.items[0]?.id, a.id);
  for (const hidden of ["leaseOwner", "leaseUntil", "fence", "notBefore"]) assert.ok(!(hidden in l.items[0]!), `${hidden} is the worker's business`);
  const one = (await (await s.get(`/actions/${a.id}`, bob, true)).json()) as { action: { id: string; arguments: unknown }; mayDecide: boolean; form: Record<string, string> };
  assert.equal(one.action.id, a.id);
  assert.deepEqual(one.action.arguments, a.arguments);
  assert.equal(one.mayDecide, true);
  assert.deepEqual(Object.keys(one.form).sort(), ["binding", "csrf"]);
  assert.match(one.form.binding!, /^[0-9a-f]{64}$/);
  const decided = await s.inbox(new Request(`https://inbox.test/actions/${a.id}/approve`, {
    method: "POST",
    headers: { "x-user": "bob@acme", accept: "application/json", "content-type": "application/json" },
    body: JSON.stringify(one.form),
  }));
  assert.equal(decided.status, 200);
  const d = (await decided.json()) as { action: { state: string; approval: { actorId: string } } };
  assert.equal(d.action.state, "approved");
  assert.equal(d.action.approval.actorId, "bob");
  const again = await s.inbox(new Request(`https://inbox.test/actions/${a.id}/approve`, {
    method: "POST",
    headers: { "x-user": "bob@acme", accept: "application/json", "content-type": "application/json" },
    body: JSON.stringify(one.form),
  }));
  assert.equal(again.status, 409);
  assert.equal(((await again.json()) as { error: { code: string } }).error.code, "conflict");
});

test("U1: mounted under basePath, the inbox answers its own routes only and links under it", async () => {
  const s = setup({ basePath: "/ops/approvals" });
  const a = await s.propose();
  assert.equal((await s.get("/", bob)).status, 404);
  assert.equal((await s.get("/ops/approvals-x/", bob)).status, 404);
  const page = await (await s.get("/ops/approvals/", bob)).text();
  assert.match(page, new RegExp(`href="/ops/approvals/actions/${a.id}"`));
  assert.equal((await s.get("/ops/approvals", bob)).status, 200);
  const form = formsOf(await (await s.get(`/ops/approvals/actions/${a.id}`, bob)).text()).get(`/ops/approvals/actions/${a.id}/approve`);
  assert.ok(form);
  assert.equal((await s.post(`/ops/approvals/actions/${a.id}/approve`, form, bob)).status, 303);
  assert.throws(() => createApprovalInbox({ store: s.store, authenticate: () => undefined, mayApprove: () => true, basePath: "/a/" }), /basePath/);
  assert.throws(() => createApprovalInbox({ store: s.store, authenticate: () => undefined, mayApprove: () => true, basePath: "javascript:alert(1)" }), /basePath/);
  assert.throws(() => createApprovalInbox({ store: s.store, authenticate: () => undefined, mayApprove: () => true, basePath: "/a/../b" }), /basePath/);
});

test("U1: over a store of the host's own that does not count, the pages list and page without making a count up", async () => {
  const inner = new MemoryActionStore();
  const store: ActionStore = { create: (r) => inner.create(r), get: (id) => inner.get(id), list: (q) => inner.list(q), claim: (o) => inner.claim(o), transition: (id, e, p, n) => inner.transition(id, e, p, n) };
  const s = setup({ store });
  for (let i = 0; i < 3; i++) await s.propose();
  const page = mainText(await (await s.get("/?limit=2", bob)).text());
  assert.match(page, /Actions waiting for approval/);
  assert.doesNotMatch(page, /\b2 actions wait/);
  const j = (await (await s.get("/", bob, true)).json()) as { count: number | null; items: unknown[] };
  assert.equal(j.count, null);
  assert.equal(j.items.length, 3);
  assert.equal((await s.get("/history", bob)).status, 200);
  assert.equal((await s.get("/attention", bob)).status, 200);
});
