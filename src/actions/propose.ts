/**
 * Recording a proposal (W8, U5; ACTIONS.md "Proposer"): the one step `run` and
 * `createActions` share. A prepared action is hashed, given its expiry and stored
 * `awaiting_approval`; once the store's `create` resolved, the host is told of it
 * (`onAwaitingApproval`), without waiting and without letting its failure through.
 * Kept apart from the approval API so that a bundle with `run` alone carries no
 * approver or operator code.
 *
 * @module
 */
import { ValidationError } from "../errors.js";
import { DEFAULT_APPROVAL_TTL_MS, MAX_ACTION_PREVIEW_CHARS, MAX_APPROVAL_TTL_MS } from "../limits.js";
import { silentLogger, type Logger } from "../log.js";
import type { Identity, PreparedAction } from "../tools/types.js";
import { isRec } from "../util/record.js";
import { canonicalKey } from "../schema/equal.js";
import { argumentsHash } from "./hash.js";
import type { ActionRecord, ActionStore } from "./types.js";
import { tracedProposal } from "../trace/actions.js";
import type { Trace } from "../trace/types.js";

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

/**
 * Told of an action that now waits for a person: called once per proposal, after
 * the store's `create` resolved (the record is durable in a durable store), with a
 * copy of the record. It is not awaited.
 */
export type OnAwaitingApproval = (action: ActionRecord) => void | Promise<void>;

/** How proposals are recorded: see {@link proposer}. */
export interface ProposerOptions {
  store: ActionStore;
  approvalTtlMs?: number | undefined;
  now?: (() => number) | undefined;
  onAwaitingApproval?: OnAwaitingApproval | undefined;
  onError?: ((error: unknown) => void) | undefined;
  logger?: Logger | undefined;
  /** Each proposal is a `propose_action` span whose context the record keeps (O2). */
  trace?: Trace | undefined;
}

/** Checks that `who` is an identity. @throws ValidationError (`validation`). */
export function checkIdentity(who: unknown, what: string): asserts who is Identity {
  if (!isRec(who) || typeof who.actorId !== "string" || who.actorId === "" || typeof who.tenantId !== "string" || who.tenantId === "") {
    throw new ValidationError(`${what} needs an identity with an actorId and a tenantId`);
  }
}

/**
 * The recorder of proposals over `options.store`: checks the options once, then
 * each call records one prepared action and tells `onAwaitingApproval` of it; what
 * the callback throws or rejects with goes to `onError`, else to `logger` as an
 * `error` entry (what `onError` throws is dropped).
 *
 * @throws ValidationError (`validation`) for a TTL out of (0, `MAX_APPROVAL_TTL_MS`] or a
 * callback that is not a function; each call: ValidationError, LimitError (`limit`),
 * ActionConflictError (`conflict`) from the store.
 */
export function proposer(options: ProposerOptions): (prepared: PreparedAction, context: ProposeContext) => Promise<ActionRecord> {
  const { store, onAwaitingApproval: tell, onError, logger } = options;
  const ttl = options.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS;
  if (!Number.isFinite(ttl) || ttl <= 0 || ttl > MAX_APPROVAL_TTL_MS) throw new ValidationError(`approvalTtlMs must be in (0, ${MAX_APPROVAL_TTL_MS}]`);
  for (const f of [tell, onError]) if (f !== undefined && typeof f !== "function") throw new ValidationError("onAwaitingApproval and onError must be functions");
  const now = options.now ?? Date.now;
  const report = (error: unknown): void => {
    try {
      if (onError) onError(error);
      else (logger ?? silentLogger)("error", "onAwaitingApproval failed; the proposal stands", { error: error instanceof Error ? error.message : String(error) });
    } catch {
      // A failing error handler has nowhere left to report to.
    }
  };
  return async (prepared, context) => {
    checkIdentity(context?.identity, "propose");
    if (!isRec(prepared) || !isRec(prepared.arguments)) throw new ValidationError("propose needs a prepared action with arguments");
    const args = jsonArguments(prepared.arguments);
    const at = now();
    const record: ActionRecord = {
      id: crypto.randomUUID(),
      operationId: crypto.randomUUID(),
      actorId: context.identity.actorId,
      tenantId: context.identity.tenantId,
      tool: prepared.tool,
      effect: context.effect,
      version: prepared.version,
      arguments: args,
      argumentsHash: await argumentsHash(args),
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
    // O2: a traced proposal keeps its span's context on the record, for the spans of every later move.
    const stored = await tracedProposal(options.trace, record, (traceparent) => store.create(traceparent === undefined ? record : { ...record, traceparent }));
    // U5: only once the store has it (durable, for a durable store); not awaited. The
    // callback runs until its first await; a throw or a rejection goes to report.
    if (tell) {
      try {
        const p: unknown = tell(structuredClone(stored));
        if (p !== null && typeof p === "object" && typeof (p as { then?: unknown }).then === "function") Promise.resolve(p).then(undefined, report);
      } catch (e) {
        report(e);
      }
    }
    return stored;
  };
}

/**
 * The arguments as the JSON they are stored, hashed, shown and sent as. Arguments a
 * JSON round trip would change are refused: a number JSON cannot carry (`Infinity`,
 * `NaN`), an `undefined` member, a `Date` or another object with `toJSON`. Else the
 * hash would bind one value while the page showed, and the worker sent, another.
 *
 * @throws ValidationError (`validation`); LimitError (`limit`) past `MAX_INSTANCE_DEPTH`.
 */
function jsonArguments(args: Record<string, unknown>): Record<string, unknown> {
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(args));
  } catch {
    copy = undefined;
  }
  if (!isRec(copy) || canonicalKey(copy) !== canonicalKey(args)) {
    throw new ValidationError("propose: the arguments must be JSON data (no Infinity or NaN, no undefined member, no Date): what is hashed, shown and sent is their JSON");
  }
  return copy;
}
