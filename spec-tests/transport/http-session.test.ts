// H6, H7, H9, H10, H11: sessions, protocol headers, custom headers and redirects of
// the HTTP transport, against loopback fixture servers (fixtures/http/).
import { test } from "node:test";
import assert from "node:assert/strict";
import { HttpTransport } from "../../src/transport/http.js";
import { ConfigError, HttpError, SessionExpiredError } from "../../src/errors.js";
import type { LogLevel } from "../../src/log.js";
import { header, notification, recordingSink, request, rpcMethods, until, withFixture } from "./http-fixtures.js";

const T = { timeout: 15_000 };
const INIT = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } };

test("H6: the Mcp-Session-Id of the initialize answer is replayed and released with DELETE on close", T, async () => {
  await withFixture("json", { sessionId: "sess-42" }, async (server) => {
    const transport = new HttpTransport(server.url);
    const sink = recordingSink();
    await transport.start(sink);
    await transport.send(request(1, "initialize", INIT));
    await transport.send(notification("notifications/initialized"));
    await transport.send(request(2, "tools/list"));
    await transport.close();
    assert.deepEqual(rpcMethods(server), ["initialize", "notifications/initialized", "tools/list", "DELETE"]);
    assert.equal(header(server.requests[0], "mcp-session-id"), undefined);
    for (const r of server.requests.slice(1)) assert.equal(header(r, "mcp-session-id"), "sess-42", r.method);
    assert.equal(sink.closedWith.length, 1);
    assert.equal(sink.closedWith[0]?.code, "connection_closed");
  });
});

test("H6: a refused DELETE is tolerated and logged", T, async () => {
  await withFixture("delete-refused", {}, async (server) => {
    const logs: Array<[LogLevel, string]> = [];
    const transport = new HttpTransport(server.url, { logger: (level, message) => void logs.push([level, message]) });
    await transport.start(recordingSink());
    await transport.send(request(1, "initialize", INIT));
    await transport.close(); // resolves despite the 405
    await transport.close(); // idempotent: no second DELETE
    assert.deepEqual(rpcMethods(server), ["initialize", "DELETE"]);
    assert.ok(logs.some(([, m]) => /session release answered HTTP 405/.test(m)), JSON.stringify(logs));
  });
});

test("H7: a 404 to a session-bearing request reports SessionExpired and clears the session", T, async () => {
  await withFixture("session-404", {}, async (server) => {
    const transport = new HttpTransport(server.url);
    const sink = recordingSink();
    await transport.start(sink);
    await transport.send(request(1, "initialize", INIT));
    await transport.send(request(2, "tools/list"));
    const err = sink.errors[0]?.error;
    assert.ok(err instanceof SessionExpiredError, String(err));
    assert.equal(err.code, "session_expired");
    assert.equal(sink.errors[0]?.id, 2);
    // The session is gone: a new initialize goes out without it and gets a new one.
    await transport.send(request(3, "initialize", INIT));
    assert.equal(header(server.requests[2], "mcp-session-id"), undefined);
    assert.equal(sink.errors.length, 1);
    await transport.close();
    assert.equal(header(server.requests.at(-1), "mcp-session-id"), "s-2", "DELETE releases the new session");
  });
});

test("H7: a 404 to the GET stream ends the session and is logged at warn as session expiry", T, async () => {
  await withFixture("session-404", {}, async (server) => {
    const logs: Array<[LogLevel, string, unknown]> = [];
    const transport = new HttpTransport(server.url, { logger: (level, message, data) => void logs.push([level, message, data]) });
    await transport.start(recordingSink());
    await transport.send(request(1, "initialize", INIT));
    transport.openInbound();
    await until(() => logs.some(([level, m]) => level === "warn" && /no longer knows the session \(HTTP 404 to the GET stream\)/.test(m)));
    const entry = logs.find(([level]) => level === "warn");
    assert.deepEqual(entry?.[2], { code: "session_expired" });
    await transport.close();
    assert.deepEqual(rpcMethods(server), ["initialize", "GET"], "no DELETE: the session is gone");
  });
});

test("H9: MCP-Protocol-Version is sent on every request after setProtocolVersion", T, async () => {
  await withFixture("json", { sessionId: "s" }, async (server) => {
    const transport = new HttpTransport(server.url);
    await transport.start(recordingSink());
    await transport.send(request(1, "initialize", INIT));
    transport.setProtocolVersion("2025-06-18");
    await transport.send(notification("notifications/initialized"));
    await transport.send(request(2, "tools/call", { name: "echo", arguments: {} }));
    await transport.close();
    assert.equal(header(server.requests[0], "mcp-protocol-version"), undefined);
    for (const r of server.requests.slice(1)) assert.equal(header(r, "mcp-protocol-version"), "2025-06-18", r.method);
    // Legacy revisions carry no Mcp-Method / Mcp-Name.
    assert.equal(header(server.requests[2], "mcp-method"), undefined);
  });
});

test("H9: from revision 2026-07-28 Mcp-Method and Mcp-Name mirror the body (Base64 when not plain ASCII); per-message headers ride on their POST", T, async () => {
  await withFixture("json", {}, async (server) => {
    const transport = new HttpTransport(server.url);
    await transport.start(recordingSink());
    transport.setProtocolVersion("2026-07-28");
    await transport.send(request(1, "tools/call", { name: "get_weather", arguments: {} }));
    await transport.send(request(2, "resources/read", { uri: "file:///a b/ü.txt" }));
    await transport.send(request(3, "prompts/get", { name: "=?base64?x?=" }));
    await transport.send(request(4, "tools/list"));
    await transport.send(request(5, "tools/call", { name: "sql", arguments: { region: "us-west1" } }), {
      headers: { "Mcp-Param-Region": "us-west1" },
    });
    await assert.rejects(transport.send(request(6, "tools/call", { name: "x" }), { headers: { "Mcp-Session-Id": "forged" } }), ConfigError);
    await assert.rejects(transport.send(request(7, "tools/call", { name: "x" }), { headers: { "Mcp-Param-X": "a\nb" } }), ConfigError);
    const [call, read, prompt, list, param] = server.requests;
    assert.equal(server.requests.length, 5, "refused headers were never sent");
    assert.equal(header(param, "mcp-param-region"), "us-west1");
    assert.equal(header(list, "mcp-param-region"), undefined, "per-message headers stay on their message");
    assert.equal(header(call, "mcp-method"), "tools/call");
    assert.equal(header(call, "mcp-name"), "get_weather");
    assert.equal(header(read, "mcp-name"), `=?base64?${Buffer.from("file:///a b/ü.txt").toString("base64")}?=`);
    assert.equal(header(prompt, "mcp-name"), `=?base64?${Buffer.from("=?base64?x?=").toString("base64")}?=`);
    assert.equal(header(list, "mcp-method"), "tools/list");
    assert.equal(header(list, "mcp-name"), undefined);
    assert.equal(header(list, "mcp-protocol-version"), "2026-07-28");
    await transport.close();
  });
});

test("H10: withHeader returns a new transport whose headers ride on every request incl. initialized and DELETE", T, async () => {
  await withFixture("json", { sessionId: "s-h" }, async (server) => {
    const base = new HttpTransport(server.url);
    const transport = base.withHeader("Authorization", "Bearer first").withHeader("X-Tenant", "acme").withHeader("authorization", "Bearer second");
    assert.notEqual(transport, base);
    await transport.start(recordingSink());
    await transport.send(request(1, "initialize", INIT));
    await transport.send(notification("notifications/initialized"));
    await transport.send(request(2, "tools/list"));
    await transport.close();
    assert.deepEqual(rpcMethods(server), ["initialize", "notifications/initialized", "tools/list", "DELETE"]);
    for (const r of server.requests) {
      assert.equal(header(r, "authorization"), "Bearer second", `${r.method}: the same name replaces`);
      assert.equal(header(r, "x-tenant"), "acme", r.method);
    }
    // The original value is untouched: it sends no custom header.
    await base.start(recordingSink());
    await base.send(request(3, "ping"));
    assert.equal(header(server.requests.at(-1), "authorization"), undefined);
    await base.close();
  });
});

test("H10: invalid names, non-visible-ASCII values and reserved names are refused before sending, never echoing the value", () => {
  const t = new HttpTransport("http://127.0.0.1:9/mcp");
  const secret = "s3cr3t-valu\u00e9";
  const refused = (name: string, value: string): ConfigError => {
    try {
      t.withHeader(name, value);
    } catch (e) {
      assert.ok(e instanceof ConfigError, String(e));
      assert.equal(e.code, "config");
      assert.ok(!e.message.includes(value) || value === "", `the message echoes the value: ${e.message}`);
      return e;
    }
    return assert.fail(`${name} was accepted`);
  };
  refused("Bad Name", "value-1");
  refused("bad:name", "value-2");
  refused("", "value-3");
  refused("X-Secret", secret);
  refused("X-Secret", "line\r\nInjected: 1");
  refused("X-Secret", "tab-ok-but-\u0000-nul");
  refused("X-Secret", " leading-space");
  for (const name of ["Accept", "content-type", "MCP-SESSION-ID", "Content-Length", "Transfer-Encoding", "Connection", "Host"]) {
    assert.match(refused(name, "reserved-value-1").message, /set by the transport/);
  }
  // Inner spaces (a bearer token) are visible ASCII enough.
  assert.ok(t.withHeader("Authorization", "Bearer abc.def") instanceof HttpTransport);
});

test("H10: header values appear in neither errors nor logs", T, async () => {
  await withFixture("unauthorized", {}, async (server) => {
    const logged: string[] = [];
    const transport = new HttpTransport(server.url, {
      logger: (level, message, data) => void logged.push(`${level} ${message} ${JSON.stringify(data ?? {})}`),
    }).withHeader("Authorization", "Bearer token-value-123");
    const sink = recordingSink();
    await transport.start(sink);
    await transport.send(request(1, "initialize", INIT));
    transport.openInbound();
    await transport.close();
    const err = sink.errors[0]?.error;
    assert.ok(err instanceof HttpError, String(err));
    assert.equal(err.status, 401);
    assert.match(err.message, /HTTP 401 \(a WWW-Authenticate challenge is present\)/);
    const everything = [err.message, String(err.stack), ...logged].join("\n");
    assert.ok(!everything.includes("token-value-123"), "the header value leaked");
    assert.ok(!everything.includes("challenge-secret-123"), "the challenge content leaked");
  });
});

test("H11: a 302 to another port is refused, never followed: an http error (status 0: the fetch stops at the redirect) and nothing reaches the target", T, async () => {
  await withFixture("redirect", {}, async (server) => {
    const transport = new HttpTransport(server.url).withHeader("Authorization", "Bearer must-not-travel");
    const sink = recordingSink();
    await transport.start(sink);
    await transport.send(request(1, "initialize", INIT));
    await assert.rejects(transport.send(notification("notifications/initialized")), (e: unknown) => e instanceof HttpError && e.status === 0);
    const err = sink.errors[0]?.error;
    assert.ok(err instanceof HttpError, String(err));
    assert.equal(err.status, 0);
    assert.equal(err.code, "http");
    assert.match(err.message, /initialize got a redirect, which is refused/);
    await transport.close();
    assert.equal(server.target?.requests.length, 0, "the redirect target was contacted");
  });
});

test("H11: a fetch asked for redirect: \"error\" that answers a redirect itself (an opaque redirect, or a 3xx) is refused too", async () => {
  const inits: RequestInit[] = [];
  const opaque = async (_url: string, init: RequestInit): Promise<Response> => {
    inits.push(init);
    const res = new Response(null, { status: 200 });
    Object.defineProperty(res, "type", { value: "opaqueredirect" });
    Object.defineProperty(res, "status", { value: 0 });
    Object.defineProperty(res, "ok", { value: false });
    return res;
  };
  const plain = async (_url: string, init: RequestInit): Promise<Response> => {
    inits.push(init);
    return new Response(null, { status: 307, headers: { location: "https://elsewhere.example.test/" } });
  };
  for (const [fetch, status] of [[opaque, 0], [plain, 307]] as const) {
    const transport = new HttpTransport("https://mcp.example.test/mcp", { fetch });
    const sink = recordingSink();
    await transport.start(sink);
    await transport.send(request(1, "ping"));
    const err = sink.errors[0]?.error;
    assert.ok(err instanceof HttpError, String(err));
    assert.equal(err.status, status);
    assert.match(err.message, /got a redirect \(HTTP \d+\), which is refused/);
    await transport.close();
  }
  assert.deepEqual(inits.map((i) => i.redirect), ["error", "error"], "fetch is asked to stop at any redirect");
});

test("H10: the constructor refuses URLs with credentials or other schemes", () => {
  assert.throws(() => new HttpTransport("http://user:pw@127.0.0.1/mcp"), (e: unknown) => e instanceof ConfigError && !e.message.includes("pw"));
  assert.throws(() => new HttpTransport("ftp://127.0.0.1/mcp"), ConfigError);
  assert.throws(() => new HttpTransport("not a url"), ConfigError);
  const t = new HttpTransport("http://127.0.0.1:1/mcp?token=abc");
  assert.equal(t.description, "HTTP server http://127.0.0.1:1/mcp", "the query string stays out of messages");
});
