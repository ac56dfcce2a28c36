/**
 * The index of open authorization flows in a {@link TokenStore} (A3): a bounded list
 * of `[state, createdAt]` under the key `flows`, so that flows nobody came back from
 * (a closed tab, an abandoned login) are deleted once they expire instead of staying
 * in the store for ever. Each start of a flow, and each finished flow, sweeps: the
 * expired flows are deleted, and past {@link MAX_OPEN_FLOWS} the oldest ones are.
 *
 * @module
 */
import { MAX_OAUTH_STRING_CHARS, MAX_OPEN_FLOWS, OAUTH_FLOW_TTL_MS } from "../limits.js";
import type { TokenStore } from "./store.js";

/** The store key of the index. */
export const FLOWS_KEY = "flows";
/** The store key of the flow record of `state`. */
export const flowKey = (state: string): string => `flow ${state}`;

type Entry = [state: string, createdAt: number];

/** The index as stored, validated; an entry that does not parse is dropped (its flow then expires unswept, as before). */
function parse(value: string | undefined): Entry[] {
  if (value === undefined || value.length > MAX_OPEN_FLOWS * (MAX_OAUTH_STRING_CHARS + 32)) return [];
  let o: unknown;
  try {
    o = JSON.parse(value);
  } catch {
    return [];
  }
  if (!Array.isArray(o)) return [];
  const out: Entry[] = [];
  for (const e of o.slice(0, MAX_OPEN_FLOWS)) {
    if (Array.isArray(e) && typeof e[0] === "string" && e[0].length <= MAX_OAUTH_STRING_CHARS && Number.isFinite(e[1])) out.push([e[0], e[1] as number]);
  }
  return out;
}

/**
 * Updates the index: adds the flow `add`, forgets the flow `remove`, and deletes from
 * the store every flow that expired (or that the bound pushes out). Work per call:
 * at most {@link MAX_OPEN_FLOWS} + 1 deletions, 8 compare-and-swap tries of the index.
 * A store that keeps refusing the index write leaves it as it was: sweeping is
 * housekeeping, never a reason for a login to fail.
 */
export async function sweepFlows(store: TokenStore, change: { add?: Entry; remove?: string }, now = Date.now()): Promise<void> {
  for (let i = 0; i < 8; i++) {
    const cur = await store.get(FLOWS_KEY);
    const list = parse(cur?.value);
    const keep: Entry[] = [];
    const drop: string[] = [];
    for (const e of list) {
      if (e[0] === change.remove) continue;
      if (now - e[1] > OAUTH_FLOW_TTL_MS) drop.push(e[0]);
      else keep.push(e);
    }
    if (change.add !== undefined) keep.push(change.add);
    while (keep.length > MAX_OPEN_FLOWS) drop.push((keep.shift() as Entry)[0]);
    if (cur === undefined && keep.length === 0) return;
    if (!(await store.set(FLOWS_KEY, keep.length === 0 ? undefined : JSON.stringify(keep), cur?.version))) continue;
    for (const state of drop) {
      const v = await store.get(flowKey(state));
      if (v !== undefined) await store.set(flowKey(state), undefined, v.version);
    }
    return;
  }
}
