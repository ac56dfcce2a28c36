// U4: every request to the inbox is bounded: the URL, the body (declared or streamed,
// and the time it takes), ids, reasons, page sizes, cursors, the form's shape, and
// the requests in flight; options out of range are refused when the inbox is made.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryActionStore } from "../../src/actions/memory-store.js";
import { createApprovalInbox } from "../../src/inbox/inbox.js";
import {
  INBOX_BODY_TIMEOUT_MS,
  MAX_ACTION_ID_CHARS,
  MAX_ACTION_REASON_CHARS,
  MAX_INBOX_BODY_BYTES,
  MAX_INBOX_IN_FLIGHT,
  MAX_INBOX_PAGE_SIZE,
  MAX_INBOX_TITLE_CHARS,
  MAX_INBOX_URL_CHARS,
} from "../../src/limits.js";
import { ORIGIN, approveForm, bob, byHeader, mainText, setup } from "./support.js";

const form = { "x-user": "bob@acme", "content-type": "application/x-www-form-urlencoded", origin: ORIGIN };

test("U4: a URL longer than MAX_INBOX_URL_CHARS is a 414; one at the bound is read", async () => {
  const s = setup();
  const base = `${ORIGIN}/?limit=5&x=`;
  const at = await s.inbox(new Request(base + "a".repeat(MAX_INBOX_URL_CHARS - base.length), { headers: { "x-user": "bob@acme" } }));
  assert.equal(at.status, 200);
  const over = await s.inbox(new Request(base + "a".repeat(MAX_INBOX_URL_CHARS - base.length + 1), { headers: { "x-user": "bob@acme" } }));
  assert.equal(over.status, 414);
});

test("U4: a body over MAX_INBOX_BODY_BYTES is a 413, declared or streamed; nothing is decided", async () => {
  const s = setup();
  const a = await s.propose();
  const f = await approveForm(s, a.id);
  const path = `${ORIGIN}/actions/${a.id}/reject`;
  const big = new URLSearchParams({ ...f, reason: "r", pad: "x".repeat(MAX_INBOX_BODY_BYTES) }).toString();
  assert.equal((await s.inbox(new Request(path, { method: "POST", headers: form, body: big }))).status, 413);
  const chunks = [new TextEncoder().encode(big.slice(0, MAX_INBOX_BODY_BYTES / 2)), new TextEncoder().encode(big.slice(MAX_INBOX_BODY_BYTES / 2))];
  const stream = new ReadableStream<Uint8Array>({ pull(c) { const next = chunks.shift(); if (next) c.enqueue(next); else c.close(); } });
  const streamed = await s.inbox(new Request(path, { method: "POST", headers: form, body: stream, duplex: "half" } as RequestInit));
  assert.equal(streamed.status, 413);
  assert.equal((await s.store.get(a.id))?.state, "awaiting_approval");
  // A body just at the bound is read (and the token in it honoured).
  const filler = MAX_INBOX_BODY_BYTES - new URLSearchParams({ ...f, reason: "r", pad: "" }).toString().length;
  const fits = new URLSearchParams({ ...f, reason: "r", pad: "x".repeat(filler) }).toString();
  assert.equal(new TextEncoder().encode(fits).length, MAX_INBOX_BODY_BYTES);
  assert.equal((await s.inbox(new Request(path, { method: "POST", headers: form, body: fits }))).status, 303);
});

test("U4: a body that does not arrive within bodyTimeoutMs (default and maximum INBOX_BODY_TIMEOUT_MS) is a 408", async () => {
  const s = setup({ bodyTimeoutMs: 200 });
  const a = await s.propose();
  const f = await approveForm(s, a.id);
  let sent = false;
  const stalled = new ReadableStream<Uint8Array>({
    pull(c) {
      if (!sent) c.enqueue(new TextEncoder().encode(new URLSearchParams(f).toString().slice(0, 10)));
      sent = true;
      return new Promise(() => {}); // the rest never comes
    },
  });
  const began = Date.now();
  const res = await s.inbox(new Request(`${ORIGIN}/actions/${a.id}/approve`, { method: "POST", headers: form, body: stalled, duplex: "half" } as RequestInit));
  assert.equal(res.status, 408);
  assert.ok(Date.now() - began < 5_000);
  assert.throws(() => createApprovalInbox({ store: s.store, authenticate: byHeader, mayApprove: () => true, bodyTimeoutMs: INBOX_BODY_TIMEOUT_MS + 1 }), /bodyTimeoutMs/);
});

test("U4: an id over MAX_ACTION_ID_CHARS is a 404 unread; a reason over MAX_ACTION_REASON_CHARS is a 400, one at the bound is kept whole", async () => {
  const s = setup();
  const long = "i".repeat(MAX_ACTION_ID_CHARS + 1);
  let reads = 0;
  const store = s.store;
  const counting = setup({ store: { ...store, get: (id: string) => (reads++, store.get(id)), list: (q) => store.list(q), count: (q) => store.count!(q) } as typeof store });
  assert.equal((await counting.get(`/actions/${long}`, bob)).status, 404);
  assert.equal(reads, 0, "never looked up");
  const a = await s.propose();
  const f = await approveForm(s, a.id, bob, "reject");
  const over = await s.post(`/actions/${a.id}/reject`, { ...f, reason: "r".repeat(MAX_ACTION_REASON_CHARS + 1) }, bob);
  assert.equal(over.status, 400);
  assert.equal((await s.store.get(a.id))?.state, "awaiting_approval");
  assert.equal((await s.post(`/actions/${a.id}/reject`, { ...f, reason: "r".repeat(MAX_ACTION_REASON_CHARS) }, bob)).status, 303);
  assert.equal((await s.store.get(a.id))?.rejection?.reason?.length, MAX_ACTION_REASON_CHARS);
});

test("U4: a page holds at most MAX_INBOX_PAGE_SIZE actions, whatever limit or pageSize asks; a malformed cursor is a 400", async () => {
  const s = setup();
  for (let i = 0; i < 3; i++) await s.propose();
  assert.equal((await s.get(`/?limit=${MAX_INBOX_PAGE_SIZE}`, bob, true)).status, 200);
  for (const bad of [`limit=${MAX_INBOX_PAGE_SIZE + 1}`, "limit=0", "limit=1.5", "limit=-3", "after=nope", "after=12", `after=1~${"x".repeat(MAX_ACTION_ID_CHARS + 1)}`, "after=1e3~a"]) {
    const res = await s.get(`/?${bad}`, bob, true);
    assert.equal(res.status, 400, bad);
  }
  const two = (await (await s.get("/?limit=2", bob, true)).json()) as { items: unknown[]; next: string };
  assert.equal(two.items.length, 2);
  assert.ok(two.next);
  for (const pageSize of [0, MAX_INBOX_PAGE_SIZE + 1, 2.5]) {
    assert.throws(() => createApprovalInbox({ store: s.store, authenticate: byHeader, mayApprove: () => true, pageSize }), /pageSize/);
  }
  const small = setup({ store: s.store, pageSize: 1 });
  assert.equal(((await (await small.get("/", bob, true)).json()) as { items: unknown[] }).items.length, 1);
});

test("U4: at most maxInFlight requests at once (default and maximum MAX_INBOX_IN_FLIGHT); the next is a 503 at once", async () => {
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => (release = r));
  const inbox = createApprovalInbox({ store: new MemoryActionStore(), authenticate: async (r) => (await gate, byHeader(r)), mayApprove: () => true });
  const request = () => inbox(new Request(`${ORIGIN}/`, { headers: { "x-user": "bob@acme" } }));
  const held = Array.from({ length: MAX_INBOX_IN_FLIGHT }, request);
  const busy = await request();
  assert.equal(busy.status, 503);
  assert.equal(busy.headers.get("retry-after"), "1");
  release();
  assert.deepEqual([...new Set((await Promise.all(held)).map((r) => r.status))], [200]);
  assert.equal((await request()).status, 200, "the slots are free again");
  assert.throws(() => createApprovalInbox({ store: new MemoryActionStore(), authenticate: byHeader, mayApprove: () => true, maxInFlight: MAX_INBOX_IN_FLIGHT + 1 }), /maxInFlight/);
});

test("U4: a decision's body is a form or JSON of strings, each field once, in UTF-8", async () => {
  const s = setup();
  const a = await s.propose();
  const f = await approveForm(s, a.id);
  const path = `${ORIGIN}/actions/${a.id}/approve`;
  const post = (body: BodyInit, type: string) => s.inbox(new Request(path, { method: "POST", headers: { ...form, "content-type": type }, body }));
  assert.equal((await post(new URLSearchParams(f).toString(), "text/plain")).status, 415);
  assert.equal((await post(new URLSearchParams(f).toString(), "multipart/form-data; boundary=x")).status, 415);
  assert.equal((await post(`${new URLSearchParams(f)}&binding=${f.binding}`, "application/x-www-form-urlencoded")).status, 400, "a field twice");
  assert.equal((await post(new Uint8Array([0x63, 0x73, 0x72, 0x66, 0x3d, 0xff, 0xfe]), "application/x-www-form-urlencoded")).status, 400, "not UTF-8");
  assert.equal((await post(JSON.stringify({ ...f, reason: 7 }), "application/json")).status, 400, "a field that is not a string");
  assert.equal((await post("[1]", "application/json")).status, 400);
  assert.equal((await s.store.get(a.id))?.state, "awaiting_approval");
  assert.equal((await post(JSON.stringify(f), "application/json; charset=utf-8")).status, 303);
});

test("U4: the inbox's options are checked when it is made: a title over MAX_INBOX_TITLE_CHARS, a missing store or callback", () => {
  const store = new MemoryActionStore();
  const ok = { store, authenticate: byHeader, mayApprove: () => true };
  assert.throws(() => createApprovalInbox({ ...ok, title: "t".repeat(MAX_INBOX_TITLE_CHARS + 1) }), /title/);
  createApprovalInbox({ ...ok, title: "t".repeat(MAX_INBOX_TITLE_CHARS) });
  assert.throws(() => createApprovalInbox({ ...ok, store: undefined as never }), /store/);
  assert.throws(() => createApprovalInbox({ ...ok, authenticate: undefined as never }), /authenticate/);
  assert.throws(() => createApprovalInbox({ ...ok, mayApprove: undefined as never }), /mayApprove/);
  assert.throws(() => createApprovalInbox({ ...ok, attentionAfterMs: -1 }), /attentionAfterMs/);
});

test("U4: a failure of the store is a 500 page in the inbox's own words; the handler never throws", async () => {
  const reported: unknown[] = [];
  const broken = new MemoryActionStore();
  broken.list = async () => { throw new Error("connection reset by 10.0.0.7:5432"); };
  const inbox = createApprovalInbox({ store: broken, authenticate: byHeader, mayApprove: () => true, onError: (e) => reported.push(e) });
  const res = await inbox(new Request(`${ORIGIN}/`, { headers: { "x-user": "bob@acme" } }));
  assert.equal(res.status, 500);
  const text = mainText(await res.text());
  assert.ok(!text.includes("10.0.0.7"), text);
  assert.equal(reported.length, 1);
  const malformed = await inbox(new Request(`${ORIGIN}/actions/%E0%A4%A`, { headers: { "x-user": "bob@acme" } }));
  assert.equal(malformed.status, 400);
});
