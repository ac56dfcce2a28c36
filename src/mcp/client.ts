/**
 * `McpClient`: one connection to one MCP server. Handshake and version
 * negotiation, paginated listing, tool calls with the full content model,
 * resources, prompts, ping, timeouts and close (V1, V3, V4, S5, S6, T15).
 *
 * @module
 */
import { LimitError, ProtocolError, TimeoutError, UnsupportedVersionError, ValidationError, YadaError } from "../errors.js";
import { JsonRpcSession, type NotificationListener, type Progress, type RequestHandler, type RequestOptions } from "../jsonrpc/session.js";
import {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_HANDSHAKE_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  MAX_CURSOR_CHARS,
  MAX_LIST_ITEMS,
  MAX_LIST_PAGES,
} from "../limits.js";
import type { Logger } from "../log.js";
import type { Transport } from "../transport/types.js";
import {
  isRecord,
  parseCallToolResult,
  parseGetPromptResult,
  parsePrompt,
  parseReadResourceResult,
  parseResource,
  parseResourceTemplate,
  parseTool,
  type CallToolResult,
  type GetPromptResult,
  type JsonRecord,
  type McpPrompt,
  type McpResource,
  type McpResourceTemplate,
  type McpTool,
  type ResourceContents,
  type ServerInfo,
} from "./types.js";
import { isSupportedLegacyVersion, LATEST_LEGACY_VERSION } from "./versions.js";
import { answerElicitation, answerRoots, answerSampling, capabilitiesFor, type ClientHandlers } from "./handlers.js";

/** The name and version yada reports to servers unless the host sets its own. */
export const DEFAULT_CLIENT_INFO = { name: "yada", version: "0.1.0" } as const;

/** Options of {@link McpClient.connect}. */
export interface ClientOptions {
  /** Names the server in errors and logs; defaults to the transport's description. */
  name?: string;
  /** `clientInfo` sent in the handshake. */
  clientInfo?: { name: string; version: string; title?: string };
  /** Diagnostics sink; silent by default. */
  logger?: Logger;
  /** Bound on the whole handshake (S5); default `DEFAULT_HANDSHAKE_TIMEOUT_MS`. */
  handshakeTimeoutMs?: number;
  /** Bound on each tool call from when it is sent (S6); `null` = none. Default `DEFAULT_CALL_TIMEOUT_MS`. */
  callTimeoutMs?: number | null;
  /** Bound on list, read, prompt and ping requests; `null` = none. Default `DEFAULT_REQUEST_TIMEOUT_MS`. */
  requestTimeoutMs?: number | null;
  /** Aborts the handshake. */
  signal?: AbortSignal;
  /**
   * Host handlers for roots, sampling and elicitation (V6). Each declares its
   * capability; without a handler the capability is not declared and the server's
   * request is declined with -32601.
   */
  handlers?: ClientHandlers;
  /** Receives the server's `notifications/message` log entries (V7). */
  onServerLog?: (entry: ServerLogEntry) => void;
  /** The server log level to ask for once connected (V7). */
  logLevel?: LoggingLevel;
  /** Raw handlers for other server-initiated requests, keyed by method (J3, H13). */
  requestHandlers?: Record<string, RequestHandler>;
  /** Extra capabilities declared in the handshake, merged over those of `handlers`. */
  capabilities?: JsonRecord;
}

/** Server log severities (RFC 5424 names, as MCP uses them). */
export type LoggingLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";
const LOGGING_LEVELS: readonly string[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/** One `notifications/message` entry from the server (V7); `data` is untrusted. */
export interface ServerLogEntry {
  level: LoggingLevel;
  logger?: string;
  data: unknown;
}

/** Which list a `list_changed` notification is about (V5). */
export type ListKind = "tools" | "resources" | "prompts";

/** Per-call options. */
export interface CallOptions {
  /** Aborts the call; `notifications/cancelled` is sent (J5). */
  signal?: AbortSignal;
  /** Overrides the client's bound for this call; `null` = none. */
  timeoutMs?: number | null;
  /** Receives `notifications/progress` for this call (J6). */
  onProgress?: (progress: Progress) => void;
  /** Restart the timeout on each progress update, up to `maxTotalTimeoutMs` (J6). */
  resetTimeoutOnProgress?: boolean;
  /** Hard bound on the total time when the timeout is reset by progress. */
  maxTotalTimeoutMs?: number;
  /** `_meta` added to the request params. */
  meta?: JsonRecord;
}

/** State shared by a client and the views {@link McpClient.withCallTimeout} makes of it. */
interface Shared {
  session: JsonRpcSession;
  name: string;
  protocolVersion: string;
  serverInfo: ServerInfo;
  capabilities: JsonRecord;
  instructions: string | undefined;
  requestTimeoutMs: number | null;
}

function withMeta(params: JsonRecord, meta: JsonRecord | undefined): JsonRecord {
  return meta ? { ...params, _meta: meta } : params;
}

/**
 * A connected MCP client.
 *
 * @example
 * ```ts
 * import { McpClient } from "yada/node";
 * const client = await McpClient.connectStdio("node", ["server.js"]);
 * const tools = await client.listTools();
 * const result = await client.callTool("echo", { text: "hi" });
 * await client.close();
 * ```
 */
export class McpClient {
  readonly #s: Shared;
  readonly #callTimeoutMs: number | null;

  /** Use {@link McpClient.connect}. */
  protected constructor(shared: Shared, callTimeoutMs: number | null) {
    this.#s = shared;
    this.#callTimeoutMs = callTimeoutMs;
  }

  /**
   * Connects over `transport`: starts it, runs the handshake (`initialize`, then
   * `notifications/initialized`) within `handshakeTimeoutMs` (S5), and checks the
   * server's protocol revision (V1).
   *
   * @throws UnsupportedVersionError (`unsupported_version`) when the server answers a revision yada does not speak; the connection is closed.
   * @throws TimeoutError (`timeout`) when the handshake exceeds its bound.
   * @throws ConnectionClosedError (`connection_closed`), TransportError (`transport`), ProtocolError (`protocol`), JsonRpcError (`jsonrpc`).
   */
  static async connect(transport: Transport, options: ClientOptions = {}): Promise<McpClient> {
    const name = options.name ?? transport.description;
    const session = new JsonRpcSession(transport, { name, ...(options.logger ? { logger: options.logger } : {}) });
    McpClient.#wire(session, options);
    const handshakeMs = options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), handshakeMs);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
    try {
      await session.start();
      const shared = await McpClient.#handshake(session, name, options, signal, handshakeMs, deadline.signal);
      transport.openInbound?.();
      const client = new this(shared, options.callTimeoutMs === undefined ? DEFAULT_CALL_TIMEOUT_MS : options.callTimeoutMs);
      if (options.logLevel !== undefined && isRecord(shared.capabilities.logging)) await client.setLogLevel(options.logLevel);
      return client;
    } catch (e) {
      await session.close().catch(() => {});
      if (deadline.signal.aborted && !(options.signal?.aborted ?? false)) {
        throw new TimeoutError(`${name}: the handshake did not finish within ${handshakeMs} ms`, handshakeMs);
      }
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  static #wire(session: JsonRpcSession, options: ClientOptions): void {
    const h = options.handlers;
    if (h?.roots) session.onRequest("roots/list", (_p, ctx) => answerRoots(h, ctx));
    if (h?.sampling) session.onRequest("sampling/createMessage", (p, ctx) => answerSampling(h, p, ctx));
    if (h?.elicitation) session.onRequest("elicitation/create", (p, ctx) => answerElicitation(h, p, ctx));
    for (const [method, handler] of Object.entries(options.requestHandlers ?? {})) session.onRequest(method, handler);
    const onLog = options.onServerLog;
    if (onLog) {
      session.onNotification((method, params) => {
        if (method !== "notifications/message" || !params || typeof params.level !== "string" || !LOGGING_LEVELS.includes(params.level)) return;
        const entry: ServerLogEntry = { level: params.level as LoggingLevel, data: params.data };
        if (typeof params.logger === "string") entry.logger = params.logger;
        onLog(entry);
      });
    }
  }

  static async #handshake(
    session: JsonRpcSession,
    name: string,
    options: ClientOptions,
    signal: AbortSignal,
    handshakeMs: number,
    deadline: AbortSignal,
  ): Promise<Shared> {
    const result = await session.request(
      "initialize",
      {
        protocolVersion: LATEST_LEGACY_VERSION,
        capabilities: { ...capabilitiesFor(options.handlers), ...options.capabilities },
        clientInfo: options.clientInfo ?? DEFAULT_CLIENT_INFO,
      },
      { signal, timeoutMs: handshakeMs },
    );
    const version = result.protocolVersion;
    if (!isSupportedLegacyVersion(version)) {
      const offered = typeof version === "string" ? version.slice(0, 64) : String(typeof version);
      throw new UnsupportedVersionError(
        `${name} answered protocol version '${offered}', which yada does not speak (it speaks ${LATEST_LEGACY_VERSION}, 2025-06-18, 2025-03-26 and 2024-11-05)`,
        offered,
      );
    }
    if (!isRecord(result.capabilities)) throw new ProtocolError(`${name}: initialize result lacks "capabilities"`);
    const info = result.serverInfo;
    if (!isRecord(info) || typeof info.name !== "string" || typeof info.version !== "string") {
      throw new ProtocolError(`${name}: initialize result lacks a valid "serverInfo" (name and version)`);
    }
    if (result.instructions !== undefined && typeof result.instructions !== "string") {
      throw new ProtocolError(`${name}: initialize result "instructions" must be a string`);
    }
    session.transport.setProtocolVersion?.(version);
    if (deadline.aborted) throw new TimeoutError(`${name}: the handshake did not finish within ${handshakeMs} ms`, handshakeMs);
    // S5: sent as a notification, not awaited for an answer; failing to deliver it fails the connect.
    await session.notify("notifications/initialized");
    return {
      session,
      name,
      protocolVersion: version,
      serverInfo: info as ServerInfo,
      capabilities: result.capabilities,
      instructions: result.instructions,
      requestTimeoutMs: options.requestTimeoutMs === undefined ? DEFAULT_REQUEST_TIMEOUT_MS : options.requestTimeoutMs,
    };
  }

  /** The negotiated protocol revision. */
  get protocolVersion(): string {
    return this.#s.protocolVersion;
  }
  /** The server's `serverInfo` (untrusted). */
  get serverInfo(): ServerInfo {
    return this.#s.serverInfo;
  }
  /** The server's capabilities (untrusted). */
  get serverCapabilities(): JsonRecord {
    return this.#s.capabilities;
  }
  /** The server's `instructions`, if any (untrusted text). */
  get instructions(): string | undefined {
    return this.#s.instructions;
  }
  /** The name used in errors. */
  get name(): string {
    return this.#s.name;
  }
  /** The current bound on tool calls, or `null`. */
  get callTimeoutMs(): number | null {
    return this.#callTimeoutMs;
  }
  /** Whether the connection has ended. */
  get isClosed(): boolean {
    return this.#s.session.closeError !== undefined;
  }

  /**
   * A view of this client whose tool calls use another bound (S6); `null` removes it.
   * Both views share one connection.
   */
  withCallTimeout(ms: number | null): McpClient {
    return new McpClient(this.#s, ms);
  }

  /** Listens to every server notification (J4); returns a function that removes the listener. */
  onNotification(listener: NotificationListener): () => void {
    return this.#s.session.onNotification(listener);
  }

  /**
   * Calls `listener` when the server says a list changed (V5): tools, resources or
   * prompts. Returns a function that removes the listener.
   */
  onListChanged(listener: (kind: ListKind) => void): () => void {
    return this.#s.session.onNotification((method) => {
      const m = /^notifications\/(tools|resources|prompts)\/list_changed$/.exec(method);
      if (m) listener(m[1] as ListKind);
    });
  }

  /** Calls `listener` with the URI of each resource the server says was updated (V5). */
  onResourceUpdated(listener: (uri: string) => void): () => void {
    return this.#s.session.onNotification((method, params) => {
      if (method === "notifications/resources/updated" && typeof params?.uri === "string") listener(params.uri);
    });
  }

  /** Asks for updates of one resource (`resources/subscribe`). */
  async subscribeResource(uri: string): Promise<void> {
    await this.request("resources/subscribe", { uri });
  }

  /** Stops updates of one resource (`resources/unsubscribe`). */
  async unsubscribeResource(uri: string): Promise<void> {
    await this.request("resources/unsubscribe", { uri });
  }

  /**
   * Sets the server's log level (V7): `logging/setLevel`. Entries arrive at the
   * `onServerLog` option.
   *
   * @throws ValidationError (`validation`) for an unknown level; request errors.
   */
  async setLogLevel(level: LoggingLevel): Promise<void> {
    if (!LOGGING_LEVELS.includes(level)) throw new ValidationError(`unknown log level`);
    await this.request("logging/setLevel", { level });
  }

  /** Tells the server the roots changed (`notifications/roots/list_changed`, V6). */
  async notifyRootsChanged(): Promise<void> {
    await this.#s.session.notify("notifications/roots/list_changed");
  }

  /** Calls `listener` once when the connection ends, with the reason. */
  onClose(listener: (error: YadaError) => void): () => void {
    return this.#s.session.onClose(listener);
  }

  /**
   * Sends any request and returns its raw result (for methods yada does not wrap).
   *
   * @throws as {@link JsonRpcSession.request}.
   */
  request(method: string, params?: JsonRecord, options: RequestOptions = {}): Promise<JsonRecord> {
    return this.#s.session.request(method, params, { timeoutMs: this.#s.requestTimeoutMs, ...options });
  }

  /** Sends `ping` and waits for the answer. */
  async ping(options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.request("ping", undefined, options.signal ? { signal: options.signal } : {});
  }

  /**
   * Lists every tool, following `nextCursor` (V3): at most `MAX_LIST_PAGES` pages
   * and `MAX_LIST_ITEMS` tools; a repeated cursor or a duplicate tool name is an error.
   *
   * @throws ProtocolError (`protocol`), LimitError (`limit`), and request errors.
   */
  async listTools(options: { signal?: AbortSignal; timeoutMs?: number | null } = {}): Promise<McpTool[]> {
    const tools = await this.#listAll("tools/list", "tools", parseTool, options);
    const seen = new Set<string>();
    for (const t of tools) {
      if (seen.has(t.name)) throw new ProtocolError(`${this.#s.name}: tools/list lists the tool '${t.name.slice(0, 80)}' twice`);
      seen.add(t.name);
    }
    return tools;
  }

  /**
   * Calls a tool and returns the full content model (V4). A result with
   * `isError: true` is returned, not thrown: it is the tool's answer.
   *
   * @throws TimeoutError (`timeout`) after the call bound, counted from the send (S6).
   * @throws JsonRpcError (`jsonrpc`), ProtocolError (`protocol`), ConnectionClosedError (`connection_closed`), CancelledError (`cancelled`).
   */
  async callTool(name: string, args: JsonRecord = {}, options: CallOptions = {}): Promise<CallToolResult> {
    const opts: RequestOptions = { timeoutMs: options.timeoutMs === undefined ? this.#callTimeoutMs : options.timeoutMs };
    if (options.signal) opts.signal = options.signal;
    if (options.onProgress) opts.onProgress = options.onProgress;
    if (options.resetTimeoutOnProgress) opts.resetTimeoutOnProgress = true;
    if (options.maxTotalTimeoutMs !== undefined) opts.maxTotalTimeoutMs = options.maxTotalTimeoutMs;
    const result = await this.#s.session.request("tools/call", withMeta({ name, arguments: args }, options.meta), opts);
    return parseCallToolResult(result, `${this.#s.name}: tools/call ${name.slice(0, 80)}`);
  }

  /** Lists every resource, following `nextCursor` (V3). */
  listResources(options: { signal?: AbortSignal } = {}): Promise<McpResource[]> {
    return this.#listAll("resources/list", "resources", parseResource, options);
  }

  /** Lists every resource template, following `nextCursor` (V3). */
  listResourceTemplates(options: { signal?: AbortSignal } = {}): Promise<McpResourceTemplate[]> {
    return this.#listAll("resources/templates/list", "resourceTemplates", parseResourceTemplate, options);
  }

  /** Lists one page of resources (for callers that page themselves, T11). */
  async listResourcesPage(cursor?: string, options: { signal?: AbortSignal } = {}): Promise<{ resources: McpResource[]; nextCursor?: string }> {
    const result = await this.request("resources/list", cursor === undefined ? {} : { cursor }, options.signal ? { signal: options.signal } : {});
    const page = this.#page(result, "resources/list", "resources", parseResource);
    return page.next === undefined ? { resources: page.items } : { resources: page.items, nextCursor: page.next };
  }

  /** Reads a resource. */
  async readResource(uri: string, options: { signal?: AbortSignal } = {}): Promise<ResourceContents[]> {
    const result = await this.request("resources/read", { uri }, options.signal ? { signal: options.signal } : {});
    return parseReadResourceResult(result, `${this.#s.name}: resources/read`);
  }

  /** Lists every prompt, following `nextCursor` (V3). */
  listPrompts(options: { signal?: AbortSignal } = {}): Promise<McpPrompt[]> {
    return this.#listAll("prompts/list", "prompts", parsePrompt, options);
  }

  /** Gets a rendered prompt. */
  async getPrompt(name: string, args: Record<string, string> = {}, options: { signal?: AbortSignal } = {}): Promise<GetPromptResult> {
    const result = await this.request("prompts/get", { name, arguments: args }, options.signal ? { signal: options.signal } : {});
    return parseGetPromptResult(result, `${this.#s.name}: prompts/get`);
  }

  /** Ends the connection (stdio: the process; HTTP: the session is released). Idempotent. */
  async close(): Promise<void> {
    await this.#s.session.close();
  }

  #page<T>(result: JsonRecord, method: string, key: string, parse: (v: unknown, where: string) => T): { items: T[]; next: string | undefined } {
    const where = `${this.#s.name}: ${method}`;
    const list = result[key];
    if (!Array.isArray(list)) throw new ProtocolError(`${where}: result "${key}" must be an array`);
    const next = result.nextCursor;
    if (next !== undefined && next !== null && typeof next !== "string") throw new ProtocolError(`${where}: "nextCursor" must be a string`);
    if (typeof next === "string" && next.length > MAX_CURSOR_CHARS) {
      throw new LimitError("MAX_CURSOR_CHARS", MAX_CURSOR_CHARS, `${where}: a cursor is longer than ${MAX_CURSOR_CHARS} characters`);
    }
    return { items: list.map((v, i) => parse(v, `${where} ${key}[${i}]`)), next: typeof next === "string" ? next : undefined };
  }

  async #listAll<T>(
    method: string,
    key: string,
    parse: (v: unknown, where: string) => T,
    options: { signal?: AbortSignal; timeoutMs?: number | null },
  ): Promise<T[]> {
    const where = `${this.#s.name}: ${method}`;
    const items: T[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 1; ; page++) {
      if (page > MAX_LIST_PAGES) throw new LimitError("MAX_LIST_PAGES", MAX_LIST_PAGES, `${where} has more than ${MAX_LIST_PAGES} pages`);
      const opts: RequestOptions = {};
      if (options.signal) opts.signal = options.signal;
      if (options.timeoutMs !== undefined) opts.timeoutMs = options.timeoutMs;
      const result = await this.request(method, cursor === undefined ? {} : { cursor }, opts);
      const { items: got, next } = this.#page(result, method, key, parse);
      if (items.length + got.length > MAX_LIST_ITEMS) {
        throw new LimitError("MAX_LIST_ITEMS", MAX_LIST_ITEMS, `${where} lists more than ${MAX_LIST_ITEMS} items`);
      }
      items.push(...got);
      if (next === undefined) return items;
      if (seen.has(next)) throw new ProtocolError(`${where}: the server repeated a cursor (page ${page + 1})`);
      seen.add(next);
      cursor = next;
    }
  }
}
