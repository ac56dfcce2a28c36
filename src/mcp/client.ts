/**
 * `McpClient`: one connection to one MCP server, in either protocol era. Era
 * detection and version negotiation, paginated listing, tool calls with the full
 * content model, resources, prompts, change notifications, host handlers,
 * logging, timeouts and close (V1–V7, S5, S6, T15).
 *
 * @module
 */
import { ConfigError, HttpError, JsonRpcError, ProtocolError, TimeoutError, ValidationError, YadaError } from "../errors.js";
import { JsonRpcSession, type NotificationListener, type RequestOptions } from "../jsonrpc/session.js";
import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_HANDSHAKE_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS, MAX_QUOTED_CHARS, MAX_QUOTED_TEXT_CHARS } from "../limits.js";
import type { Transport } from "../transport/types.js";
import { heldDeadline } from "../transport/hold.js";
import { sentBefore } from "../transport/not-sent.js";
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
import { isSupportedModernVersion, MODERN_ERRORS, pickVersion, type Era } from "./versions.js";
import { establish, modernMeta, type ClientIdentity } from "./handshake.js";
import { completeWithInput } from "./input-rounds.js";
import { Subscriptions } from "./listen.js";
import { checkParamHeaders, paramHeaderValues } from "./param-headers.js";
import { checkOptions } from "../util/options.js";
import { isTaskAnswer, taskCallParams, taskIdentity } from "./task-call.js";
import { TASKS_EXTENSION } from "./tasks.js";
import type { AsyncDisposer } from "../util/dispose.js";
import {
  CLIENT_OPTIONS,
  DEFAULT_CLIENT_INFO,
  LOGGING_LEVELS,
  type CallOptions,
  type ClientOptions,
  type ListKind,
  type LoggingLevel,
} from "./client-options.js";
import { dropCachedLists, LIST_CHANGED, needsInput, wireSession, withMeta, type Shared } from "./client-state.js";
import { listAll, listPage } from "./lists.js";

export { DEFAULT_CLIENT_INFO, type CallOptions, type ClientOptions, type ListKind, type LoggingLevel, type ServerLogEntry } from "./client-options.js";

/** V8: a call that must run as a task, on a client connected without the task module. */
const noTasks = (where: string): ConfigError => new ConfigError(`${where} runs as a task: pass { tasks: taskCalls } to McpClient.connect`);

/**
 * A connected MCP client.
 *
 * @example
 * ```ts
 * import { McpClient } from "yada-mcp/node";
 * const client = await McpClient.connectStdio("node", ["server.js"]);
 * const tools = await client.listTools();
 * const result = await client.callTool("echo", { text: "hi" });
 * await client.close();
 * ```
 */
export class McpClient {
  readonly #s: Shared;
  readonly #callTimeoutMs: number | null;
  // How a list asks for one page (lists.ts).
  readonly #list = (method: string, params: JsonRecord, options: RequestOptions): Promise<JsonRecord> => this.request(method, params, options);

  /** Use {@link McpClient.connect}. */
  protected constructor(shared: Shared, callTimeoutMs: number | null) {
    this.#s = shared;
    this.#callTimeoutMs = callTimeoutMs;
  }

  /**
   * Connects over `transport`: starts it and establishes the protocol era within
   * `handshakeTimeoutMs` (S5). With `era: "auto"` it probes with `server/discover`
   * (modern, V2) and falls back to `initialize` (legacy, V1) on any non-modern
   * answer or none; the outcome is remembered for the server.
   *
   * @throws UnsupportedVersionError (`unsupported_version`) when no revision is shared; the connection is closed.
   * @throws TimeoutError (`timeout`) when the handshake exceeds its bound.
   * @throws ConnectionClosedError (`connection_closed`), TransportError (`transport`), ProtocolError (`protocol`), JsonRpcError (`jsonrpc`).
   * @throws ConfigError (`config`) for an option or handler of the wrong kind, naming it, before anything starts;
   * also for a form elicitation handler without `compileSchema` (its answers could not be checked).
   * @throws HttpError (`http`) when a Streamable HTTP `initialize` is answered 400, 404 or 405 and the
   * transport has no HTTP+SSE fallback (`HttpTransport` option `fallback: legacySse`, H14).
   */
  static async connect(transport: Transport, options: ClientOptions = {}): Promise<McpClient> {
    checkOptions("McpClient.connect", options, CLIENT_OPTIONS);
    if (options.tasks && typeof options.tasks.follow !== "function") throw new ConfigError("McpClient.connect: option tasks must be taskCalls");
    // Before anything starts: the host handlers' module checks the handlers (V6, X3).
    const { handlers, hosting } = options;
    if (handlers !== undefined && typeof hosting?.answerer !== "function") throw new ConfigError("McpClient.connect: option handlers needs { hosting: hostHandlers }");
    const who: ClientIdentity = {
      clientInfo: { ...(options.clientInfo ?? DEFAULT_CLIENT_INFO) },
      capabilities: { ...(handlers && hosting?.capabilities(handlers)), ...options.capabilities },
    };
    const name = options.name ?? transport.description;
    const session = new JsonRpcSession(transport, { name, logger: options.logger });
    // O1, O3: only a traced session pays for its spans, and only a client given the module carries them.
    if (options.tracer !== undefined) {
      if (typeof options.tracing?.session !== "function") throw new ConfigError("McpClient.connect: option tracer needs { tracing: mcpTracing }");
      options.tracing.session(session, options, transport);
    }
    const handshakeMs = options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
    const deadline = new AbortController();
    // A2, S5: the time the user spends in an interactive login does not count.
    const timer = heldDeadline(transport, handshakeMs, () => deadline.abort());
    const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
    const timedOut = (): TimeoutError => new TimeoutError(`${name}: the handshake did not finish within ${handshakeMs} ms${stderrNote(transport)}`, handshakeMs);
    const http = transport.kind === "http";
    try {
      await session.start();
      const established = await establish(session, name, who, options, transport.serverKey ?? transport.description, handshakeMs, signal);
      if (deadline.signal.aborted) throw timedOut();
      const modern = established.era === "modern";
      const shared: Shared = {
        ...established,
        session,
        name,
        who,
        answer: handlers && hosting?.answerer(handlers),
        logLevel: modern ? options.logLevel : undefined,
        requestTimeoutMs: options.requestTimeoutMs === undefined ? DEFAULT_REQUEST_TIMEOUT_MS : options.requestTimeoutMs,
        paramHeaders: modern && http ? new Map() : undefined,
        listCache: new Map(),
        listListeners: 0,
        resyncListeners: new Set(),
        taskSupport: new Map(),
        taskWho: options.tasks && taskIdentity(established, who),
        tasks: options.tasks,
        log: options.logger,
      };
      wireSession(shared, options);
      if (!modern) transport.openInbound?.();
      else if (http) session.cancelNotifications = false; // closing the stream cancels (2026-07-28)
      // H5: over HTTP there is no whole-call bound by default; the transport's
      // idle bound ends a stalled call, and a call that keeps streaming goes on (H5).
      const client = new this(shared, options.callTimeoutMs === undefined ? (http ? null : DEFAULT_CALL_TIMEOUT_MS) : options.callTimeoutMs);
      if (options.logLevel !== undefined && !modern && isRecord(established.capabilities.logging)) await client.setLogLevel(options.logLevel);
      return client;
    } catch (e) {
      await session.close().catch(() => {});
      // H14: a Streamable HTTP initialize answered 400 / 404 / 405 is a 2024-11-05 server.
      const refused = !deadline.signal.aborted && !options.signal?.aborted && e instanceof HttpError && [400, 404, 405].includes(e.status);
      const legacy = refused ? transport.legacyFallback?.() : undefined;
      if (refused) options.logger?.("info", `initialize was refused over Streamable HTTP; ${legacy ? "trying HTTP+SSE" : "no HTTP+SSE fallback (HttpTransport option fallback: legacySse)"}`, { server: name, status: (e as HttpError).status });
      if (legacy) {
        return this.connect(legacy, { ...options, era: "legacy", handshakeTimeoutMs: Math.max(1, timer.left()) });
      }
      throw deadline.signal.aborted && !options.signal?.aborted ? timedOut() : e;
    } finally {
      timer.clear();
    }
  }

  /** The protocol era in use: `legacy` (initialize) or `modern` (2026-07-28, V2). */
  get era(): Era {
    return this.#s.era;
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
    // The view is of the same class (yada/node's McpClient keeps its methods).
    return new (this.constructor as new (shared: Shared, ms: number | null) => McpClient)(this.#s, ms);
  }

  /** Listens to every server notification (J4); returns a function that removes the listener. */
  onNotification(listener: NotificationListener): () => void {
    return this.#s.session.onNotification(listener);
  }

  /**
   * Calls `listener` when the server says a list changed (V5): tools, resources or
   * prompts. In the legacy era these are plain notifications; in the modern era the
   * first listener opens a `subscriptions/listen` request, kept open (and re-sent
   * after an unexpected end) until the last listener is removed. With `resync: true`,
   * each time the server acknowledges a listen the listener is also called for every
   * list it covers: a change made while no listen was open was never announced, so
   * such a listener reads the list again and compares. Returns a function that
   * removes the listener.
   */
  onListChanged(listener: (kind: ListKind) => void, options: { resync?: boolean } = {}): () => void {
    const s = this.#s;
    const off = s.session.onNotification((method, params) => {
      const m = LIST_CHANGED.exec(method);
      if (!m || (s.era === "modern" && !s.subscriptions?.owns(params))) return;
      listener(m[1] as ListKind);
    });
    if (s.era === "modern") {
      s.listListeners++;
      if (options.resync) s.resyncListeners.add(listener);
      this.#listen().wantLists(true);
    }
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      off();
      s.resyncListeners.delete(listener);
      if (s.era === "modern" && --s.listListeners === 0) s.subscriptions?.wantLists(false);
    };
  }

  /** Calls `listener` with the URI of each subscribed resource the server says was updated (V5). */
  onResourceUpdated(listener: (uri: string) => void): () => void {
    const s = this.#s;
    return s.session.onNotification((method, params) => {
      if (method !== "notifications/resources/updated" || typeof params?.uri !== "string") return;
      if (s.era === "modern" && !s.subscriptions?.owns(params)) return;
      listener(params.uri);
    });
  }

  /** Asks for updates of one resource: `resources/subscribe` (legacy) or the listen filter (modern). */
  async subscribeResource(uri: string): Promise<void> {
    if (this.#s.era === "modern") this.#listen().watch(uri, true);
    else await this.request("resources/subscribe", { uri });
  }

  /** Stops updates of one resource. */
  async unsubscribeResource(uri: string): Promise<void> {
    if (this.#s.era === "modern") this.#s.subscriptions?.watch(uri, false);
    else await this.request("resources/unsubscribe", { uri });
  }

  /**
   * Sets the server's log level (V7): `logging/setLevel` in the legacy era; in the
   * modern era the level rides on every request's `_meta`. Entries arrive at the
   * `onServerLog` option.
   *
   * @throws ValidationError (`validation`) for an unknown level; request errors.
   */
  async setLogLevel(level: LoggingLevel): Promise<void> {
    if (!LOGGING_LEVELS.includes(level)) throw new ValidationError(`unknown log level`);
    if (this.#s.era === "modern") this.#s.logLevel = level;
    else await this.request("logging/setLevel", { level });
  }

  /** Tells the server the roots changed (legacy `notifications/roots/list_changed`; the modern era asks each time). */
  async notifyRootsChanged(): Promise<void> {
    if (this.#s.era === "legacy") await this.#s.session.notify("notifications/roots/list_changed");
  }

  /** Calls `listener` once when the connection ends, with the reason. */
  onClose(listener: (error: YadaError) => void): () => void {
    return this.#s.session.onClose(listener);
  }

  /**
   * Sends any request and returns its raw result (for methods yada does not wrap).
   * In the modern era the request carries the per-request `_meta` (V2), and a
   * -32022 answer is retried once with a revision both sides speak.
   *
   * @throws as {@link JsonRpcSession.request}.
   */
  request(method: string, params: JsonRecord = {}, options: RequestOptions = {}): Promise<JsonRecord> {
    return this.#rpc(method, params, { timeoutMs: this.#s.requestTimeoutMs, ...options });
  }

  /** Checks the server answers: `ping` (legacy) or `server/discover` (modern, which has no ping). */
  async ping(options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.request(this.#s.era === "modern" ? "server/discover" : "ping", {}, { signal: options.signal });
  }

  /**
   * Lists every tool, following `nextCursor` (V3): at most `MAX_LIST_PAGES` pages
   * and `MAX_LIST_ITEMS` tools; a repeated cursor or a duplicate tool name is an
   * error. Over modern HTTP, tools whose `x-mcp-header` declarations are invalid
   * are left out (logged at warn), as the revision requires.
   *
   * @throws ProtocolError (`protocol`), LimitError (`limit`), and request errors.
   */
  async listTools(options: { signal?: AbortSignal; timeoutMs?: number | null } = {}): Promise<McpTool[]> {
    let tools = await listAll(this.#s, this.#list, "tools/list", "tools", parseTool, options);
    const seen = new Set<string>();
    const support = this.#s.taskSupport;
    support.clear();
    for (const t of tools) {
      if (seen.has(t.name)) throw new ProtocolError(`${this.#s.name}: tools/list lists the tool '${t.name.slice(0, MAX_QUOTED_CHARS)}' twice`);
      seen.add(t.name);
      const task = t.execution?.taskSupport;
      if (task === "required" || task === "optional") support.set(t.name, task);
    }
    const declared = this.#s.paramHeaders;
    if (declared) {
      tools = tools.filter((t) => {
        const check = checkParamHeaders(t.inputSchema);
        if (typeof check !== "string") {
          declared.set(t.name, check);
          return true;
        }
        declared.delete(t.name);
        this.#s.log?.("warn", "left out a tool with an invalid x-mcp-header declaration", { server: this.#s.name, tool: t.name.slice(0, MAX_QUOTED_CHARS), reason: check });
        return false;
      });
    }
    return tools;
  }

  /**
   * Calls a tool and returns the full content model (V4). A result with
   * `isError: true` is returned, not thrown: it is the tool's answer. In the
   * modern era `input_required` rounds are answered through the host handlers (V2, V6).
   * Over modern HTTP, arguments of `x-mcp-header` parameters ride as `Mcp-Param-*`
   * headers; a -32020 header mismatch re-lists the tools and retries the call once.
   *
   * A tool that must run as a task (V8) needs the client connected with `tasks: taskCalls`.
   *
   * @throws TimeoutError (`timeout`) after the call bound, counted from the send (S6).
   * @throws ConfigError (`config`) naming `taskCalls` for a call that must run as a task on a client without it.
   * @throws JsonRpcError (`jsonrpc`), ProtocolError (`protocol`), ConnectionClosedError (`connection_closed`), CancelledError (`cancelled`).
   */
  async callTool(name: string, args: JsonRecord = {}, options: CallOptions = {}): Promise<CallToolResult> {
    const s = this.#s;
    const opts: RequestOptions = {
      timeoutMs: options.timeoutMs === undefined ? this.#callTimeoutMs : options.timeoutMs,
      signal: options.signal,
      onProgress: options.onProgress,
      resetTimeoutOnProgress: options.resetTimeoutOnProgress,
      maxTotalTimeoutMs: options.maxTotalTimeoutMs,
      onSent: options.onSent,
    };
    const asTask = taskCallParams(s, name, options);
    const where = `${s.name}: tools/call ${name.slice(0, MAX_QUOTED_CHARS)}`;
    // V8: without the task module no task is asked for; a call that needs one says what to pass.
    if (!s.tasks && (asTask || (s.era === "modern" && s.taskSupport.get(name) === "required" && taskIdentity(s, s.who)))) throw noTasks(where);
    const params = withMeta(asTask ? { name, arguments: args, task: asTask } : { name, arguments: args }, options.meta);
    const known = s.paramHeaders;
    const declared = known?.get(name);
    if (declared?.length) opts.headers = paramHeaderValues(declared, args);
    // A task's progress token is its tools/call id (V8): captured only when a task may answer.
    let callId: string | number | undefined;
    if (options.onProgress && (asTask || s.taskWho)) opts.onId = (id) => (callId = id);
    const sentAt = Date.now();
    let raw: JsonRecord;
    try {
      // Awaited here, not through #callOnce: one promise and one hop less per call.
      raw = await this.#rpc("tools/call", params, opts, options.once === true);
      if (needsInput(raw)) raw = await this.#callOnce(name, params, opts, options.signal, options.once === true, raw);
    } catch (e) {
      // A modern server that runs this tool only as a task refuses a client without the extension (-32021).
      if (!s.tasks && e instanceof JsonRpcError && e.rpcCode === MODERN_ERRORS.missingClientCapability) {
        const required = isRecord(e.data) && isRecord(e.data.requiredCapabilities) ? e.data.requiredCapabilities.extensions : undefined;
        if (isRecord(required) && Object.hasOwn(required, TASKS_EXTENSION)) throw noTasks(where);
      }
      if (options.once === true) throw e;
      // Spec 2026-07-28 (x-mcp-header): on a header mismatch the client SHOULD list
      // the tools again (the declarations may be new, or never listed) and retry once.
      if (!known || !(e instanceof JsonRpcError) || e.rpcCode !== MODERN_ERRORS.headerMismatch) throw e;
      s.listCache.delete("tools/list");
      await this.listTools({ signal: options.signal });
      const fresh = known.get(name);
      if (!fresh?.length || JSON.stringify(fresh) === JSON.stringify(declared ?? [])) throw e;
      opts.headers = paramHeaderValues(fresh, args);
      raw = await this.#callOnce(name, params, opts, options.signal);
    }
    if (!isTaskAnswer(raw, s.era, asTask !== undefined)) return parseCallToolResult(raw, where);
    // A task answer to a request that did not declare the extension is invalid (2026-07-28 tasks).
    if (!s.tasks) throw new ProtocolError(`${where}: the server answered with a task this client did not declare`);
    // A task answer is followed to its end (V8): the caller sees one call.
    // W5: the call itself reached the server; a failed poll never reads as "not sent".
    const following = s.tasks.follow(raw, where, {
      era: s.era,
      capabilities: s.capabilities,
      session: s.session,
      answer: s.answer,
      requestTimeoutMs: s.requestTimeoutMs,
      rpc: (method, p, o) => this.#rpc(method, p, o),
      callTimeoutMs: opts.timeoutMs ?? null,
      sentAt,
      progressToken: callId,
      signal: options.signal,
      onProgress: options.onProgress,
      listen: s.era === "modern" ? (taskId, acknowledged) => this.#listen().watchTask(taskId, acknowledged) : undefined,
    });
    try {
      return await following;
    } catch (e) {
      throw sentBefore(e);
    }
  }

  // One tools/call to its complete result: input_required rounds answered (V2);
  // a task answer is returned as it is. One request and no extra copy when the
  // first answer is complete (the common case, measured on the stdio round trip).
  async #callOnce(name: string, params: JsonRecord, opts: RequestOptions, signal: AbortSignal | undefined, once = false, answer?: JsonRecord): Promise<JsonRecord> {
    const first = answer ?? (await this.#rpc("tools/call", params, opts, once));
    if (!needsInput(first)) return first;
    const where = `${this.#s.name}: tools/call ${name.slice(0, MAX_QUOTED_CHARS)}`;
    return completeWithInput(where, "tools/call", params, (p) => this.#rpc("tools/call", p, opts, once), this.#s.answer, signal, first);
  }

  /** Lists every resource, following `nextCursor` (V3). */
  listResources(options: { signal?: AbortSignal } = {}): Promise<McpResource[]> {
    return listAll(this.#s, this.#list, "resources/list", "resources", parseResource, options);
  }

  /** Lists every resource template, following `nextCursor` (V3). */
  listResourceTemplates(options: { signal?: AbortSignal } = {}): Promise<McpResourceTemplate[]> {
    return listAll(this.#s, this.#list, "resources/templates/list", "resourceTemplates", parseResourceTemplate, options);
  }

  /** Lists one page of resources (for callers that page themselves, T11). */
  async listResourcesPage(cursor?: string, options: { signal?: AbortSignal } = {}): Promise<{ resources: McpResource[]; nextCursor?: string }> {
    const { items, next } = await listPage(this.#s, this.#list, "resources/list", "resources", parseResource, cursor, { signal: options.signal });
    return next === undefined ? { resources: items } : { resources: items, nextCursor: next };
  }

  /** Reads a resource (answering `input_required` rounds in the modern era). */
  async readResource(uri: string, options: { signal?: AbortSignal } = {}): Promise<ResourceContents[]> {
    return this.#complete("resources/read", { uri }, parseReadResourceResult, options.signal);
  }

  /** Lists every prompt, following `nextCursor` (V3). */
  listPrompts(options: { signal?: AbortSignal } = {}): Promise<McpPrompt[]> {
    return listAll(this.#s, this.#list, "prompts/list", "prompts", parsePrompt, options);
  }

  /** Gets a rendered prompt (answering `input_required` rounds in the modern era). */
  async getPrompt(name: string, args: Record<string, string> = {}, options: { signal?: AbortSignal } = {}): Promise<GetPromptResult> {
    return this.#complete("prompts/get", { name, arguments: args }, parseGetPromptResult, options.signal);
  }

  /** Ends the connection (stdio: the process; HTTP: the session is released). Idempotent. */
  async close(): Promise<void> {
    this.#s.subscriptions?.close();
    await this.#s.session.close();
  }

  /**
   * {@link close}, for `await using client = await McpClient.connect(...)`: leaving the block ends the connection.
   * @internal Declared through {@link AsyncDisposer}, so the types load where the lib has no Symbol.asyncDispose.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #listen(): Subscriptions {
    const s = this.#s;
    s.subscriptions ??= new Subscriptions({
      request: (method, params, options) => this.#rpc(method, params, options),
      closed: () => s.session.closeError !== undefined,
      log: s.log ?? (() => {}),
      name: s.name,
      resync: (ack) => {
        for (const kind of ["tools", "prompts", "resources"] as const) {
          if (ack[`${kind}ListChanged`] !== true) continue;
          dropCachedLists(s, kind);
          for (const listener of s.resyncListeners) listener(kind);
        }
      },
    });
    return s.subscriptions;
  }

  // One request in the current era: modern requests carry `_meta` (V2) and are
  // retried once with another revision on -32022.
  #rpc(method: string, params: JsonRecord | undefined, options: RequestOptions, once = false): Promise<JsonRecord> {
    // Not async in the legacy era: one promise per request, not two.
    return this.#s.era === "legacy" ? this.#s.session.request(method, params, options) : this.#rpcModern(method, params, options, once);
  }

  async #rpcModern(method: string, params: JsonRecord | undefined, options: RequestOptions, once = false): Promise<JsonRecord> {
    const s = this.#s;
    // The tasks extension is declared on the requests it concerns (2026-07-28 tasks).
    const who = s.taskWho && (method === "tools/call" || method.startsWith("tasks/") || method === "subscriptions/listen") ? s.taskWho : s.who;
    for (let attempt = 0; ; attempt++) {
      const meta = modernMeta(s.protocolVersion, who, s.logLevel);
      try {
        return await s.session.request(method, withMeta(params ?? {}, meta), options);
      } catch (e) {
        if (once || attempt > 0 || !(e instanceof JsonRpcError) || e.rpcCode !== MODERN_ERRORS.unsupportedProtocolVersion) throw e;
        const next = pickVersion(isRecord(e.data) ? e.data.supported : undefined);
        if (next === undefined || !isSupportedModernVersion(next)) throw e;
        s.protocolVersion = next;
        s.session.transport.setProtocolVersion?.(next);
      }
    }
  }

  // A request that may answer input_required (tools/call, prompts/get, resources/read),
  // its complete result parsed. The options are the request bound's unless given (tools/call).
  async #complete<T>(
    method: string,
    params: JsonRecord,
    parse: (result: JsonRecord, where: string) => T,
    signal: AbortSignal | undefined,
    options: RequestOptions = { timeoutMs: this.#s.requestTimeoutMs, signal },
    where = `${this.#s.name}: ${method}`,
    once = false,
  ): Promise<T> {
    return parse(await completeWithInput(where, method, params, (p) => this.#rpc(method, p, options, once), this.#s.answer, signal), where);
  }

}

/** {@link McpClient.close} for `await using` (P7: see {@link AsyncDisposer}). */
export interface McpClient extends AsyncDisposer {}

/**
 * `; last stderr: …` for a transport that keeps its server's stderr (stdio, S3):
 * a server that cannot reach its upstream often says so only there, so a
 * handshake timeout carries it, cut at MAX_QUOTED_TEXT_CHARS.
 */
function stderrNote(transport: Transport): string {
  const tail: unknown = (transport as { stderrTail?: unknown }).stderrTail;
  return typeof tail === "string" && tail ? `; last stderr: ${JSON.stringify(tail.slice(-MAX_QUOTED_TEXT_CHARS))}` : "";
}
