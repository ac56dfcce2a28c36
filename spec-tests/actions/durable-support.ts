// Records for the tests of the stores past one process (W9, W12): their fault,
// restart and wake-up tests, beside the shared conformance suite (store-contract.ts).
import type { ActionRecord, ActionRecordFields, ActionStore } from "../../src/actions/types.js";

let n = 0;
/** A valid new action; ids are unique within the process. */
export function newAction(over: Partial<ActionRecordFields> = {}): ActionRecord {
  n++;
  return {
    id: `act-${process.pid}-${n}`,
    operationId: `op-${process.pid}-${n}`,
    actorId: "alice",
    tenantId: "acme",
    tool: "crm__update",
    effect: "write",
    version: "v1",
    arguments: { name: "x", n },
    argumentsHash: "a".repeat(64),
    state: "awaiting_approval",
    fence: 0,
    attempts: 0,
    createdAt: 1_000 + n,
    updatedAt: 1_000 + n,
    expiresAt: 10_000_000,
    ...over,
  } as ActionRecord;
}

export const approval = { actorId: "bob", tenantId: "acme", at: 2_000 };

/** Creates an action and approves it. */
export async function approved(store: ActionStore, over: Partial<ActionRecordFields> = {}): Promise<ActionRecord> {
  const a = await store.create(newAction(over));
  return store.transition(a.id, { state: "awaiting_approval", fence: 0 }, { state: "approved", approval: { ...approval, tenantId: a.tenantId } }, 2_000);
}
