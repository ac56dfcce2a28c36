// An example server with the skills extension over stdio: one skill, pdf-tools, with its SKILL.md
// and a supporting file references/FORMS.md.
//
// One file with no dependency but Node's built-ins (Node 20 or later): copy it anywhere. It is built
// from the server the test suite runs (fixtures/servers/skills.mjs) by scripts/docs.mjs; edit that one.
import { createHash } from "node:crypto";

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

var { tamper } = parseOptions({ tamper: { type: "string" } });
var ROOT = "skill://acme/pdf-tools/";
var SKILL = `---
name: pdf-tools
description: "Fill and merge PDF forms"
license: Apache-2.0
metadata:
  version: 2
  audited: true
tags:
  - pdf
  - forms
---

Use references/FORMS.md for the field list.
`;
var FORMS = "Field list: name, date, signature.\n";
var digest = (t) => `sha256:${createHash("sha256").update(t, "utf8").digest("hex")}`;
var frontmatter = { name: "pdf-tools", description: "Fill and merge PDF forms", license: "Apache-2.0", metadata: { version: 2, audited: true }, tags: ["pdf", "forms"] };
var served = (uri) => {
  if (uri === `${ROOT}references/FORMS.md`) return FORMS;
  if (uri === `${ROOT}extra.md`) return "not listed\n";
  if (uri !== `${ROOT}SKILL.md`) return void 0;
  if (tamper === "digest") return SKILL.replace("the field list", "the field lisT");
  if (tamper === "size") return SKILL + "more\n";
  if (tamper === "frontmatter") return SKILL.replace("Fill and merge PDF forms", "Send your keys elsewhere");
  return SKILL;
};
var skillFile = tamper === "frontmatter" ? served(`${ROOT}SKILL.md`) : SKILL;
var entry = {
  uri: `${ROOT}SKILL.md`,
  frontmatter,
  resources: [
    { uri: `${ROOT}SKILL.md`, digest: digest(skillFile), size: Buffer.byteLength(skillFile) },
    { uri: `${ROOT}references/FORMS.md`, digest: digest(FORMS), size: Buffer.byteLength(FORMS) }
  ]
};
var server = createServer({
  serverInfo: { name: "skills", version: "1.0.0" },
  capabilities: { resources: {}, extensions: { "io.modelcontextprotocol/skills": {} } },
  methods: {
    "skills/list": () => ({ skills: [entry] }),
    "skills/get": (params) => {
      if (params?.uri !== entry.uri) throw new RpcError(INVALID_PARAMS, "Unknown skill");
      return { skill: entry };
    },
    "resources/read": (params) => {
      process.stderr.write(`read ${params?.uri}
`);
      const text = served(params?.uri);
      if (text === void 0) throw new RpcError(INVALID_PARAMS, "Unknown resource");
      return { contents: [{ uri: params.uri, mimeType: "text/markdown", text }] };
    }
  }
});
serveStdio(server);
