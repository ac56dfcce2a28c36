// The example catalog MCP server over Streamable HTTP on 127.0.0.1:
// `const server = await startCatalogHttp({ port: 0 })`, then `server.url`, `server.close()`;
// or run it: `node catalog-http.mjs --port 8080` prints the URL it listens on.
//
// One file with no dependency but Node's built-ins (Node 20 or later): copy it anywhere. It is built
// from the server the test suite runs (fixtures/servers/catalog/http.mjs) by scripts/docs.mjs; edit that one.
import { createServer as createHttpServer } from "node:http";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";

function readBody(req, maxBytes) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on("data", (chunk) => {
      size += chunk.length;
      if (size > maxBytes) {
        reject(new Error("too large"));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

var PARSE_ERROR = -32700;
var INVALID_REQUEST = -32600;
var METHOD_NOT_FOUND = -32601;
var INVALID_PARAMS = -32602;
var INTERNAL_ERROR = -32603;
var RESOURCE_NOT_FOUND = -32002;
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
var text = (t) => ({ type: "text", text: t });
var textResult = (t, extra = {}) => ({ content: [text(t)], ...extra });
var toolError = (t) => ({ content: [text(t)], isError: true });
function paginate(items, cursor, pageSize, { repeatCursor = false } = {}) {
  let start = 0;
  if (cursor !== void 0) {
    const m = typeof cursor === "string" ? /^page-(\d{1,9})$/.exec(cursor) : null;
    if (!m || Number(m[1]) > items.length) throw new RpcError(INVALID_PARAMS, "Invalid cursor");
    start = Number(m[1]);
  }
  if (!pageSize || pageSize <= 0) pageSize = items.length || 1;
  const page = items.slice(start, start + pageSize);
  if (repeatCursor) return { page, nextCursor: `page-${Math.min(pageSize, items.length)}` };
  const next = start + pageSize;
  return next < items.length ? { page, nextCursor: `page-${next}` } : { page };
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
function requireArg(args, name, type) {
  const v = args[name];
  const ok = type === "integer" ? Number.isInteger(v) && v >= 0 : typeof v === type;
  const expected = type === "integer" ? "a non-negative integer" : `a ${type}`;
  if (!ok) throw new RpcError(INVALID_PARAMS, `Invalid arguments: "${name}" must be ${expected}`);
  return v;
}

var slowTool = {
  name: "slow",
  description: "Answers after the given number of milliseconds.",
  inputSchema: { type: "object", properties: { ms: { type: "integer", minimum: 0 } }, required: ["ms"] },
  annotations: { readOnlyHint: true },
  run: async (args, ctx) => {
    const ms = requireArg(args, "ms", "integer");
    await sleep(ms, ctx.signal);
    return textResult(`slept ${ms} ms`);
  }
};

import { deflateSync } from "node:zlib";
var CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 3988292384 ^ c >>> 1 : c >>> 1;
  return c >>> 0;
});
function crc32(bytes) {
  let c = 4294967295;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 255] ^ c >>> 8;
  return (c ^ 4294967295) >>> 0;
}
function pngChunk(type, data) {
  const typed = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([len, typed, crc]);
}
function png(width, height, [r, g, b], level = 9) {
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set([r, g, b], 1 + x * 3);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", deflateSync(pixels, { level })),
    pngChunk("IEND", Buffer.alloc(0))
  ]);
}
function wav(samples = 80) {
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + samples, 4);
  header.write("WAVEfmt ", 8, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8e3, 24);
  header.writeUInt32LE(8e3, 28);
  header.writeUInt16LE(1, 32);
  header.writeUInt16LE(8, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(samples, 40);
  const data = Buffer.from(Array.from({ length: samples }, (_, i) => i % 20 < 10 ? 160 : 96));
  return Buffer.concat([header, data]);
}
var TINY_PNG = png(2, 2, [51, 102, 204]).toString("base64");
var TINY_JPEG = "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2P/wAARCAACAAIDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAT/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFAEBAAAAAAAAAAAAAAAAAAAABf/EABQRAQAAAAAAAAAAAAAAAAAAAAD/2gAMAwEAAhEDEQA/AIADg9//2Q==";
var TINY_WEBP = "UklGRh4AAABXRUJQVlA4TBEAAAAvAUAAAAdQs86Uuf+BiOh/AAA=";
var TINY_GIF = Buffer.from([
  71,
  73,
  70,
  56,
  57,
  97,
  1,
  0,
  1,
  0,
  128,
  0,
  0,
  51,
  102,
  204,
  255,
  255,
  255,
  44,
  0,
  0,
  0,
  0,
  1,
  0,
  1,
  0,
  0,
  2,
  2,
  68,
  1,
  0,
  59
]).toString("base64");
var TINY_WAV = wav().toString("base64");
var oversized;
function oversizedPng() {
  oversized ??= png(1200, 1600, [238, 238, 238], 0).toString("base64");
  return oversized;
}

var PRODUCTS = [
  { sku: "ABC-123", name: "Widget", price: 12.5, inStock: true },
  { sku: "DEF-456", name: "Gadget", price: 8, inStock: true },
  { sku: "GHI-789", name: "Gizmo", price: 99.9, inStock: false },
  { sku: "JKL-012", name: "Sprocket", price: 3.25, inStock: true },
  { sku: "MNO-345", name: "Doohickey", price: 45, inStock: true }
];
var SKU = /^[A-Z]{3}-\d{3}$/;
var LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
var SEARCH_PAGE = 3;
var RESOURCES_PAGE = 2;
var ROOTS_TIMEOUT_MS = 5e3;
function createCatalogState() {
  return { products: new Map(PRODUCTS.map((p) => [p.sku, { ...p }])), changed: false };
}
var describe = (p) => `Product ${p.sku}: ${p.name}, ${p.price.toFixed(2)} EUR, ${p.inStock ? "in stock" : "out of stock"}`;
function requireSku(args) {
  const sku = requireArg(args, "sku", "string");
  if (!SKU.test(sku)) throw new RpcError(INVALID_PARAMS, 'Invalid arguments: "sku" must match ^[A-Z]{3}-\\d{3}$');
  return sku;
}
function catalogTools(state) {
  const { products } = state;
  const tools = [
    {
      name: "lookup",
      title: "Look up a product",
      description: state.changed ? "Look up a product by SKU (now with stock levels)." : "Look up a product by SKU: name, price and availability.",
      inputSchema: {
        type: "object",
        properties: { sku: { type: "string", pattern: "^[A-Z]{3}-\\d{3}$", description: "e.g. ABC-123" } },
        required: ["sku"],
        additionalProperties: false
      },
      annotations: { readOnlyHint: true },
      run: async (args, ctx) => {
        const sku = requireSku(args);
        ctx.log("info", `lookup ${sku}`);
        const p = products.get(sku);
        return p ? textResult(describe(p)) : toolError(`Unknown SKU: ${sku}`);
      }
    },
    {
      name: "search",
      title: "Search products",
      description: "Search products by name or SKU (case-insensitive). Pages of 3; pass nextCursor as cursor.",
      inputSchema: {
        type: "object",
        properties: { query: { type: "string" }, cursor: { type: "string" } },
        required: ["query"],
        additionalProperties: false
      },
      outputSchema: {
        type: "object",
        properties: {
          items: {
            type: "array",
            items: {
              type: "object",
              properties: { sku: { type: "string" }, name: { type: "string" }, price: { type: "number" } },
              required: ["sku", "name", "price"]
            }
          },
          nextCursor: { type: "string" }
        },
        required: ["items"]
      },
      annotations: { readOnlyHint: true },
      run: async (args) => {
        const query = requireArg(args, "query", "string").toLowerCase();
        if (args.cursor !== void 0) requireArg(args, "cursor", "string");
        const matches = [...products.values()].filter((p) => p.sku.toLowerCase().includes(query) || p.name.toLowerCase().includes(query)).map(({ sku, name, price }) => ({ sku, name, price }));
        const { page, nextCursor } = paginate(matches, args.cursor, SEARCH_PAGE);
        const structured = nextCursor ? { items: page, nextCursor } : { items: page };
        return { content: [text(JSON.stringify(structured))], structuredContent: structured };
      }
    },
    {
      name: "image",
      title: "Product images",
      description: "Returns product images: png, jpeg, webp, gif and one oversized png.",
      inputSchema: { type: "object", properties: {} },
      annotations: { readOnlyHint: true },
      run: async () => ({
        content: [
          { type: "image", data: TINY_PNG, mimeType: "image/png" },
          { type: "image", data: TINY_JPEG, mimeType: "image/jpeg" },
          { type: "image", data: TINY_WEBP, mimeType: "image/webp" },
          { type: "image", data: TINY_GIF, mimeType: "image/gif" },
          { type: "image", data: oversizedPng(), mimeType: "image/png" },
          text("Five images: png, jpeg, webp, gif, and a large png.")
        ]
      })
    },
    {
      name: "rename",
      title: "Rename a product",
      description: "Renames a product.",
      inputSchema: {
        type: "object",
        properties: { sku: { type: "string", pattern: "^[A-Z]{3}-\\d{3}$" }, name: { type: "string", minLength: 1 } },
        required: ["sku", "name"],
        additionalProperties: false
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      run: async (args) => {
        const sku = requireSku(args);
        const name = requireArg(args, "name", "string");
        if (name === "") throw new RpcError(INVALID_PARAMS, 'Invalid arguments: "name" must not be empty');
        const p = products.get(sku);
        if (!p) return toolError(`Unknown SKU: ${sku}`);
        const old = p.name;
        p.name = name;
        return textResult(`Renamed ${sku} from ${old} to ${name}`);
      }
    },
    {
      name: "report",
      title: "Sales report",
      description: "Returns the full sales report (40,000 bytes of text).",
      inputSchema: { type: "object", properties: {} },
      annotations: { readOnlyHint: true },
      run: async () => {
        const lines = [];
        for (let i = 1, size = 0; size < 4e4; i++) {
          const line = `Report line ${String(i).padStart(4, "0")}: Widget 12 sold, Gadget 7 sold, Gizmo 0 sold.
`;
          lines.push(line);
          size += line.length;
        }
        return textResult(lines.join("").slice(0, 4e4));
      }
    },
    {
      name: "fail",
      title: "Always fails",
      description: "Fails with a long error message.",
      inputSchema: { type: "object", properties: {} },
      annotations: { readOnlyHint: true },
      run: async () => toolError(`Inventory backend failed: ${"upstream timeout; ".repeat(700)}`.slice(0, 1e4))
    },
    {
      name: "mixed",
      title: "Every content kind",
      description: "Returns one content block of every kind, plus one unknown kind.",
      inputSchema: { type: "object", properties: {} },
      annotations: { readOnlyHint: true },
      run: async () => ({
        content: [
          text("Here is everything."),
          { type: "image", data: TINY_PNG, mimeType: "image/png" },
          { type: "audio", data: TINY_WAV, mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "catalog://readme", mimeType: "text/plain", text: README } },
          { type: "resource", resource: { uri: "catalog://images/logo.png", mimeType: "image/png", blob: TINY_PNG } },
          { type: "resource_link", uri: "catalog://products/ABC-123", name: "ABC-123", mimeType: "application/json" },
          { type: "hologram", data: Buffer.alloc(2250, "holo").toString("base64") }
        ]
      })
    },
    {
      name: "unannotated",
      description: "Returns ok. Declares no annotations.",
      inputSchema: { type: "object", properties: {} },
      run: async () => textResult("ok")
    },
    { ...slowTool, title: "Slow call" },
    {
      name: "bad_output",
      title: "Count (broken)",
      description: "Returns structured content that violates its own outputSchema.",
      inputSchema: { type: "object", properties: {} },
      outputSchema: { type: "object", properties: { count: { type: "integer" } }, required: ["count"] },
      annotations: { readOnlyHint: true },
      run: async () => ({ content: [text('{"count":"three"}')], structuredContent: { count: "three" } })
    },
    {
      name: "touch",
      title: "Touch the catalog",
      description: 'Sends notifications/tools/list_changed; "changed" also changes the tool list.',
      inputSchema: {
        type: "object",
        properties: { mode: { type: "string", enum: ["same", "changed"] } },
        required: ["mode"]
      },
      annotations: { readOnlyHint: true },
      run: async (args, ctx) => {
        const mode = requireArg(args, "mode", "string");
        if (mode !== "same" && mode !== "changed") {
          throw new RpcError(INVALID_PARAMS, 'Invalid arguments: "mode" must be "same" or "changed"');
        }
        if (mode === "changed") state.changed = true;
        ctx.notify("notifications/tools/list_changed");
        return textResult(`touched (${mode})`);
      }
    },
    {
      name: "list_roots",
      title: "Client roots",
      description: "Asks the client for its roots (roots/list) and returns the answer as JSON text.",
      inputSchema: { type: "object", properties: {} },
      annotations: { readOnlyHint: true },
      run: async (_args, ctx) => {
        let timer;
        const answer = await Promise.race([
          ctx.request("roots/list", {}),
          new Promise((resolve) => timer = setTimeout(resolve, ROOTS_TIMEOUT_MS))
        ]);
        clearTimeout(timer);
        if (!answer) return toolError("The client did not answer roots/list in time.");
        return textResult(JSON.stringify("error" in answer ? { error: answer.error } : { result: answer.result }));
      }
    }
  ];
  if (state.changed) {
    tools.push({
      name: "extra",
      title: "Extra",
      description: "A tool that appeared after the catalog changed.",
      inputSchema: { type: "object", properties: {} },
      annotations: { readOnlyHint: true },
      run: async () => textResult("extra")
    });
  }
  return tools;
}
var README = "The catalog lists products by SKU (three letters, a dash, three digits).\n";
var RESOURCES = [
  { uri: "catalog://products/ABC-123", name: "ABC-123", title: "Widget", mimeType: "application/json" },
  { uri: "catalog://products/DEF-456", name: "DEF-456", title: "Gadget", mimeType: "application/json" },
  { uri: "catalog://readme", name: "readme", title: "About the catalog", mimeType: "text/plain" },
  { uri: "catalog://images/logo.png", name: "logo", title: "Catalog logo", mimeType: "image/png" }
];
var TEMPLATES = [
  {
    uriTemplate: "catalog://products/{sku}",
    name: "product",
    title: "Product by SKU",
    mimeType: "application/json"
  }
];
var PROMPTS = [
  {
    name: "summarize",
    title: "Summarize a product",
    description: "Asks for a short summary of one product.",
    arguments: [{ name: "sku", description: "The product's SKU, e.g. ABC-123", required: true }]
  },
  { name: "welcome", title: "Welcome", description: "A welcome message for a new user." }
];
function readResource(state, uri) {
  if (uri === "catalog://readme") return { uri, mimeType: "text/plain", text: README };
  if (uri === "catalog://images/logo.png") return { uri, mimeType: "image/png", blob: TINY_PNG };
  const m = /^catalog:\/\/products\/([A-Z]{3}-\d{3})$/.exec(uri);
  const p = m && state.products.get(m[1]);
  if (p) return { uri, mimeType: "application/json", text: JSON.stringify(p) };
  throw new RpcError(RESOURCE_NOT_FOUND, "Resource not found", { uri });
}
function getPrompt(state, name, args) {
  if (name === "welcome") {
    return {
      description: "Welcome",
      messages: [{ role: "user", content: text("Welcome to the catalog. Ask me about any product by SKU or name.") }]
    };
  }
  if (name === "summarize") {
    const sku = args.sku;
    if (typeof sku !== "string") throw new RpcError(INVALID_PARAMS, 'Missing required argument "sku"');
    const p = state.products.get(sku);
    if (!p) throw new RpcError(INVALID_PARAMS, `Unknown SKU: ${sku}`);
    return {
      description: `Summary of ${sku}`,
      messages: [{ role: "user", content: text(`Summarize this product in one sentence. ${describe(p)}.`) }]
    };
  }
  throw new RpcError(INVALID_PARAMS, `Unknown prompt: ${String(name)}`);
}
function createCatalogServer(opts = {}) {
  const state = opts.state ?? createCatalogState();
  let logLevel = "info";
  const withLog = (tool) => ({
    ...tool,
    run: (args, ctx) => tool.run(args, {
      ...ctx,
      log: (level, data) => {
        if (LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(logLevel)) {
          ctx.notify("notifications/message", { level, logger: "catalog", data });
        }
      }
    })
  });
  const server = createServer({
    serverInfo: { name: "catalog", title: "Product catalog", version: "1.0.0" },
    capabilities: { tools: { listChanged: true }, resources: {}, prompts: {}, logging: {} },
    instructions: "A product catalog: look up, search and rename products by SKU.",
    forcedVersion: opts.forcedVersion,
    tools: () => catalogTools(state).map(withLog),
    methods: {
      "tools/list": (params) => {
        const defs = catalogTools(state).map(({ run, ...def }) => def);
        const { page, nextCursor } = paginate(defs, params.cursor, opts.toolsPageSize, {
          repeatCursor: opts.repeatCursor
        });
        return nextCursor ? { tools: page, nextCursor } : { tools: page };
      },
      "resources/list": (params) => {
        const { page, nextCursor } = paginate(RESOURCES, params.cursor, RESOURCES_PAGE);
        return nextCursor ? { resources: page, nextCursor } : { resources: page };
      },
      "resources/templates/list": () => ({ resourceTemplates: TEMPLATES }),
      "resources/read": (params) => {
        if (typeof params.uri !== "string") throw new RpcError(INVALID_PARAMS, '"uri" must be a string');
        return { contents: [readResource(state, params.uri)] };
      },
      "prompts/list": (params) => {
        const { page, nextCursor } = paginate(PROMPTS, params.cursor, opts.promptsPageSize);
        return nextCursor ? { prompts: page, nextCursor } : { prompts: page };
      },
      "prompts/get": (params) => getPrompt(state, params.name, params.arguments ?? {}),
      "logging/setLevel": (params) => {
        if (!LOG_LEVELS.includes(params.level)) throw new RpcError(INVALID_PARAMS, `Unknown log level: ${params.level}`);
        logLevel = params.level;
        return {};
      }
    }
  });
  return server;
}

var MAX_BODY_BYTES = 4 * 1024 * 1024;
var MAX_KEPT_EVENTS = 100;
var CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
  "access-control-expose-headers": "mcp-session-id"
};
async function startCatalogHttp(opts = {}) {
  const state = createCatalogState();
  const sessions = /* @__PURE__ */ new Map();
  const requests = [];
  function newSession() {
    const id = randomUUID();
    const server = createCatalogServer({
      state,
      forcedVersion: opts.version,
      toolsPageSize: opts.toolsPageSize,
      repeatCursor: opts.repeatCursor,
      promptsPageSize: opts.promptsPageSize
    });
    const session = { id, server, served: 0, events: [], lastEventId: 0, delivered: 0, stream: null, streamEvents: 0 };
    sessions.set(id, session);
    return session;
  }
  function pushToGetStream(session, msg) {
    const event = { id: ++session.lastEventId, data: JSON.stringify(msg) };
    session.events.push(event);
    if (session.events.length > MAX_KEPT_EVENTS) session.events.shift();
    if (session.stream) writeStreamEvent(session, event);
  }
  function writeStreamEvent(session, event) {
    session.stream.write(`id: ${event.id}
event: message
data: ${event.data}

`);
    session.delivered = Math.max(session.delivered, event.id);
    if (opts.closeGetAfter && ++session.streamEvents >= opts.closeGetAfter) {
      session.stream.end();
      session.stream = null;
    }
  }
  function sessionOf(req, res, rpcId = null) {
    const id = req.headers["mcp-session-id"];
    if (typeof id !== "string" || id === "") {
      sendJson(res, 400, error(rpcId, INVALID_REQUEST, "Bad Request: Mcp-Session-Id header is required"));
      return void 0;
    }
    const session = sessions.get(id);
    if (session && opts.expireAfter !== void 0 && session.served >= opts.expireAfter) sessions.delete(id);
    if (!sessions.has(id)) {
      sendJson(res, 404, error(rpcId, -32001, "Session not found"));
      return void 0;
    }
    session.served++;
    return session;
  }
  async function onPost(req, res, record) {
    let body;
    try {
      body = await readBody(req, MAX_BODY_BYTES);
    } catch {
      return sendJson(res, 413, error(null, INVALID_REQUEST, "Request body too large"));
    }
    let msg;
    try {
      msg = JSON.parse(body);
    } catch {
      return sendJson(res, 400, error(null, PARSE_ERROR, "Parse error"));
    }
    if (typeof msg?.method === "string") record.rpcMethod = msg.method;
    const kind = classify(msg);
    if (kind === "invalid") return sendJson(res, 400, error(null, INVALID_REQUEST, "Invalid Request"));
    const isInit = kind === "request" && msg.method === "initialize";
    const session = isInit ? newSession() : sessionOf(req, res, kind === "request" ? msg.id : null);
    if (!session) return;
    const version = req.headers["mcp-protocol-version"];
    if (!isInit && version !== void 0 && !SUPPORTED_VERSIONS.includes(version) && version !== opts.version) {
      const id = kind === "request" ? msg.id : null;
      return sendJson(res, 400, error(id, INVALID_REQUEST, `Unsupported protocol version: ${version}`));
    }
    const headers = isInit ? { "mcp-session-id": session.id } : {};
    if (kind !== "request") {
      await session.server.handle(msg, { send: (m) => pushToGetStream(session, m) });
      res.writeHead(202, CORS).end();
      return;
    }
    if (!opts.sse) {
      const response2 = await session.server.handle(msg, { send: (m) => pushToGetStream(session, m) });
      if (response2) sendJson(res, 200, response2, headers);
      else res.writeHead(202, CORS).end();
      return;
    }
    res.writeHead(200, { ...CORS, ...headers, "content-type": "text/event-stream", "cache-control": "no-cache" });
    const send = (m) => {
      if (!res.destroyed) res.write(`event: message
data: ${JSON.stringify(m)}

`);
    };
    const response = await session.server.handle(msg, { send });
    if (response) send(response);
    res.end();
  }
  function onGet(req, res) {
    if (!opts.getStream) {
      res.writeHead(405, { ...CORS, allow: "POST, DELETE, OPTIONS" }).end();
      return;
    }
    const session = sessionOf(req, res);
    if (!session) return;
    if (!String(req.headers.accept ?? "").includes("text/event-stream")) {
      res.writeHead(406, CORS).end();
      return;
    }
    session.stream?.end();
    res.writeHead(200, { ...CORS, "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.write("retry: 100\n\n");
    session.stream = res;
    session.streamEvents = 0;
    res.on("close", () => {
      if (session.stream === res) session.stream = null;
    });
    const last = Number(req.headers["last-event-id"] ?? session.delivered);
    for (const event of session.events) {
      if (event.id > last && session.stream === res) writeStreamEvent(session, event);
    }
  }
  function onDelete(req, res) {
    const session = sessionOf(req, res);
    if (!session) return;
    session.stream?.end();
    sessions.delete(session.id);
    res.writeHead(204, CORS).end();
  }
  const http = createHttpServer((req, res) => {
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    const record = { method: req.method, headers };
    requests.push(record);
    res.on("error", () => {
    });
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    if (path !== "/mcp") {
      res.writeHead(404, { ...CORS, "content-type": "text/plain" }).end("not found");
      return;
    }
    switch (req.method) {
      case "OPTIONS":
        res.writeHead(204, {
          ...CORS,
          "access-control-allow-headers": req.headers["access-control-request-headers"] ?? "*",
          "access-control-max-age": "600"
        }).end();
        return;
      case "POST":
        onPost(req, res, record).catch((e) => {
          if (!res.headersSent) sendJson(res, 500, error(null, -32603, String(e)));
          else res.end();
        });
        return;
      case "GET":
        onGet(req, res);
        return;
      case "DELETE":
        onDelete(req, res);
        return;
      default:
        res.writeHead(405, { ...CORS, allow: "GET, POST, DELETE, OPTIONS" }).end();
    }
  });
  await new Promise((resolve, reject) => {
    http.once("error", reject);
    http.listen(opts.port ?? 0, "127.0.0.1", resolve);
  });
  const { port } = http.address();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    requests,
    close: () => new Promise((resolve) => {
      for (const s of sessions.values()) s.stream?.end();
      http.close(() => resolve());
      http.closeAllConnections();
    })
  };
}
function sendJson(res, status, msg, headers = {}) {
  res.writeHead(status, { ...CORS, ...headers, "content-type": "application/json" }).end(JSON.stringify(msg));
}
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const options = parseOptions({
    port: { type: "string" },
    sse: { type: "boolean" },
    "get-stream": { type: "boolean" },
    "close-get-after": { type: "string" },
    "expire-after": { type: "string" },
    "tools-page-size": { type: "string" },
    "repeat-cursor": { type: "boolean" },
    "prompts-page-size": { type: "string" }
  });
  const { url } = await startCatalogHttp({
    port: intOption(options.port, 0),
    sse: options.sse ?? false,
    getStream: options["get-stream"] ?? false,
    closeGetAfter: intOption(options["close-get-after"], 0),
    expireAfter: intOption(options["expire-after"], void 0),
    version: options.version,
    toolsPageSize: intOption(options["tools-page-size"], 0),
    repeatCursor: options["repeat-cursor"] ?? false,
    promptsPageSize: intOption(options["prompts-page-size"], 0)
  });
  process.stdout.write(`listening ${url}
`);
}
export {
  startCatalogHttp
};
