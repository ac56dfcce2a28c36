// W9: the file store passes the store contract, and survives what files suffer:
// a torn tail, a second process, a kill -9 between acknowledged writes, compaction.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFileSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { openFileStore, type FileActionStore } from "../../src/node/file-store.js";
import { storeContract, newRecord } from "./store-contract.js";
import { repoPath } from "../helpers/paths.js";
import { lastHolder, plantRecord, tempDir } from "./support.js";

storeContract("file", async () => {
  const path = join(tempDir(), "actions.jsonl");
  let store: FileActionStore = await openFileStore(path);
  return {
    get store() {
      return store;
    },
    close: () => store.close(),
    async reopen() {
      await store.close();
      store = await openFileStore(path);
      return store;
    },
    async tamper(id, raw) {
      // Written behind the store's back, as a corrupt disk or another program would, in the name of its last holder.
      await store.close();
      plantRecord(path, { ...raw, id });
      store = await openFileStore(path);
    },
  };
});

const moduleUrl = pathToFileURL(repoPath("build", "src", "node", "file-store.js")).href;

/** A child process running `body` with `openFileStore` and `path` in scope. */
function child(path: string, body: string) {
  const code = `import { openFileStore } from ${JSON.stringify(moduleUrl)}; const path = ${JSON.stringify(path)};\n${body}`;
  const p = spawn(process.execPath, ["--input-type=module", "-e", code], { stdio: ["ignore", "pipe", "pipe"] });
  const lines = createInterface({ input: p.stdout });
  let stderr = "";
  p.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => p.on("exit", (c) => resolve(c)));
  return { p, lines, exited, stderr: () => stderr };
}

describe("W9: file store on disk", { timeout: 60_000 }, () => {
  test("U1, W9: a count or list while a change is being written answers what is on disk, and the counts after it hold the change", async () => {
    const store = await openFileStore(join(tempDir(), "actions.jsonl"));
    try {
      const a = await store.create(newRecord());
      const tenant = { tenantId: a.tenantId };
      const approval = { actorId: "bob", tenantId: a.tenantId, at: Date.now() };
      assert.equal(await store.count({ ...tenant, state: "awaiting_approval" }), 1); // the kept numbers, built
      const writing = store.transition(a.id, { state: "awaiting_approval", fence: 0 }, { state: "approved", approval }, Date.now());
      // Asked while the change is on its way to disk: the old state, read from the text on disk.
      assert.equal(await store.count({ ...tenant, state: "awaiting_approval" }), 1);
      assert.deepEqual((await store.list({ ...tenant, state: "awaiting_approval" })).map((r) => r.id), [a.id]);
      await writing;
      // That read must not have moved the kept numbers back to the state on disk then.
      assert.equal(await store.count({ ...tenant, state: "awaiting_approval" }), 0);
      assert.equal(await store.count({ ...tenant, state: "approved" }), 1);
      assert.equal((await store.get(a.id))?.state, "approved");
    } finally {
      await store.close();
    }
  });

  test("W9: a torn last line is ignored on open and the journal goes on from the last whole record", async () => {
    const path = join(tempDir(), "actions.jsonl");
    const store = await openFileStore(path);
    const a = await store.create(newRecord());
    await store.close();
    const whole = readFileSync(path, "utf8");
    const torn = JSON.stringify({ h: lastHolder(path), r: newRecord() }).slice(0, 57); // a crash mid-append
    appendFileSync(path, torn);
    const again = await openFileStore(path);
    assert.deepEqual(await again.get(a.id), a);
    assert.equal((await again.list({ tenantId: "acme" })).length, 1);
    // The journal is append-only: the torn bytes stay, closed by a newline, and count for nothing.
    const after = readFileSync(path, "utf8");
    assert.ok(after.startsWith(`${whole}${torn}\n{"yada":"holder"`), "the next holder line starts on a line of its own");
    const b = await again.create(newRecord());
    await again.close();
    const third = await openFileStore(path);
    assert.deepEqual(await third.get(b.id), b);
    await third.close();
    // Zeros after the last newline (what some file systems show after a crash) count as torn too.
    appendFileSync(path, "\0".repeat(300) + "\n");
    const fourth = await openFileStore(path);
    assert.equal((await fourth.list({ tenantId: "acme" })).length, 2);
    await fourth.close();
  });

  test("W9: a corrupt line before the last is a store error on open, not silently dropped", async () => {
    const path = join(tempDir(), "actions.jsonl");
    writeFileSync(path, `{"broken\n${JSON.stringify(newRecord())}\n`);
    await assert.rejects(openFileStore(path), { code: "store" });
    // The failed open released its lock.
    writeFileSync(path, "");
    await (await openFileStore(path)).close();
  });

  test("W9: a second process cannot open a locked store: a clear store error naming the holder", async () => {
    const path = join(tempDir(), "actions.jsonl");
    const holder = child(path, `const s = await openFileStore(path); console.log("open " + process.pid); setTimeout(() => s.close().then(() => process.exit(0)), 20000);`);
    const [line] = await Promise.race([
      new Promise<string[]>((resolve) => holder.lines.once("line", (l: string) => resolve([l]))),
      holder.exited.then(() => [`exited: ${holder.stderr()}`]),
    ]);
    assert.match(line ?? "", /^open \d+$/);
    const pid = Number((line ?? "").split(" ")[1]);
    await assert.rejects(openFileStore(path), (e: unknown) => {
      assert.equal((e as { code?: unknown }).code, "store");
      assert.match(String((e as Error).message), new RegExp(`locked by process ${pid}`));
      return true;
    });
    holder.p.kill("SIGKILL");
    await holder.exited;
    // Its holder died without closing: the stale lock is taken over.
    const store = await openFileStore(path);
    await store.close();

    // And the other way round: this process holds it, a child is refused.
    const mine = await openFileStore(path);
    const refused = child(path, `try { await openFileStore(path); console.log("opened"); } catch (e) { console.log(e.code + " " + e.message); }`);
    const [answer] = await new Promise<string[]>((resolve) => refused.lines.once("line", (l: string) => resolve([l])));
    assert.match(answer ?? "", new RegExp(`^store .*locked by process ${process.pid}`));
    await refused.exited;
    await mine.close();
  });

  test("W9: every acknowledged change survives a kill -9 of the writing process", async () => {
    const path = join(tempDir(), "actions.jsonl");
    const writer = child(
      path,
      `const s = await openFileStore(path); let i = 0;
       for (;;) { i++; const id = "act-" + i; const now = Date.now();
         await s.create({ id, operationId: "op-" + i, actorId: "alice", tenantId: "acme", tool: "t", effect: "confirm", version: "v", arguments: {}, argumentsHash: "0".repeat(64), state: "awaiting_approval", fence: 0, attempts: 0, createdAt: now, updatedAt: now, expiresAt: now + 60000 });
         console.log(id); }`,
    );
    const acked: string[] = [];
    await new Promise<void>((resolve) => {
      writer.lines.on("line", (l: string) => {
        acked.push(l);
        if (acked.length === 40) {
          writer.p.kill("SIGKILL");
          resolve();
        }
      });
      void writer.exited.then(() => resolve());
    });
    await writer.exited;
    assert.ok(acked.length >= 40, `the writer acknowledged ${acked.length}: ${writer.stderr()}`);
    const store = await openFileStore(path);
    for (const id of acked) assert.equal((await store.get(id))?.state, "awaiting_approval", `${id} was acknowledged`);
    await store.close();
  });

  test("W9: compaction rewrites the journal to one line per action, atomically, keeping every record", async () => {
    const path = join(tempDir(), "actions.jsonl");
    const store = await openFileStore(path, { compactBytes: 4_096 });
    const approval = { actorId: "bob", tenantId: "acme", at: 1 };
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await store.create(newRecord());
      ids.push(r.id);
      await store.transition(r.id, { state: r.state, fence: 0 }, { state: "approved", approval }, Date.now());
      for (let k = 0; k < 3; k++) await store.claim({ workerId: "w", now: Date.now() + 10 ** 9 * (k + 1), leaseMs: 1 });
    }
    const before = await store.list({ tenantId: "acme" });
    await store.compact();
    const lines = readFileSync(path, "utf8").trim().split("\n");
    assert.equal(lines.length, 11, "one holder line and one line per action");
    assert.equal(lines.filter((l) => l.startsWith('{"h":')).length, 10);
    assert.deepEqual(await store.list({ tenantId: "acme" }), before);
    await store.close();
    const again = await openFileStore(path);
    assert.deepEqual(await again.list({ tenantId: "acme" }), before);
    assert.ok(statSync(path).size < 4_096 * 4);
    await again.close();
  });
});
