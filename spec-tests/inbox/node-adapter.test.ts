// U7: the Node adapter (toNodeListener of yada-mcp/node) serves a fetch-style handler
// on a real node:http server on 127.0.0.1: the inbox end to end over the wire, and
// each bound before the handler: header count, body size (declared or streamed),
// time, the Host the origin names, a client that goes away.
import { test } from "node:test";
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { toNodeListener } from "../../src/node/fetch-adapter.js";
import { NODE_ADAPTER_MAX_BODY_BYTES, NODE_ADAPTER_MAX_HEADERS, NODE_ADAPTER_TIMEOUT_MS } from "../../src/limits.js";
import { bob, formsOf, mainText, setup } from "./support.js";
import { raw, serve } from "./wire.js";

test("U7: the inbox served by toNodeListener on node:http: its pages with every header, and an approval posted as a browser posts it", async () => {
  const s = setup();
  const a = await s.propose({ preview: "Rename A", stateVersion: "sv" });
  const server = await serve(s.inbox, (port) => ({ origin: `http://127.0.0.1:${port}` }));
  try {
    const page = await fetch(`${server.origin}/actions/${a.id}`, { headers: { "x-user": "bob@acme" } });
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-security-policy") ?? "", /^default-src 'none'; style-src 'sha256-/);
    assert.equal(page.headers.get("x-content-type-options"), "nosniff");
    const form = formsOf(await page.text()).get(`/actions/${a.id}/approve`)!;
    const posted = await fetch(`${server.origin}/actions/${a.id}/approve`, {
      method: "POST",
      redirect: "manual",
      headers: { "x-user": "bob@acme", origin: server.origin, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form),
    });
    assert.equal(posted.status, 303);
    assert.equal(posted.headers.get("location"), `/actions/${a.id}?done=approved`);
    assert.equal((await s.store.get(a.id))?.state, "approved");
    assert.match(mainText(await (await fetch(`${server.origin}${posted.headers.get("location")}`, { headers: { "x-user": "bob@acme" } })).text()), /Approved by bob/);
    const head = await fetch(`${server.origin}/`, { method: "HEAD", headers: { "x-user": "bob@acme" } });
    assert.equal(head.status, 200);
    assert.equal((await head.arrayBuffer()).byteLength, 0);
  } finally {
    await server.close();
  }
});

test("U7: the handler sees the request as sent: method, path and query, headers, body; every cookie of the answer reaches the client", async () => {
  let seen: { method: string; url: string; header: string | null; body: string } | undefined;
  const server = await serve(async (r) => {
    seen = { method: r.method, url: r.url, header: r.headers.get("x-thing"), body: await r.text() };
    const h = new Headers({ "content-type": "text/plain" });
    h.append("set-cookie", "a=1; HttpOnly");
    h.append("set-cookie", "b=2; Secure");
    return new Response("ok", { status: 201, headers: h });
  });
  try {
    const res = await new Promise<{ status: number; cookies: string[] }>((resolve, reject) => {
      const req = httpRequest(`${server.origin}/p/q?x=1&y=%20`, { method: "PUT", headers: { "x-thing": "v", "content-type": "text/plain" } }, (r) => {
        r.resume();
        r.on("end", () => resolve({ status: r.statusCode ?? 0, cookies: r.headers["set-cookie"] ?? [] }));
      });
      req.on("error", reject);
      req.end("the body");
    });
    assert.equal(res.status, 201);
    assert.deepEqual(res.cookies, ["a=1; HttpOnly", "b=2; Secure"]);
    assert.deepEqual(seen, { method: "PUT", url: `${server.origin}/p/q?x=1&y=%20`, header: "v", body: "the body" });
  } finally {
    await server.close();
  }
});

test("U7: more than NODE_ADAPTER_MAX_HEADERS request headers is a 431; at the bound the handler answers", async () => {
  let calls = 0;
  const server = await serve(async () => (calls++, new Response("ok")));
  try {
    const headers = (n: number) => Array.from({ length: n }, (_, i) => `x-h${i}: v\r\n`).join("");
    const over = await raw(server.port, `GET / HTTP/1.1\r\nhost: 127.0.0.1\r\n${headers(NODE_ADAPTER_MAX_HEADERS)}\r\n`);
    assert.match(over, /^HTTP\/1\.1 431 /);
    const at = await raw(server.port, `GET / HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n${headers(NODE_ADAPTER_MAX_HEADERS - 2)}\r\n`);
    assert.match(at, /^HTTP\/1\.1 200 /);
    assert.equal(calls, 1);
  } finally {
    await server.close();
  }
});

test("U7: a body over NODE_ADAPTER_MAX_BODY_BYTES is a 413, declared or chunked, and the handler never runs", async () => {
  let calls = 0;
  const server = await serve(async (r) => (calls++, new Response(String((await r.arrayBuffer()).byteLength))));
  try {
    const declared = await raw(server.port, `POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: ${NODE_ADAPTER_MAX_BODY_BYTES + 1}\r\n\r\n`);
    assert.match(declared, /^HTTP\/1\.1 413 /);
    const chunk = "x".repeat(16 * 1024);
    const chunked = await raw(server.port, `POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ntransfer-encoding: chunked\r\n\r\n`, (write) => {
      for (let i = 0; i <= NODE_ADAPTER_MAX_BODY_BYTES / chunk.length; i++) write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    });
    assert.match(chunked, /^HTTP\/1\.1 413 /);
    assert.equal(calls, 0);
    const fits = await fetch(`${server.origin}/`, { method: "POST", body: "y".repeat(NODE_ADAPTER_MAX_BODY_BYTES) });
    assert.equal(await fits.text(), String(NODE_ADAPTER_MAX_BODY_BYTES));
  } finally {
    await server.close();
  }
});

test("U7: past timeoutMs (default NODE_ADAPTER_TIMEOUT_MS) a body still arriving is a 408, a handler still working a 503 and its signal aborts", async () => {
  let aborted = false;
  const server = await serve(async (r) => {
    if (new URL(r.url).pathname === "/slow") {
      await new Promise<void>((resolve) => r.signal.addEventListener("abort", () => ((aborted = true), resolve())));
      return new Response("late");
    }
    return new Response("ok");
  }, { timeoutMs: 300 });
  try {
    const stalled = await raw(server.port, `POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 100\r\n\r\nhalf`);
    assert.match(stalled, /^HTTP\/1\.1 408 /);
    const slow = await fetch(`${server.origin}/slow`);
    assert.equal(slow.status, 503);
    assert.equal(aborted, true);
    assert.ok(NODE_ADAPTER_TIMEOUT_MS >= 10_000, "the default leaves a person's form time to arrive");
  } finally {
    await server.close();
  }
});

test("U7: with an origin, a Host header naming another host is a 421 (DNS rebinding); without one, a Host that is no host name is a 400", async () => {
  let calls = 0;
  const handler = async () => (calls++, new Response("ok"));
  const pinned = await serve(handler, (port) => ({ origin: `http://127.0.0.1:${port}` }));
  const open = await serve(handler);
  try {
    const rebound = await raw(pinned.port, `GET / HTTP/1.1\r\nhost: evil.example:${pinned.port}\r\n\r\n`);
    assert.match(rebound, /^HTTP\/1\.1 421 /);
    assert.match(await raw(open.port, `GET / HTTP/1.1\r\nhost: a b/c\r\n\r\n`), /^HTTP\/1\.1 400 /);
    assert.match(await raw(open.port, `GET http://elsewhere.example/ HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`), /^HTTP\/1\.1 400 /);
    assert.equal(calls, 0);
    assert.equal((await fetch(`${pinned.origin}/`)).status, 200);
    assert.throws(() => toNodeListener(handler, { origin: "http://127.0.0.1:1/path" }), /origin/);
    assert.throws(() => toNodeListener(handler, { timeoutMs: 0 }), /timeoutMs/);
  } finally {
    await pinned.close();
    await open.close();
  }
});

test("U7: a handler that throws is a 500 in the adapter's words, reported to onError; a client that leaves aborts the handler's signal", async () => {
  const errors: unknown[] = [];
  let left: Promise<void> | undefined;
  const server = await serve(async (r) => {
    if (new URL(r.url).pathname === "/wait") {
      left = new Promise<void>((resolve) => r.signal.addEventListener("abort", () => resolve()));
      await left;
      return new Response("gone");
    }
    throw new Error("secret detail 10.1.2.3");
  }, { onError: (e) => errors.push(e) });
  try {
    const res = await fetch(`${server.origin}/`);
    assert.equal(res.status, 500);
    assert.ok(!(await res.text()).includes("10.1.2.3"));
    assert.equal(errors.length, 1);
    const ac = new AbortController();
    const pending = fetch(`${server.origin}/wait`, { signal: ac.signal }).catch(() => undefined);
    while (!left) await new Promise((r) => setTimeout(r, 10));
    ac.abort();
    await pending;
    await left;
  } finally {
    await server.close();
  }
  assert.ok(bob);
});
