/**
 * Group commit for a worker's moves (W9, W12): the compare-and-swaps a worker's actions
 * in flight ask for are gathered and sent as one {@link ActionStore.transitionMany}
 * (a worker has at most `MAX_WORKER_CONCURRENCY` ≤ `MAX_TRANSITION_BATCH` actions in flight, each
 * with at most one move pending, so a batch is never over the bound). A move waits only while the batch before
 * it is being written, never for another action's execute, so batching adds no
 * wait to a send and "`executing` is durable before the send" holds for each action:
 * its send starts only after the batch that holds its `executing` committed.
 *
 * When a batch goes out, without a timer: the worker says which actions are in flight
 * ({@link CoalescingTransition.join}, {@link CoalescingTransition.leave}) and when one
 * is away in a host call (resolving its tool, its execute, a receipt lookup:
 * {@link CoalescingTransition.away}). An action in flight that is not away is on its
 * way to its next move (checks, the arguments hash); so a batch is whole when every such
 * action has asked, and it goes out one microtask later: moves asked for in one turn go
 * together, one action alone pays no wait at all. (A timer turn, as before, cost every
 * move at least 1 ms; a bare microtask split the moves of actions claimed together,
 * which reach their move after the hash, each in its own turn. Measured in
 * scripts/bench/actions.mjs.) If an action on its way is slow to ask (work the worker
 * did not mark as away), the others wait for it at most `COALESCE_MAX_WAIT_MS`.
 *
 * @module
 */
import { StoreError } from "../errors.js";
import { COALESCE_MAX_WAIT_MS } from "../limits.js";
import type { ActionRecord, ActionStore, ActionTransition } from "./types.js";

interface Pending {
  item: ActionTransition;
  resolve: (r: ActionRecord) => void;
  reject: (e: unknown) => void;
}

/** A transition function that batches: same contract as {@link ActionStore.transition}. */
export type Transition = (item: ActionTransition) => Promise<ActionRecord>;

/** A {@link Transition} that also knows the worker's actions in flight (see the module comment). */
export interface CoalescingTransition extends Transition {
  /** Action `id` is in flight: batches wait for its move (unless it is away). */
  join(id: string): void;
  /** Action `id` waits on `work` (a host call): batches do not wait for it meanwhile. Resolves as `work`. */
  away<T>(id: string, work: T | PromiseLike<T>): Promise<T>;
  /**
   * Action `id`, away, is on its way to a move again from now on, before the work it
   * was away for has resolved (it was just granted what it waited for): a batch that
   * goes out meanwhile waits for its move.
   */
  resume(id: string): void;
  /** Action `id` is done: batches never wait for it again. */
  leave(id: string): void;
}

/**
 * The store's own `transition` when it has no `transitionMany`; else a coalescing one
 * (see the module comment).
 */
export function coalescingTransition(store: ActionStore, now: () => number): CoalescingTransition {
  const many = store.transitionMany?.bind(store);
  const joined = new Set<string>();
  const busy = new Set<string>(); // in flight, on the way to a move
  let queue: Pending[] = [];
  let writing = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  /** Sends the queue, one microtask later, once nothing in flight is still on its way to a move (or the wait ran out). */
  const go = (force?: boolean): void => {
    if (writing || queue.length === 0) return;
    if (busy.size > 0 && !force) {
      timer ??= setTimeout(() => ((timer = undefined), go(true)), COALESCE_MAX_WAIT_MS);
      return;
    }
    clearTimeout(timer);
    timer = undefined;
    writing = true;
    queueMicrotask(() => void flush());
  };
  const back = (id: string): void => void (joined.has(id) && busy.add(id));

  async function flush(): Promise<void> {
    // At most one move per action in flight, and at most MAX_WORKER_CONCURRENCY (≤ MAX_TRANSITION_BATCH) of those.
    const batch = queue;
    queue = [];
    try {
      const outcomes = await many!(batch.map((p) => p.item), now());
      if (!Array.isArray(outcomes) || outcomes.length !== batch.length) throw new StoreError("a batch of transitions answered out of shape");
      batch.forEach((p, i) => {
        const o = outcomes[i]!;
        back(p.item.id);
        if (o.ok) p.resolve(o.record);
        else p.reject(o.error);
      });
    } catch (e) {
      for (const p of batch) back(p.item.id), p.reject(e);
    }
    writing = false;
    go();
  }

  const transition = ((item: ActionTransition) => {
    if (!many) return store.transition(item.id, item.expected, item.patch, now());
    return new Promise<ActionRecord>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      busy.delete(item.id);
      go();
    });
  }) as CoalescingTransition;
  transition.join = (id) => void (joined.add(id), busy.add(id));
  transition.away = async (id, work) => {
    busy.delete(id);
    go();
    try {
      return await work;
    } finally {
      back(id);
    }
  };
  transition.resume = back;
  transition.leave = (id) => {
    joined.delete(id);
    busy.delete(id);
    go();
  };
  return transition;
}
