// H14 under attack: the HTTP+SSE transport's reconnect against a loopback server
// (node:http on 127.0.0.1, port 0) that plays the hostile or broken server: a
// reconnect refused once, streams that announce an endpoint and drop at once, a
// replayed initialize answered with another revision or other capabilities, and
// answers to a dropped request arriving on the next stream.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { McpClient } from "../../src/mcp/client.js";
import { hostHandlers } from "../../src/mcp/host-module.js";
import { MIN_LEGACY_HEALTHY_STREAM_MS } from "../../src/limits.js";
import type { ClientHandlers } from "../../src/mcp/handlers.js";
import { LegacySseTransport, type LegacySseOptions } from "../../src/transport/legacy-sse.js";

const T = { timeout: 40_000 };
type Coded = Error & { code?: string; info?: { maybeDelivered?: boolean } };
type Msg = { jsonrpc: "2.0"; id?: string | number; method?: string; params?: Record<string, unknown>; result?: unknown; error?: unknown };

/** What the server does with the n-th GET (1-based): serve a session, refuse, or announce and cut. */
type GetPlan = { kind: "serve"; session: string; endpoint?: string } | { kind: "status"; status: number } | { kind: "announce-and-cut"; session: string };

interface Options {
  plan(n: number): GetPlan;
  /** The initialize result of a session (default 2024-11-05 with tools); null: never answered. */
  initialize?(session: string, msg: Msg): Record<string, unknown> | null;
  /** Called on tools/call `drop`: answer later on whatever stream `session` has then. */
  onDrop?(server: Hostile, msg: Msg): void;
  /** Cut the stream this long after the `drop` call (default at once). */
  dropDelayMs?: number;
}

interface Hostile {
  url: string;
  gets: number;
  /** Per session, the methods received, in order ("tools/call <name>"). */
  sessions: Record<string, string[]>;
  /** Writes one message event on the session's current stream. */
  send(session: string, msg: unknown): boolean;
  close(): Promise<void>;
}

const sse = (res: ServerResponse, event: string | undefined, data: string): boolean => res.write(`${event ? `event: ${event}\n` : ""}data: ${data}\n\n`);

async function hostile(o: Options): Promise<Hostile> {
  const streams = new Map<string, ServerResponse>();
  const initialized = new Set<string>();
  const sockets = new Set<Socket>();
  const state: Hostile = {
    url: "",
    gets: 0,
    sessions: {},
    send: (session, msg) => {
      const res = streams.get(session);
      return res ? sse(res, undefined, JSON.stringify(msg)) : false;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const handle = (req: IncomingMessage, res: ServerResponse, body: string): void => {
    const url = new URL(req.url ?? "/", "http://x");
    if (req.method === "GET" && url.pathname === "/sse") {
      const plan = o.plan(++state.gets);
      if (plan.kind === "status") return void res.writeHead(plan.status).end();
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write("retry: 0\n\n");
      state.sessions[plan.session] ??= [];
      sse(res, "endpoint", (plan.kind === "serve" && plan.endpoint) || `/message?sessionId=${plan.session}`);
      if (plan.kind === "announce-and-cut") return void setTimeout(() => res.destroy(), 5);
      streams.set(plan.session, res);
      res.on("close", () => streams.get(plan.session) === res && streams.delete(plan.session));
      return;
    }
    if (req.method === "POST" && url.pathname === "/message") {
      const sid = url.searchParams.get("sessionId") ?? "";
      if (!streams.has(sid)) return void res.writeHead(404).end();
      res.writeHead(202).end("Accepted");
      let msg: Msg;
      try {
        msg = JSON.parse(body) as Msg;
      } catch {
        return;
      }
      const name = (msg.params as { name?: string } | undefined)?.name;
      state.sessions[sid]?.push(msg.method === "tools/call" ? `tools/call ${name}` : (msg.method ?? "response"));
      if (msg.method === "notifications/initialized") initialized.add(sid);
      if (msg.id === undefined || msg.method === undefined) return;
      const answer = (result: unknown): void => void state.send(sid, { jsonrpc: "2.0", id: msg.id, result });
      if (msg.method === "initialize") {
        const result = o.initialize ? o.initialize(sid, msg) : { protocolVersion: "2024-11-05", capabilities: { tools: {} }, serverInfo: { name: "hostile", version: "1" } };
        return result === null ? undefined : answer(result);
      }
      if (!initialized.has(sid)) return void state.send(sid, { jsonrpc: "2.0", id: msg.id, error: { code: -32600, message: "not initialized" } });
      if (msg.method === "tools/call" && name === "drop") {
        o.onDrop?.(state, msg);
        const stream = streams.get(sid);
        if (o.dropDelayMs === undefined) return void stream?.destroy();
        return void setTimeout(() => stream?.destroy(), o.dropDelayMs);
      }
      if (msg.method === "tools/call") return answer({ content: [{ type: "text", text: String((msg.params?.arguments as { text?: unknown })?.text) }] });
      if (msg.method === "tools/list") return answer({ tools: [] });
      return void state.send(sid, { jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "no" } });
    }
    res.writeHead(404).end();
  };
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body.length < 1_000_000 ? (body += c) : req.destroy()));
    req.on("end", () => handle(req, res, body));
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sse`;
  return state;
}

async function withHostile(
  o: Options,
  transport: LegacySseOptions,
  body: (client: McpClient, server: Hostile) => Promise<void>,
  handlers?: ClientHandlers,
): Promise<void> {
  const server = await hostile(o);
  try {
    const client = await McpClient.connect(new LegacySseTransport(server.url, transport), { era: "legacy", callTimeoutMs: 10_000, ...(handlers && { handlers, hosting: hostHandlers }) });
    try {
      await body(client, server);
    } finally {
      await client.close();
    }
  } finally {
    await server.close();
  }
}

const droppedInFlight = (e: Coded): boolean => e.code === "connection_closed" && e.info?.maybeDelivered === true;
const closedOnce = (client: McpClient): Promise<Coded> => new Promise((resolve) => client.onClose((e) => resolve(e)));

describe("H14: HTTP+SSE reconnect against a hostile server", { concurrency: true }, () => {
  test("H14: a call sent while the reconnect is refused once (503) is sent on the stream after it, exactly once; the dropped call is never re-sent", T, () =>
    withHostile(
      { plan: (n) => (n === 2 ? { kind: "status", status: 503 } : { kind: "serve", session: `s${n}` }) },
      {},
      async (client, server) => {
        await assert.rejects(client.callTool("drop", {}), droppedInFlight);
        // Sent while the stream is down: it must wait for the reconnect that works (the second).
        const r = await client.callTool("echo", { text: "after two attempts" });
        assert.deepEqual(r.content, [{ type: "text", text: "after two attempts" }]);
        assert.equal(server.gets, 3);
        assert.deepEqual(server.sessions, {
          s1: ["initialize", "notifications/initialized", "tools/call drop"],
          s3: ["initialize", "notifications/initialized", "tools/call echo"],
        });
      },
    ),
  );

  test("H14: streams that announce an endpoint and drop sooner than MIN_LEGACY_HEALTHY_STREAM_MS count as failed reconnects: they cannot keep the transport reconnecting forever (same session, no replay)", T, async () => {
    let closed: Promise<Coded> | undefined;
    await withHostile(
      { plan: (n) => (n === 1 ? { kind: "serve", session: "s1" } : { kind: "announce-and-cut", session: "s1" }) },
      { maxReconnectAttempts: 2 },
      async (client, server) => {
        closed = closedOnce(client);
        await assert.rejects(client.callTool("drop", {}), droppedInFlight);
        const started = Date.now();
        const why = await Promise.race([closed, new Promise<undefined>((r) => setTimeout(r, 12_000))]);
        assert.ok(why, `the transport was still reconnecting after 12 s (${server.gets} GETs)`);
        assert.equal(why.code, "connection_closed");
        assert.match(why.message, /reconnects failed/);
        assert.ok(server.gets <= 4, `${server.gets} GETs for maxReconnectAttempts 2`);
        // Every stream after the first lived far less than the healthy-stream bound, so none reset the count.
        assert.ok(Date.now() - started < (server.gets - 1) * MIN_LEGACY_HEALTHY_STREAM_MS);
        assert.ok(Date.now() - started < 12_000);
      },
    );
  });

  test("H14: a new session every stream, each dropped at once after the replayed handshake, ends the transport within the bounded attempts", T, async () => {
    await withHostile(
      { plan: (n) => (n === 1 ? { kind: "serve", session: "s1" } : { kind: "announce-and-cut", session: `s${n}` }) },
      { maxReconnectAttempts: 2 },
      async (client, server) => {
        const closed = closedOnce(client);
        await assert.rejects(client.callTool("drop", {}), droppedInFlight);
        const why = await Promise.race([closed, new Promise<undefined>((r) => setTimeout(r, 12_000))]);
        assert.ok(why, `the transport was still reconnecting after 12 s (${server.gets} GETs)`);
        assert.ok(server.gets <= 4, `${server.gets} GETs`);
        const drops = Object.values(server.sessions).flat().filter((m) => m === "tools/call drop").length;
        assert.equal(drops, 1, "the dropped call is never re-sent to any session");
      },
    );
  });

  test("H14: a replayed initialize answered with another protocol version ends the transport; nothing else is sent to the new session", T, () =>
    withHostile(
      {
        plan: (n) => ({ kind: "serve", session: `s${n}` }),
        initialize: (sid) => ({ protocolVersion: sid === "s1" ? "2024-11-05" : "2025-03-26", capabilities: { tools: {} }, serverInfo: { name: "h", version: "1" } }),
      },
      {},
      async (client, server) => {
        await assert.rejects(client.callTool("drop", {}), droppedInFlight);
        await assert.rejects(client.callTool("echo", { text: "x" }), (e: Coded) => e.code === "protocol" && /refused the replayed initialize/.test(e.message));
        assert.deepEqual(server.sessions.s2, ["initialize"]);
      },
    ),
  );

  test("H14: a replayed initialize answered with other capabilities (a different server behind the same URL) ends the transport; nothing else is sent to it", T, () =>
    withHostile(
      {
        plan: (n) => ({ kind: "serve", session: `s${n}` }),
        initialize: (sid) => ({ protocolVersion: "2024-11-05", capabilities: sid === "s1" ? { tools: {} } : { tools: {}, sampling: {}, logging: {} }, serverInfo: { name: "h", version: "1" } }),
      },
      {},
      async (client, server) => {
        await assert.rejects(client.callTool("drop", {}), droppedInFlight);
        await assert.rejects(client.callTool("echo", { text: "x" }), (e: Coded) => e.code === "protocol" && /replayed initialize/.test(e.message));
        assert.deepEqual(server.sessions.s2, ["initialize"]);
      },
    ),
  );

  test("H14: the answer to a dropped call arriving on the resumed stream settles nothing (the call already failed) and the next call still works", T, () =>
    withHostile(
      {
        plan: () => ({ kind: "serve", session: "s1" }),
        // The dropped call's answer comes late, on the next stream of the same session.
        onDrop: (server, msg) => {
          const late = setInterval(() => {
            if (server.send("s1", { jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text: "late" }] } })) clearInterval(late);
          }, 20);
          setTimeout(() => clearInterval(late), 5_000).unref();
        },
      },
      {},
      async (client, server) => {
        await assert.rejects(client.callTool("drop", {}), droppedInFlight);
        const r = await client.callTool("echo", { text: "next" });
        assert.deepEqual(r.content, [{ type: "text", text: "next" }]);
        assert.deepEqual(server.sessions.s1, ["initialize", "notifications/initialized", "tools/call drop", "tools/call echo"]);
      },
    ),
  );

  for (const [what, endpoint] of [
    ["credentials", (port: string) => `http://user:pw@127.0.0.1:${port}/message?sessionId=s2`],
    ["another port", (port: string) => `http://127.0.0.1:${Number(port) + 1}/message?sessionId=s2`],
    ["another scheme", (port: string) => `https://127.0.0.1:${port}/message?sessionId=s2`],
    ["a host smuggled as userinfo", (port: string) => `http://127.0.0.1:${port}@evil.example/message?sessionId=s2`],
  ] as const) {
    test(`H14: a reconnect whose endpoint has ${what} is refused and ends the transport; nothing is sent to it`, T, async () => {
      let port = "";
      await withHostile(
        { plan: (n) => (n === 1 ? { kind: "serve", session: "s1" } : { kind: "serve", session: "s2", endpoint: endpoint(port) }) },
        {},
        async (client, server) => {
          port = new URL(server.url).port;
          await assert.rejects(client.callTool("drop", {}), droppedInFlight);
          await assert.rejects(client.callTool("echo", { text: "x" }), (e: Coded) => e.code === "protocol" && /another origin/.test(e.message));
          assert.equal(server.gets, 2);
          assert.deepEqual(server.sessions.s2, []);
        },
      );
    });
  }

  test("H14: the answer to a request of the old session is never POSTed to the new one (its ids are the new session's too)", T, async () => {
    let hostileServer: Hostile | undefined;
    const newSessionReady = async (): Promise<void> => {
      for (let i = 0; i < 200 && !hostileServer?.sessions.s2?.includes("notifications/initialized"); i++) await new Promise((r) => setTimeout(r, 25));
    };
    await withHostile(
      {
        plan: (n) => ({ kind: "serve", session: `s${n}` }),
        // Session s1 asks for the roots (id 0, as a new session would number its first request too), then its stream drops.
        onDrop: (server) => void server.send("s1", { jsonrpc: "2.0", id: 0, method: "roots/list" }),
        dropDelayMs: 100,
      },
      {},
      async (client, server) => {
        hostileServer = server;
        await assert.rejects(client.callTool("drop", {}), droppedInFlight);
        await newSessionReady();
        const r = await client.callTool("echo", { text: "after" });
        assert.deepEqual(r.content, [{ type: "text", text: "after" }]);
        await new Promise((r) => setTimeout(r, 300)); // let a stray answer arrive
        assert.deepEqual(server.sessions.s2, ["initialize", "notifications/initialized", "tools/call echo"], "no answer to s1's request reached s2");
      },
      {
        roots: async () => {
          await newSessionReady(); // answered only once the new session is up
          return [{ uri: "file:///s1-only", name: "s1" }];
        },
      },
    );
  });

  test("H14: the answer to a server request is still POSTed when the reconnect resumes the same session", T, async () => {
    let hostileServer: Hostile | undefined;
    const resumed = async (): Promise<void> => {
      for (let i = 0; i < 200 && (hostileServer?.gets ?? 0) < 2; i++) await new Promise((r) => setTimeout(r, 25));
      await new Promise((r) => setTimeout(r, 100));
    };
    await withHostile(
      { plan: () => ({ kind: "serve", session: "s1" }), onDrop: (server) => void server.send("s1", { jsonrpc: "2.0", id: 0, method: "roots/list" }), dropDelayMs: 100 },
      {},
      async (client, server) => {
        hostileServer = server;
        await assert.rejects(client.callTool("drop", {}), droppedInFlight);
        await resumed();
        for (let i = 0; i < 200 && !server.sessions.s1?.includes("response"); i++) await new Promise((r) => setTimeout(r, 25));
        assert.ok(server.sessions.s1?.includes("response"), JSON.stringify(server.sessions));
      },
      { roots: async () => (await resumed(), [{ uri: "file:///s1", name: "s1" }]) },
    );
  });

  test("H14: a new session that never answers the replayed initialize is given up within the endpoint bound and the bounded attempts; nothing else is sent to it", T, async () => {
    await withHostile(
      {
        plan: (n) => ({ kind: "serve", session: `s${n}` }),
        initialize: (sid) => (sid === "s1" ? { protocolVersion: "2024-11-05", capabilities: { tools: {} }, serverInfo: { name: "h", version: "1" } } : null),
      },
      { endpointTimeoutMs: 400, maxReconnectAttempts: 2 },
      async (client, server) => {
        const closed = closedOnce(client);
        await assert.rejects(client.callTool("drop", {}), droppedInFlight);
        const waiting = client.callTool("echo", { text: "never" });
        const why = await Promise.race([closed, new Promise<undefined>((r) => setTimeout(r, 12_000))]);
        assert.ok(why, `still reconnecting after 12 s (${server.gets} GETs)`);
        await assert.rejects(waiting, (e: Coded) => e.code === "connection_closed");
        assert.equal(server.gets, 3);
        assert.deepEqual([server.sessions.s2, server.sessions.s3], [["initialize"], ["initialize"]]);
      },
    );
  });
});
