/**
 * `reconnectingMcp` (W10, read path): a read connection that replaces itself
 * after a changed contract (T13) or an expired HTTP session, but only with a
 * connection whose contract equals the original one, and that waits 30 s after a
 * failed reconnect before trying again.
 *
 * @module
 */
import { ConfigError, ConnectionClosedError, StaleContractError, YadaError } from "../errors.js";
import { RECONNECT_BACKOFF_MS } from "../limits.js";
import type { McpPrompt } from "../mcp/types.js";
import type { McpReadConfig } from "./config.js";
import { connectMcp, type ConnectOptions, type McpConnection, type PromptCallOptions } from "./connect.js";
import { bindIdentity, checkCaller, type McpAccess } from "./gate.js";
import type { McpPromptText } from "./prompts.js";
import { readTool } from "./read-tool.js";
import type { Identity, ReadTool } from "./types.js";

/** Options of {@link reconnectingMcp}: those of connectMcp plus an injectable clock. */
export interface ReconnectOptions extends ConnectOptions {
  /** Milliseconds since some origin; default `Date.now`. Tests inject a fake clock. */
  now?: () => number;
}

/** Whether an error means "this connection is gone, a new one may work". */
function replaceable(e: unknown): boolean {
  return e instanceof YadaError && (e.code === "stale_contract" || e.code === "session_expired");
}

/**
 * Connects like {@link connectMcp} and returns a connection with the same tools
 * whose calls survive a changed contract or an expired session:
 *
 * - When the current connection is not connected (stale, session expired, lost), or a
 *   call fails with `stale_contract` or `session_expired` (neither reached the
 *   tool), it connects again and accepts the new connection only if its contract
 *   equals the original one; the failed call is then made once on it.
 * - A reconnect that fails (including a different contract, code `stale_contract`)
 *   is remembered: for `RECONNECT_BACKOFF_MS` (30 s) every call rethrows that same
 *   error without reconnecting. After that the next call tries again.
 * - Identity, authorization and every bound of connectMcp apply to each call; the
 *   identity is checked before any reconnect.
 *
 * `options.signal` bounds only the first connect; reconnects are bounded by `timeoutMs`.
 *
 * @throws as {@link connectMcp} for the first connect.
 *
 * @example
 * ```ts
 * const connection = await reconnectingMcp({ name: "catalog", url }, { identity, authorize });
 * await run({ provider, tools: connection.tools, identity, input });
 * await connection.close();
 * ```
 */
export async function reconnectingMcp(server: McpReadConfig, access: McpAccess, options: ReconnectOptions = {}): Promise<McpConnection<ReadTool>> {
  // Every reconnect uses a frozen copy of what the first connect used: a host that
  // later changes its config object (another URL, other headers) or identity cannot
  // send the connection's credentials elsewhere.
  let copy: McpReadConfig;
  try {
    copy = structuredClone(server);
  } catch {
    throw new ConfigError("an MCP server config must be plain data (no functions)");
  }
  const pinned = deepFreeze(copy);
  const pinnedAccess: McpAccess = Object.freeze({ identity: bindIdentity(access.identity), authorize: access.authorize });
  const first = await connectMcp(pinned, pinnedAccess, options);
  const { signal: _setupOnly, now, ...rest } = options;
  return new Reconnecting(first, pinnedAccess.identity, () => connectMcp(pinned, pinnedAccess, rest), now ?? Date.now);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

class Reconnecting implements McpConnection<ReadTool> {
  readonly server: string;
  readonly contract: string;
  readonly tools: readonly ReadTool[];
  readonly #identity: Readonly<Identity>;
  readonly #connect: () => Promise<McpConnection<ReadTool>>;
  readonly #now: () => number;
  #current: McpConnection<ReadTool>;
  #pending: Promise<McpConnection<ReadTool>> | undefined;
  #failure: { error: unknown; at: number } | undefined;
  #closed = false;

  constructor(
    first: McpConnection<ReadTool>,
    identity: Readonly<Identity>,
    connect: () => Promise<McpConnection<ReadTool>>,
    now: () => number,
  ) {
    this.server = first.server;
    this.contract = first.contract;
    this.#current = first;
    this.#identity = identity;
    this.#connect = connect;
    this.#now = now;
    this.tools = Object.freeze(first.tools.map((t) => this.#wrap(t)));
  }

  #wrap(tool: ReadTool): ReadTool {
    const name = tool.name;
    return readTool(name, tool.description, tool.inputSchema, (args, context) =>
      this.#run(context.identity, (c) => {
        const current = c.tools.find((t) => t.name === name);
        if (!current) throw new StaleContractError();
        return current.execute(args, context);
      }),
    );
  }

  isConnected(): boolean {
    return !this.#closed && this.#current.isConnected();
  }

  #check(identity: unknown): void {
    checkCaller(this.server, this.#identity, identity);
    if (this.#closed) throw new ConnectionClosedError(`${this.server}: the MCP connection is closed`);
  }

  async #run<R>(identity: unknown, call: (c: McpConnection<ReadTool>) => Promise<R>): Promise<R> {
    this.#check(identity);
    let connection = this.#current.isConnected() ? this.#current : await this.#reconnect(this.#current);
    try {
      return await call(connection);
    } catch (e) {
      if (!replaceable(e) || this.#closed) throw e;
      connection = await this.#reconnect(connection);
      return await call(connection);
    }
  }

  /** Replaces `from` (single flight), honouring the backoff after a failure. */
  #reconnect(from: McpConnection<ReadTool>): Promise<McpConnection<ReadTool>> {
    if (this.#current !== from && this.#current.isConnected()) return Promise.resolve(this.#current);
    if (this.#pending) return this.#pending;
    const failed = this.#failure;
    if (failed && this.#now() - failed.at < RECONNECT_BACKOFF_MS) return Promise.reject(failed.error);
    const attempt = this.#attempt(from).finally(() => {
      if (this.#pending === attempt) this.#pending = undefined;
    });
    this.#pending = attempt;
    return attempt;
  }

  async #attempt(from: McpConnection<ReadTool>): Promise<McpConnection<ReadTool>> {
    try {
      await from.close().catch(() => {});
      const next = await this.#connect();
      if (next.contract !== this.contract) {
        await next.close().catch(() => {});
        throw new StaleContractError(
          `${this.server}: reconnected, but the tool contract differs from the one first connected`,
        );
      }
      if (this.#closed) {
        await next.close().catch(() => {});
        throw new ConnectionClosedError(`${this.server}: the MCP connection is closed`);
      }
      this.#current = next;
      this.#failure = undefined;
      return next;
    } catch (e) {
      if (!this.#closed) this.#failure = { error: e, at: this.#now() };
      throw e;
    }
  }

  prompts(identity: Identity, options?: PromptCallOptions): Promise<McpPrompt[]> {
    return this.#run(identity, (c) => c.prompts(identity, options));
  }

  getPrompt(identity: Identity, name: string, args?: Record<string, string>, options?: PromptCallOptions): Promise<McpPromptText> {
    return this.#run(identity, (c) => c.getPrompt(identity, name, args, options));
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#pending?.catch(() => {});
    await this.#current.close();
  }
}
