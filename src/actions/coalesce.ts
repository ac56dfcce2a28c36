/**
 * Group commit for a worker's moves (W12): the compare-and-swaps a worker's actions
 * in flight ask for are gathered and sent as one {@link ActionStore.transitionMany}
 * (a worker has at most `MAX_WORKER_CONCURRENCY` ≤ `MAX_TRANSITION_BATCH` actions in flight, each
 * with at most one move pending, so a batch is never over the bound). A move waits only while the batch before
 * it is being written, never for another action's execute, so batching adds no
 * wait to a send and "`executing` is durable before the send" holds for each action:
 * its send starts only after the batch that holds its `executing` committed.
 *
 * @module
 */
import { StoreError } from "../errors.js";
import type { ActionRecord, ActionStore, ActionTransition } from "./types.js";

interface Pending {
  item: ActionTransition;
  resolve: (r: ActionRecord) => void;
  reject: (e: unknown) => void;
}

/** A transition function that batches: same contract as {@link ActionStore.transition}. */
export type Transition = (item: ActionTransition) => Promise<ActionRecord>;

/**
 * The store's own `transition` when it has no `transitionMany`; else a coalescing
 * one: moves asked for while the store is idle go out on the next turn of the event
 * loop, together; moves asked for while a batch is being written go out in the next
 * batch, as soon as it is done.
 */
export function coalescingTransition(store: ActionStore, now: () => number): Transition {
  const many = store.transitionMany?.bind(store);
  if (!many) return (i) => store.transition(i.id, i.expected, i.patch, now());
  let queue: Pending[] = [];
  let busy = false;

  async function flush(): Promise<void> {
    while (queue.length > 0) {
      // At most one move per action in flight, and at most MAX_WORKER_CONCURRENCY (≤ MAX_TRANSITION_BATCH) of those.
      const batch = queue;
      queue = [];
      try {
        const outcomes = await many!(batch.map((p) => p.item), now());
        if (!Array.isArray(outcomes) || outcomes.length !== batch.length) throw new StoreError("a batch of transitions answered out of shape");
        batch.forEach((p, i) => {
          const o = outcomes[i]!;
          if (o.ok) p.resolve(o.record);
          else p.reject(o.error);
        });
      } catch (e) {
        for (const p of batch) p.reject(e);
      }
    }
    busy = false;
  }

  return (item) =>
    new Promise<ActionRecord>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (busy) return;
      busy = true;
      // One turn of the event loop: the moves of actions claimed together arrive together.
      setTimeout(() => void flush(), 0);
    });
}
