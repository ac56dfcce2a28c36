/**
 * `connectMcp`: one MCP server as identity-bound, authorized, bounded agent tools
 * (T1–T13). The web entry connects HTTP servers; the Node entry's `connectMcp`
 * adds stdio through the `transportFactory` hook.
 *
 * @module
 */
import { CancelledError, ConfigError, StaleContractError, TimeoutError, UnauthorizedError, YadaError } from "../errors.js";
import { DEFAULT_HANDSHAKE_TIMEOUT_MS } from "../limits.js";
import { silentLogger, type Logger } from "../log.js";
import { McpClient } from "../mcp/client.js";
import type { McpPrompt, McpTool } from "../mcp/types.js";
import { HttpTransport, type FetchFunction } from "../transport/http.js";
import type { Transport } from "../transport/types.js";
import { checkTimeout, parseServerConfig, type McpReadConfig, type McpServerConfig } from "./config.js";
import { contractOf, toolSpec, type ContractEntry } from "./contract.js";
import { ConnectionGate, type McpAccess } from "./gate.js";
import { assertUniqueToolNames } from "./names.js";
import { checkPromptArgs, listAllPrompts, promptText, type McpPromptText } from "./prompts.js";
import { mcpReadTool } from "./read-tool.js";
import { resourceTools } from "./resources.js";
import { prepareTools, selectReadTools } from "./select.js";
import type { Identity, ReadTool, Tool } from "./types.js";

/** What a {@link TransportFactory} gets besides the server configuration. */
export interface TransportContext {
  logger: Logger;
  fetch?: FetchFunction;
}

/** Builds the transport for a validated server configuration (the Node entry adds stdio). */
export type TransportFactory = (server: McpServerConfig, context: TransportContext) => Transport;

/** Options of {@link connectMcp} (its third argument). */
export interface ConnectOptions {
  /** Overrides the server's `timeoutMs`: bound on setup, each discovery request and each call (T10). */
  timeoutMs?: number;
  /** Aborts the setup (handshake and discovery). Calls take their own signal. */
  signal?: AbortSignal;
  /** Builds the transport; default {@link httpTransportFactory}. */
  transportFactory?: TransportFactory;
  /** Diagnostics sink; silent by default. */
  logger?: Logger;
  /** The fetch HTTP servers are reached with; default the global one. */
  fetch?: FetchFunction;
}

/** Options of {@link McpConnection.prompts} and {@link McpConnection.getPrompt}. */
export interface PromptCallOptions {
  signal?: AbortSignal;
}

/**
 * A live connection to one MCP server. Every method checks the caller's identity
 * against the one the connection is bound to (T1).
 */
export interface McpConnection<T extends Tool = Tool> {
  /** The server name (the tool name prefix). */
  readonly server: string;
  /** The tools for the model, named `server__tool` (T2). */
  readonly tools: readonly T[];
  /** The canonical contract of the exposed tools (T13); equal strings, equal contracts. */
  readonly contract: string;
  /** False after close(), after the contract changed (T13), the session expired or the connection was lost. */
  isConnected(): boolean;
  /**
   * Lists the server's prompts (T12), at most `MAX_PROMPT_PAGES` pages.
   *
   * @throws UnauthorizedError (`unauthorized`) for another identity or when `authorize(identity, "list_prompts")` is not true;
   * StaleContractError (`stale_contract`); ConnectionClosedError (`connection_closed`) after close(); LimitError (`limit`).
   */
  prompts(identity: Identity, options?: PromptCallOptions): Promise<McpPrompt[]>;
  /**
   * Renders a prompt as text messages (T12); authorized as `get_prompt`.
   *
   * @throws as {@link McpConnection.prompts}; ValidationError (`validation`) for non-string arguments; JsonRpcError (`jsonrpc`).
   */
  getPrompt(identity: Identity, name: string, args?: Record<string, string>, options?: PromptCallOptions): Promise<McpPromptText>;
  /** Ends the connection (stdio: the process; HTTP: the session). Idempotent; later calls fail with `connection_closed`. */
  close(): Promise<void>;
}

/**
 * The default {@link TransportFactory}: an {@link HttpTransport} carrying the
 * configured headers (A1), e.g. `Authorization: Bearer …`. A stdio configuration
 * needs the Node entry.
 *
 * @throws ConfigError (`config`) for a stdio configuration, or a header the H10 rules refuse.
 *
 * @example
 * ```ts
 * const counting: TransportFactory = (server, context) => httpTransportFactory(server, { ...context, fetch: countingFetch });
 * ```
 */
export const httpTransportFactory: TransportFactory = (server, context) => {
  if (server.url === undefined) {
    throw new ConfigError(`${server.name}: stdio servers need the Node entry, "yada/node"`);
  }
  return new HttpTransport(server.url, { logger: context.logger, fetch: context.fetch, headers: server.headers });
};

/** The contract entries of the tools a configuration exposes from `listed` (T13). */
function contractEntries(server: McpServerConfig, listed: readonly McpTool[]): ContractEntry[] {
  const entries: ContractEntry[] = selectReadTools(server, listed).map((t) => ({ remote: t.name, effect: "read", spec: toolSpec(t) }));
  if (server.resources === true) {
    entries.push({ remote: "list_resources", effect: "read", spec: "resources/list" }, { remote: "read_resource", effect: "read", spec: "resources/read" });
  }
  return entries;
}

/**
 * Connects one MCP server and returns its read tools, bound to `access.identity`.
 *
 * - T1: every tool call and method checks the caller's identity; a mismatch throws `unauthorized`.
 * - T2: tools are named `server__tool`, at most 64 characters.
 * - T3: without `readTools`, exactly the `readOnlyHint: true` tools; with it, the listed ones.
 * - T4: `authorize(identity, remoteName)` is awaited on every call; a denial is an
 *   error result the model sees, and nothing is sent.
 * - T5, T6: arguments are validated against the input schema and bounded to 32,000 UTF-8 bytes.
 * - T7, T8, T9: results are rendered and bounded; `isError` becomes `tool_failed`;
 *   structured content is checked against the output schema.
 * - T10: `timeoutMs` bounds setup, discovery requests and calls; signals cancel.
 * - T11: `resources: true` adds `server__list_resources` and `server__read_resource`.
 * - T12: `prompts` and `getPrompt` are host calls with the same checks.
 * - T13: on `notifications/tools/list_changed` the catalog is read again; a changed
 *   contract makes the connection stale: calls throw "MCP tool contract changed; reconnect required".
 *
 * A tool's `execute` returns error results for what the model can react to
 * (denied, invalid arguments, limits, timeouts, server errors, tool failures) and
 * throws for what it cannot: `unauthorized` (identity), `stale_contract`,
 * `session_expired`, `connection_closed`, `cancelled`.
 *
 * @throws ConfigError (`config`) for an invalid configuration, identity or option
 * (never echoing header values), or a configuration with `writeTools` / `confirmTools`,
 * which need the action layer; ToolNotFoundError (`tool_not_found`) for a missing
 * `readTools` name; LimitError (`limit`) for a name over 64 characters or too many
 * pages; SchemaError (`schema`) for an input or output schema that does not compile;
 * TimeoutError (`timeout`) when setup exceeds `timeoutMs`; CancelledError
 * (`cancelled`); and connection errors (`transport`, `http`, `connection_closed`, `protocol`).
 *
 * @example
 * ```ts
 * const connection = await connectMcp(
 *   { name: "catalog", url: "https://catalog.example/mcp", headers: { authorization: `Bearer ${token}` } },
 *   { identity, authorize: async (who, tool) => permissions.canRead(who, tool) },
 *   { timeoutMs: 30_000 },
 * );
 * try {
 *   await run({ provider, tools: connection.tools, identity, input: "Find product A" });
 * } finally {
 *   await connection.close();
 * }
 * ```
 */
export function connectMcp(server: McpReadConfig, access: McpAccess, options?: ConnectOptions): Promise<McpConnection<ReadTool>>;
export function connectMcp(server: McpServerConfig, access: McpAccess, options?: ConnectOptions): Promise<McpConnection<Tool>>;
export async function connectMcp(server: McpServerConfig, access: McpAccess, options: ConnectOptions = {}): Promise<McpConnection<Tool>> {
  const config = parseServerConfig(server);
  if (config.writeTools !== undefined || config.confirmTools !== undefined) {
    throw new ConfigError(`${config.name}: writeTools and confirmTools need the action layer, not in this connectMcp`);
  }
  if (access === null || typeof access !== "object") throw new ConfigError("connectMcp needs {identity, authorize}");
  const gate = new ConnectionGate(config.name, access);
  const timeoutMs = options.timeoutMs !== undefined ? checkTimeout(options.timeoutMs, "connectMcp options") : config.timeoutMs;
  const logger = options.logger ?? silentLogger;
  const factory = options.transportFactory ?? httpTransportFactory;
  const transport = factory(config, { logger, fetch: options.fetch });

  const setupMs = timeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), setupMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  let client: McpClient | undefined;
  let changedDuringSetup = false;
  try {
    const connected = await McpClient.connect(transport, {
      name: config.name,
      logger,
      handshakeTimeoutMs: setupMs,
      signal,
      callTimeoutMs: timeoutMs,
      requestTimeoutMs: timeoutMs,
    });
    client = connected;
    // T13: a change announced while the catalog is being read is checked once setup is done.
    const stopWatching = connected.onNotification((method) => {
      if (method === "notifications/tools/list_changed") changedDuringSetup = true;
    });
    const listed = await connected.listTools({ signal });
    stopWatching();
    const skip = (tool: string, reason: string): void => logger("warn", "left out a read tool", { server: config.name, tool: tool.slice(0, 80), reason });
    const selected = prepareTools(config.name, selectReadTools(config, listed, skip));
    const tools: ReadTool[] = selected.map((s) => mcpReadTool(gate, connected, s, timeoutMs));
    if (config.resources === true) tools.push(...resourceTools(gate, connected, config.name));
    assertUniqueToolNames(tools);
    const contract = contractOf(config.name, contractEntries(config, listed));
    const connection = new Connection(gate, connected, config, contract, Object.freeze(tools), logger);
    if (changedDuringSetup) connection.recheck();
    return connection;
  } catch (e) {
    await client?.close().catch(() => {});
    await transport.close().catch(() => {});
    if (deadline.signal.aborted && !(options.signal?.aborted ?? false) && (e instanceof CancelledError || e instanceof TimeoutError)) {
      throw new TimeoutError(`${config.name}: connecting and discovering tools did not finish within ${setupMs} ms`, setupMs);
    }
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

/** The connection behind {@link connectMcp}. */
class Connection implements McpConnection<ReadTool> {
  readonly server: string;
  readonly tools: readonly ReadTool[];
  readonly contract: string;
  readonly #gate: ConnectionGate;
  readonly #client: McpClient;
  readonly #config: McpServerConfig;
  readonly #log: Logger;
  #checking = false;
  #again = false;

  constructor(gate: ConnectionGate, client: McpClient, config: McpServerConfig, contract: string, tools: readonly ReadTool[], log: Logger) {
    this.server = config.name;
    this.tools = tools;
    this.contract = contract;
    this.#gate = gate;
    this.#client = client;
    this.#config = config;
    this.#log = log;
    // onListChanged hides the era: plain notifications (legacy) or a
    // subscriptions/listen stream (modern).
    // resync: in the modern era a change made before the listen was acknowledged
    // (between discovery and subscription) is caught by comparing once more.
    client.onListChanged(
      (kind) => {
        if (kind === "tools") this.recheck();
      },
      { resync: true },
    );
    client.onClose((error) => gate.fail(error));
  }

  isConnected(): boolean {
    return this.#gate.usable && !this.#client.isClosed;
  }

  /**
   * T13: reads the catalog again and compares the exposed contract. Calls wait
   * for the comparison; a change (or a catalog that can no longer be read) makes
   * the connection stale. Notifications during a check run one more check.
   */
  recheck(): void {
    if (!this.#gate.usable) return;
    if (this.#checking) {
      this.#again = true;
      return;
    }
    this.#checking = true;
    this.#gate.hold(this.#compare().finally(() => (this.#checking = false)));
  }

  async #compare(): Promise<void> {
    try {
      do {
        this.#again = false;
        const listed = await this.#client.listTools();
        let now: string | undefined;
        try {
          now = contractOf(this.server, contractEntries(this.#config, listed));
        } catch {
          now = undefined; // a configured read tool disappeared or turned mutating
        }
        if (now !== this.contract) {
          this.#log("warn", "MCP tool contract changed; the connection is stale", { server: this.server });
          this.#gate.fail(new StaleContractError());
          return;
        }
      } while (this.#again && this.#gate.usable);
    } catch (e) {
      if (this.#gate.closed) return;
      this.#log("warn", "tool catalog unreadable after list_changed; the connection is stale", {
        server: this.server,
        error: e instanceof YadaError ? e.code : "unknown",
      });
      this.#gate.fail(new StaleContractError());
    }
  }

  async #hostCall<R>(identity: Identity, authorizeAs: string, call: () => Promise<R>): Promise<R> {
    await this.#gate.enter(identity);
    if (!(await this.#gate.permit(authorizeAs))) {
      throw new UnauthorizedError(`${this.server}: the host did not authorize ${authorizeAs} for this caller`);
    }
    try {
      return await call();
    } catch (e) {
      if (e instanceof YadaError && (e.code === "session_expired" || e.code === "connection_closed")) this.#gate.fail(e);
      throw e;
    }
  }

  prompts(identity: Identity, options: PromptCallOptions = {}): Promise<McpPrompt[]> {
    return this.#hostCall(identity, "list_prompts", () => listAllPrompts(this.#client, options.signal));
  }

  async getPrompt(identity: Identity, name: string, args?: Record<string, string>, options: PromptCallOptions = {}): Promise<McpPromptText> {
    // The caller and the connection are checked first (T1, T12), then what was asked.
    return this.#hostCall(identity, "get_prompt", async () => {
      if (typeof name !== "string" || name === "") throw new ConfigError(`${this.server}: a prompt name must be a non-empty string`);
      return promptText(await this.#client.getPrompt(name, checkPromptArgs(args), options));
    });
  }

  async close(): Promise<void> {
    this.#gate.close();
    await this.#client.close();
  }
}
