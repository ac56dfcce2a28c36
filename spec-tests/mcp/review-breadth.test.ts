// V8 under attack: 2026-07-28 task status on the subscriptions/listen stream, and the
// opt-in task module, against a loopback server (node:http on 127.0.0.1, port 0) that
// plays the hostile server: a task answer to a client that never declared tasks, a
// completed notification whose result has the wrong shape, an outcome sent twice,
// 10,000 status notifications, a notification past the event bound, a listen that
// never acknowledges, and more tasks at once than the listen filter may name.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpClient } from "../../src/mcp/client.js";
import { taskCalls } from "../../src/mcp/task-module.js";
import { HttpTransport, type HttpTransportOptions } from "../../src/transport/http.js";
import { MAX_LISTENED_TASKS } from "../../src/limits.js";
import type { Progress } from "../../src/jsonrpc/session.js";

const T = { timeout: 40_000 };
const EXT = "io.modelcontextprotocol/tasks";
const SUB = "io.modelcontextprotocol/subscriptionId";
type Coded = Error & { code?: string };
type Json = Record<string, unknown>;

interface Listen {
  id: unknown;
  taskIds: string[];
  res: ServerResponse;
  /** Writes one notification on this listen stream, with its subscription id. */
  notify(method: string, params: Json): void;
  ack(): void;
}

interface Behaviour {
  /** Declare the tasks extension (default true). */
  declare?: boolean;
  /** Called per listen that names task ids (default: acknowledge them). */
  onListen?(listen: Listen, server: Server): void;
  /** The tools/call task answer (default working, poll interval 60 s). */
  created?(taskId: string): Json;
  /** The tasks/get answer (default working, poll interval 60 s). */
  taskGet?(taskId: string, polls: number): Json;
}

interface Server {
  url: string;
  log: string[];
  listens: Listen[];
  close(): Promise<void>;
}

const working = (taskId: string, extra: Json = {}): Json => ({ taskId, status: "working", pollIntervalMs: 60_000, ...extra });
const completed = (taskId: string, text: string): Json => ({ taskId, status: "completed", result: { content: [{ type: "text", text }] } });

async function serve(b: Behaviour): Promise<Server> {
  let next = 1;
  const polls = new Map<string, number>();
  const server: Server = { url: "", log: [], listens: [], close: async () => {} };
  const http = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body.length < 1_000_000 ? (body += c) : req.destroy()));
    req.on("end", () => {
      let msg: { id?: unknown; method?: string; params?: Json };
      try {
        msg = JSON.parse(body) as typeof msg;
      } catch {
        return void res.writeHead(400).end();
      }
      if (msg.id === undefined) return void res.writeHead(202).end();
      const p = msg.params ?? {};
      server.log.push(`${msg.method}${typeof p.taskId === "string" ? ` ${p.taskId}` : ""}`);
      const reply = (result: Json): void => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { resultType: "complete", ...result } }));
      };
      switch (msg.method) {
        case "server/discover": {
          const extensions = b.declare === false ? {} : { [EXT]: {} };
          return reply({ supportedVersions: ["2026-07-28"], capabilities: { tools: {}, extensions }, _meta: { "io.modelcontextprotocol/serverInfo": { name: "hostile-tasks", version: "1" } } });
        }
        case "tools/list":
          return reply({ tools: [{ name: "job", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }], ttlMs: 0 });
        case "tools/call":
          // Hostile: a task answer whatever the client declared.
          {
            const id = `task-${next++}`;
            return reply({ ...(b.created?.(id) ?? working(id)), resultType: "task" });
          }
        case "tasks/get": {
          const id = String(p.taskId);
          const n = (polls.get(id) ?? 0) + 1;
          polls.set(id, n);
          return reply(b.taskGet?.(id, n) ?? working(id));
        }
        case "tasks/cancel":
          return reply({});
        case "subscriptions/listen": {
          const filter = (p.notifications ?? {}) as { taskIds?: unknown };
          const taskIds = Array.isArray(filter.taskIds) ? filter.taskIds.map(String) : [];
          res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
          const listen: Listen = {
            id: msg.id,
            taskIds,
            res,
            notify: (method, params) => void res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", method, params: { ...params, _meta: { [SUB]: msg.id } } })}\n\n`),
            ack: () => listen.notify("notifications/subscriptions/acknowledged", { notifications: { taskIds } }),
          };
          server.listens.push(listen);
          if (b.onListen) b.onListen(listen, server);
          else listen.ack();
          return;
        }
        default:
          res.writeHead(200, { "content-type": "application/json" });
          return void res.end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "Method not found" } }));
      }
    });
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  server.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  server.close = () =>
    new Promise<void>((r) => {
      http.closeAllConnections();
      http.close(() => r());
    });
  return server;
}

async function withServer(b: Behaviour, opts: { tasks?: boolean; transport?: HttpTransportOptions }, body: (client: McpClient, server: Server) => Promise<void>): Promise<void> {
  const server = await serve(b);
  try {
    const client = await McpClient.connect(new HttpTransport(server.url, opts.transport), opts.tasks === false ? {} : { tasks: taskCalls });
    try {
      assert.equal(client.era, "modern");
      await body(client, server);
    } finally {
      await client.close();
    }
  } finally {
    await server.close();
  }
}

const textOf = (r: { content: Array<{ type: string; text?: string }> }): string => r.content.map((c) => c.text ?? "").join("");
const onTask = (listen: Listen, f: (taskId: string) => void): void => {
  for (const id of listen.taskIds) f(id);
};

describe("V8: task status on the listen stream against a hostile server", { concurrency: true }, () => {
  test("V8: a bare web client (no tasks: taskCalls) refuses a task answer it never asked for, and never asks for its status", T, () =>
    withServer({}, { tasks: false }, async (client, server) => {
      await assert.rejects(client.callTool("job", {}), (e: Coded) => e.code === "protocol" && /answered with a task this client did not declare/.test(e.message));
      assert.deepEqual(server.log.filter((l) => l.startsWith("tasks/") || l.startsWith("subscriptions/")), [], "no tasks/get, no listen");
    }),
  );

  test("V8: a client with the task module but a server without the extension refuses a task answer too", T, () =>
    withServer({ declare: false }, {}, async (client, server) => {
      await assert.rejects(client.callTool("job", {}), (e: Coded) => e.code === "protocol" && /did not declare/.test(e.message));
      assert.deepEqual(server.log.filter((l) => l.startsWith("tasks/get") || l.startsWith("subscriptions/")), []);
    }),
  );

  test("V8: a completed notification whose result has the wrong shape is never a success", T, () =>
    withServer(
      { onListen: (l) => (l.ack(), onTask(l, (id) => l.notify("notifications/tasks", { taskId: id, status: "completed", result: { content: "not a list" } }))) },
      {},
      async (client) => {
        await assert.rejects(client.callTool("job", {}, { timeoutMs: 10_000 }), (e: Coded) => e.code === "protocol");
      },
    ),
  );

  test("V8: an outcome sent twice, and one for a task that is not ours, settle the call once with its own first outcome", T, () =>
    withServer(
      {
        onListen: (l) => {
          l.ack();
          onTask(l, (id) => {
            l.notify("notifications/tasks", completed("task-999", "not yours"));
            l.notify("notifications/tasks", completed(id, "first"));
            l.notify("notifications/tasks", completed(id, "second"));
            l.notify("notifications/tasks", { taskId: id, status: "failed", error: { code: -1, message: "late" } });
          });
        },
      },
      {},
      async (client) => {
        const r = await client.callTool("job", {}, { timeoutMs: 10_000 });
        assert.equal(textOf(r), "first");
        // The connection is still good after the late ones.
        const again = await client.callTool("job", {}, { timeoutMs: 10_000 });
        assert.equal(textOf(again), "first");
      },
    ),
  );

  test("V8: 10,000 status notifications on the stream, then the outcome: the call finishes with it, progress stays the announced statuses", T, () =>
    withServer(
      {
        onListen: (l) => {
          l.ack();
          onTask(l, (id) => {
            let chunk = "";
            for (let i = 0; i < 10_000; i++) chunk += `data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/tasks", params: { ...working(id, { statusMessage: i % 2 ? "odd" : "even" }), _meta: { [SUB]: l.id } } })}\n\n`;
            l.res.write(chunk);
            l.notify("notifications/tasks", completed(id, "done after the flood"));
          });
        },
      },
      {},
      async (client, server) => {
        let updates = 0;
        const r = await client.callTool("job", {}, { timeoutMs: 20_000, onProgress: () => void updates++ });
        assert.equal(textOf(r), "done after the flood");
        // The flood, the outcome, and at most one status from the catch-up poll after the acknowledgement.
        assert.ok(updates <= 10_002, `${updates} progress updates`);
        assert.ok(server.log.filter((l) => l.startsWith("tasks/get")).length <= 2, "the flood causes no polls");
      },
    ),
  );

  test("V8: a completed notification past the event bound is not taken; the call finishes by polling with the server's answer", T, () =>
    withServer(
      {
        onListen: (l) => (l.ack(), onTask(l, (id) => l.notify("notifications/tasks", completed(id, "x".repeat(200_000))))),
        taskGet: (id, n) => (n < 2 ? working(id, { pollIntervalMs: 100 }) : completed(id, "small and polled")),
      },
      { transport: { maxEventBytes: 64 * 1024 } },
      async (client) => {
        const r = await client.callTool("job", {}, { timeoutMs: 15_000 });
        assert.equal(textOf(r), "small and polled");
      },
    ),
  );

  test("V8: a listen that never acknowledges nor sends leaves the task to polling at the server's interval", T, () =>
    withServer(
      {
        onListen: () => {},
        created: (id) => working(id, { pollIntervalMs: 100 }),
        taskGet: (id, n) => (n < 3 ? working(id, { pollIntervalMs: 100 }) : completed(id, "polled")),
      },
      {},
      async (client, server) => {
        const r = await client.callTool("job", {}, { timeoutMs: 15_000 });
        assert.equal(textOf(r), "polled");
        assert.ok(server.log.filter((l) => l === "tasks/get task-1").length >= 3);
      },
    ),
  );

  test("V8: more tasks at once than MAX_LISTENED_TASKS: no listen names more, the rest are polled, all finish", { timeout: 60_000 }, async () => {
    let release = false;
    await withServer(
      {
        onListen: (l) => l.ack(),
        created: (id) => working(id, { pollIntervalMs: 100 }),
        taskGet: (id) => (release ? completed(id, id) : working(id, { pollIntervalMs: 100 })),
      },
      {},
      async (client, server) => {
        const n = MAX_LISTENED_TASKS + 3;
        const progress: Progress[] = [];
        const calls = Array.from({ length: n }, () => client.callTool("job", {}, { timeoutMs: 40_000, onProgress: (p) => progress.push(p) }));
        for (let i = 0; i < 400 && server.log.filter((l) => l === "tools/call").length < n; i++) await new Promise((r) => setTimeout(r, 25));
        await new Promise((r) => setTimeout(r, 300));
        release = true;
        const results = await Promise.all(calls);
        assert.equal(new Set(results.map(textOf)).size, n, "each call has its own task's result");
        const widest = Math.max(...server.listens.map((l) => l.taskIds.length));
        assert.ok(widest <= MAX_LISTENED_TASKS, `a listen named ${widest} tasks`);
        assert.ok(widest > 0);
      },
    );
  });
});

// V6 through yada/node: a form handler passed without compileSchema still has its
// answers checked against the server's requestedSchema (server-everything, stdio).
test("V6: yada/node's McpClient checks a form answer against the requested schema: an invalid answer never reaches the server", T, async () => {
  const { McpClient: NodeMcpClient } = await import("../../src/node/client.js");
  const { repoPath } = await import("../helpers/paths.js");
  const everything = repoPath("node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
  let asked = 0;
  const client = await NodeMcpClient.connectStdio("node", [everything, "stdio"], undefined, {
    handlers: { elicitation: { form: async () => (asked++, { action: "accept", content: { name: "Ada", check: true, email: "ada@example.com", integer: "NOT-A-NUMBER" } }) } },
  });
  try {
    await new Promise((r) => setTimeout(r, 200)); // capability-dependent tools register after the handshake
    const outcome = await client.callTool("trigger-elicitation-request", {}).then(
      (r) => JSON.stringify(r.content),
      (e: Error) => e.message,
    );
    assert.equal(asked, 1, "the form handler was asked");
    assert.doesNotMatch(outcome, /NOT-A-NUMBER/, "the invalid answer was not sent to the server");
  } finally {
    await client.close();
  }
});
