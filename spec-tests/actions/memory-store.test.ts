// W9: the in-memory store passes the store contract.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryActionStore } from "../../src/actions/memory-store.js";
import { newRecord, storeContract } from "./store-contract.js";

storeContract("memory", async () => {
  const data = new Map<string, string>();
  let store = new MemoryActionStore({ data });
  return {
    get store() {
      return store;
    },
    async close() {},
    async reopen() {
      store = new MemoryActionStore({ data });
      return store;
    },
    async tamper(id, raw) {
      data.set(id, JSON.stringify(raw));
    },
  };
});

test("U4: two memory stores over one map keep one set of counts: moves through either are counted once, a record added behind both is counted", async () => {
  const data = new Map<string, string>();
  const a = new MemoryActionStore({ data });
  const b = new MemoryActionStore({ data });
  const x = await a.create(newRecord());
  await b.create(newRecord());
  const pending = { tenantId: "acme", state: "awaiting_approval" as const };
  assert.equal(await a.count(pending), 2);
  assert.equal(await b.count(pending), 2);
  await b.transition(x.id, { state: "awaiting_approval", fence: 0 }, { state: "expired" }, Date.now());
  assert.equal(await a.count(pending), 1, "a move through the other store");
  assert.equal(await a.count({ tenantId: "acme", state: "expired" }), 1);
  await a.list({ tenantId: "acme" }); // a reads the moved record's new text: counted once, not twice
  assert.equal(await a.count({ tenantId: "acme", state: "expired" }), 1);
  const raw = newRecord();
  data.set(raw.id, JSON.stringify(raw)); // behind both stores' backs
  assert.equal(await b.count(pending), 2);
  data.set(raw.id, JSON.stringify({ ...raw, tenantId: "other" }));
  await b.get(raw.id); // a text changed behind their backs moves its count when it is read
  assert.equal(await a.count(pending), 1);
  assert.equal(await a.count({ tenantId: "other" }), 1);
});
