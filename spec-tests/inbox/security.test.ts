// U2, U3: the inbox's pages as a security team reads them: strict headers on every
// answer, every stored string escaped for where it goes (text, attribute, URL) and
// unable to hide or reorder what is around it, and decisions only by POST with a
// CSRF token bound to the approver and the action, from the inbox's own origin,
// binding what the page showed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { argumentsHash } from "../../src/actions/hash.js";
import { MemoryActionStore } from "../../src/actions/memory-store.js";
import { createApprovalInbox } from "../../src/inbox/inbox.js";
import { STYLE } from "../../src/inbox/style.js";
import { INBOX_CSRF_TTL_MS, MAX_INBOX_CELL_CHARS, MIN_INBOX_CSRF_SECRET_BYTES } from "../../src/limits.js";
import { ORIGIN, alice, approveForm, bob, byHeader, eve, formsOf, mainText, setup } from "./support.js";

/** Every tag of a page (all `<` of stored text are escaped, so each one found is markup the inbox wrote). */
const tags = (page: string): string[] => [...page.matchAll(/<[a-zA-Z][^>]*>/g)].map((m) => m[0]);
/** Markup no page of the inbox ever holds: scripts, event handlers, autofocus, foreign resources, inline styles, script URLs. */
function assertInert(page: string, what: string): void {
  for (const tag of tags(page)) {
    assert.doesNotMatch(tag, /^<(script|img|iframe|object|embed|link|base|meta http-equiv|svg|math)\b|\son\w+=|\sautofocus|\sstyle=|\ssrc=|javascript:/i, `${what}: ${tag}`);
  }
  assert.equal(page.split("<style>").length, 2, `${what}: one style sheet`);
}

const HOSTILE = [
  "<script>window.pwned=1</script>",
  '"><img src=x onerror="window.pwned=2">',
  "javascript:window.pwned=3",
  "</pre><style>body{display:none}</style>",
  "' onfocus='window.pwned=4' autofocus='",
];

test("U2: every answer (page, JSON, redirect, error) carries the strict CSP and the no-sniff, no-referrer, no-store headers; the style hash is the style sheet's", async () => {
  const s = setup();
  const a = await s.propose();
  const hash = `'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`;
  const answers = [
    await s.get("/", bob),
    await s.get("/", bob, true),
    await s.get(`/actions/${a.id}`, bob),
    await s.get("/history", bob),
    await s.get("/attention", bob),
    await s.get("/nowhere", bob),
    await s.get("/"),
    await s.post(`/actions/${a.id}/approve`, await approveForm(s, a.id), bob),
    await s.post(`/actions/${a.id}/approve`, {}, bob),
  ];
  for (const res of answers) {
    const h = res.headers;
    assert.equal(h.get("content-security-policy"), `default-src 'none'; style-src ${hash}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`, `${res.status}`);
    assert.equal(h.get("x-content-type-options"), "nosniff");
    assert.equal(h.get("referrer-policy"), "no-referrer");
    assert.equal(h.get("cache-control"), "no-store");
    assert.equal(h.get("x-frame-options"), "DENY");
  }
  assert.deepEqual(answers.map((r) => r.status), [200, 200, 200, 200, 200, 404, 401, 303, 403]);
  // The page holds exactly that style sheet, and no script, event handler or foreign link.
  const page = await (await s.get(`/actions/${a.id}`, bob)).text();
  assert.equal(page.split("<style>").length, 2);
  assert.ok(page.includes(`<style>${STYLE}</style>`));
  assertInert(page, "a plain action");
});

test("U2: hostile tool names, arguments, previews, reasons, actor ids and results are text: escaped for text, attributes and URLs", async () => {
  const s = setup();
  for (const h of HOSTILE) {
    const a = await s.propose({ tool: h.slice(0, 64), arguments: { [h]: h, list: [h] }, preview: h, stateVersion: h, who: { actorId: h, tenantId: "acme" } });
    const page = await (await s.get(`/actions/${encodeURIComponent(a.id)}`, bob)).text();
    assertInert(page, h);
    const text = mainText(page);
    assert.ok(text.includes(h.slice(0, 64)), `the tool name shows as text: ${h}`);
    assert.ok(text.includes(JSON.stringify(h).slice(1, -1)), `the arguments show as JSON text: ${h}`);
    const form = formsOf(page).get(`/actions/${encodeURIComponent(a.id)}/reject`);
    assert.deepEqual(Object.keys(form ?? {}).sort(), ["binding", "csrf"], "the form carries a hash of what it shows, never the stored strings");
    const rejected = await s.post(`/actions/${encodeURIComponent(a.id)}/reject`, { ...form!, reason: h }, bob);
    assert.equal(rejected.status, 303, h);
    const after = await (await s.get(`/actions/${encodeURIComponent(a.id)}`, bob)).text();
    assertInert(after, `${h} rejected`);
    assert.ok(mainText(after).includes(h), "the reason shows as text");
  }
  for (const path of ["/", "/history"]) assertInert(await (await s.get(path, bob)).text(), path);
  // An action id is only ever a percent-encoded path segment of the inbox's own routes.
  const weird = await s.store.create({ ...(await s.propose()), id: "javascript:alert(1)/../x?y#z", operationId: "op-weird" });
  const list = await (await s.get("/", bob)).text();
  assert.ok(list.includes(`href="/actions/${encodeURIComponent(weird.id)}"`));
  assert.equal((await s.get(`/actions/${encodeURIComponent(weird.id)}`, bob)).status, 200);
});

test("U2: bidi controls, zero-width and other invisible characters show as visible markers; in JSON they are \\u escapes; mark floods are collapsed", async () => {
  const s = setup();
  const spoof = "invoice\u202Efdp.exe\u2066\u200B\u2069\uFEFF\u{E0041}";
  const a = await s.propose({ tool: "items__\u202Erename", arguments: { file: spoof }, preview: `Move ${spoof} to trash\nline two`, stateVersion: "sv", who: { actorId: "mal\u202Elory", tenantId: "acme" } });
  const zalgo = `Z${"\u0301".repeat(500)}algo`;
  const b = await s.propose({ tool: "items__zalgo", arguments: { z: zalgo }, preview: zalgo });
  for (const id of [a.id, b.id]) {
    const page = await (await s.get(`/actions/${id}`, bob)).text();
    assert.doesNotMatch(page, /[\u202A-\u202E\u2066-\u2069\u200B-\u200F\uFEFF]|\u{E0041}/u, "no invisible character reaches the page");
    assert.doesNotMatch(page, /\u0301{4}/, "no flood of combining marks");
  }
  const page = await (await s.get(`/actions/${a.id}`, bob)).text();
  assert.match(page, /<span class="cc">U\+202E<\/span>/);
  assert.match(page, /<span class="cc">U\+E0041<\/span>/);
  assert.match(page, /invoice\\u202efdp\.exe\\u2066\\u200b\\u2069\\ufeff\\udb40\\udc41/, "the JSON escapes keep the arguments exact");
  assert.match(page, /trash\nline two/, "a multi-line preview keeps its lines");
  assert.match(await (await s.get(`/actions/${b.id}`, bob)).text(), /Z<span class="cc">500 combining marks<\/span>algo/);
  // Every piece of untrusted text is isolated from the text around it.
  assert.match(page, /<bdi class="u">items__<span class="cc">U\+202E<\/span>rename<\/bdi>/);
  const list = await (await s.get("/", bob)).text();
  assert.match(list, /<bdi class="u">mal<span class="cc">U\+202E<\/span>lory<\/bdi>/);
});

test("U2: a list row shows at most MAX_INBOX_CELL_CHARS of an untrusted string; the action page shows it whole, in a bounded box", async () => {
  const s = setup();
  const long = "w".repeat(MAX_INBOX_CELL_CHARS + 50);
  await s.propose({ tool: "items__long", who: { actorId: long, tenantId: "acme" } });
  const huge = "x".repeat(1_000_000);
  const big = await s.propose({ arguments: { blob: huge }, stateVersion: "sv", preview: "p" });
  const list = await (await s.get("/", bob)).text();
  assert.ok(list.includes(`${"w".repeat(MAX_INBOX_CELL_CHARS)}…`) && !list.includes("w".repeat(MAX_INBOX_CELL_CHARS + 1)));
  const page = await (await s.get(`/actions/${big.id}`, bob)).text();
  assert.ok(page.includes(huge), "all of the arguments are shown: an approver approves nothing unseen");
  assert.match(STYLE, /pre\{[^}]*max-height:24rem;overflow:auto;contain:paint/);
  assert.match(STYLE, /td\{overflow:hidden;contain:paint;overflow-wrap:anywhere\}/);
});

test("U3: a GET never decides: the decision routes answer POST only, and pages change nothing", async () => {
  const s = setup();
  const a = await s.propose();
  for (const verb of ["approve", "reject"]) {
    const res = await s.get(`/actions/${a.id}/${verb}`, bob);
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "POST");
  }
  const put = await s.inbox(new Request(`${ORIGIN}/actions/${a.id}`, { method: "POST", headers: { "x-user": "bob@acme" } }));
  assert.equal(put.status, 405);
  assert.equal((await s.store.get(a.id))?.state, "awaiting_approval");
});

test("U3: a decision needs this inbox's CSRF token for this approver and this action, within INBOX_CSRF_TTL_MS", async () => {
  const s = setup();
  const a = await s.propose();
  const b = await s.propose();
  const form = await approveForm(s, a.id);
  const refused = async (fields: Record<string, string>, who = bob, what = "") => {
    const res = await s.post(`/actions/${a.id}/approve`, fields, who);
    assert.equal(res.status, 403, what);
    assert.equal((await s.store.get(a.id))?.state, "awaiting_approval", what);
  };
  const { csrf: _, ...noToken } = form;
  await refused(noToken, bob, "no token");
  await refused({ ...form, csrf: `${form.csrf!.slice(0, -2)}AA` }, bob, "a forged signature");
  await refused({ ...form, csrf: "garbage" }, bob, "garbage");
  await refused(form, { actorId: "carol", tenantId: "acme" }, "another approver's token");
  await refused({ ...form, csrf: (await approveForm(s, b.id)).csrf! }, bob, "another action's token");
  const other = setup({ store: s.store, csrfSecret: "k".repeat(MIN_INBOX_CSRF_SECRET_BYTES) });
  other.clock.now = s.clock.now;
  assert.equal((await other.post(`/actions/${a.id}/approve`, form, bob)).status, 403, "another inbox's key");
  s.clock.now += INBOX_CSRF_TTL_MS + 1;
  await refused(form, bob, "an expired token");
  s.clock.now -= INBOX_CSRF_TTL_MS + 1;
  s.clock.now += INBOX_CSRF_TTL_MS - 1;
  assert.equal((await s.post(`/actions/${a.id}/approve`, form, bob)).status, 303, "still within the token's lifetime");
});

test("U3: two inboxes with the same csrfSecret honour each other's tokens (instances behind one load balancer); a short secret is refused", async () => {
  const secret = new Uint8Array(MIN_INBOX_CSRF_SECRET_BYTES).fill(7);
  const s = setup({ csrfSecret: secret });
  const other = setup({ store: s.store, csrfSecret: secret });
  other.clock.now = s.clock.now;
  const a = await s.propose();
  assert.equal((await other.post(`/actions/${a.id}/approve`, await approveForm(s, a.id), bob)).status, 303);
  for (const bad of ["short", new Uint8Array(MIN_INBOX_CSRF_SECRET_BYTES - 1), 42]) {
    assert.throws(() => createApprovalInbox({ store: s.store, authenticate: byHeader, mayApprove: () => true, csrfSecret: bad as never }), /csrfSecret/);
  }
  const key = await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
  const k = setup({ store: s.store, csrfSecret: key });
  const b = await s.propose();
  k.clock.now = s.clock.now;
  assert.equal((await k.post(`/actions/${b.id}/approve`, await approveForm(k, b.id), bob)).status, 303);
});

test("U3: a decision posted from another origin or site is refused before its body is read, token or not", async () => {
  const s = setup();
  const a = await s.propose();
  const form = await approveForm(s, a.id);
  for (const headers of <Record<string, string>[]>[
    { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
    { origin: "https://evil.example" },
    { origin: "null", "sec-fetch-site": "" },
    { origin: "null", "sec-fetch-site": "cross-site" },
    { "sec-fetch-site": "same-site", origin: ORIGIN },
    { "sec-fetch-site": "same-origin", origin: "https://evil.example" },
    { "sec-fetch-site": "cross-site", origin: ORIGIN },
  ]) {
    const res = await s.post(`/actions/${a.id}/approve`, form, bob, headers);
    assert.equal(res.status, 403, JSON.stringify(headers));
    assert.match(mainText(await res.text()), /another (origin|site)/);
  }
  assert.equal((await s.store.get(a.id))?.state, "awaiting_approval");
  // Without Sec-Fetch-Site, the null origin (a sandboxed frame, a data: page) is refused.
  const noSite = await s.inbox(new Request(`${ORIGIN}/actions/${a.id}/approve`, { method: "POST", headers: { "x-user": "bob@acme", "content-type": "application/x-www-form-urlencoded", origin: "null" }, body: new URLSearchParams(form).toString() }));
  assert.equal(noSite.status, 403);
  // A browser posting the inbox's own form sends Origin: null (the inbox's no-referrer policy) and Sec-Fetch-Site: same-origin.
  assert.equal((await s.post(`/actions/${a.id}/approve`, form, bob, { origin: "null", "sec-fetch-site": "same-origin" })).status, 303);
  const a2 = await s.propose();
  // Behind a proxy the public origin is named; the request's own URL origin is then not enough.
  const proxied = setup({ store: s.store, origins: ["https://approvals.example.com"] });
  proxied.clock.now = s.clock.now;
  const f2 = await approveForm(proxied, a2.id);
  assert.equal((await proxied.post(`/actions/${a2.id}/approve`, f2, bob)).status, 403);
  assert.equal((await proxied.post(`/actions/${a2.id}/approve`, f2, bob, { origin: "https://approvals.example.com" })).status, 303);
  assert.throws(() => createApprovalInbox({ store: s.store, authenticate: byHeader, mayApprove: () => true, origins: ["https://x.example/path"] }), /origins/);
});

test("U3: a form whose action changed in the store since its page was shown is a conflict page, and nothing is decided", async () => {
  const data = new Map<string, string>();
  const s = setup({ store: new MemoryActionStore({ data }) });
  const a = await s.propose({ stateVersion: "sv-1", preview: "Rename A", arguments: { id: "A", name: "Apples" } });
  const form = await approveForm(s, a.id);
  const original = data.get(a.id)!;
  const changes: Record<string, unknown>[] = [
    { tool: "items__other" }, { version: "v2" }, { stateVersion: "sv-2" }, { preview: "Rename B" }, { actorId: "mallory" },
    { arguments: { id: "B", name: "Apples" }, argumentsHash: await argumentsHash({ id: "B", name: "Apples" }) },
  ];
  for (const change of changes) {
    data.set(a.id, JSON.stringify({ ...JSON.parse(original), ...change }));
    const res = await s.post(`/actions/${a.id}/approve`, form, bob);
    assert.equal(res.status, 409, JSON.stringify(change));
    const text = mainText(await res.text());
    assert.match(text, /Nothing was decided/);
    assert.match(text, /Open the action as it is now/);
    assert.equal((await s.store.get(a.id))?.state, "awaiting_approval");
  }
  data.set(a.id, original);
  assert.equal((await s.post(`/actions/${a.id}/approve`, { ...form, binding: "0".repeat(64) }, bob)).status, 409, "a binding that is not the page's");
  const { binding: _, ...noBinding } = form;
  assert.equal((await s.post(`/actions/${a.id}/approve`, noBinding, bob)).status, 409, "no binding at all");
  // A page opened before someone else decided: its approve is a conflict.
  await s.actions.reject(a, { actorId: "carol", tenantId: "acme" }, "no");
  assert.equal((await s.post(`/actions/${a.id}/approve`, form, bob)).status, 409);
  assert.equal((await s.store.get(a.id))?.state, "rejected");
  // An action whose window passed while its page was open is expired, not approved.
  const b = await s.propose();
  data.set(b.id, JSON.stringify({ ...JSON.parse(data.get(b.id)!), expiresAt: s.clock.now + 60_000 }));
  const fb = await approveForm(s, b.id);
  s.clock.now += 60_000;
  assert.equal((await s.post(`/actions/${b.id}/approve`, fb, bob)).status, 409);
  assert.equal((await s.store.get(b.id))?.state, "expired");
});

test("U3: mayApprove decides who may decide: a refused approver sees no form and a posted one is a 403", async () => {
  const s = setup();
  const a = await s.propose();
  const form = await approveForm(s, a.id);
  const strict = setup({ store: s.store, csrfSecret: "s".repeat(MIN_INBOX_CSRF_SECRET_BYTES), mayApprove: (who) => who.actorId === "carol" });
  strict.clock.now = s.clock.now;
  assert.equal(formsOf(await (await strict.get(`/actions/${a.id}`, bob)).text()).size, 0);
  const sameKey = setup({ store: s.store, csrfSecret: "s".repeat(MIN_INBOX_CSRF_SECRET_BYTES) });
  sameKey.clock.now = s.clock.now;
  const f = await approveForm(sameKey, a.id);
  const res = await strict.post(`/actions/${a.id}/approve`, f, bob);
  assert.equal(res.status, 403);
  assert.equal((await s.store.get(a.id))?.state, "awaiting_approval");
  assert.ok(form.csrf);
  // The proposer cannot approve her own action under the test's rule either.
  assert.equal(formsOf(await (await s.get(`/actions/${a.id}`, alice)).text()).size, 0);
});

test("U4: another tenant's action is a 404, exactly as an action that does not exist, on its page and for a decision", async () => {
  const s = setup();
  const theirs = await s.propose({ who: eve });
  const none = await s.get("/actions/no-such-action", bob);
  const other = await s.get(`/actions/${theirs.id}`, bob);
  assert.equal(none.status, 404);
  assert.equal(other.status, 404);
  assert.equal((await other.text()).replace(theirs.id, ""), (await none.text()).replace("no-such-action", ""));
  const form = await approveForm(s, theirs.id, { actorId: "mallory", tenantId: "evil" });
  assert.equal((await s.post(`/actions/${theirs.id}/approve`, form, bob)).status, 404);
  const j = await s.get(`/actions/${theirs.id}`, bob, true);
  assert.equal(j.status, 404);
  assert.equal(((await j.json()) as { error: { code: string } }).error.code, "not_found");
  assert.equal((await s.store.get(theirs.id))?.state, "awaiting_approval");
});
