// An example server of the action compatibility contract over stdio (docs/server-contract.md):
// items A, B, C; tools get_item, prepare_rename, rename, rename_receipt, delete_item, add_item.
// `--log PATH` keeps its items and receipts in a journal; `--principal actor/tenant` (default alice/acme).
//
// One file with no dependency but Node's built-ins (Node 20 or later): copy it anywhere. It is built
// from the server the test suite runs (fixtures/servers/contract/stdio.mjs) by scripts/docs.mjs; edit that one.
import { readFileSync as readFileSync2, writeFileSync } from "node:fs";

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
function serveStdio(server, { exitOnEnd = true, writeMessage } = {}) {
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
      server.handle(msg, io).then(
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

import { parseArgs } from "node:util";
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
function parseOptions(spec = {}, argv = process.argv.slice(2)) {
  const { values } = parseArgs({ args: argv, options: { version: { type: "string" }, ...spec }, strict: true });
  return values;
}
function intOption(value, fallback) {
  if (value === void 0) return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`expected a non-negative integer, got ${value}`);
  return n;
}
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    const abort = () => {
      clearTimeout(timer);
      reject(new DOMException("cancelled", "AbortError"));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", abort);
      resolve();
    }, ms);
    if (signal?.aborted) abort();
    else signal?.addEventListener("abort", abort, { once: true });
  });
}

import { appendFileSync, closeSync, fsyncSync, openSync, readFileSync } from "node:fs";

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
      const tool = listTools().find((t) => t.name === params.name);
      if (!tool) throw new RpcError(INVALID_PARAMS, `Unknown tool: ${String(params.name)}`);
      const args = params.arguments ?? {};
      if (typeof args !== "object" || Array.isArray(args) || args === null) {
        throw new RpcError(INVALID_PARAMS, "arguments must be an object");
      }
      return tool.run(args, ctx);
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

var META_KEY = "io.yada/action";
var MODES = {
  correct: "follows the contract",
  "unknown-status": "rename performs the write, then answers status unknown",
  "timeout-after-perform": "rename performs the write, then never answers",
  "drop-after-perform": "rename performs the write, then drops the connection (stdio: exits 1; HTTP: destroys the socket)",
  "text-only": "rename performs the write, then answers text without structuredContent",
  "extra-fields": "rename performs the write, then answers a receipt with an extra field",
  "missing-fields": "rename performs the write, then answers a receipt without message",
  "wrong-operation-id": "rename performs the write, then answers a receipt for another operation id",
  "empty-receipt": "rename performs the write and answers unknown; rename_receipt answers an empty result",
  "receipt-unknown": "rename performs the write and answers unknown; rename_receipt always answers unknown",
  "mutating-prepare": "prepare_rename performs the rename itself (and answers the old state version)",
  "prepare-text-only": "prepare_rename answers text without structuredContent",
  "prepare-extra-fields": "prepare_rename answers an extra field",
  "prepare-long-state": "prepare_rename answers a 1,025-character stateVersion",
  "rename-read-only": "rename advertises readOnlyHint: true",
  "helper-not-read-only": "prepare_rename and rename_receipt advertise no readOnlyHint",
  "trust-meta": "does not compare the envelope's actor and tenant with the authenticated principal",
  "rename-schema-v2": "rename's input schema allows names of at most 100 characters (a changed schema)"
};
var ITEM_ID = { type: "string", minLength: 1, maxLength: 64 };
var RENAME_INPUT = {
  type: "object",
  properties: { id: ITEM_ID, name: { type: "string", minLength: 1, maxLength: 200 } },
  required: ["id", "name"],
  additionalProperties: false
};
var RECEIPT_OUTPUT = {
  type: "object",
  properties: {
    operationId: { type: "string" },
    status: { enum: ["succeeded", "failed", "unknown"] },
    message: { type: "string" }
  },
  required: ["operationId", "status", "message"],
  additionalProperties: false
};
var PREPARE_OUTPUT = {
  type: "object",
  properties: { stateVersion: { type: "string" }, preview: { type: "string" } },
  required: ["stateVersion", "preview"],
  additionalProperties: false
};
function parseModes(value) {
  const modes = new Set((value ?? "correct").split(",").map((m) => m.trim()).filter(Boolean));
  for (const m of modes) if (!Object.hasOwn(MODES, m)) throw new Error(`unknown mode ${m}; modes: ${Object.keys(MODES).join(", ")}`);
  return modes;
}
function parsePrincipal(value) {
  const m = /^([^/]+)\/([^/]+)$/.exec(value ?? "");
  if (!m) throw new Error(`a principal is "actor/tenant", got ${value}`);
  return { actorId: m[1], tenantId: m[2] };
}
function createContractState({ log } = {}) {
  const items = /* @__PURE__ */ new Map([
    ["A", { name: "Product A", version: 1 }],
    ["B", { name: "Product B", version: 1 }],
    ["C", { name: "Product C", version: 1 }]
  ]);
  const receipts = /* @__PURE__ */ new Map();
  const apply = (entry) => {
    if (entry.tool === "rename") {
      if (entry.status === "succeeded") items.set(entry.id, { name: entry.to, version: entry.version });
      if (entry.operationId && entry.status !== "repeated") receipts.set(entry.scope, entry.receipt);
    } else if (entry.tool === "delete_item") items.delete(entry.id);
    else if (entry.tool === "add_item") items.set(entry.id, { name: entry.to, version: 1 });
  };
  if (log) {
    let text = "";
    try {
      text = readFileSync(log, "utf8");
    } catch {
    }
    for (const line of text.split("\n")) {
      try {
        apply(JSON.parse(line));
      } catch {
      }
    }
  }
  return {
    items,
    receipts,
    /** Appends `entry` durably (fsync) and applies it: the outcome exists only once it is on disk. */
    record(entry) {
      if (log) {
        const fd = openSync(log, "a");
        try {
          appendFileSync(fd, JSON.stringify({ ...entry, at: Date.now(), pid: process.pid }) + "\n");
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
      }
      apply(entry);
    }
  };
}
var structured = (value, isError = false) => ({ content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value, isError });
var failure = (text) => ({ content: [{ type: "text", text }], isError: true });
function createContractServer({ state, modes, principal, drop, executeDelayMs = 0, forcedVersion, pad = {} }) {
  const has = (m) => modes.has(m);
  const padded = (text, n) => n ? text + "~".repeat(Math.max(0, n - text.length)) : text;
  const readOnly = { readOnlyHint: true };
  const helperHints = has("helper-not-read-only") ? {} : readOnly;
  const envelope = (ctx, tool, fields) => {
    const meta = ctx.meta?.[META_KEY];
    if (typeof meta !== "object" || meta === null || Array.isArray(meta)) throw new RpcError(INVALID_PARAMS, `missing _meta["${META_KEY}"]`);
    const expected = ["contractVersion", "tool", "actorId", "tenantId", ...fields];
    const keys = Object.keys(meta);
    if (keys.length !== expected.length || !expected.every((k) => keys.includes(k))) {
      throw new RpcError(INVALID_PARAMS, `_meta["${META_KEY}"] must have exactly ${expected.join(", ")}`);
    }
    if (meta.contractVersion !== 1) throw new RpcError(INVALID_PARAMS, "unsupported contractVersion");
    if (meta.tool !== tool) throw new RpcError(INVALID_PARAMS, `the envelope names ${String(meta.tool)}, not ${tool}`);
    for (const k of ["actorId", "tenantId", ...fields]) {
      if (typeof meta[k] !== "string" || meta[k] === "") throw new RpcError(INVALID_PARAMS, `${k} must be a non-empty string`);
    }
    if (fields.includes("operationId") && meta.operationId.length > 256) throw new RpcError(INVALID_PARAMS, "operationId is over 256 characters");
    const who2 = principal();
    const allowed = has("trust-meta") || who2 !== void 0 && who2.actorId === meta.actorId && who2.tenantId === meta.tenantId;
    return { meta, allowed };
  };
  const scopeOf = (meta) => JSON.stringify([meta.tenantId, meta.actorId, "rename", meta.operationId]);
  const stateVersionOf = (id, item) => padded(`${id}:${item.version}`, pad.state);
  const prepareRename = async ({ id, name }, ctx) => {
    const { allowed } = envelope(ctx, "rename", []);
    if (!allowed) return failure("forbidden: the envelope's actor and tenant are not the authenticated principal");
    const item = state.items.get(id);
    if (!item) return failure(`no item ${id}`);
    const stateVersion = stateVersionOf(id, item);
    const preview = padded(`Rename ${id} from ${JSON.stringify(item.name)} to ${JSON.stringify(name)}`, pad.preview);
    if (has("mutating-prepare")) state.record({ tool: "rename", status: "succeeded", id, from: item.name, to: name, version: item.version + 1, via: "prepare" });
    if (has("prepare-text-only")) return { content: [{ type: "text", text: `${stateVersion} ${preview}` }] };
    if (has("prepare-extra-fields")) return structured({ stateVersion, preview, expires: "never" });
    if (has("prepare-long-state")) return structured({ stateVersion: "v".repeat(1025), preview });
    return structured({ stateVersion, preview });
  };
  const rename = async ({ id, name }, ctx) => {
    const { meta, allowed } = envelope(ctx, "rename", ["operationId", "stateVersion"]);
    const scope = scopeOf(meta);
    const stored = state.receipts.get(scope);
    if (stored) {
      state.record({ tool: "rename", status: "repeated", operationId: meta.operationId, actorId: meta.actorId, tenantId: meta.tenantId, scope });
      return structured(stored, stored.status === "failed");
    }
    if (executeDelayMs > 0) await sleep(executeDelayMs, ctx.signal);
    const item = state.items.get(id);
    let receipt;
    let entry;
    if (!allowed) receipt = { operationId: meta.operationId, status: "failed", message: "forbidden: the envelope's actor and tenant are not the authenticated principal" };
    else if (!item) receipt = { operationId: meta.operationId, status: "failed", message: `no item ${id}` };
    else if (stateVersionOf(id, item) !== meta.stateVersion) receipt = { operationId: meta.operationId, status: "failed", message: `${id} changed since it was prepared` };
    else {
      receipt = { operationId: meta.operationId, status: "succeeded", message: padded(`renamed ${id} to ${JSON.stringify(name)}`, pad.message) };
      entry = { id, from: item.name, to: name, version: item.version + 1 };
    }
    state.record({ tool: "rename", status: receipt.status, operationId: meta.operationId, actorId: meta.actorId, tenantId: meta.tenantId, scope, receipt, ...entry });
    if (receipt.status !== "succeeded") return structured(receipt, true);
    if (has("drop-after-perform")) {
      drop();
      return new Promise(() => {
      });
    }
    if (has("timeout-after-perform")) return new Promise(() => {
    });
    if (has("unknown-status") || has("empty-receipt") || has("receipt-unknown")) return structured({ ...receipt, status: "unknown", message: "accepted" });
    if (has("text-only")) return { content: [{ type: "text", text: receipt.message }] };
    if (has("extra-fields")) return structured({ ...receipt, committedAt: "now" });
    if (has("missing-fields")) return structured({ operationId: receipt.operationId, status: receipt.status });
    if (has("wrong-operation-id")) return structured({ ...receipt, operationId: `${receipt.operationId}-other` });
    return structured(receipt);
  };
  const renameReceipt = async (_args, ctx) => {
    const { meta, allowed } = envelope(ctx, "rename", ["operationId"]);
    if (!allowed) return failure("forbidden: the envelope's actor and tenant are not the authenticated principal");
    if (has("empty-receipt")) return { content: [] };
    const stored = state.receipts.get(scopeOf(meta));
    if (!stored || has("receipt-unknown")) return structured({ operationId: meta.operationId, status: "unknown", message: "no outcome recorded for this operation" });
    return structured(stored, stored.status === "failed");
  };
  let helperRevision = 1;
  const tools = [
    {
      name: "get_item",
      description: "Reads one item.",
      inputSchema: { type: "object", properties: { id: ITEM_ID }, required: ["id"], additionalProperties: false },
      annotations: readOnly,
      run: async ({ id }) => {
        const item = state.items.get(id);
        return item ? structured({ id, name: item.name, stateVersion: stateVersionOf(id, item) }) : failure(`no item ${id}`);
      }
    },
    {
      name: "prepare_rename",
      description: "Prepares a rename: the item's state version and a preview. Read-only.",
      inputSchema: RENAME_INPUT,
      outputSchema: PREPARE_OUTPUT,
      annotations: helperHints,
      run: prepareRename
    },
    {
      name: "rename",
      description: "Renames an item (contract write: needs an approved state version and an operation id).",
      inputSchema: has("rename-schema-v2") ? { ...RENAME_INPUT, properties: { ...RENAME_INPUT.properties, name: { type: "string", minLength: 1, maxLength: 100 } } } : RENAME_INPUT,
      outputSchema: RECEIPT_OUTPUT,
      annotations: has("rename-read-only") ? readOnly : { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      run: rename
    },
    {
      name: "rename_receipt",
      get description() {
        return `Looks up the receipt of a rename by its operation id. Read-only.${helperRevision > 1 ? ` (revision ${helperRevision})` : ""}`;
      },
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      outputSchema: RECEIPT_OUTPUT,
      annotations: helperHints,
      run: renameReceipt
    },
    {
      name: "delete_item",
      description: "Deletes an item (a plain mutating tool, no contract).",
      inputSchema: { type: "object", properties: { id: ITEM_ID }, required: ["id"], additionalProperties: false },
      annotations: { readOnlyHint: false, destructiveHint: true },
      run: async ({ id }, ctx) => {
        if (executeDelayMs > 0) await sleep(executeDelayMs, ctx.signal);
        if (!state.items.has(id)) return failure(`no item ${id}`);
        state.record({ tool: "delete_item", status: "succeeded", id });
        return { content: [{ type: "text", text: `deleted ${id}` }] };
      }
    },
    {
      name: "bump_helpers",
      description: "Changes the receipt helper's description and announces notifications/tools/list_changed (a changed catalog).",
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      annotations: { readOnlyHint: false },
      run: async (_args, ctx) => {
        helperRevision++;
        ctx.notify("notifications/tools/list_changed");
        return { content: [{ type: "text", text: `helpers at revision ${helperRevision}` }] };
      }
    },
    {
      name: "add_item",
      description: "Adds an item (a plain mutating tool without annotations; other arguments are ignored).",
      inputSchema: { type: "object", properties: RENAME_INPUT.properties, required: ["id", "name"] },
      run: async ({ id, name }) => {
        if (state.items.has(id)) return failure(`item ${id} exists`);
        state.record({ tool: "add_item", status: "succeeded", id, to: name });
        return { content: [{ type: "text", text: `added ${id}` }] };
      }
    }
  ];
  const byName = new Map(tools.map((t) => [t.name, t]));
  return createServer({
    serverInfo: { name: "contract-reference", version: "1.0.0" },
    forcedVersion,
    tools,
    methods: {
      "tools/call": async (params, ctx) => {
        const tool = byName.get(params.name);
        if (!tool) throw new RpcError(INVALID_PARAMS, `Unknown tool: ${String(params.name)}`);
        const args = params.arguments ?? {};
        if (typeof args !== "object" || Array.isArray(args) || args === null) throw new RpcError(INVALID_PARAMS, "arguments must be an object");
        checkArgs(tool.inputSchema, args);
        return tool.run(args, { ...ctx, meta: params._meta });
      }
    }
  });
}
function checkArgs(schema, args) {
  for (const k of schema.required ?? []) if (!Object.hasOwn(args, k)) throw new RpcError(INVALID_PARAMS, `Invalid arguments: ${k} is required`);
  for (const [k, v] of Object.entries(args)) {
    const p = schema.properties?.[k];
    if (!p && schema.additionalProperties !== false) continue;
    if (!p) throw new RpcError(INVALID_PARAMS, `Invalid arguments: unknown property ${k}`);
    if (typeof v !== "string" || v.length < (p.minLength ?? 0) || v.length > (p.maxLength ?? Infinity)) {
      throw new RpcError(INVALID_PARAMS, `Invalid arguments: ${k} must be a string of ${p.minLength}..${p.maxLength} characters`);
    }
  }
}

var options = parseOptions({
  mode: { type: "string" },
  "mode-file": { type: "string" },
  log: { type: "string" },
  principal: { type: "string" },
  "execute-delay-ms": { type: "string" },
  pad: { type: "string" },
  "pid-file": { type: "string" }
});
var env = process.env;
var modeFile = options["mode-file"] ?? env.CONTRACT_MODE_FILE;
var pidFile = options["pid-file"] ?? env.CONTRACT_PID_FILE;
if (pidFile) writeFileSync(pidFile, `${process.pid}
`);
var who = parsePrincipal(options.principal ?? env.CONTRACT_PRINCIPAL ?? "alice/acme");
serveStdio(
  createContractServer({
    state: createContractState({ log: options.log ?? env.CONTRACT_LOG }),
    modes: parseModes(modeFile ? readFileSync2(modeFile, "utf8").trim() : options.mode ?? env.CONTRACT_MODE),
    principal: () => who,
    drop: () => exitAfterFlush(1),
    executeDelayMs: intOption(options["execute-delay-ms"] ?? env.CONTRACT_EXECUTE_DELAY_MS, 0),
    forcedVersion: options.version,
    pad: Object.fromEntries((options.pad ?? env.CONTRACT_PAD ?? "").split(",").filter(Boolean).map((p) => [p.split(":")[0], Number(p.split(":")[1])]))
  })
);
