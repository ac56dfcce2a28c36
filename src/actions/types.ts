/**
 * The action record and the store contract (W8, W9, W12): what every action
 * store keeps and the operations every store implements, memory, file,
 * PostgreSQL and Durable Objects alike. One conformance suite runs against all
 * of them.
 *
 * The one invariant: a mutation is sent to a server at most once per approval,
 * and never sent again once its outcome is uncertain. `executing` is recorded
 * (durably, for durable stores) before the execute request is sent.
 *
 * @module
 */
import type { YadaError } from "../errors.js";
import type { ToolResult } from "../tools/types.js";

/**
 * The states of an action.
 *
 * ```
 * awaiting_approval ─approve─► approved ─claim+mark─► executing ─► succeeded | failed
 *     │   └─reject─► rejected                            ├─► reconciling ─receipt─► succeeded | failed
 *     └─ttl─► expired                                    └─► outcome_unknown ─resolve─► succeeded | failed
 * ```
 *
 * `rejected`, `expired`, `succeeded`, `failed` and `outcome_unknown` are terminal:
 * no worker sends, claims or looks them up again. All but `outcome_unknown` are
 * final too: they never change again. An `outcome_unknown` action changes once,
 * when an operator resolves it (W14, {@link ActionResolution}).
 */
export type ActionState =
  | "awaiting_approval"
  | "approved"
  | "rejected"
  | "expired"
  | "executing"
  | "succeeded"
  | "failed"
  | "reconciling"
  | "outcome_unknown";

/** Who approved or rejected an action, and when. */
export interface ActionDecision {
  /** The approver's actor id (from the host's authenticated backend). */
  actorId: string;
  /** The approver's tenant: always the action's tenant. */
  tenantId: string;
  /** When, in ms since the epoch. */
  at: number;
  /** For a rejection: the approver's reason, shown to the model (bounded). */
  reason?: string;
}

/**
 * An operator's settlement of an `outcome_unknown` action (W14): a person checked
 * the server and recorded what happened. It is the only way out of
 * `outcome_unknown`, and the action's state is its `outcome` afterwards.
 */
export interface ActionResolution {
  /** The operator's actor id (from the host's authenticated backend). */
  actorId: string;
  /** The operator's tenant: always the action's tenant. */
  tenantId: string;
  /** When, in ms since the epoch. */
  at: number;
  /** What the person found: the call took effect (`succeeded`) or it did not (`failed`). */
  outcome: "succeeded" | "failed";
  /** What they checked, in their words (nonempty, at most `MAX_RESOLUTION_NOTE_CHARS`); the model reads it on resume. */
  note: string;
}

/**
 * What an action ended with. `result` is what the model sees as the tool result;
 * `reason` says why an outcome is unknown or why the action failed without a
 * server answer (version changed, not authorized).
 */
export interface ActionResult {
  result?: ToolResult;
  reason?: string;
  /**
   * Since when the outcome has been uncertain (ms since the epoch): set when the
   * action becomes `reconciling`, kept while it stays so; the reconcile window
   * (W13) counts from it.
   */
  uncertainSince?: number;
}

/**
 * The members of an {@link ActionRecord}, whatever its state: one proposed write or
 * confirmed call and everything its approval binds (W8): plain JSON, bounded in
 * size, the same in every store.
 */
export interface ActionRecordFields {
  /** Unique, chosen at proposal (a random UUID). */
  id: string;
  /** The idempotency key sent with execute and receipt lookups (W2): unique per action, ≤ 256 characters. */
  operationId: string;
  /** The run that proposed it, if any. */
  runId?: string;
  /** The model's tool call id that the outcome answers, if any. */
  callId?: string;
  /**
   * The W3C `traceparent` of the span that proposed it, when the proposer was traced
   * (O2): the approval's, the execution's and the resume's spans link to it, in
   * whatever process they run. Never changes.
   */
  traceparent?: string;
  /** The proposing actor (the connection's owner). */
  actorId: string;
  /** The tenant the action belongs to. */
  tenantId: string;
  /** The tool's model-facing name (`server__tool`). */
  tool: string;
  /** `write` (contract-bound, receipt recovery) or `confirm` (outcome unknown is terminal). */
  effect: "write" | "confirm";
  /** The tool's version at proposal (W6, W7); the worker sends nothing if it changed. */
  version: string;
  /** The validated arguments. */
  arguments: Record<string, unknown>;
  /** SHA-256 (hex) of the canonical JSON of `arguments`; an approval binds to it. */
  argumentsHash: string;
  /** For write tools: the state version the preparation returned (W3). */
  stateVersion?: string;
  /** For write tools: the preparation's preview for the approver (untrusted text, bounded). */
  preview?: string;
  /** The current state. */
  state: ActionState;
  /** Lease fencing token: bumped on every claim; every transition compares it. Starts at 0. */
  fence: number;
  /** The worker holding the lease, while one does. */
  leaseOwner?: string;
  /** When the lease lapses, in ms since the epoch. */
  leaseUntil?: number;
  /** Receipt lookups made so far (reconciling). */
  attempts: number;
  /** Not claimed again before this time (reconciliation back-off), in ms since the epoch. */
  notBefore?: number;
  /** When the action was proposed, in ms since the epoch. */
  createdAt: number;
  /** When it last changed, in ms since the epoch. */
  updatedAt: number;
  /** An approval after this time is refused; the action becomes `expired` (ms since the epoch). */
  expiresAt: number;
  /** The approval, once approved. */
  approval?: ActionDecision;
  /** The rejection, once rejected. */
  rejection?: ActionDecision;
  /** The outcome, once terminal (and the last reconciliation's reason while reconciling). A resolution keeps it as it was. */
  outcome?: ActionResult;
  /** An operator's settlement of the action, once one resolved it from `outcome_unknown` (W14). */
  resolution?: ActionResolution;
}

/** The outcome of an action the worker settled (`succeeded` or `failed`): `result` is what the model reads. */
export interface SettledResult extends ActionResult {
  result: ToolResult;
}

/**
 * One proposed write or confirmed call (W8), narrowed by its `state` (P7): a
 * `succeeded` or `failed` action carries its `outcome` with the `result` the model
 * reads, an `outcome_unknown` one its `outcome` with the `reason`; in the other
 * states `outcome` is what the last step left (a reconciliation's reason, or none).
 *
 * @example
 * ```ts
 * const action = await actions.get(id);
 * if (action?.state === "succeeded") console.log(action.outcome.result.content);
 * ```
 */
export type ActionRecord =
  | (ActionRecordFields & { state: "succeeded" | "failed"; outcome: SettledResult })
  | (ActionRecordFields & { state: "outcome_unknown"; outcome: ActionResult })
  | (ActionRecordFields & { state: Exclude<ActionState, "succeeded" | "failed" | "outcome_unknown"> });

/** What a transition expects the stored record to be: the compare of compare-and-swap. */
export interface ActionExpectation {
  state: ActionState;
  fence: number;
}

/**
 * The fields a transition may change. `state` is required; `id`, `operationId`,
 * identity, tool, version, arguments, hash and `createdAt` never change (a patch
 * naming one is a `validation` error). A move out of `outcome_unknown` is a
 * resolution: its patch is exactly `{ state, resolution }` (W14). A member set to `undefined` is removed
 * from the record (a released lease: `leaseOwner: undefined, leaseUntil: undefined`).
 */
export type ActionPatch = { state: ActionState } & Partial<
  Pick<ActionRecord, "leaseOwner" | "leaseUntil" | "attempts" | "notBefore" | "approval" | "rejection" | "outcome" | "stateVersion" | "resolution">
>;

/**
 * A position in a list: the `createdAt` and `id` of the last action of the page
 * before. Every store orders by (createdAt, id), so the pair names one place in
 * the order whatever was added or changed since.
 */
export interface ActionCursor {
  /** The `createdAt` of the last action seen. */
  createdAt: number;
  /** Its `id`. */
  id: string;
}

/** What {@link ActionStore.count} counts: the selection of a list, without its page. */
export interface ActionCountQuery {
  /** Always scoped to one tenant. */
  tenantId: string;
  /** Only these states. */
  state?: ActionState | readonly ActionState[];
  /** Only this run's actions. */
  runId?: string;
}

/** What {@link ActionStore.list} selects. */
export interface ActionQuery extends ActionCountQuery {
  /** At most this many (default and maximum `MAX_ACTIONS_LISTED`). */
  limit?: number;
  /** `oldest` first (the default) or `newest` first; ties by id, in the same direction. */
  order?: "oldest" | "newest";
  /**
   * Only actions after this one in the list's order (exclusive): pass the last action
   * of a page to get the next page. The action it names need not exist any more.
   */
  after?: ActionCursor;
}

/** What {@link ActionStore.claim} needs. */
export interface ClaimOptions {
  /** The claiming worker's id. */
  workerId: string;
  /** Now, in ms since the epoch (the store may use its own clock where it has one). */
  now: number;
  /** How long the lease lasts, in ms. */
  leaseMs: number;
  /**
   * Only actions whose tool name starts with one of these (e.g. `["billing__"]`, the
   * tools of the server `billing`), for a worker that serves only some servers: it
   * then never leases, recovers or expires an action of another. Without it, any
   * action. At most `MAX_CLAIM_TOOL_PREFIXES`, each 1 to `MAX_TOOL_NAME_CHARS` characters.
   */
  toolPrefixes?: readonly string[];
}

/** What {@link ActionStore.claimMany} needs: a claim's options and how many to lease at most. */
export interface ClaimManyOptions extends ClaimOptions {
  /** Lease at most this many actions (a positive integer, at most `MAX_CLAIM_BATCH`). */
  limit: number;
}

/** One compare-and-swap of {@link ActionStore.transitionMany}: what {@link ActionStore.transition} takes for one action. */
export interface ActionTransition {
  id: string;
  expected: ActionExpectation;
  patch: ActionPatch;
}

/**
 * What one transition of a batch did: the new record, or the error
 * {@link ActionStore.transition} would have thrown for it (nothing of it changed).
 */
export type TransitionOutcome = { ok: true; record: ActionRecord } | { ok: false; error: YadaError };

/**
 * The store contract (ACTIONS.md). Every method validates what it reads back:
 * a stored record that is impossible is a `store` error, never executed.
 */
export interface ActionStore {
  /**
   * Records a new action (state `awaiting_approval`, fence 0).
   *
   * @throws ActionConflictError (`conflict`) if the id or operation id exists;
   * ValidationError (`validation`) for a record that is not new or not possible;
   * LimitError (`limit`) over `MAX_ACTION_RECORD_BYTES`.
   */
  create(record: ActionRecord): Promise<ActionRecord>;
  /** The action, or `undefined`. */
  get(id: string): Promise<ActionRecord | undefined>;
  /**
   * Actions of one tenant in (createdAt, id) order, oldest first unless `order` is
   * `newest`, after the `after` cursor when given, bounded by `limit`.
   *
   * @throws ValidationError (`validation`) for a query without a tenant, with a
   * limit that is not a positive integer, an unknown order or a malformed cursor;
   * StoreError (`store`) when a matching stored record is impossible.
   */
  list(query: ActionQuery): Promise<ActionRecord[]>;
  /**
   * How many actions of one tenant match `query` (its states and run). Every store of
   * this package implements it without reading the records' bodies where it can (a
   * counting index); the approval inbox uses it for its counts.
   *
   * @throws ValidationError (`validation`) for a query without a tenant or with an unknown state.
   */
  count?(query: ActionCountQuery): Promise<number>;
  /**
   * Compare-and-swap: applies `patch` only if the stored state and fence equal
   * `expected` and the state machine allows the move; sets `updatedAt`.
   *
   * @throws ActionConflictError (`conflict`) when the record moved on (nothing changed),
   * or the transition is not allowed; StoreError (`store`) when it does not exist or the
   * stored record is impossible; ValidationError (`validation`) when the patch names a
   * field that never changes or the result breaks the record's rules; LimitError
   * (`limit`) when the result is over `MAX_ACTION_RECORD_BYTES`. `record.ts`
   * (`applyTransition`) implements the check for every store.
   */
  transition(id: string, expected: ActionExpectation, patch: ActionPatch, now: number): Promise<ActionRecord>;
  /**
   * Leases the next action that needs a worker, oldest first, bumping its fence and
   * setting `leaseOwner` / `leaseUntil` (its state is unchanged): an `approved`
   * one; a `reconciling` one whose `notBefore` has passed (both only when not leased,
   * or their lease lapsed); an `executing` one
   * whose lease has lapsed (the send may have happened); an `awaiting_approval`
   * one past `expiresAt` (to expire it). Two concurrent claims never return the
   * same action with the same fence. A stored record that is impossible is never
   * returned (the store skips it or throws a `store` error).
   */
  claim(options: ClaimOptions): Promise<ActionRecord | undefined>;
  /**
   * Leases up to `limit` actions at once, each exactly as {@link ActionStore.claim}
   * would (its own fence bump and lease), oldest first, in one step of the store
   * (one statement on PostgreSQL). An empty array when nothing needs a worker.
   * Every store of this package implements it; a worker uses it when present.
   *
   * @throws ValidationError (`validation`) for bad options or a limit that is not an
   * integer from 1 to `MAX_CLAIM_BATCH`.
   */
  claimMany?(options: ClaimManyOptions): Promise<ActionRecord[]>;
  /**
   * Several independent compare-and-swaps in one step of the store (one statement
   * on PostgreSQL, one journal flush in the file store): each is applied or refused
   * exactly as {@link ActionStore.transition} would, and the answer holds one
   * outcome per item, in order. An id may appear once per batch (a repeat is a
   * `validation` outcome). Every store of this package implements it.
   *
   * @throws ValidationError (`validation`) when `items` is not an array of at most
   * `MAX_TRANSITION_BATCH` or `now` is not finite; StoreError (`store`) when the
   * store failed as a whole (then each item may or may not have been applied: read
   * the actions again).
   */
  transitionMany?(items: readonly ActionTransition[], now: number): Promise<TransitionOutcome[]>;
}
