// W9: the in-memory store passes the store contract.
import { MemoryActionStore } from "../../src/actions/memory-store.js";
import { storeContract } from "./store-contract.js";

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
