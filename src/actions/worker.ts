/**
 * The durable worker (W5, W7, W8, W13; ACTIONS.md "Worker"): claims actions, executes
 * approved ones at most once, recovers lapsed leases and reconciles uncertain
 * writes by receipt. Every move is a compare-and-swap on (state, fence), and
 * `executing` is recorded before the execute request is sent, so a crash can lose
 * a result but never cause a second send.
 *
 * @module
 */
import { isYadaError, StoreError, ValidationError } from "../errors.js";
import {
  DEFAULT_ACTION_LEASE_MS,
  DEFAULT_WORKER_CONCURRENCY,
  DEFAULT_WORKER_POLL_MS,
  MAX_CLAIM_BATCH,
  MAX_ACTION_REASON_CHARS,
  MAX_ACTIONS_PER_PASS,
  MAX_NOT_SENT_ATTEMPTS,
  MAX_RECONCILE_AGE_MS,
  MAX_WORKER_CONCURRENCY,
} from "../limits.js";
import type { ActionOutcome, ApprovedAction, ConfirmTool, Identity, Tool, WriteTool } from "../tools/types.js";
import { checkClaim } from "./record.js";
import { coalescingTransition } from "./coalesce.js";
import { argumentsHash } from "./hash.js";
import type { ActionPatch, ActionRecord, ActionStore } from "./types.js";
import { boundResult, checkedOutcome, createLane, errorResult, notSentDelay, reasonOf, reconcileDelay, wasNotSent } from "./worker-outcomes.js";
import { tracedMove } from "../trace/actions.js";
import { KIND_CONSUMER, SPAN_EXECUTE, SPAN_EXPIRE, SPAN_RECONCILE } from "../trace/names.js";
import { traceOf } from "../trace/span.js";
import type { TraceOptions } from "../trace/types.js";

export { reconcileDelay, wasNotSent } from "./worker-outcomes.js";

/**
 * Finds the tool an action runs on, bound to the action's own actor and tenant;
 * `undefined` when it no longer exists. Any tool may be returned, so
 * `connection.tools.find((t) => t.name === action.tool)` is a resolver as written
 * (P7): one that is not the approved write or confirm tool runs nothing, and the
 * action fails with `version_changed`.
 */
export type ToolResolver = (action: ActionRecord, identity: Identity) => Tool | undefined | Promise<Tool | undefined>;

/**
 * Options of {@link createWorker}. With a `tracer` (O2), each action the worker
 * handles is a span (`execute_action`, `reconcile_action`, `expire_action`) linked to
 * its proposal's; give the same tracer to the `connectMcp` the resolver uses for the
 * MCP spans of the call itself.
 */
export interface WorkerOptions extends TraceOptions {
  store: ActionStore;
  /**
   * The host's resolver: returns the tool for the action's identity (e.g. from
   * `connectMcp` for that actor). Called again before an execute that provably never
   * left is tried again, so a resolver that reconnects a lost server is used as such.
   */
  resolveTool: ToolResolver;
  /** This worker's id (default a random UUID). */
  workerId?: string;
  /** Lease per claim (default `DEFAULT_ACTION_LEASE_MS`): longer than one execute takes. */
  leaseMs?: number;
  /**
   * Only the actions whose tool name starts with one of these, e.g. `["billing__"]` for a
   * worker that serves the server `billing` alone (see `ClaimOptions.toolPrefixes`): the
   * others are never claimed, so they wait for a worker that serves them instead of
   * under this one's lease. Without it, every action.
   */
  toolPrefixes?: readonly string[];
  /** Pause of a started worker that found nothing to do (default `DEFAULT_WORKER_POLL_MS`). */
  pollMs?: number;
  /**
   * Actions this worker keeps in flight at once (default `DEFAULT_WORKER_CONCURRENCY`,
   * at most `MAX_WORKER_CONCURRENCY`; 1 handles one action at a time). They are claimed
   * together (`claimMany`) and their moves are written together (`transitionMany`)
   * where the store has them; each still follows the one invariant on its own. Their
   * sends overlap, but `executing` is recorded for one at a time, each once the one
   * before was handed to its transport (see `ToolCallContext.onSent`, W13).
   */
  concurrency?: number;
  /**
   * The reconcile window (W13), in ms: an action reconciling longer than this
   * (counted from when its outcome became uncertain) becomes `outcome_unknown` at its
   * next receipt lookup that says nothing definite, and is never sent again. Default
   * and maximum `MAX_RECONCILE_AGE_MS` (24 h).
   */
  reconcileWindowMs?: number;
  /** The clock (default `Date.now`). */
  now?: () => number;
  /** Jitter source in [0, 1) (default `Math.random`). */
  random?: () => number;
  /** Told of every action the worker moved, after the move is stored. */
  onAction?: (action: ActionRecord) => void;
  /**
   * Told once of each action this worker made `outcome_unknown` (a confirmed call
   * whose outcome is uncertain, a write past its reconcile window), after that record
   * is stored: a person has to look at it (U5). Called with a copy and never awaited:
   * what it throws or rejects with goes to `onError`, and the worker carries on. A
   * crash between the record and the call loses the call: the store's
   * `outcome_unknown` actions are the durable list.
   */
  onNeedsAttention?: (action: ActionRecord) => void | Promise<void>;
  /** Told of errors a started worker survives (a store that failed, a resolver that threw) and of what `onNeedsAttention` threw. */
  onError?: (error: unknown) => void;
}

/**
 * A worker. See {@link createWorker}. Where the runtime has `Symbol.asyncDispose`,
 * the worker has it too (`await using worker = ...` stops it).
 */
export interface ActionWorker {
  /**
   * Handles every action that needs a worker now (at most `MAX_ACTIONS_PER_PASS`, at most
   * `concurrency` at once); resolves to how many it handled once all of them are done.
   */
  runOnce(): Promise<number>;
  /** Runs passes until {@link ActionWorker.stop}, pausing `pollMs` when a pass found nothing. */
  start(): void;
  /** Stops claiming and resolves once the actions in hand are done (an execute in flight is never abandoned). */
  stop(): Promise<void>;
}

/**
 * A worker over `options.store`. For each claimed action:
 *
 * - awaiting approval past its TTL → `expired`;
 * - approved → resolve the tool for the action's actor and tenant (a resolver that
 *   throws leaves the action approved under the lease, for a later pass); a missing tool,
 *   another effect, a changed `version` or arguments that no longer match their hash
 *   → `failed` with nothing sent (`tool_not_found`, `version_changed`,
 *   `arguments_changed`); else `executing` (stored first, one action at a time: the
 *   next once this one's request was handed over), then execute: succeeded or
 *   failed as the server answered; unknown or a malformed answer → `reconciling`
 *   (write) or `outcome_unknown` (confirm). An execute that throws sent nothing (the
 *   tool contract): the action fails. One that provably never left (`notSent: true`
 *   on the outcome, or see {@link wasNotSent}: a connection closed or refused before
 *   the send, an HTTP 401 / 403) is tried again under the same operation id, after a
 *   short back-off (`NOT_SENT_RETRY_DELAY_MS`, doubling) and a new `resolveTool`
 *   (the tool checked again), at most `MAX_NOT_SENT_ATTEMPTS` times in all, and only
 *   while this worker still holds its lease; after that it fails as `not_sent`;
 * - executing with a lapsed lease (a worker died mid-send) → `reconciling` (write) or
 *   `outcome_unknown` (confirm), never sent again;
 * - reconciling → the receipt lookup; unknown again stays `reconciling` with a
 *   jittered back-off (`RECONCILE_BASE_DELAY_MS` doubling to `RECONCILE_MAX_DELAY_MS`),
 *   until the reconcile window (`reconcileWindowMs`) has passed: then `outcome_unknown`,
 *   with the last lookup's reason, never resent.
 *
 * A move that loses its compare-and-swap (another worker took over) is dropped.
 *
 * @throws ValidationError (`validation`) for an option out of its bounds.
 *
 * @example
 * ```ts
 * import { createWorker, MemoryActionStore } from "yada-mcp";
 * const store = new MemoryActionStore();
 * const worker = createWorker({
 *   store,
 *   resolveTool: () => undefined,
 *   onNeedsAttention: (action) => console.log(`look at ${action.id}: ${action.outcome?.reason}`),
 * });
 * console.log(await worker.runOnce()); // 0: nothing to do
 * worker.start();
 * await worker.stop();
 * ```
 */
export function createWorker(options: WorkerOptions): ActionWorker {
  const { store, resolveTool } = options;
  if (typeof resolveTool !== "function") throw new ValidationError("createWorker needs a resolveTool callback");
  const workerId = options.workerId ?? crypto.randomUUID();
  const leaseMs = options.leaseMs ?? DEFAULT_ACTION_LEASE_MS;
  const pollMs = options.pollMs ?? DEFAULT_WORKER_POLL_MS;
  if (!(leaseMs > 0) || !(pollMs >= 0)) throw new ValidationError("leaseMs must be positive and pollMs non-negative");
  const concurrency = options.concurrency ?? DEFAULT_WORKER_CONCURRENCY;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1 || concurrency > MAX_WORKER_CONCURRENCY) {
    throw new ValidationError(`concurrency must be an integer from 1 to ${MAX_WORKER_CONCURRENCY} (MAX_WORKER_CONCURRENCY)`);
  }
  const windowMs = options.reconcileWindowMs ?? MAX_RECONCILE_AGE_MS;
  if (!Number.isSafeInteger(windowMs) || windowMs < 1 || windowMs > MAX_RECONCILE_AGE_MS) {
    throw new ValidationError(`reconcileWindowMs must be an integer from 1 to ${MAX_RECONCILE_AGE_MS} (MAX_RECONCILE_AGE_MS)`);
  }
  const toolPrefixes = options.toolPrefixes === undefined ? undefined : Object.freeze([...options.toolPrefixes]);
  if (toolPrefixes) checkClaim({ workerId, now: 0, leaseMs: 1, toolPrefixes });
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const transition = coalescingTransition(store, now);
  // O2: with a tracer, each claimed action is a span linked to its proposal, ending with the state the worker left it in.
  const trace = traceOf("createWorker", options);
  const moved = trace ? new Map<string, ActionRecord>() : undefined;
  const lane = createLane();

  /** The host's error sink; what it throws itself is dropped (a callback never fails the worker). */
  const report = (e: unknown): void => {
    try {
      options.onError?.(e);
    } catch {
      // nowhere left to tell
    }
  };
  /** U5: an action a person must look at, after its record is stored; never awaited. */
  const attention = (a: ActionRecord): void => {
    const notify = options.onNeedsAttention;
    if (!notify) return;
    try {
      const p = notify(structuredClone(a));
      if (p && typeof (p as Promise<void>).then === "function") (p as Promise<void>).then(undefined, report);
    } catch (e) {
      report(e);
    }
  };

  async function move(a: ActionRecord, patch: ActionPatch): Promise<ActionRecord | undefined> {
    let next: ActionRecord;
    try {
      next = await transition({ id: a.id, expected: { state: a.state, fence: a.fence }, patch });
    } catch (e) {
      if (isYadaError(e, "conflict")) return undefined; // another worker holds it now
      throw e;
    }
    options.onAction?.(next);
    moved?.set(next.id, next);
    if (next.state === "outcome_unknown") attention(next);
    return next;
  }
  const release = { leaseOwner: undefined, leaseUntil: undefined } as const;
  const cut = (reason: string): string => reason.slice(0, MAX_ACTION_REASON_CHARS);
  /** Stores an outcome; an uncertain one reconciles (write) from `since`, or is outcome_unknown (confirm). */
  const finish = (a: ActionRecord, outcome: ActionOutcome, since = now()): Promise<ActionRecord | undefined> => {
    if (outcome.status !== "unknown") return move(a, { state: outcome.status, outcome: { result: boundResult(outcome.result) }, ...release, notBefore: undefined });
    if (a.effect === "confirm") return move(a, { state: "outcome_unknown", outcome: { reason: cut(outcome.reason) }, ...release });
    const attempts = a.state === "reconciling" ? a.attempts + 1 : 0;
    // The next lookup comes by the window's end at the latest, which settles it then.
    const notBefore = Math.min(now() + reconcileDelay(attempts, random), since + windowMs);
    return move(a, { state: "reconciling", attempts, notBefore, outcome: { reason: cut(outcome.reason), uncertainSince: since }, ...release });
  };

  /** Is `a` still stored as this worker left it, under a lease that has not lapsed? */
  async function stillHeld(a: ActionRecord): Promise<boolean> {
    if (a.leaseUntil === undefined || a.leaseUntil <= now()) return false;
    const current = await store.get(a.id);
    return current !== undefined && current.state === a.state && current.fence === a.fence && current.leaseOwner === workerId;
  }

  /** Why `tool` may not run `a` (the code and message of a failure with nothing sent), or undefined. */
  const refusal = (a: ActionRecord, tool: WriteTool | ConfirmTool | undefined): [string, string] | undefined => {
    if (!tool) return ["tool_not_found", `the tool ${a.tool} is not available to this actor`];
    if (tool.effect !== a.effect || tool.name !== a.tool) return ["version_changed", `the tool ${a.tool} is no longer the approved ${a.effect} tool; nothing was sent`];
    if (tool.version !== a.version) return ["version_changed", `the tool ${a.tool} changed since approval; nothing was sent`];
    return undefined;
  };

  async function execute(claimed: ActionRecord): Promise<void> {
    const identity = { actorId: claimed.actorId, tenantId: claimed.tenantId };
    let tool: WriteTool | ConfirmTool | undefined;
    try {
      // A read tool is refused below: its effect is never the action's (write or confirm).
      tool = (await transition.away(claimed.id, resolveTool(claimed, identity))) as WriteTool | ConfirmTool | undefined;
    } catch (e) {
      // The host cannot resolve it now: nothing sent; the lease lapses and a later pass (or worker) takes it.
      report(e);
      return;
    }
    const fail = (a: ActionRecord, error: string, message: string, reason = message) =>
      move(a, { state: "failed", outcome: { result: errorResult(error, message), reason: cut(reason) }, ...release });
    const refused = refusal(claimed, tool);
    if (refused) return void (await fail(claimed, ...refused));
    // W8: what is sent is what was approved: the stored arguments are hashed again.
    if ((await argumentsHash(claimed.arguments)) !== claimed.argumentsHash) return void (await fail(claimed, "arguments_changed", "the stored arguments do not match the approved hash; nothing was sent"));
    // W13: executing is recorded inside the lane, which this action leaves once its request
    // was handed over: a worker that dies strands at most this one unsent.
    // Granted the lane, this action is on its way to its move at once: a move asked for in the
    // same turn (the previous action's outcome, as that one left the lane) waits for it, and the
    // two go in one statement.
    let leave = await transition.away(claimed.id, lane.enter(() => transition.resume(claimed.id)));
    let executing: ActionRecord | undefined;
    try {
      // Durable before the send: from here on, a crash means "maybe sent". The lease restarts
      // here, so the time the tool lookup took never shortens the send's own lease.
      executing = await move(claimed, { state: "executing", leaseOwner: workerId, leaseUntil: now() + leaseMs });
    } finally {
      if (!executing) leave();
    }
    if (!executing) return;
    const approved: ApprovedAction = { tool: claimed.tool, version: claimed.version, arguments: structuredClone(claimed.arguments), operationId: claimed.operationId };
    if (claimed.stateVersion !== undefined) approved.stateVersion = claimed.stateVersion;
    if (claimed.preview !== undefined) approved.preview = claimed.preview;
    let why = "";
    for (let attempt = 1; attempt <= MAX_NOT_SENT_ATTEMPTS; attempt++) {
      if (attempt > 1) {
        await transition.away(claimed.id, new Promise((r) => setTimeout(r, notSentDelay(attempt - 1, random))));
        // W5, W8: the host's resolver may reconnect what was lost; the tool is checked again.
        try {
          tool = (await transition.away(claimed.id, resolveTool(claimed, identity))) as WriteTool | ConfirmTool | undefined;
        } catch (e) {
          report(e);
          why = reasonOf(e);
          continue; // this attempt failed too, and sent nothing
        }
        const again = refusal(claimed, tool);
        if (again) return void (await fail(executing, ...again));
        leave = await transition.away(claimed.id, lane.enter(() => transition.resume(claimed.id)));
        // A retry only under a lease that is still this worker's: once it lapsed, another worker may
        // have taken the action over and declared its outcome uncertain, so nothing may be sent again.
        if (!(await transition.away(claimed.id, stillHeld(executing).catch(() => false)))) {
          leave();
          break;
        }
      }
      let outcome: ActionOutcome | undefined;
      try {
        const o = checkedOutcome(await transition.away(claimed.id, (tool as WriteTool | ConfirmTool).execute(approved, { identity, onSent: leave })));
        if (o.status === "unknown" && o.notSent === true) why = o.reason;
        else outcome = o;
      } catch (e) {
        leave();
        // The tool contract: execute throws only when nothing was sent; only a proven "not sent" is tried again.
        if (!wasNotSent(e)) return void (await fail(executing, isYadaError(e) ? e.code : "not_sent", "the execute call was refused before it was sent; nothing was sent", reasonOf(e)));
        why = reasonOf(e);
      } finally {
        leave();
      }
      if (outcome) return void (await finish(executing, outcome));
    }
    await fail(executing, "not_sent", "the server could not be reached; nothing was sent", why);
  }

  async function reconcile(claimed: ActionRecord): Promise<void> {
    const identity = { actorId: claimed.actorId, tenantId: claimed.tenantId };
    let outcome: ActionOutcome;
    try {
      const tool = await transition.away(claimed.id, resolveTool(claimed, identity));
      if (!tool || tool.effect !== "write" || tool.name !== claimed.tool || tool.version !== claimed.version) {
        outcome = { status: "unknown", reason: "the approved write tool is not available; the receipt was not looked up" };
      } else {
        const approved: ApprovedAction = { tool: claimed.tool, version: claimed.version, arguments: structuredClone(claimed.arguments), operationId: claimed.operationId };
        if (claimed.stateVersion !== undefined) approved.stateVersion = claimed.stateVersion;
        outcome = checkedOutcome(await transition.away(claimed.id, tool.reconcile(approved, { identity })));
      }
    } catch (e) {
      outcome = { status: "unknown", reason: `the receipt lookup failed (${reasonOf(e)})` };
    }
    // W13: the window counts from when the outcome became uncertain (a record reconciling
    // from before the window was kept starts it at this lookup, and keeps that start).
    const since = claimed.outcome?.uncertainSince ?? now();
    if (outcome.status === "unknown" && now() - since >= windowMs) {
      const reason = `no receipt settled the outcome within the reconcile window of ${windowMs} ms; not retried (${outcome.reason})`;
      await move(claimed, { state: "outcome_unknown", outcome: { reason: cut(reason), uncertainSince: since }, ...release, notBefore: undefined });
      return;
    }
    await finish(claimed, outcome, since);
  }

  async function handle(claimed: ActionRecord): Promise<void> {
    switch (claimed.state) {
      case "awaiting_approval":
        await move(claimed, { state: "expired", ...release });
        return;
      case "approved":
        return execute(claimed);
      case "executing":
        // A worker died (or overran its lease) after recording executing: the send may have happened.
        if (claimed.effect === "confirm") await move(claimed, { state: "outcome_unknown", outcome: { reason: "the worker stopped during the call; not retried" }, ...release });
        else await move(claimed, { state: "reconciling", attempts: 0, notBefore: now(), outcome: { reason: "the worker stopped during execute; resolving by receipt", uncertainSince: now() }, ...release });
        return;
      case "reconciling":
        return reconcile(claimed);
      default:
        return; // A store handed out a terminal action: nothing to do.
    }
  }

  /** {@link handle}, inside the span of what it does to `claimed` when traced. */
  function traced(claimed: ActionRecord): Promise<void | ActionRecord | undefined> {
    if (!trace || !moved) return handle(claimed);
    const op = claimed.state === "approved" ? SPAN_EXECUTE : claimed.state === "awaiting_approval" ? SPAN_EXPIRE : SPAN_RECONCILE;
    return tracedMove(trace, op, KIND_CONSUMER, claimed, async () => {
      try {
        await handle(claimed);
        return moved.get(claimed.id);
      } finally {
        moved.delete(claimed.id);
      }
    }, true);
  }

  /** Leases up to `n` actions: one batched claim where the store has it. */
  async function claimSome(n: number): Promise<ActionRecord[]> {
    const claim = { workerId, now: now(), leaseMs, ...(toolPrefixes ? { toolPrefixes } : {}) };
    if (n > 1 && store.claimMany) {
      const got = await store.claimMany({ ...claim, limit: Math.min(n, MAX_CLAIM_BATCH) });
      if (!Array.isArray(got) || got.length > n) throw new StoreError("a batched claim answered out of shape");
      return got;
    }
    const one = await store.claim(claim);
    return one ? [one] : [];
  }

  let stopped = false;
  async function runOnce(): Promise<number> {
    let handled = 0;
    let drained = false;
    let doneSinceDrained = false;
    let failure: { error: unknown } | undefined;
    const inFlight = new Set<Promise<void>>();
    for (;;) {
      // A finished action may have made work due now (a lapsed executing one is reconciled in the same pass).
      if (drained && doneSinceDrained && inFlight.size === 0) drained = false;
      const room = Math.min(concurrency - inFlight.size, MAX_ACTIONS_PER_PASS - handled);
      // Claim when idle, or when at least half the slots are free (a batch per statement).
      if (!drained && !failure && !(stopped && loop) && room > 0 && (inFlight.size === 0 || room * 2 >= concurrency)) {
        let batch: ActionRecord[];
        try {
          batch = await claimSome(room);
        } catch (e) {
          failure ??= { error: e };
          continue;
        }
        if (batch.length === 0) {
          drained = true;
          doneSinceDrained = false;
        }
        for (const claimed of batch) {
          handled++;
          transition.join(claimed.id); // its moves are batched with the others' (coalesce.ts)
          const task: Promise<void> = traced(claimed)
            .then(() => {}, (e: unknown) => void (failure ??= { error: e }))
            .finally(() => {
              transition.leave(claimed.id);
              inFlight.delete(task);
              doneSinceDrained = true;
            });
          inFlight.add(task);
        }
        continue;
      }
      if (inFlight.size === 0) break;
      await Promise.race(inFlight);
    }
    if (failure) throw failure.error;
    return handled;
  }

  let loop: Promise<void> | undefined;
  let stopping: (() => void) | undefined;
  const worker: ActionWorker = {
    runOnce,
    start() {
      if (loop) return;
      stopped = false;
      loop = (async () => {
        while (!stopped) {
          let n = 0;
          try {
            n = await runOnce();
          } catch (e) {
            options.onError?.(e);
          }
          if (n === 0 && !stopped) {
            await new Promise<void>((resolve) => {
              const t = setTimeout(resolve, pollMs);
              stopping = () => {
                clearTimeout(t);
                resolve();
              };
            });
          }
        }
      })();
    },
    async stop() {
      stopped = true;
      stopping?.();
      await loop;
      loop = undefined;
    },
  };
  // ES2022 has no Symbol.asyncDispose; runtimes that have it get the disposer.
  const dispose = (Symbol as { asyncDispose?: symbol }).asyncDispose;
  if (dispose) Object.defineProperty(worker, dispose, { value: () => worker.stop() });
  return worker;
}
