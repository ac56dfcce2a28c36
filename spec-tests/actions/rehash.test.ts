// W8: what is sent is what was approved. The worker hashes the stored arguments again
// before the send: arguments edited in the store after the approval (here by hand, in
// the PostgreSQL row, where nothing else compares them with their hash) fail the
// action as arguments_changed, and the reference server's own log shows nothing sent.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createActions } from "../../src/actions/approvals.js";
import { PostgresActionStore } from "../../src/actions/postgres-store.js";
import { createWorker } from "../../src/actions/worker.js";
import { freshTable, startPostgres, type TestPostgres } from "../helpers/postgres.js";
import { alice, bob, renameLines, renameTool, startContract, type ContractServer } from "./support.js";

let db: TestPostgres;
let server: ContractServer;
before(async () => {
  db = await startPostgres();
  server = await startContract();
});
after(async () => {
  await server?.close();
  await db?.stop();
});

test("W8: arguments edited in the store after approval fail the action as arguments_changed; nothing is sent", { timeout: 60_000 }, async () => {
  const table = freshTable();
  const store = new PostgresActionStore({ query: db.query, table });
  await store.migrate();
  const tool = renameTool(server.client, alice);
  const actions = createActions({ store, mayApprove: () => true });
  const proposed = await actions.propose(await tool.prepare({ id: "A", name: "What bob approved" }, { identity: alice }), { identity: alice, effect: "write" });
  await actions.approve(proposed, bob);
  // Someone with write access to the database changes what will be sent; the hash stays.
  await db.query(`UPDATE ${table} SET body = (body::jsonb || jsonb_build_object('arguments', $2::jsonb))::json WHERE id = $1`, [proposed.id, JSON.stringify({ id: "A", name: "What mallory wants" })]);
  const edited = await store.get(proposed.id);
  assert.equal(edited?.arguments.name, "What mallory wants", "the store reads the edited row as it is");
  assert.equal(edited.argumentsHash, proposed.argumentsHash);

  await createWorker({ store, resolveTool: () => tool }).runOnce();
  const done = await store.get(proposed.id);
  assert.equal(done?.state, "failed");
  assert.match(JSON.stringify(done.outcome?.result), /arguments_changed/);
  assert.equal(tool.executes, 0, "execute was never called");
  assert.equal(renameLines(server.log, proposed.operationId), 0, "the server never saw the mutation");
  await store.close?.();
});
