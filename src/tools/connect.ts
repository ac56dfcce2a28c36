/**
 * `connectMcp`: one MCP server as identity-bound, authorized, bounded agent tools
 * (T1–T13). The web entry connects HTTP servers; the Node entry's `connectMcp`
 * adds stdio through the `transportFactory` hook.
 *
 * @module
 */
import { heldDeadline } from "../transport/hold.js";
import { refusedBefore } from "../transport/not-sent.js";
import {
  CancelledError,
  ConfigError,
  ConnectionClosedError,
  StaleContractError,
  TimeoutError,
  UnauthorizedError,
  YadaError,
} from "../errors.js";
import { DEFAULT_HANDSHAKE_TIMEOUT_MS, MAX_QUOTED_CHARS } from "../limits.js";
import { silentLogger, type Logger } from "../log.js";
import { McpClient } from "../mcp/client.js";
import { isRecord, type McpPrompt, type McpTool } from "../mcp/types.js";
import { shallowEnough } from "../util/record.js";
import { tooDeep } from "../schema/equal.js";
import { HttpTransport, type FetchFunction, type LegacyFallback } from "../transport/http.js";
import type { TaskCalls } from "../mcp/task-module.js";
import type { Transport } from "../transport/types.js";
import type { McpTracing, TraceOptions } from "../trace/types.js";
import { checkTimeout, parseServerConfig, type McpReadConfig, type McpServerConfig } from "./config.js";
import { contractOf } from "./contract.js";
import { bindIdentity, checkCaller, type ConnectionGate, type McpAccess } from "./gate.js";
import { assertUniqueToolNames } from "./names.js";
import { checkPromptArgs, promptText, type McpPromptText } from "./prompts.js";
import { mcpReadTool } from "./read-tool.js";
import type { McpResources } from "./resources.js";
import { checkOptions } from "../util/options.js";
import { quote } from "../util/text.js";
import { roleEntries, selectRoles, type SelectedRoles } from "./roles.js";
import type { Authorize, ConfirmTool, Identity, ReadTool, Tool, WriteTool } from "./types.js";
import type { McpWrites } from "./action-tools.js";
import type { AsyncDisposer } from "../util/dispose.js";

/** What a {@link TransportFactory} gets besides the server configuration. */
export interface TransportContext {
  logger: Logger;
  fetch?: FetchFunction;
  /** The HTTP+SSE fallback for 2024-11-05 servers (H14), when {@link ConnectOptions} `fallback` gave it. */
  fallback?: LegacyFallback;
}

/** Builds the transport for a validated server configuration (the Node entry adds stdio). */
export type TransportFactory = (server: McpServerConfig, context: TransportContext) => Transport;

/** Options of {@link connectMcp} (its third argument). */
export interface ConnectOptions extends TraceOptions {
  /**
   * Overrides the server's `timeoutMs`: bound on setup, each discovery request and each
   * call (T10). The user's time in an interactive OAuth login is not counted (A2).
   */
  timeoutMs?: number;
  /** Aborts the setup (handshake and discovery). Calls take their own signal. */
  signal?: AbortSignal;
  /** Builds the transport; default {@link httpTransportFactory}. */
  transportFactory?: TransportFactory;
  /** Diagnostics sink; silent by default. */
  logger?: Logger;
  /** The fetch HTTP servers are reached with; default the global one. */
  fetch?: FetchFunction;
  /**
   * Write and confirmed tools (W1, W6, W7): `mcpWrites`. A configuration with
   * `writeTools` or `confirmTools` needs it. `yada-mcp/node`'s connectMcp passes it.
   */
  writes?: McpWrites;
  /**
   * The resource tools (T11): `mcpResources`. A configuration with `resources: true`
   * needs it. `yada-mcp/node`'s connectMcp passes it.
   */
  resourceTools?: McpResources;
  /**
   * Task-augmented calls (V8): `taskCalls`. Without it a tool the server runs only as
   * a task (`execution.taskSupport: "required"`) is left out of the read tools (with a
   * warning), and naming one in `readTools` is a `config` error. `yada-mcp/node`'s
   * connectMcp passes it.
   */
  tasks?: TaskCalls;
  /**
   * The HTTP+SSE transport for 2024-11-05 servers (H14): `legacySse`, given to the
   * default transport factory. `yada-mcp/node`'s connectMcp passes it.
   */
  fallback?: LegacyFallback;
  /**
   * The MCP tracing module (O1): `mcpTracing`, needed with `tracer`; the connection's
   * client then traces every request it sends. `yada-mcp/node`'s connectMcp passes it.
   */
  tracing?: McpTracing;
}

/** Options of {@link McpConnection.prompts} and {@link McpConnection.getPrompt}. */
export interface PromptCallOptions {
  signal?: AbortSignal;
}

/**
 * A live connection to one MCP server. Every method checks the caller's identity
 * against the one the connection is bound to (T1). Leaving an `await using` block
 * closes it ({@link AsyncDisposer}).
 */
export interface McpConnection<T extends Tool = Tool> extends AsyncDisposer {
  /** The server name (the tool name prefix). */
  readonly server: string;
  /** The tools for the model, named `server__tool` (T2). */
  readonly tools: readonly T[];
  /** The canonical contract of the exposed tools (T13); equal strings, equal contracts. */
  readonly contract: string;
  /** False after close(), after the contract changed (T13), the session expired or the connection was lost. */
  isConnected(): boolean;
  /**
   * Lists the server's prompts (T12), at most `MAX_LIST_PAGES` pages.
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
 * configured headers (A1), e.g. `Authorization: Bearer …`, and the HTTP+SSE
 * fallback when the context has one (H14). A stdio configuration needs the Node entry.
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
  // H14: a 2024-11-05 server is reached over HTTP+SSE when the fallback module was given.
  const options = { logger: context.logger, fetch: context.fetch, headers: server.headers, name: server.name, fallback: context.fallback };
  return new HttpTransport(server.url, { ...options, ...(server.auth !== undefined && { auth: server.auth }) });
};

/**
 * The read tools without those a server runs only as a task (V8), for a connection
 * without the task module: each left out is reported to `skip`.
 *
 * @throws ConfigError (`config`) when `readTools` names one.
 */
function withoutTaskOnly(config: McpServerConfig, reads: McpTool[], skip: (tool: string, reason: string) => void): McpTool[] {
  const named = new Set(config.readTools ?? []);
  return reads.filter((tool) => {
    if (tool.execution?.taskSupport !== "required") return true;
    if (named.has(tool.name)) throw new ConfigError(`${config.name}: read tool ${quote(tool.name)} runs only as a task: pass { tasks: taskCalls }`);
    skip(tool.name, "runs only as a task: no tasks: taskCalls");
    return false;
  });
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
 * - T10: `timeoutMs` bounds setup, discovery requests and calls; signals cancel. Time the
 *   user spends in an interactive OAuth login does not count against it (A2).
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
 * Writes (W1–W7): `writeTools` maps each reviewed mutation to its read-only
 * preparation and receipt helpers; the mutation becomes a {@link WriteTool} and the
 * helpers are hidden. `confirmTools` (names, or `"*"` for every tool with no other
 * role that is not annotated `readOnlyHint: true`) become {@link ConfirmTool}s.
 * Neither executes inside a plain `run`: an action layer prepares, records, and
 * after approval executes them. See docs/server-contract.md for the envelopes.
 *
 * Pay for what you use: the web entry's connectMcp carries only read tools over
 * Streamable HTTP; writes (`writes: mcpWrites`), resource tools
 * (`resourceTools: mcpResources`), task-augmented tools (`tasks: taskCalls`), the
 * HTTP+SSE fallback (`fallback: legacySse`) and traces (`tracing: mcpTracing`) are
 * modules passed in the options. `yada-mcp/node`'s connectMcp passes them all.
 *
 * @throws ConfigError (`config`) for an invalid configuration, identity or option
 * (never echoing header values), overlapping roles, `writeTools` or `confirmTools` without
 * `writes: mcpWrites`, `resources: true` without `resourceTools: mcpResources`, a `readTools` tool that runs only as a task without `tasks: taskCalls`, a helper not annotated
 * `readOnlyHint: true` or a mutation annotated so; ToolNotFoundError (`tool_not_found`)
 * for a missing `readTools`, `writeTools` (mutation or helper) or `confirmTools` name; LimitError (`limit`) for a name over 64 characters or too many
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
  const name = config.name;
  checkOptions(`connectMcp ${name}`, options, "timeoutMs:n signal:a transportFactory logger fetch fallback writes:o resourceTools:o tasks:o tracer:o tracing:o");
  if (options.tracer !== undefined && typeof options.tracing?.session !== "function") throw new ConfigError(`${name}: option tracer needs { tracing: mcpTracing }`);
  // McpClient.connect checks `tasks` (taskCalls); `writes` is checked here, before anything starts.
  const { writes, tasks } = options;
  if (writes ? typeof writes.tools !== "function" || typeof writes.roles !== "function" : config.writeTools !== undefined || config.confirmTools !== undefined) {
    throw new ConfigError(`${name}: writeTools and confirmTools need { writes: mcpWrites }`);
  }
  // W1, W7: roles never overlap (without write roles, readTools holds distinct names already).
  writes?.checkRoles(config);
  const { resourceTools } = options;
  if (config.resources === true && typeof resourceTools?.tools !== "function") throw new ConfigError(`${name}: resources: true needs { resourceTools: mcpResources }`);
  if (!isRecord(access) || typeof access.authorize !== "function") throw new ConfigError("connectMcp needs {identity, authorize: function}");
  const authorize = access.authorize as Authorize;
  // T1: a frozen copy, so later changes to the host's object cannot rebind the connection.
  const identity = bindIdentity(access.identity);
  const timeoutMs = options.timeoutMs !== undefined ? checkTimeout(options.timeoutMs, "connectMcp options") : config.timeoutMs;
  const logger = options.logger ?? silentLogger;
  const transport = (options.transportFactory ?? httpTransportFactory)(config, { logger, fetch: options.fetch, fallback: options.fallback });

  // The connection's state: closed by the host; the failure that made it unusable
  // (a changed contract, an expired session, a lost connection; the first wins);
  // the contract check in progress after a list_changed (T13).
  let closed = false;
  let failure: YadaError | undefined;
  let checking: Promise<void> | undefined;
  const usable = (): boolean => !closed && failure === undefined;
  const end = (error: YadaError): void => {
    if (usable()) failure = error;
  };
  /**
   * Waits for a contract check in progress, then requires the connection open. What it
   * throws says `notSent` (W5): the call it admits has not been sent, whatever became
   * of the earlier call whose failure made the connection unusable.
   */
  // A promise only while a check is in progress (then checked again once it settles):
  // a call pays for waiting only when it waits.
  const settled = (): Promise<void> | void => {
    if (checking) return checking.then(settled);
    if (closed) throw new ConnectionClosedError(`${name}: the MCP connection is closed`, {}, { notSent: true });
    if (failure) throw refusedBefore(failure, failure.message);
  };
  const gate: ConnectionGate = {
    enter(caller) {
      checkCaller(name, identity, caller);
      return settled();
    },
    async permit(remoteName) {
      const allowed = await authorize(identity, remoteName);
      // A list_changed may have arrived while the host decided: the call goes out only
      // once that contract check has settled, and only if the contract still holds.
      await settled();
      return allowed === true;
    },
    fail(e) {
      if (e instanceof YadaError && (e.code === "session_expired" || e.code === "connection_closed")) end(e);
    },
  };

  const setupMs = timeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
  const deadline = new AbortController();
  // A2: the time the user spends in an interactive login does not count.
  const timer = heldDeadline(transport, setupMs, () => deadline.abort());
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  let client: McpClient | undefined;
  let changedDuringSetup = false;
  try {
    const connected = await McpClient.connect(transport, {
      name,
      logger,
      handshakeTimeoutMs: setupMs,
      signal,
      callTimeoutMs: timeoutMs,
      requestTimeoutMs: timeoutMs,
      tasks, // V8: with the task module, a task-required tool is a read tool like any other
      tracer: options.tracer,
      traceContent: options.traceContent,
      tracing: options.tracing,
    });
    client = connected;
    // T13: a change announced while the catalog is being read is checked once setup is done.
    const stopWatching = connected.onNotification((method) => {
      if (method === "notifications/tools/list_changed") changedDuringSetup = true;
    });
    const listed = await connected.listTools({ signal });
    stopWatching();
    const skip = (tool: string, reason: string): void => logger("warn", "left out a read tool", { server: name, tool: tool.slice(0, MAX_QUOTED_CHARS), reason });
    // The roles of a listing, the same way at connect and on every comparison after a change (T13).
    const rolesOf = (list: McpTool[], onSkip = (_tool: string, _reason: string): void => {}): SelectedRoles => {
      const selected = selectRoles(config, list, onSkip, writes);
      if (!tasks) selected.reads = withoutTaskOnly(config, selected.reads, onSkip);
      return selected;
    };
    const roles = rolesOf(listed, skip);
    const tools: Tool[] = roles.reads.map((remote) => mcpReadTool(gate, connected, name, remote, timeoutMs));
    if (config.resources === true && resourceTools) tools.push(...resourceTools.tools(gate, connected, name));
    if (writes) tools.push(...(await writes.tools({ config, roles, gate, client: connected, identity, timeoutMs })));
    assertUniqueToolNames(tools);
    // T13: the contract string is built when first needed (read, or compared after a
    // change): canonicalizing every exposed spec was most of a large catalog's setup.
    // What it keeps is bounded now, as the catalog enters, so building it cannot fail.
    const entries = roleEntries(config, roles);
    // The entries sit one level down in what contractOf canonicalizes ({ server, tools }).
    if (!shallowEnough(entries, 1)) throw tooDeep();
    let contract: string | undefined;
    const contractNow = (): string => (contract ??= contractOf(name, entries));

    /**
     * T13: reads the catalog again and compares the exposed contract. Calls wait
     * for the comparison; a change (or a catalog that can no longer be read) makes
     * the connection stale. Notifications during a check run one more check.
     */
    let again = false;
    const compare = async (): Promise<void> => {
      let reason = "changed";
      try {
        for (;;) {
          again = false;
          const relisted = await connected.listTools();
          let now: string | undefined;
          try {
            now = contractOf(name, roleEntries(config, rolesOf(relisted)));
          } catch {
            // a configured read tool disappeared or turned mutating
          }
          if (now !== contractNow()) break;
          if (!again || !usable()) return;
        }
      } catch (e) {
        if (closed) return;
        reason = e instanceof YadaError ? e.code : "unknown";
      } finally {
        checking = undefined;
      }
      // Stale first: a logger that throws must not keep a changed contract usable.
      end(new StaleContractError());
      logger("warn", "MCP tool contract changed or unreadable; the connection is stale", { server: name, reason });
    };
    const recheck = (): void => {
      if (!usable()) return;
      if (checking) again = true;
      // Waiting calls must not see a rejection (only a throwing logger makes one).
      else checking = compare().catch(() => {});
    };
    // onListChanged hides the era: plain notifications (legacy) or a
    // subscriptions/listen stream (modern).
    // resync: in the modern era a change made before the listen was acknowledged
    // (between discovery and subscription) is caught by comparing once more.
    connected.onListChanged(
      (kind) => {
        if (kind === "tools") recheck();
      },
      { resync: true },
    );
    connected.onClose(end);
    if (changedDuringSetup) recheck();

    /** A host call (T12): the caller and the connection are checked first, then what was asked. */
    const hostCall = async <R>(caller: Identity, authorizeAs: string, call: () => Promise<R>): Promise<R> => {
      await gate.enter(caller);
      if (!(await gate.permit(authorizeAs))) throw new UnauthorizedError(`${name}: the host denied ${authorizeAs} to this caller`);
      return call().catch((e: unknown) => {
        gate.fail(e);
        throw e;
      });
    };
    const close = async (): Promise<void> => {
      closed = true;
      await connected.close();
    };
    return {
      server: name,
      tools: Object.freeze(tools),
      get contract() {
        return contractNow();
      },
      isConnected: () => usable() && !connected.isClosed,
      prompts: (caller, opts = {}) => hostCall(caller, "list_prompts", () => connected.listPrompts({ signal: opts.signal })),
      getPrompt: (caller, prompt, args, opts = {}) =>
        hostCall(caller, "get_prompt", async () => {
          if (typeof prompt !== "string" || prompt === "") throw new ConfigError(`${name}: a prompt name must be a non-empty string`);
          return promptText(await connected.getPrompt(prompt, checkPromptArgs(args), opts));
        }),
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (e) {
    await client?.close().catch(() => {});
    await transport.close().catch(() => {});
    if (deadline.signal.aborted && !(options.signal?.aborted ?? false) && (e instanceof CancelledError || e instanceof TimeoutError)) {
      throw new TimeoutError(`${name}: connecting did not finish within ${setupMs} ms`, setupMs);
    }
    throw e;
  } finally {
    timer.clear();
  }
}
