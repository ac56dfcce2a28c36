// An example 2026-07-28 server with the tasks extension over stdio: tool `research` {steps} runs as a
// task that works for `steps` polls, then answers with text.
//
// One file with no dependency but Node's built-ins (Node 20 or later): copy it anywhere. It is built
// from the server the test suite runs (fixtures/servers/modern-tasks.mjs) by scripts/docs.mjs; edit that one.
var PARSE_ERROR = -32700;
var INVALID_REQUEST = -32600;
var METHOD_NOT_FOUND = -32601;
var INVALID_PARAMS = -32602;
var INTERNAL_ERROR = -32603;
var RpcError = class extends Error {
  constructor(code, message, data) {
    super(message);
    this.code = code;
    this.data = data;
  }
};
var result = (id, result2) => ({ jsonrpc: "2.0", id, result: result2 });
function error(id, code, message, data) {
  const err = { code, message };
  if (data !== void 0) err.data = data;
  return { jsonrpc: "2.0", id, error: err };
}
function notification(method, params) {
  return params === void 0 ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
}
function request(id, method, params) {
  return params === void 0 ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
}
var isId = (id) => typeof id === "string" || typeof id === "number" && Number.isInteger(id);
function classify(msg) {
  if (msg === null || typeof msg !== "object" || Array.isArray(msg) || msg.jsonrpc !== "2.0") return "invalid";
  if (typeof msg.method === "string") {
    if (!("id" in msg)) return "notification";
    return isId(msg.id) ? "request" : "invalid";
  }
  const hasResult = "result" in msg;
  const hasError = "error" in msg;
  if (hasResult === hasError) return "invalid";
  if (isId(msg.id) || hasError && msg.id === null) return "response";
  return "invalid";
}
var idKey = (id) => `${typeof id}:${id}`;

var SUPPORTED_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
var LATEST_VERSION = SUPPORTED_VERSIONS[0];
function negotiateVersion(requested, forced) {
  if (forced) return forced;
  return SUPPORTED_VERSIONS.includes(requested) ? requested : LATEST_VERSION;
}
function initializeResult(params, { serverInfo, capabilities = { tools: {} }, instructions, forcedVersion }) {
  const out = {
    protocolVersion: negotiateVersion(params?.protocolVersion, forcedVersion),
    capabilities,
    serverInfo
  };
  if (instructions) out.instructions = instructions;
  return out;
}

function createServer(opts) {
  const { serverInfo, capabilities, instructions, forcedVersion, tools = [], methods = {} } = opts;
  const inflight = /* @__PURE__ */ new Map();
  const pending = /* @__PURE__ */ new Map();
  let nextServerId = 1;
  const listTools = () => typeof tools === "function" ? tools() : tools;
  const builtins = {
    initialize: (params) => initializeResult(params, { serverInfo, capabilities, instructions, forcedVersion }),
    ping: () => ({}),
    "tools/list": () => ({ tools: listTools().map(({ run, ...def }) => def) }),
    "tools/call": async (params, ctx) => {
      const tool2 = listTools().find((t) => t.name === params.name);
      if (!tool2) throw new RpcError(INVALID_PARAMS, `Unknown tool: ${String(params.name)}`);
      const args = params.arguments ?? {};
      if (typeof args !== "object" || Array.isArray(args) || args === null) {
        throw new RpcError(INVALID_PARAMS, "arguments must be an object");
      }
      return tool2.run(args, ctx);
    }
  };
  async function handle(msg, io) {
    const kind = classify(msg);
    if (kind === "invalid") {
      const id = typeof msg?.id === "string" || Number.isInteger(msg?.id) ? msg.id : null;
      return error(id, INVALID_REQUEST, "Invalid Request");
    }
    if (kind === "response") {
      const key2 = idKey(msg.id);
      const resolve = pending.get(key2);
      pending.delete(key2);
      resolve?.(msg);
      return void 0;
    }
    if (kind === "notification") {
      if (msg.method === "notifications/cancelled") {
        inflight.get(idKey(msg.params?.requestId))?.abort(msg.params?.reason);
      }
      opts.onNotification?.(msg);
      return void 0;
    }
    opts.onRequest?.(msg);
    const key = idKey(msg.id);
    const ac = new AbortController();
    inflight.set(key, ac);
    const params = msg.params ?? {};
    const progressToken = params?._meta?.progressToken;
    const ctx = {
      id: msg.id,
      signal: ac.signal,
      progressToken,
      notify: (method, p) => io.send(notification(method, p)),
      /** Sends notifications/progress when the client asked for it (a progressToken). */
      progress: (progress, total, message) => {
        if (progressToken === void 0) return;
        const p = { progressToken, progress };
        if (total !== void 0) p.total = total;
        if (message !== void 0) p.message = message;
        io.send(notification("notifications/progress", p));
      },
      /** Sends a server-initiated request; resolves with the client's response message. */
      request: (method, p, id = nextServerId++) => new Promise((resolve) => {
        pending.set(idKey(id), resolve);
        io.send(request(id, method, p));
      })
    };
    try {
      if (typeof params !== "object" || Array.isArray(params) || params === null) {
        throw new RpcError(INVALID_PARAMS, "params must be an object");
      }
      const handler = Object.hasOwn(methods, msg.method) ? methods[msg.method] : Object.hasOwn(builtins, msg.method) ? builtins[msg.method] : null;
      if (!handler) throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${msg.method}`);
      const value = await handler(params, ctx);
      return ac.signal.aborted ? void 0 : result(msg.id, value);
    } catch (e) {
      if (ac.signal.aborted) return void 0;
      if (e instanceof RpcError) return error(msg.id, e.code, e.message, e.data);
      return error(msg.id, INTERNAL_ERROR, e instanceof Error ? e.message : String(e));
    } finally {
      inflight.delete(key);
    }
  }
  return { handle, listTools };
}

function readLines(stream, onLine, onEnd) {
  let parts = [];
  stream.on("data", (chunk) => {
    let start = 0;
    let nl;
    while ((nl = chunk.indexOf(10, start)) !== -1) {
      parts.push(chunk.subarray(start, nl));
      let line = Buffer.concat(parts).toString("utf8");
      parts = [];
      if (line.endsWith("\r")) line = line.slice(0, -1);
      onLine(line);
      start = nl + 1;
    }
    if (start < chunk.length) parts.push(chunk.subarray(start));
  });
  stream.on("end", () => onEnd?.());
}
function serveStdio(server2, { exitOnEnd = true, writeMessage } = {}) {
  const raw = (chunk) => process.stdout.write(chunk);
  let queue = Promise.resolve();
  const send = (msg) => {
    if (!writeMessage) {
      raw(JSON.stringify(msg) + "\n");
      return queue;
    }
    queue = queue.then(() => writeMessage(msg, raw));
    return queue;
  };
  const write = (chunk) => {
    if (!writeMessage) return void raw(chunk);
    queue = queue.then(() => void raw(chunk));
  };
  const io = { send, write };
  process.stdout.on("error", () => process.exit(0));
  readLines(
    process.stdin,
    (line) => {
      if (line.trim() === "") return;
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        send(error(null, PARSE_ERROR, "Parse error"));
        return;
      }
      server2.handle(msg, io).then(
        (response) => response && send(response),
        (e) => send(error(null, INTERNAL_ERROR, String(e)))
      );
    },
    () => {
      if (exitOnEnd) queue.finally(() => exitAfterFlush(0));
    }
  );
  return io;
}
function exitAfterFlush(code) {
  setTimeout(() => process.exit(code), 2e3).unref();
  process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
}

var EXT = "io.modelcontextprotocol/tasks";
var VERSION = "2026-07-28";
var tasks = /* @__PURE__ */ new Map();
var next = 1;
var declared = (params) => {
  const caps = params?._meta?.["io.modelcontextprotocol/clientCapabilities"];
  return Boolean(caps?.extensions?.[EXT]);
};
var view = (t) => {
  const out = { resultType: "complete", taskId: t.taskId, status: t.status, createdAt: t.createdAt, lastUpdatedAt: (/* @__PURE__ */ new Date()).toISOString(), ttlMs: 6e4, pollIntervalMs: t.kind === "eager" ? 0 : 20 };
  if (t.kind === "bad" && t.polls > 0) out.status = "exploded";
  if (t.kind === "badobject" && t.polls > 0) out.status = { toString: 1 };
  if (t.statusMessage) out.statusMessage = t.statusMessage;
  if (t.status === "completed") out.result = t.result;
  if (t.status === "failed") out.error = t.error;
  if (t.status === "input_required") out.inputRequests = t.inputRequests;
  return out;
};
var advance = (t) => {
  if (t.status !== "working") return;
  t.polls++;
  if (t.kind === "research") {
    t.statusMessage = `step ${t.polls} of ${t.steps}` + "x".repeat(t.pad);
    if (t.polls >= t.steps) Object.assign(t, { status: "completed", result: { content: [{ type: "text", text: `researched in ${t.steps} steps` }] } });
  } else if (t.kind === "ask" && !t.answer) {
    Object.assign(t, {
      status: "input_required",
      inputRequests: { name: { method: "elicitation/create", params: { mode: "form", message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } } } }
    });
  } else if (t.kind === "ask") {
    Object.assign(t, { status: "completed", result: { content: [{ type: "text", text: `hello ${t.answer}` }] } });
  } else if (t.kind === "eager") {
    if (t.polls >= 5) Object.assign(t, { status: "completed", result: { content: [{ type: "text", text: `done after ${t.polls} polls` }] } });
  } else if (t.kind === "fail") {
    Object.assign(t, { status: "failed", statusMessage: "it broke", error: { code: -32603, message: "upstream broke" } });
  }
};
var nextRound = (t) => {
  const k = Math.min(16, t.total - t.raised);
  if (k === 0) return Object.assign(t, { status: "completed", inputRequests: void 0, result: { content: [{ type: "text", text: `answered ${t.raised}` }] } });
  const ask = { method: "elicitation/create", params: { mode: "form", message: "Ok?", requestedSchema: { type: "object", properties: {} } } };
  t.inputRequests = Object.fromEntries(Array.from({ length: k }, (_, i) => [`k${t.raised + i}`, ask]));
  t.raised += k;
  t.status = "input_required";
};
var find = (params, method) => {
  const t = tasks.get(params?.taskId);
  process.stderr.write(`${method} ${params?.taskId} ${params?.inputResponses ? JSON.stringify(params.inputResponses) : ""}
`);
  if (!t) throw new RpcError(INVALID_PARAMS, "Failed to retrieve task: Task not found");
  return t;
};
var tool = (name, inputSchema = { type: "object" }) => ({ name, inputSchema, annotations: { readOnlyHint: true }, run: async () => ({ content: [] }) });
var server = createServer({
  serverInfo: { name: "modern-tasks", version: "1.0.0" },
  capabilities: { tools: {}, extensions: { [EXT]: {} } },
  tools: [tool("research", { type: "object", properties: { steps: { type: "integer" }, pad: { type: "integer" } } }), tool("ask"), tool("fail"), tool("bad"), tool("badobject"), tool("eager"), tool("many")],
  methods: {
    "server/discover": () => ({
      resultType: "complete",
      supportedVersions: [VERSION],
      capabilities: { tools: {}, extensions: { [EXT]: {} } },
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "modern-tasks", version: "1.0.0" } }
    }),
    "tools/list": () => ({ resultType: "complete", tools: [tool("research"), tool("ask"), tool("fail"), tool("bad"), tool("badobject"), tool("eager"), tool("many")].map(({ run, ...d }) => d), ttlMs: 0 }),
    "tools/call": (params) => {
      if (!declared(params)) {
        const e = new RpcError(-32021, "Missing required client capability");
        e.data = { requiredCapabilities: { extensions: { [EXT]: {} } } };
        throw e;
      }
      const t = { taskId: `task-${next++}`, kind: params.name, steps: params.arguments?.steps ?? 3, pad: Math.min(Number(params.arguments?.pad ?? 0) || 0, 1e6), polls: 0, status: "working", createdAt: (/* @__PURE__ */ new Date()).toISOString() };
      tasks.set(t.taskId, t);
      if (t.kind === "many") Object.assign(t, { total: params.arguments?.total ?? 0, raised: 0 }) && nextRound(t);
      return { ...view(t), resultType: "task" };
    },
    "tasks/get": (params) => {
      const t = find(params, "tasks/get");
      const out = view(t);
      advance(t);
      return out;
    },
    "tasks/update": (params) => {
      const t = find(params, "tasks/update");
      if (t.kind === "many") {
        if (t.status === "input_required") nextRound(t);
        return { resultType: "complete" };
      }
      const answer = params.inputResponses?.name;
      if (answer?.action === "accept" && t.status === "input_required") Object.assign(t, { answer: answer.content?.name ?? "?", status: "working", inputRequests: void 0 });
      return { resultType: "complete" };
    },
    "tasks/cancel": (params) => {
      const t = find(params, "tasks/cancel");
      if (t.status === "working" || t.status === "input_required") t.status = "cancelled";
      return { resultType: "complete" };
    }
  }
});
serveStdio(server);
