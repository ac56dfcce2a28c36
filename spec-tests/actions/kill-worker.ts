// The worker process of the kill -9 loop (W5, W8, W9): opens the file store, connects
// to the reference server over HTTP with connectMcp's write tool, and runs the
// worker. With KILL_AT set it prints the step boundary it reached ("at <step>") and
// waits there to be killed: before-send (executing is recorded, nothing sent yet),
// in-flight (the request is out, the server delays performing), before-commit (the
// answer is in, the commit not yet made). Without it, it runs passes until the
// action is terminal or still reconciling after RUN_MS, prints "done <state> <execute calls>" and exits.
import { connectMcp } from "../../src/node/tools.js";
import { openFileStore } from "../../src/node/file-store.js";
import { createWorker } from "../../src/actions/worker.js";
import { isTerminal } from "../../src/actions/states.js";
import type { WriteTool } from "../../src/tools/types.js";

const [storePath = "", url = "", actionId = ""] = process.argv.slice(2);
const killAt = process.env.KILL_AT ?? "";
const say = (line: string) => process.stdout.write(line + "\n");
const hold = () => new Promise(() => setTimeout(() => process.exit(3), 30_000));

const store = await openFileStore(storePath);
const identity = { actorId: "alice", tenantId: "acme" };
const connection = await connectMcp({ name: "contract", url, writeTools: { rename: { version: "reviewed-1", prepareTool: "prepare_rename", receiptTool: "rename_receipt" } } }, { identity, authorize: () => true });
const real = connection.tools.find((t): t is WriteTool => t.name === "contract__rename" && t.effect === "write");
if (!real) throw new Error("no write tool");
let executes = 0;
const tool: WriteTool = {
  ...real,
  prepare: (a, c) => real.prepare(a, c),
  reconcile: (a, c) => real.reconcile(a, c),
  async execute(action, context) {
    executes++;
    if (killAt === "before-send") {
      say("at before-send");
      await hold();
    }
    const sent = real.execute(action, context);
    if (killAt === "in-flight") setTimeout(() => say("at in-flight"), 50);
    const outcome = await sent;
    if (killAt === "before-commit") {
      say("at before-commit");
      await hold();
    }
    return outcome;
  },
};
const worker = createWorker({ store, resolveTool: () => tool, leaseMs: 400, workerId: `w-${process.pid}` });
const until = Date.now() + Number(process.env.RUN_MS ?? 8_000);
for (;;) {
  await worker.runOnce();
  const a = await store.get(actionId);
  if (!a || isTerminal(a.state) || Date.now() > until) {
    say(`done ${a?.state ?? "missing"} ${executes}`);
    break;
  }
  await new Promise((r) => setTimeout(r, 100));
}
await connection.close();
await store.close();
