/**
 * The approval API (W8, W14, U5; ACTIONS.md "Proposer", "Approver"): record a
 * prepared action, list what waits for a tenant, approve or reject it as an
 * authenticated approver, and settle an `outcome_unknown` action as an operator who
 * checked the server. An approval (and a resolution) binds to (id, tool, version,
 * arguments hash, state version, actor, tenant): whatever the person was shown must
 * still be what is stored.
 *
 * @module
 */
import { ActionConflictError, LimitError, StoreError, UnauthorizedError, ValidationError } from "../errors.js";
import { MAX_ACTION_REASON_CHARS, MAX_RESOLUTION_NOTE_CHARS } from "../limits.js";
import type { Logger } from "../log.js";
import type { Identity, PreparedAction } from "../tools/types.js";
import { isRec } from "../util/record.js";
import { argumentsHash, rehash } from "./hash.js";
import { checkIdentity, proposer, type OnAwaitingApproval, type ProposeContext } from "./propose.js";
import type { ActionRecord, ActionStore } from "./types.js";
import { tracedMove } from "../trace/actions.js";
import { KIND_INTERNAL, SPAN_APPROVE, SPAN_REJECT, SPAN_RESOLVE } from "../trace/names.js";
import { traceOf } from "../trace/span.js";
import type { TraceOptions } from "../trace/types.js";

export type { OnAwaitingApproval, ProposeContext } from "./propose.js";

/**
 * The fields an approval binds: what the approver was shown. Any difference from the
 * stored action refuses the approval. When the binding also carries `arguments` or
 * `preview` (a listed record handed back), those are compared with the stored ones
 * (arguments by their canonical hash): an approver never approves arguments other
 * than those shown.
 */
export type ApprovalBinding = Pick<ActionRecord, "id" | "tool" | "version" | "argumentsHash" | "actorId" | "tenantId"> & Pick<ActionRecord, "stateVersion"> & Partial<Pick<ActionRecord, "arguments" | "preview">>;

/**
 * Decides whether `approver` may approve (or reject) `action`, or, as
 * {@link ActionsOptions.mayResolve}, whether an operator may settle it. Called after
 * the same-tenant check, which is never optional.
 */
export type MayApprove = (approver: Identity, action: ActionRecord) => boolean | Promise<boolean>;

/** Options of {@link createActions}; with a `tracer`, proposals and decisions are spans (O2). */
export interface ActionsOptions extends TraceOptions {
  /** Where actions live. */
  store: ActionStore;
  /** The host's decision whether an approver may decide an action (e.g. not their own, or a role check). */
  mayApprove: MayApprove;
  /**
   * The host's decision whether an operator may resolve an `outcome_unknown` action
   * (e.g. an on-call role). Without it every resolution is refused `unauthorized`.
   */
  mayResolve?: MayApprove;
  /**
   * Told of each proposal once its record is stored (a notification to the approvers,
   * a webhook). It never blocks or fails a proposal: it is called after `create`
   * resolved and not awaited; what it throws or rejects with goes to `onError`.
   */
  onAwaitingApproval?: OnAwaitingApproval;
  /**
   * Told of what `onAwaitingApproval` threw or rejected with. Without it, the failure
   * goes to `logger` as an `error` entry. What `onError` throws itself is dropped.
   */
  onError?: (error: unknown) => void;
  /** Diagnostics sink (default silent): receives the callback failures `onError` does not take. */
  logger?: Logger;
  /** How long a proposal waits for approval before it expires (default `DEFAULT_APPROVAL_TTL_MS`, at most `MAX_APPROVAL_TTL_MS`). */
  approvalTtlMs?: number;
  /** The clock, in ms since the epoch (default `Date.now`). */
  now?: () => number;
}

/** What an operator found when they checked the server (see {@link Actions.resolve}). */
export interface ResolutionVerdict {
  /** The call took effect (`succeeded`) or it did not (`failed`). */
  outcome: "succeeded" | "failed";
  /** What they checked, in their words: nonempty, at most `MAX_RESOLUTION_NOTE_CHARS`; the model reads it. */
  note: string;
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
  /**
   * Settles the `outcome_unknown` action `shown` describes, as `operator`, a person
   * who checked the server (W14): it moves to `verdict.outcome` (`succeeded` or
   * `failed`) with `resolution: { actorId, tenantId, at, outcome, note }` on the
   * record, and never changes again. A resumed run tells the model that a person
   * settled the call, with the note. Bound like an approval: the same tenant, then
   * `mayResolve`, then every field `shown` carries compared with the stored action.
   *
   * @throws UnauthorizedError (`unauthorized`) for another tenant, without a `mayResolve`
   * option, or when it refuses; ActionConflictError (`conflict`) when the stored action
   * differs from `shown` or is not `outcome_unknown` (already settled, or still with a
   * worker); ValidationError (`validation`) for a verdict that is not `succeeded` /
   * `failed` or an empty note; LimitError (`limit`) for a note over
   * `MAX_RESOLUTION_NOTE_CHARS`; StoreError (`store`) when the action does not exist.
   *
   * @example
   * ```ts
   * const actions = createActions({ store, mayApprove, mayResolve: (who) => who.actorId === "oncall" });
   * for (const a of await store.list({ tenantId: "acme", state: "outcome_unknown" })) {
   *   // After checking the server's own records:
   *   await actions.resolve(a, { actorId: "oncall", tenantId: "acme" }, { outcome: "failed", note: "no such refund in the billing console" });
   * }
   * ```
   */
  resolve(shown: ApprovalBinding, operator: Identity, verdict: ResolutionVerdict): Promise<ActionRecord>;
}

const BOUND_FIELDS = ["id", "tool", "version", "argumentsHash", "stateVersion", "actorId", "tenantId"] as const;

/**
 * The approval API over `options.store`.
 *
 * - `propose` hashes the canonical arguments (SHA-256), sets `expiresAt` from the TTL
 *   and records the action `awaiting_approval` with a fresh id and operation id.
 * - `approve` / `reject` re-read the action from the store, require the approver's
 *   tenant to be the action's, ask `mayApprove`, compare every bound field with what
 *   the approver was shown (and the stored arguments with their hash), and move it by
 *   compare-and-swap: a second decision is a `conflict`.
 * - `resolve` does the same for an operator and an `outcome_unknown` action, asking
 *   `mayResolve` (refused `unauthorized` without one), and records the verdict.
 * - `onAwaitingApproval` is told of each proposal after the store's `create`
 *   resolved; it is never awaited, and what it throws goes to `onError`.
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
  const { store, mayApprove, mayResolve } = options;
  if (typeof mayApprove !== "function") throw new ValidationError("createActions needs a mayApprove callback");
  if (mayResolve !== undefined && typeof mayResolve !== "function") throw new ValidationError("createActions: mayResolve must be a function");
  const now = options.now ?? Date.now;
  const trace = traceOf("createActions", options);
  const propose = proposer({ ...options, now, trace });

  /** The action `shown` names, read from the store. @throws ValidationError (`validation`), StoreError (`store`) when there is none. */
  async function load(shown: ApprovalBinding, who: Identity, verb: string): Promise<ActionRecord> {
    checkIdentity(who, verb);
    if (!isRec(shown) || typeof shown.id !== "string") throw new ValidationError(`${verb} needs the action that was shown`);
    const action = await store.get(shown.id);
    if (!action) throw new StoreError(`${verb}: no such action`);
    return action;
  }

  /**
   * Checks `action` as a person's decision binds it: same tenant, the host's callback,
   * every bound field, the stored arguments against their hash, and the arguments or
   * preview shown.
   */
  async function check(action: ActionRecord, shown: ApprovalBinding, who: Identity, verb: string, may: MayApprove | undefined, role: string): Promise<void> {
    if (who.tenantId !== action.tenantId) throw new UnauthorizedError(`${verb} ${action.tool}: the ${role} is in another tenant`);
    if (!may || !(await may(who, action))) throw new UnauthorizedError(`${verb} ${action.tool}: this ${role} may not decide this action${may ? "" : " (no mayResolve)"}`);
    for (const f of BOUND_FIELDS) {
      if (shown[f] !== action[f]) throw new ActionConflictError(action.id, `${verb} ${action.tool}: the action's ${f} is not what was shown; it needs a new proposal`);
    }
    if ((await rehash(action.arguments)) !== action.argumentsHash) throw new StoreError(`${verb} ${action.tool}: the stored arguments do not match their hash`);
    // What the person read is bound too: arguments or a preview handed back with the binding must be the stored ones.
    const seen = shown as { arguments?: unknown; preview?: unknown };
    if (seen.arguments !== undefined && (!isRec(seen.arguments) || (await argumentsHash(seen.arguments)) !== action.argumentsHash)) {
      throw new ActionConflictError(action.id, `${verb} ${action.tool}: the arguments shown are not the stored ones; it needs a new proposal`);
    }
    if (seen.preview !== undefined && seen.preview !== action.preview) throw new ActionConflictError(action.id, `${verb} ${action.tool}: the preview shown is not the stored one`);
  }

  async function decide(shown: ApprovalBinding, approver: Identity, verdict: "approve" | "reject", reason?: string): Promise<ActionRecord> {
    const action = await load(shown, approver, verdict);
    // O2: the decision's span links to the proposal, in whichever process it was made.
    return tracedMove(trace, verdict === "approve" ? SPAN_APPROVE : SPAN_REJECT, KIND_INTERNAL, action, () => decideOn(action, shown, approver, verdict, reason));
  }

  async function decideOn(action: ActionRecord, shown: ApprovalBinding, approver: Identity, verdict: "approve" | "reject", reason?: string): Promise<ActionRecord> {
    await check(action, shown, approver, verdict, mayApprove, "approver");
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
    propose,
    async pending(tenantId, opts = {}) {
      const at = now();
      const query = { tenantId, state: "awaiting_approval" as const, ...(opts.runId === undefined ? {} : { runId: opts.runId }), ...(opts.limit === undefined ? {} : { limit: opts.limit }) };
      return (await store.list(query)).filter((a) => a.expiresAt > at);
    },
    get: (id) => store.get(id),
    approve: (shown, approver) => decide(shown, approver, "approve"),
    reject: (shown, approver, reason) => decide(shown, approver, "reject", reason),
    async resolve(shown, operator, verdict) {
      const { outcome, note } = checkVerdict(verdict);
      const action = await load(shown, operator, "resolve");
      return tracedMove(trace, SPAN_RESOLVE, KIND_INTERNAL, action, async () => {
        await check(action, shown, operator, "resolve", mayResolve, "operator");
        if (action.state !== "outcome_unknown") {
          throw new ActionConflictError(action.id, `resolve ${action.tool}: the action is ${action.state}, not outcome_unknown`);
        }
        const resolution = { actorId: operator.actorId, tenantId: operator.tenantId, at: now(), outcome, note };
        return store.transition(action.id, { state: action.state, fence: action.fence }, { state: outcome, resolution }, resolution.at);
      });
    },
  };
}

/** The checked verdict of a resolution. @throws ValidationError (`validation`), LimitError (`limit`). */
function checkVerdict(verdict: unknown): ResolutionVerdict {
  if (!isRec(verdict) || (verdict.outcome !== "succeeded" && verdict.outcome !== "failed")) {
    throw new ValidationError("resolve needs a verdict: succeeded or failed");
  }
  const note = verdict.note;
  if (typeof note !== "string" || note.trim() === "") throw new ValidationError("resolve needs a note of what was checked");
  if (note.length > MAX_RESOLUTION_NOTE_CHARS) {
    throw new LimitError("MAX_RESOLUTION_NOTE_CHARS", MAX_RESOLUTION_NOTE_CHARS, `a resolution note is over MAX_RESOLUTION_NOTE_CHARS (${MAX_RESOLUTION_NOTE_CHARS})`);
  }
  return { outcome: verdict.outcome, note };
}
