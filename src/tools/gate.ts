/**
 * The gate every call of a connection passes (T1, T4, T10, T13): the caller must
 * be the identity the connection is bound to, the connection must be open and
 * its contract current, and the host's `authorize` must allow the call.
 *
 * @module
 */
import { ConfigError, ConnectionClosedError, UnauthorizedError, type YadaError } from "../errors.js";
import { isRecord } from "../mcp/types.js";
import type { Authorize, Identity } from "./types.js";

/** What connectMcp needs from the host about who acts and what they may do (T1, T4). */
export interface McpAccess {
  /** The authenticated caller, from the host's backend; the connection is bound to it. */
  identity: Identity;
  /** Awaited on every invocation with the remote tool name; only `true` allows. */
  authorize: Authorize;
}

/**
 * Checks an identity (T1) and returns a fresh copy of its two fields.
 *
 * @param where Starts the message (e.g. `run: `), or "".
 * @throws ConfigError (`config`) unless `actorId` and `tenantId` are non-empty strings.
 */
export function identityOf(identity: unknown, where: string): Identity {
  const { actorId, tenantId } = isRecord(identity) ? identity : {};
  if (typeof actorId !== "string" || actorId === "" || typeof tenantId !== "string" || tenantId === "") {
    throw new ConfigError(`${where}identity must have non-empty actorId and tenantId strings`);
  }
  return { actorId, tenantId };
}

/**
 * Checks an identity and returns a frozen copy (T1), so later changes to the
 * host's object cannot rebind a connection.
 *
 * @throws ConfigError (`config`) unless `actorId` and `tenantId` are non-empty strings.
 *
 * @example
 * ```ts
 * const bound = bindIdentity({ actorId: session.userId, tenantId: session.orgId });
 * ```
 */
export function bindIdentity(identity: unknown): Readonly<Identity> {
  return Object.freeze(identityOf(identity, ""));
}

/**
 * @throws UnauthorizedError (`unauthorized`) unless `identity` has the actor and tenant of `bound` (T1).
 */
export function checkCaller(server: string, bound: Identity, identity: unknown): void {
  if (!isRecord(identity) || identity.actorId !== bound.actorId || identity.tenantId !== bound.tenantId) {
    throw new UnauthorizedError(`${server}: the caller's identity is not the one this connection is bound to`);
  }
}

/**
 * Per-connection state: the bound identity, closure, the failure that made the
 * connection unusable (a changed contract, an expired session, a lost connection),
 * and the contract check in progress after a list_changed.
 *
 * @throws ConfigError (`config`) from the constructor for an invalid identity or a missing `authorize`.
 *
 * @example
 * ```ts
 * const gate = new ConnectionGate("catalog", { identity, authorize });
 * await gate.enter(context.identity);
 * if (!(await gate.permit("lookup"))) return errorResult("unauthorized", "denied");
 * ```
 */
export class ConnectionGate {
  /** The server name, for messages. */
  readonly server: string;
  /** The identity the connection is bound to. */
  readonly identity: Readonly<Identity>;
  readonly #authorize: Authorize;
  #closed = false;
  #failure: YadaError | undefined;
  #checking: Promise<void> | undefined;

  constructor(server: string, access: McpAccess) {
    this.server = server;
    this.identity = bindIdentity(access.identity);
    if (typeof access.authorize !== "function") throw new ConfigError("authorize must be a function");
    this.#authorize = access.authorize;
  }

  /** Open, with a current contract and a live transport. */
  get usable(): boolean {
    return !this.#closed && this.#failure === undefined;
  }

  /**
   * @throws ConnectionClosedError (`connection_closed`) after close(), or the
   * recorded failure (`stale_contract`, `session_expired`, `connection_closed`).
   */
  assertOpen(): void {
    if (this.#closed) throw new ConnectionClosedError(`${this.server}: the MCP connection is closed`);
    if (this.#failure) throw this.#failure;
  }

  /**
   * Admits one call: checks the identity, waits for a contract check in progress
   * (T13), then checks the connection is open.
   *
   * @throws UnauthorizedError (`unauthorized`) unless `identity` has the bound
   * actor and tenant (T1); as {@link assertOpen}.
   */
  async enter(identity: unknown): Promise<void> {
    checkCaller(this.server, this.identity, identity);
    while (this.#checking) await this.#checking;
    this.assertOpen();
  }

  /**
   * Awaits the host's `authorize(identity, remoteName)` (T4); then waits for a
   * contract check in progress and re-checks the connection, which may have closed
   * or gone stale meanwhile (T13). Only `true` allows.
   *
   * @throws whatever `authorize` throws, and as {@link assertOpen}.
   */
  async permit(remoteName: string): Promise<boolean> {
    const allowed = await this.#authorize(this.identity, remoteName);
    // A list_changed may have arrived while the host decided: the call goes out only
    // once that contract check has settled, and only if the contract still holds.
    while (this.#checking) await this.#checking;
    this.assertOpen();
    return allowed === true;
  }

  /** Records what made the connection unusable; the first failure wins. */
  fail(error: YadaError): void {
    if (!this.#closed && this.#failure === undefined) this.#failure = error;
  }

  /** Marks the connection closed by the host. */
  close(): void {
    this.#closed = true;
  }

  /** Whether close() ran. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Holds new calls until `check` settles (a contract check after list_changed). */
  hold(check: Promise<void>): void {
    const held = check.then(
      () => {},
      () => {},
    ).finally(() => {
      if (this.#checking === held) this.#checking = undefined;
    });
    this.#checking = held;
  }
}
