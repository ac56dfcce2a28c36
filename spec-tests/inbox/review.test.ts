// U2, U3, U4, U7: adversarial review of the approval inbox and its Node adapter: what a
// hostile server, model, store, web page or client tried, each over real loopback HTTP
// where the wire matters.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { INBOX_CSRF_CLOCK_SKEW_MS, MAX_INBOX_ACCEPT_CHARS, MAX_INBOX_CSRF_TOKEN_CHARS, NODE_ADAPTER_MAX_IN_FLIGHT } from "../../src/limits.js";
import type { ActionRecord, ActionStore } from "../../src/actions/types.js";
import { approveForm, bob, mainText, setup } from "./support.js";
import { raw, serve } from "./wire.js";

test("U7, U3: a request target starting with // or /\\ stays a path on the adapter's origin; it cannot move the inbox's own origin check to another host", async () => {
  const seen: string[] = [];
  const echo = await serve(async (r) => (seen.push(r.url), new Response("ok")), (port) => ({ origin: `http://127.0.0.1:${port}` }));
  const open = await serve(async (r) => (seen.push(r.url), new Response("ok")));
  try {
    for (const target of ["//evil.example/x", "/\\evil.example/x", "//evil.example:1/?q=1"]) {
      assert.match(await raw(echo.port, `GET ${target} HTTP/1.1\r\nhost: 127.0.0.1:${echo.port}\r\nconnection: close\r\n\r\n`), /^HTTP\/1\.1 200 /);
      assert.match(await raw(open.port, `GET ${target} HTTP/1.1\r\nhost: 127.0.0.1:${open.port}\r\nconnection: close\r\n\r\n`), /^HTTP\/1\.1 200 /);
    }
    assert.deepEqual(seen.map((u) => new URL(u).host), [echo, open, echo, open, echo, open].map((s) => `127.0.0.1:${s.port}`));
    assert.equal(seen[0], `${echo.origin}//evil.example/x`);
  } finally {
    await echo.close();
    await open.close();
  }

  // The inbox without `origins` takes the request's own origin as its own. A POST whose
  // target names another host, with that host as its Origin (a client that sends no
  // Sec-Fetch-Site), must not pass for a same-origin decision.
  const s = setup();
  const a = await s.propose();
  const form = await approveForm(s, a.id);
  const inbox = await serve(s.inbox, (port) => ({ origin: `http://127.0.0.1:${port}` }));
  try {
    const body = new URLSearchParams(form).toString();
    const res = await raw(
      inbox.port,
      `POST //evil.example/actions/${a.id}/approve HTTP/1.1\r\nhost: 127.0.0.1:${inbox.port}\r\nx-user: bob@acme\r\norigin: http://evil.example\r\n` +
        `content-type: application/x-www-form-urlencoded\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
    assert.match(res, /^HTTP\/1\.1 404 /, res.slice(0, 200));
    assert.equal((await s.store.get(a.id))?.state, "awaiting_approval", "nothing was approved");
  } finally {
    await inbox.close();
  }
  assert.ok(bob);
});

test("U2: every field a host's own store hands back is escaped, not only the strings a model or server chose: state, effect, counts, a verdict", async () => {
  const X = `"><b id="injected">`;
  const base = {
    id: "a1", operationId: "o1", actorId: "alice", tenantId: "acme", tool: "t__x", effect: X, version: "v1", arguments: { a: 1 }, argumentsHash: "0".repeat(64),
    fence: 0, attempts: X, createdAt: 1, updatedAt: 2, expiresAt: 3, approval: { actorId: "bob", tenantId: "acme", at: 1 },
  };
  const records = [
    { ...base, state: X },
    { ...base, id: "a2", state: "succeeded", resolution: { actorId: "carol", tenantId: "acme", at: 2, outcome: X, note: "checked" } },
    { ...base, id: "a3", state: "outcome_unknown" },
  ] as unknown as ActionRecord[];
  const store = {
    create: async (r: ActionRecord) => r,
    get: async (id: string) => records.find((r) => r.id === id),
    list: async () => records,
    count: async () => X as unknown as number,
    transition: async () => records[0]!,
    claim: async () => undefined,
  } satisfies ActionStore;
  const s = setup({ store, mayResolve: () => true });
  for (const path of ["/", "/history", "/attention", "/actions/a1", "/actions/a2", "/actions/a3"]) {
    const res = await s.get(path, bob);
    assert.equal(res.status, 200, path);
    const page = await res.text();
    assert.ok(!page.includes("<b id="), `${path}: no markup of the store's reached the page`);
    assert.ok(!page.includes(`id="injected"`), `${path}: no attribute was closed by the store's text`);
  }
  const json = (await (await s.get("/", bob, true)).json()) as { count: unknown };
  assert.equal(json.count, null, "a count that is no count is no count");
});

test("U3, W14: a form binds the state its page showed: the approval page's token and binding do not settle the action once its outcome became unknown", async () => {
  const s = setup({ mayResolve: () => true });
  const a = await s.propose();
  const page = (await (await s.get(`/actions/${a.id}`, bob, true)).json()) as { form: Record<string, string> };
  assert.ok(page.form.csrf && page.form.binding);
  // Approved elsewhere, sent by a worker, its outcome lost: a confirmed call becomes outcome_unknown.
  const approved = await s.actions.approve(a, bob);
  const claimed = await s.store.claim({ workerId: "w", now: s.clock.now, leaseMs: 60_000 });
  assert.equal(claimed?.id, approved.id);
  const executing = await s.store.transition(a.id, { state: "approved", fence: claimed.fence }, { state: "executing" }, s.clock.now);
  await s.store.transition(a.id, { state: "executing", fence: executing.fence }, { state: "outcome_unknown", outcome: { reason: "the connection dropped" }, leaseOwner: undefined, leaseUntil: undefined }, s.clock.now);
  const res = await s.inbox(new Request(`https://inbox.test/actions/${a.id}/resolve`, {
    method: "POST",
    headers: { "x-user": "bob@acme", accept: "application/json", "content-type": "application/json", origin: "https://inbox.test", "sec-fetch-site": "same-origin" },
    body: JSON.stringify({ ...page.form, outcome: "succeeded", note: "looks fine" }),
  }));
  assert.equal(res.status, 409, await res.clone().text());
  assert.equal((await s.store.get(a.id))?.state, "outcome_unknown", "nothing was settled");
  // The page of the action as it is now carries a settle form that does.
  const now = (await (await s.get(`/actions/${a.id}`, bob, true)).json()) as { form: Record<string, string> };
  const settled = await s.inbox(new Request(`https://inbox.test/actions/${a.id}/resolve`, {
    method: "POST",
    headers: { "x-user": "bob@acme", accept: "application/json", "content-type": "application/json", origin: "https://inbox.test", "sec-fetch-site": "same-origin" },
    body: JSON.stringify({ ...now.form, outcome: "succeeded", note: "checked the server's log" }),
  }));
  assert.equal(settled.status, 200);
});

test("U2: a list row's summary cannot make one member look like two: a key that is not one word is quoted as JSON", async () => {
  const s = setup();
  await s.propose({ arguments: { "amount: 1, to": "evil", plain_key: 2 } });
  const row = mainText((await (await s.get("/", bob)).text()).replace(/<\/?bdi>/g, ""));
  assert.ok(row.includes(`"amount: 1, to": "evil", plain_key: 2`), row);
});

/** Opens a request whose headers arrived and whose body has not: the socket, to finish or drop it. */
function slowPost(port: number, got: (text: string) => void): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.write(`POST / HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: text/plain\r\ncontent-length: 4\r\nconnection: close\r\n\r\n`);
      resolve(socket);
    });
    let text = "";
    socket.on("data", (d) => (text += d.toString("latin1")));
    socket.on("close", () => got(text));
    socket.on("error", reject);
  });
}

test("U4, U7: the adapter holds at most maxInFlight requests at once (default NODE_ADAPTER_MAX_IN_FLIGHT), slow bodies included; the next is a 503 at once, its body unread", async () => {
  let calls = 0;
  const handler = async (r: Request) => (calls++, new Response(`read ${(await r.text()).length}`));
  for (const [options, n] of [[{ maxInFlight: 3 }, 3], [{}, NODE_ADAPTER_MAX_IN_FLIGHT]] as const) {
    calls = 0;
    const server = await serve(handler, options);
    const answers: string[] = [];
    try {
      const slow: Socket[] = [];
      for (let i = 0; i < n; i++) slow.push(await slowPost(server.port, (t) => answers.push(t)));
      // Each of those has sent its headers and holds a slot; wait until the server has seen them all.
      for (let i = 0; i < 200 && (await raw(server.port, `GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`)).startsWith("HTTP/1.1 200"); i++) calls = 0;
      const refused = await raw(server.port, `POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 4\r\nconnection: close\r\n\r\nbody`);
      assert.match(refused, /^HTTP\/1\.1 503 /);
      assert.match(refused, /\r\nretry-after: 1\r\n/i);
      assert.equal(calls, 0, "no handler ran for a refused request");
      for (const s of slow) s.end("body");
      for (let i = 0; i < 500 && answers.length < n; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(answers.filter((t) => /^HTTP\/1\.1 200 [\s\S]*read 4/.test(t)).length, n, "every slow body was read and answered");
      assert.match(await raw(server.port, `GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`), /^HTTP\/1\.1 200 /, "the slots are free again");
    } finally {
      await server.close();
    }
  }
});

test("U7: a method the web Request cannot carry (TRACE) is a 501 from the adapter, not a handler failure reported to onError", async () => {
  const errors: unknown[] = [];
  let calls = 0;
  const server = await serve(async () => (calls++, new Response("ok")), { onError: (e) => errors.push(e) });
  try {
    assert.match(await raw(server.port, `TRACE / HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n`), /^HTTP\/1\.1 501 /);
    assert.deepEqual([calls, errors.length], [0, 0]);
  } finally {
    await server.close();
  }
});

test("U3: a CSRF token issued by a clock up to INBOX_CSRF_CLOCK_SKEW_MS ahead is honoured (another instance), one further ahead is not; a token over MAX_INBOX_CSRF_TOKEN_CHARS is refused unread", async () => {
  const csrfSecret = "k".repeat(32);
  const s = setup({ csrfSecret });
  const a = await s.propose();
  const ahead = setup({ csrfSecret, store: s.store });
  const post = (form: Record<string, string>) => s.post(`/actions/${a.id}/reject`, { ...form, reason: "not now" }, bob);
  ahead.clock.now = s.clock.now + INBOX_CSRF_CLOCK_SKEW_MS + 1_000;
  assert.equal((await post(await approveForm(ahead, a.id, bob, "reject"))).status, 403, "issued too far ahead");
  ahead.clock.now = s.clock.now + INBOX_CSRF_CLOCK_SKEW_MS - 1_000;
  const form = await approveForm(ahead, a.id, bob, "reject");
  assert.equal((await post({ ...form, csrf: `${form.csrf}${"A".repeat(MAX_INBOX_CSRF_TOKEN_CHARS)}` })).status, 403, "an overlong token");
  assert.equal((await post(form)).status, 303, "within the skew");
  assert.equal((await s.store.get(a.id))?.state, "rejected");
});

test("U1: the inbox reads MAX_INBOX_ACCEPT_CHARS of Accept to choose JSON: application/json past them is not read", async () => {
  const s = setup();
  const pad = "text/plain;q=0.1,".repeat(Math.ceil(MAX_INBOX_ACCEPT_CHARS / 17));
  const within = await s.get("/", bob, false, { accept: `${pad.slice(0, MAX_INBOX_ACCEPT_CHARS - 20)},application/json` });
  assert.match(within.headers.get("content-type") ?? "", /^application\/json/);
  const past = await s.get("/", bob, false, { accept: `${pad},application/json` });
  assert.match(past.headers.get("content-type") ?? "", /^text\/html/);
});
