/**
 * Who may call a connection (T1, T4): the caller must be the identity the
 * connection is bound to, and the host's `authorize` must allow the call. The
 * gate every call passes is described here and built by connectMcp.
 *
 * @module
 */
import { ConfigError, UnauthorizedError } from "../errors.js";
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
 * What every call of a connection passes (T1, T4, T13); connectMcp builds one per
 * connection over its state (closure, the failure that made it unusable, the
 * contract check in progress after a list_changed).
 */
export interface ConnectionGate {
  /**
   * Admits one call: checks the identity, waits for a contract check in progress
   * (T13), then checks the connection is open. Returns undefined when the call is
   * admitted at once (no check in progress: the common case, without a promise), and
   * a promise of the admission while a check runs; `await` takes either.
   *
   * @throws UnauthorizedError (`unauthorized`) unless `identity` has the bound actor
   * and tenant (T1); ConnectionClosedError (`connection_closed`) after close(); the
   * recorded failure (`stale_contract`, `session_expired`, `connection_closed`).
   * (Thrown, or the promise rejected with it.)
   */
  enter(identity: unknown): Promise<void> | void;
  /**
   * Awaits the host's `authorize(identity, remoteName)` (T4); then waits for a
   * contract check in progress and re-checks the connection, which may have closed
   * or gone stale meanwhile (T13). Only `true` allows.
   *
   * @throws whatever `authorize` throws, and as {@link ConnectionGate.enter} after the identity.
   */
  permit(remoteName: string): Promise<boolean>;
  /** Records a call's error when it ends the connection (`session_expired`, `connection_closed`). */
  fail(error: unknown): void;
}
