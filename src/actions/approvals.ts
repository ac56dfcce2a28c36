/**
 * The approval API (W8; ACTIONS.md "Proposer", "Approver"): record a prepared
 * action, list what waits for a tenant, approve or reject it as an authenticated
 * approver. An approval binds to (id, tool, version, arguments hash, state version,
 * actor, tenant): whatever the approver was shown must still be what is stored.
 *
 * @module
 */
import { ActionConflictError, StoreError, UnauthorizedError, ValidationError } from "../errors.js";
import { DEFAULT_APPROVAL_TTL_MS, MAX_ACTION_PREVIEW_CHARS, MAX_ACTION_REASON_CHARS, MAX_APPROVAL_TTL_MS } from "../limits.js";
import type { Identity, PreparedAction } from "../tools/types.js";
import { isRec } from "../util/record.js";
import { argumentsHash } from "./hash.js";
import type { ActionRecord, ActionStore } from "./types.js";

/**
 * The fields an approval binds: what the approver was shown. Any difference from the
 * stored action refuses the approval. When the binding also carries `arguments` or
 * `preview` (a listed record handed back), those are compared with the stored ones
 * (arguments by their canonical hash): an approver never approves arguments other
 * than those shown.
 */
export type ApprovalBinding = Pick<ActionRecord, "id" | "tool" | "version" | "argumentsHash" | "actorId" | "tenantId"> & Pick<ActionRecord, "stateVersion"> & Partial<Pick<ActionRecord, "arguments" | "preview">>;

/**
 * Decides whether `approver` may approve (or reject) `action`. Called after the
 * same-tenant check, which is never optional.
 */
export type MayApprove = (approver: Identity, action: ActionRecord) => boolean | Promise<boolean>;

/** Options of {@link createActions}. */
export interface ActionsOptions {
  /** Where actions live. */
  store: ActionStore;
  /** The host's decision whether an approver may decide an action (e.g. not their own, or a role check). */
  mayApprove: MayApprove;
  /** How long a proposal waits for approval before it expires (default `DEFAULT_APPROVAL_TTL_MS`, at most `MAX_APPROVAL_TTL_MS`). */
  approvalTtlMs?: number;
  /** The clock, in ms since the epoch (default `Date.now`). */
  now?: () => number;
}

/** Where a proposal comes from. */
export interface ProposeContext {
  /** The proposing actor and tenant (the tool's owner), never the model's words. */
  identity: Identity;
  /** The tool's effect. */
  effect: "write" | "confirm";
  /** The run that proposed it. */
  runId?: string;
  /** The model's tool call id the outcome answers. */
  callId?: string;
}

/** The approval API over one store. See {@link createActions}. */
export interface Actions {
  /** Records a prepared action as `awaiting_approval`. @throws ValidationError (`validation`), LimitError (`limit`), ActionConflictError (`conflict`). */
  propose(prepared: PreparedAction, context: ProposeContext): Promise<ActionRecord>;
  /** The actions of `tenantId` awaiting approval (and not yet past their TTL), oldest first. */
  pending(tenantId: string, options?: { runId?: string; limit?: number }): Promise<ActionRecord[]>;
  /** The action, or `undefined`. */
  get(id: string): Promise<ActionRecord | undefined>;
  /**
   * Approves the action `shown` describes, as `approver`.
   *
   * @throws UnauthorizedError (`unauthorized`) for another tenant or when `mayApprove` refuses;
   * ActionConflictError (`conflict`) when the stored action differs from `shown`, was already
   * decided, or expired (it is then marked `expired`); StoreError (`store`) when it does not exist.
   */
  approve(shown: ApprovalBinding, approver: Identity): Promise<ActionRecord>;
  /** Rejects the action with a reason the model will read (bounded). Same checks and errors as {@link Actions.approve}. */
  reject(shown: ApprovalBinding, approver: Identity, reason?: string): Promise<ActionRecord>;
}

const BOUND_FIELDS = ["id", "tool", "version", "argumentsHash", "stateVersion", "actorId", "tenantId"] as const;

function checkIdentity(who: unknown, what: string): asserts who is Identity {
  if (!isRec(who) || typeof who.actorId !== "string" || who.actorId === "" || typeof who.tenantId !== "string" || who.tenantId === "") {
    throw new ValidationError(`${what} needs an identity with an actorId and a tenantId`);
  }
}

/**
 * The approval API over `options.store`.
 *
 * - `propose` hashes the canonical arguments (SHA-256), sets `expiresAt` from the TTL
 *   and records the action `awaiting_approval` with a fresh id and operation id.
 * - `approve` / `reject` re-read the action from the store, require the approver's
 *   tenant to be the action's, ask `mayApprove`, compare every bound field with what
 *   the approver was shown (and the stored arguments with their hash), and move it by
 *   compare-and-swap: a second decision is a `conflict`.
 *
 * @example
 * ```ts
 * import { createActions, MemoryActionStore } from "yada-mcp";
 * const actions = createActions({ store: new MemoryActionStore(), mayApprove: (who, a) => who.actorId !== a.actorId });
 * const proposed = await actions.propose(
 *   { tool: "files__rename", version: "v1", arguments: { from: "a", to: "b" } },
 *   { identity: { actorId: "alice", tenantId: "acme" }, effect: "confirm" },
 * );
 * const approved = await actions.approve(proposed, { actorId: "bob", tenantId: "acme" });
 * console.log(approved.state); // "approved"
 * ```
 */
export function createActions(options: ActionsOptions): Actions {
  const { store, mayApprove } = options;
  if (typeof mayApprove !== "function") throw new ValidationError("createActions needs a mayApprove callback");
  const ttl = options.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS;
  if (!Number.isFinite(ttl) || ttl <= 0 || ttl > MAX_APPROVAL_TTL_MS) throw new ValidationError(`approvalTtlMs must be in (0, ${MAX_APPROVAL_TTL_MS}]`);
  const now = options.now ?? Date.now;

  async function decide(shown: ApprovalBinding, approver: Identity, verdict: "approve" | "reject", reason?: string): Promise<ActionRecord> {
    checkIdentity(approver, verdict);
    if (!isRec(shown) || typeof shown.id !== "string") throw new ValidationError(`${verdict} needs the action that was shown`);
    const action = await store.get(shown.id);
    if (!action) throw new StoreError(`${verdict}: no such action`);
    if (approver.tenantId !== action.tenantId) throw new UnauthorizedError(`${verdict} ${action.tool}: the approver is in another tenant`);
    if (!(await mayApprove(approver, action))) throw new UnauthorizedError(`${verdict} ${action.tool}: this approver may not decide this action`);
    for (const f of BOUND_FIELDS) {
      if (shown[f] !== action[f]) throw new ActionConflictError(action.id, `${verdict} ${action.tool}: the action's ${f} is not what was shown; it needs a new proposal`);
    }
    if ((await argumentsHash(action.arguments)) !== action.argumentsHash) throw new StoreError(`${verdict} ${action.tool}: the stored arguments do not match their hash`);
    // What the approver read is bound too: arguments or a preview handed back with the binding must be the stored ones.
    const seen = shown as { arguments?: unknown; preview?: unknown };
    if (seen.arguments !== undefined && (!isRec(seen.arguments) || (await argumentsHash(seen.arguments)) !== action.argumentsHash)) {
      throw new ActionConflictError(action.id, `${verdict} ${action.tool}: the arguments shown are not the stored ones; it needs a new proposal`);
    }
    if (seen.preview !== undefined && seen.preview !== action.preview) throw new ActionConflictError(action.id, `${verdict} ${action.tool}: the preview shown is not the stored one`);
    if (action.state !== "awaiting_approval") throw new ActionConflictError(action.id, `${verdict} ${action.tool}: the action is already ${action.state}`);
    const at = now();
    const expected = { state: action.state, fence: action.fence };
    if (action.expiresAt <= at) {
      await store.transition(action.id, expected, { state: "expired" }, at).catch(() => undefined);
      throw new ActionConflictError(action.id, `${verdict} ${action.tool}: the approval window has passed; the action expired`);
    }
    const decision = { actorId: approver.actorId, tenantId: approver.tenantId, at };
    // A lease a worker took to expire the action (by a clock ahead of this one) ends with the decision.
    const release = { leaseOwner: undefined, leaseUntil: undefined };
    if (verdict === "approve") return store.transition(action.id, expected, { state: "approved", approval: decision, ...release }, at);
    const text = typeof reason === "string" && reason !== "" ? reason.slice(0, MAX_ACTION_REASON_CHARS) : undefined;
    return store.transition(action.id, expected, { state: "rejected", rejection: text === undefined ? decision : { ...decision, reason: text }, ...release }, at);
  }

  return {
    async propose(prepared, context) {
      checkIdentity(context?.identity, "propose");
      if (!isRec(prepared) || !isRec(prepared.arguments)) throw new ValidationError("propose needs a prepared action with arguments");
      const at = now();
      const record: ActionRecord = {
        id: crypto.randomUUID(),
        operationId: crypto.randomUUID(),
        actorId: context.identity.actorId,
        tenantId: context.identity.tenantId,
        tool: prepared.tool,
        effect: context.effect,
        version: prepared.version,
        arguments: structuredClone(prepared.arguments),
        argumentsHash: await argumentsHash(prepared.arguments),
        state: "awaiting_approval",
        fence: 0,
        attempts: 0,
        createdAt: at,
        updatedAt: at,
        expiresAt: at + ttl,
      };
      if (context.runId !== undefined) record.runId = context.runId;
      if (context.callId !== undefined) record.callId = context.callId;
      if (prepared.stateVersion !== undefined) record.stateVersion = prepared.stateVersion;
      if (typeof prepared.preview === "string") record.preview = prepared.preview.slice(0, MAX_ACTION_PREVIEW_CHARS);
      return store.create(record);
    },
    async pending(tenantId, opts = {}) {
      const at = now();
      const query = { tenantId, state: "awaiting_approval" as const, ...(opts.runId === undefined ? {} : { runId: opts.runId }), ...(opts.limit === undefined ? {} : { limit: opts.limit }) };
      return (await store.list(query)).filter((a) => a.expiresAt > at);
    },
    get: (id) => store.get(id),
    approve: (shown, approver) => decide(shown, approver, "approve"),
    reject: (shown, approver, reason) => decide(shown, approver, "reject", reason),
  };
}
