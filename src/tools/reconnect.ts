/**
 * `reconnectingMcp` (W10): a connection that replaces itself after a changed
 * contract (T13) or an expired HTTP session, but only with a connection whose
 * contract equals the original one (effects, versions and specifications of
 * every read, write and confirmed tool), and that waits 30 s after a failed
 * reconnect before trying again. Write and confirmed tools delegate each phase
 * to the live connection's tool of the same name, effect and version.
 *
 * @module
 */
import { ConnectionClosedError, StaleContractError, YadaError } from "../errors.js";
import { RECONNECT_BACKOFF_MS } from "../limits.js";
import { parseServerConfig, type McpReadConfig, type McpServerConfig } from "./config.js";
import { connectMcp, type ConnectOptions, type McpConnection } from "./connect.js";
import { bindIdentity, checkCaller, type McpAccess } from "./gate.js";
import { isRecord } from "../mcp/types.js";
import { sentOperations } from "./action-call.js";
import { readTool } from "./read-tool.js";
import type { ActionOutcome, ApprovedAction, ConfirmTool, ReadTool, Tool, ToolCallContext, WriteTool } from "./types.js";

/** Options of {@link reconnectingMcp}: those of connectMcp plus an injectable clock. */
export interface ReconnectOptions extends ConnectOptions {
  /** Milliseconds since some origin; default `Date.now`. Tests inject a fake clock. */
  now?: () => number;
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
 * - A write or confirmed tool's `execute` sends an operation id at most once across
 *   every connection (the last `MAX_SENT_OPERATIONS_REMEMBERED`): a repeat is refused
 *   with `validation`, nothing sent, unless the earlier attempt provably sent nothing.
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
export function reconnectingMcp(server: McpReadConfig, access: McpAccess, options?: ReconnectOptions): Promise<McpConnection<ReadTool>>;
export function reconnectingMcp(server: McpServerConfig, access: McpAccess, options?: ReconnectOptions): Promise<McpConnection<Tool>>;
export async function reconnectingMcp(server: McpServerConfig, access: McpAccess, options: ReconnectOptions = {}): Promise<McpConnection<Tool>> {
  // Every reconnect uses a frozen copy of what the first connect used: a host that
  // later changes its config object (another URL, other headers) or identity cannot
  // send the connection's credentials elsewhere. The validating parse copies every field.
  const pinned = deepFreeze(parseServerConfig(server));
  const identity = bindIdentity(access.identity);
  const pinnedAccess: McpAccess = Object.freeze({ identity, authorize: access.authorize });
  let current = await connectMcp(pinned, pinnedAccess, options);
  const { signal: _setupOnly, now: clock, ...rest } = options;
  const now = clock ?? Date.now;
  const { server: name, contract } = current;
  const closedError = (): ConnectionClosedError => new ConnectionClosedError(`${name}: the MCP connection is closed`);
  let pending: Promise<McpConnection<Tool>> | undefined;
  let failure: { error: unknown; at: number } | undefined;
  let closed = false;

  const attempt = async (from: McpConnection<Tool>): Promise<McpConnection<Tool>> => {
    try {
      await from.close().catch(() => {});
      const next = await connectMcp(pinned, pinnedAccess, rest);
      const refused =
        next.contract !== contract
          ? new StaleContractError(`${name}: reconnected, but the tool contract differs from the one first connected`)
          : closed
            ? closedError()
            : undefined;
      if (refused) {
        await next.close().catch(() => {});
        throw refused;
      }
      current = next;
      failure = undefined;
      return next;
    } catch (e) {
      if (!closed) failure = { error: e, at: now() };
      throw e;
    }
  };

  /** Replaces `from` (single flight), honouring the backoff after a failure. */
  const reconnect = async (from: McpConnection<Tool>): Promise<McpConnection<Tool>> => {
    if (current !== from && current.isConnected()) return current;
    if (pending) return pending;
    if (failure && now() - failure.at < RECONNECT_BACKOFF_MS) throw failure.error;
    const next = attempt(from).finally(() => {
      if (pending === next) pending = undefined;
    });
    pending = next;
    return next;
  };

  const run = async <R>(caller: unknown, call: (c: McpConnection<Tool>) => Promise<R>): Promise<R> => {
    checkCaller(name, identity, caller);
    if (closed) throw closedError();
    const connection = current.isConnected() ? current : await reconnect(current);
    try {
      return await call(connection);
    } catch (e) {
      // Neither failure reached the tool: the call is made once more on a new connection.
      if (!(e instanceof YadaError && (e.code === "stale_contract" || e.code === "session_expired")) || closed) throw e;
      return await call(await reconnect(connection));
    }
  };

  return {
    server: name,
    contract,
    tools: Object.freeze(current.tools.map((tool) => delegate(tool, run, (caller) => checkCaller(name, identity, caller)))),
    isConnected: () => !closed && current.isConnected(),
    prompts: (caller, opts) => run(caller, (c) => c.prompts(caller, opts)),
    getPrompt: (caller, prompt, args, opts) => run(caller, (c) => c.getPrompt(caller, prompt, args, opts)),
    async close() {
      closed = true;
      await pending?.catch(() => {});
      await current.close();
    },
    async [Symbol.asyncDispose]() {
      closed = true;
      await pending?.catch(() => {});
      await current.close();
    },
  };
}

type Runner = <R>(caller: unknown, call: (c: McpConnection<Tool>) => Promise<R>) => Promise<R>;
type Execute = (action: ApprovedAction, context: ToolCallContext) => Promise<ActionOutcome>;

/**
 * W5, W7, W10: an execute that sends each operation id at most once across every
 * connection the reconnecting one moves through (each live tool only knows its
 * own connection's sends): a repeat is refused with `validation` before anything
 * is sent, unless the earlier attempt provably sent nothing (it threw, or its
 * outcome says `notSent`). The caller is checked first.
 */
function executeOnce(name: string, checkCaller: (caller: unknown) => void, execute: Execute): Execute {
  const sent = sentOperations();
  return async (action, context) => {
    checkCaller(context?.identity);
    if (!isRecord(action) || typeof action.operationId !== "string") return execute(action, context); // the live tool refuses it
    // One read of each field: the id claimed is the id the live tool sends.
    const copy: ApprovedAction = { ...action };
    const id = copy.operationId;
    sent.claim(name, id);
    try {
      const outcome = await execute(copy, context);
      if (outcome.status !== "succeeded" && outcome.notSent === true) sent.release(id);
      return outcome;
    } catch (e) {
      sent.release(id); // an execute throws only when nothing was sent
      throw e;
    }
  };
}

/**
 * The live connection's tool pinned to `pinned`: same name, effect and (for write
 * and confirmed tools) version, else `stale_contract` (W10). The contract check
 * makes a mismatch impossible; this keeps it so even if that check had a gap.
 */
function live<T extends Tool>(c: McpConnection<Tool>, pinned: T): T {
  const found = c.tools.find((t) => t.name === pinned.name);
  if (!found || found.effect !== pinned.effect || ("version" in pinned && (found as WriteTool | ConfirmTool).version !== pinned.version)) {
    throw new StaleContractError();
  }
  return found as T;
}

/**
 * A tool of the reconnecting connection: each call (each phase of a write or
 * confirmed tool) checks the caller, reauthorizes through the live connection's
 * tool, and runs there. An execute is retried on a new connection only when it
 * threw `stale_contract` or `session_expired`, which write and confirmed tools
 * throw only before anything was sent; an outcome (an uncertain one included) is
 * returned as it is, never replayed (W10).
 */
function delegate(tool: Tool, run: Runner, checkCaller: (caller: unknown) => void): Tool {
  if (tool.effect === "read") {
    return readTool(tool.name, tool.description, tool.inputSchema, (args, context) => run(context.identity, (c) => live(c, tool).execute(args, context)));
  }
  const base = { name: tool.name, description: tool.description, inputSchema: tool.inputSchema, version: tool.version };
  if (tool.effect === "confirm") {
    const confirm: ConfirmTool = {
      ...base,
      effect: "confirm",
      prepare: (args, context) => run(context?.identity, (c) => live(c, tool).prepare(args, context)),
      execute: executeOnce(tool.name, checkCaller, (action, context) => run(context?.identity, (c) => live(c, tool).execute(action, context))),
    };
    return Object.freeze(confirm);
  }
  const write: WriteTool = {
    ...base,
    effect: "write",
    prepare: (args, context) => run(context?.identity, (c) => live(c, tool).prepare(args, context)),
    execute: executeOnce(tool.name, checkCaller, (action, context) => run(context?.identity, (c) => live(c, tool).execute(action, context))),
    reconcile: (action, context) => run(context?.identity, (c) => live(c, tool).reconcile(action, context)),
  };
  return Object.freeze(write);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
