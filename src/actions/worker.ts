/**
 * The durable worker (W5, W7, W8; ACTIONS.md "Worker"): claims actions, executes
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
  MAX_ACTION_RECORD_BYTES,
  MAX_ACTIONS_PER_PASS,
  MAX_NOT_SENT_ATTEMPTS,
  MAX_WORKER_CONCURRENCY,
  RECONCILE_BASE_DELAY_MS,
  RECONCILE_MAX_DELAY_MS,
} from "../limits.js";
import type { ActionOutcome, ApprovedAction, ConfirmTool, Identity, ToolResult, WriteTool } from "../tools/types.js";
import { checkClaim, isStorableResult, utf8Length } from "./record.js";
import { coalescingTransition } from "./coalesce.js";
import { argumentsHash } from "./hash.js";
import type { ActionPatch, ActionRecord, ActionStore } from "./types.js";

/** Finds the tool an action runs on, bound to the action's own actor and tenant; `undefined` when it no longer exists. */
export type ToolResolver = (action: ActionRecord, identity: Identity) => WriteTool | ConfirmTool | undefined | Promise<WriteTool | ConfirmTool | undefined>;

/** Options of {@link createWorker}. */
export interface WorkerOptions {
  store: ActionStore;
  /** The host's resolver: returns the tool for the action's identity (e.g. from `connectMcp` for that actor). */
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
   * where the store has them; each still follows the one invariant on its own.
   */
  concurrency?: number;
  /** The clock (default `Date.now`). */
  now?: () => number;
  /** Jitter source in [0, 1) (default `Math.random`). */
  random?: () => number;
  /** Told of every action the worker moved, after the move is stored. */
  onAction?: (action: ActionRecord) => void;
  /** Told of errors a started worker survives (a store that failed, a resolver that threw). */
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

/** The tool result a failure without a server answer shows the model. */
function errorResult(error: string, message: string): ToolResult {
  return { content: [{ type: "text", text: JSON.stringify({ error, message }) }], isError: true };
}

/** Keeps an outcome's result inside the record bound: images go first, then text is cut. */
function boundResult(result: ToolResult): ToolResult {
  const budget = MAX_ACTION_RECORD_BYTES / 2;
  if (utf8Length(JSON.stringify(result)) <= budget) return result;
  const content = result.content.map((p) => (p.type === "image" ? { type: "text" as const, text: `[image ${p.mimeType.slice(0, 40)} omitted]` } : p));
  const text = JSON.stringify(content);
  if (utf8Length(text) <= budget) return { content, isError: result.isError };
  return { content: [{ type: "text", text: "[result cut to fit the action record] " + content.map((p) => p.text).join("\n").slice(0, budget / 4) }], isError: result.isError };
}

/**
 * "Not sent" (ACTIONS.md) for an error a tool threw: a refused connection, a name
 * that did not resolve, or an auth challenge (HTTP 401 / 403) answered before the
 * body was read. Such a send may be tried again under the same operation id; a tool
 * says the same of an outcome with `notSent: true`.
 */
export function wasNotSent(error: unknown): boolean {
  if (isYadaError(error, "http")) {
    const status = (error as { status?: unknown }).status;
    return status === 401 || status === 403;
  }
  for (let e: unknown = error, depth = 0; e !== null && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN") return true;
  }
  return false;
}

/** Back-off before receipt lookup number `attempts` + 1: doubling from the base, capped, jittered to [½, 1]. */
export function reconcileDelay(attempts: number, random: () => number = Math.random): number {
  const full = Math.min(RECONCILE_MAX_DELAY_MS, RECONCILE_BASE_DELAY_MS * 2 ** Math.min(attempts, 30));
  return Math.round(full * (0.5 + 0.5 * Math.min(Math.max(random(), 0), 1)));
}

const reasonOf = (e: unknown): string => {
  const code = isYadaError(e) ? e.code : "error";
  const msg = e instanceof Error ? e.message : String(e);
  return `${code}: ${msg}`.slice(0, MAX_ACTION_REASON_CHARS);
};

/**
 * A worker over `options.store`. For each claimed action:
 *
 * - awaiting approval past its TTL → `expired`;
 * - approved → resolve the tool for the action's actor and tenant (a resolver that
 *   throws leaves the action approved under the lease, for a later pass); a missing tool,
 *   another effect, a changed `version` or arguments that no longer match their hash
 *   → `failed` with nothing sent (`tool_not_found`, `version_changed`,
 *   `arguments_changed`); else `executing` (stored first), then execute: succeeded or
 *   failed as the server answered; unknown or a malformed answer → `reconciling`
 *   (write) or `outcome_unknown` (confirm). An execute that throws sent nothing (the
 *   tool contract): the action fails; one provably not sent (`notSent: true`, or see
 *   {@link wasNotSent}) is tried again under the same operation id, at most
 *   `MAX_NOT_SENT_ATTEMPTS` times in all, and only while this worker still holds its lease;
 * - executing with a lapsed lease (a worker died mid-send) → `reconciling` (write) or
 *   `outcome_unknown` (confirm), never sent again;
 * - reconciling → the receipt lookup; unknown again stays `reconciling` with a
 *   jittered back-off (`RECONCILE_BASE_DELAY_MS` doubling to `RECONCILE_MAX_DELAY_MS`).
 *
 * A move that loses its compare-and-swap (another worker took over) is dropped.
 *
 * @example
 * ```ts
 * import { createWorker, MemoryActionStore } from "yada-mcp";
 * const store = new MemoryActionStore();
 * const worker = createWorker({ store, resolveTool: () => undefined });
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
  const toolPrefixes = options.toolPrefixes === undefined ? undefined : Object.freeze([...options.toolPrefixes]);
  if (toolPrefixes) checkClaim({ workerId, now: 0, leaseMs: 1, toolPrefixes });
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const transition = coalescingTransition(store, now);

  async function move(a: ActionRecord, patch: ActionPatch): Promise<ActionRecord | undefined> {
    try {
      const next = await transition({ id: a.id, expected: { state: a.state, fence: a.fence }, patch });
      options.onAction?.(next);
      return next;
    } catch (e) {
      if (isYadaError(e, "conflict")) return undefined; // another worker holds it now
      throw e;
    }
  }
  const release = { leaseOwner: undefined, leaseUntil: undefined } as const;
  const finish = (a: ActionRecord, outcome: ActionOutcome): Promise<ActionRecord | undefined> => {
    if (outcome.status === "unknown") {
      if (a.effect === "confirm") return move(a, { state: "outcome_unknown", outcome: { reason: outcome.reason.slice(0, MAX_ACTION_REASON_CHARS) }, ...release });
      return move(a, { state: "reconciling", attempts: a.state === "reconciling" ? a.attempts + 1 : 0, notBefore: now() + reconcileDelay(a.state === "reconciling" ? a.attempts + 1 : 0, random), outcome: { reason: outcome.reason.slice(0, MAX_ACTION_REASON_CHARS) }, ...release });
    }
    return move(a, { state: outcome.status, outcome: { result: boundResult(outcome.result) }, ...release, notBefore: undefined });
  };
  /** A well-formed outcome, or an unknown one naming what was wrong. */
  const checked = (o: unknown): ActionOutcome => {
    const x = o as Partial<Record<string, unknown>> | null;
    if (x && (x.status === "succeeded" || x.status === "failed")) {
      // Only a result the record can hold: else the store refuses the move and the action is left executing.
      if (isStorableResult(x.result)) return o as ActionOutcome;
    }
    if (x && x.status === "unknown" && typeof x.reason === "string") return { status: "unknown", reason: x.reason, ...(x.notSent === true ? { notSent: true } : {}) };
    return { status: "unknown", reason: "the tool returned a malformed outcome" };
  };

  /** Is `a` still stored as this worker left it, under a lease that has not lapsed? */
  async function stillHeld(a: ActionRecord): Promise<boolean> {
    if (a.leaseUntil === undefined || a.leaseUntil <= now()) return false;
    const current = await store.get(a.id);
    return current !== undefined && current.state === a.state && current.fence === a.fence && current.leaseOwner === workerId;
  }

  async function execute(claimed: ActionRecord): Promise<void> {
    const identity = { actorId: claimed.actorId, tenantId: claimed.tenantId };
    let tool: WriteTool | ConfirmTool | undefined;
    try {
      tool = await resolveTool(claimed, identity);
    } catch (e) {
      // The host cannot resolve it now: nothing sent; the lease lapses and a later pass (or worker) takes it.
      options.onError?.(e);
      return;
    }
    const fail = (error: string, message: string) => move(claimed, { state: "failed", outcome: { result: errorResult(error, message), reason: message }, ...release });
    if (!tool) return void (await fail("tool_not_found", `the tool ${claimed.tool} is not available to this actor`));
    if (tool.effect !== claimed.effect || tool.name !== claimed.tool) return void (await fail("version_changed", `the tool ${claimed.tool} is no longer the approved ${claimed.effect} tool; nothing was sent`));
    if (tool.version !== claimed.version) return void (await fail("version_changed", `the tool ${claimed.tool} changed since approval; nothing was sent`));
    if ((await argumentsHash(claimed.arguments)) !== claimed.argumentsHash) return void (await fail("arguments_changed", "the stored arguments do not match the approved hash; nothing was sent"));
    // Durable before the send: from here on, a crash means "maybe sent". The lease restarts here,
    // so the time the tool lookup took never shortens the send's own lease.
    const executing = await move(claimed, { state: "executing", leaseOwner: workerId, leaseUntil: now() + leaseMs });
    if (!executing) return;
    const approved: ApprovedAction = { tool: claimed.tool, version: claimed.version, arguments: structuredClone(claimed.arguments), operationId: claimed.operationId };
    if (claimed.stateVersion !== undefined) approved.stateVersion = claimed.stateVersion;
    if (claimed.preview !== undefined) approved.preview = claimed.preview;
    let outcome: ActionOutcome | undefined;
    for (let attempt = 1; outcome === undefined; attempt++) {
      let notSent: unknown;
      try {
        const o = checked(await tool.execute(approved, { identity }));
        if (o.status === "unknown" && o.notSent === true) notSent = o.reason;
        else outcome = o;
      } catch (e) {
        // The tool contract: execute throws only when nothing was sent.
        if (!wasNotSent(e)) {
          await move(executing, { state: "failed", outcome: { result: errorResult(isYadaError(e) ? e.code : "not_sent", "the execute call was refused before it was sent; nothing was sent"), reason: reasonOf(e) }, ...release });
          return;
        }
        notSent = e;
      }
      // A retry only under a lease that is still this worker's: once it lapsed, another worker may
      // have taken the action over and declared its outcome uncertain, so nothing may be sent again.
      if (notSent !== undefined && (attempt >= MAX_NOT_SENT_ATTEMPTS || !(await stillHeld(executing)))) {
        await move(executing, { state: "failed", outcome: { result: errorResult("not_sent", "the server could not be reached; nothing was sent"), reason: typeof notSent === "string" ? notSent.slice(0, MAX_ACTION_REASON_CHARS) : reasonOf(notSent) }, ...release });
        return;
      }
    }
    await finish(executing, outcome);
  }

  async function reconcile(claimed: ActionRecord): Promise<void> {
    const identity = { actorId: claimed.actorId, tenantId: claimed.tenantId };
    let outcome: ActionOutcome;
    try {
      const tool = await resolveTool(claimed, identity);
      if (!tool || tool.effect !== "write" || tool.name !== claimed.tool || tool.version !== claimed.version) {
        outcome = { status: "unknown", reason: "the approved write tool is not available; the receipt was not looked up" };
      } else {
        const approved: ApprovedAction = { tool: claimed.tool, version: claimed.version, arguments: structuredClone(claimed.arguments), operationId: claimed.operationId };
        if (claimed.stateVersion !== undefined) approved.stateVersion = claimed.stateVersion;
        outcome = checked(await tool.reconcile(approved, { identity }));
      }
    } catch (e) {
      outcome = { status: "unknown", reason: `the receipt lookup failed (${reasonOf(e)})` };
    }
    await finish(claimed, outcome);
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
        else await move(claimed, { state: "reconciling", attempts: 0, notBefore: now(), outcome: { reason: "the worker stopped during execute; resolving by receipt" }, ...release });
        return;
      case "reconciling":
        return reconcile(claimed);
      default:
        return; // A store handed out a terminal action: nothing to do.
    }
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
          const task: Promise<void> = handle(claimed)
            .catch((e: unknown) => void (failure ??= { error: e }))
            .finally(() => {
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
