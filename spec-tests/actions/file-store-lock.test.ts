// W15: one writer per file store. Both lock mechanisms (the abstract socket of Linux
// and the generation files used elsewhere, selected here by the internal seam), the
// bounds of taking a lock, and the second line inside the journal: two stores that
// both believe they hold one journal (the lock bypassed by the seam) cannot both move
// one action.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { hostname } from "node:os";
import { join, relative } from "node:path";
import { openFileStoreWith, type FileActionStore } from "../../src/node/file-store.js";
import { realTarget, socketName, tryLock, isHeld, type LockMechanism } from "../../src/node/lock.js";
import { LOCK_PROBE_MAX_BYTES, LOCK_PROBE_TIMEOUT_MS, MAX_LOCK_DIR_ENTRIES } from "../../src/limits.js";
import type { ActionRecord } from "../../src/actions/types.js";
import { nodeStoreFs, type StoreFs } from "../../src/node/store-fs.js";
import { newRecord } from "./store-contract.js";
import { plantRecord, tempDir } from "./support.js";

type Coded = Error & { code?: string };
const refusedBy = (pattern: RegExp) => (e: Coded) => e.code === "store" && pattern.test(e.message);
const approval = { actorId: "bob", tenantId: "acme", at: 1 };

async function approved(store: FileActionStore): Promise<ActionRecord> {
  const r = await store.create(newRecord());
  return store.transition(r.id, { state: r.state, fence: r.fence }, { state: "approved", approval }, Date.now());
}

/** A pid that is certainly gone: a child that exited (and was reaped). */
const deadPid = (): Promise<number> =>
  new Promise((resolve) => {
    const c = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    c.on("exit", () => resolve(c.pid as number));
  });

for (const lock of ["socket", "files"] as const satisfies readonly LockMechanism[]) {
  describe(`W15: the ${lock} lock`, { timeout: 60_000 }, () => {
    test(`W15 (${lock}): a second opener is refused naming the holder; after close the store opens again`, async () => {
      const path = join(tempDir(), "actions.jsonl");
      const first = await openFileStoreWith(path, {}, { lock });
      await assert.rejects(openFileStoreWith(path, {}, { lock }), refusedBy(new RegExp(`locked by process ${process.pid}\\b`)));
      await first.close();
      await (await openFileStoreWith(path, {}, { lock })).close();
    });

    test(`W15 (${lock}): every path to one journal names one lock (a symlinked directory, a relative path)`, async () => {
      const dir = tempDir();
      const path = join(dir, "actions.jsonl");
      const link = join(tempDir(), "via-link");
      symlinkSync(dir, link);
      const store = await openFileStoreWith(path, {}, { lock });
      try {
        await assert.rejects(openFileStoreWith(join(link, "actions.jsonl"), {}, { lock }), refusedBy(/locked by/));
        await assert.rejects(openFileStoreWith(relative(process.cwd(), path), {}, { lock }), refusedBy(/locked by/));
        assert.equal(realTarget(join(link, "actions.jsonl")), realTarget(path));
      } finally {
        await store.close();
      }
    });

    test(`W15 (${lock}): a holder killed with SIGKILL leaves no lock: the next opener gets the store at once`, async () => {
      const path = join(tempDir(), "actions.jsonl");
      const url = new URL("../../src/node/file-store.js", import.meta.url).href;
      const child = spawn(process.execPath, ["--input-type=module", "-e", `const { openFileStoreWith } = await import(${JSON.stringify(url)}); await openFileStoreWith(${JSON.stringify(path)}, {}, { lock: ${JSON.stringify(lock)} }); console.log("open"); setInterval(() => {}, 1000);`], { stdio: ["ignore", "pipe", "inherit"] });
      const exited = new Promise((resolve) => child.on("exit", resolve));
      await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
      await assert.rejects(openFileStoreWith(path, {}, { lock }), refusedBy(new RegExp(`locked by process ${child.pid}\\b`)));
      child.kill("SIGKILL");
      await exited;
      await (await openFileStoreWith(path, {}, { lock })).close();
    });
  });
}

describe("W15: the generation files", { timeout: 60_000 }, () => {
  test("W15: a dead holder's generation is taken over by the next one, and the ones below it are removed", async () => {
    const path = join(tempDir(), "actions.jsonl");
    const locks = `${realTarget(path)}.locks`;
    mkdirSync(locks);
    writeFileSync(join(locks, "g1"), "yada-lock 1 pid=1 host=elsewhere-long-gone\n"); // another host: below the top, removed
    writeFileSync(join(locks, "g2"), `yada-lock 1 pid=${await deadPid()} host=${hostname().replace(/[^A-Za-z0-9._-]/g, "_")}\n`);
    const store = await openFileStoreWith(path, {}, { lock: "files" });
    assert.deepEqual(readdirSync(locks).sort(), ["g3"]);
    assert.match(readFileSync(join(locks, "g3"), "latin1"), new RegExp(`^yada-lock 1 pid=${process.pid} `));
    await store.close();
    assert.deepEqual(readdirSync(locks).sort(), ["g3", "g3.free"], "the highest generation stays; its release is a file of its own");
    await (await openFileStoreWith(path, {}, { lock: "files" })).close();
    assert.deepEqual(readdirSync(locks).sort(), ["g4", "g4.free"]);
  });

  test("W15: a holder on another host is never judged dead: the lock is refused naming the host", async () => {
    const path = join(tempDir(), "actions.jsonl");
    const locks = `${realTarget(path)}.locks`;
    mkdirSync(locks);
    writeFileSync(join(locks, "g7"), "yada-lock 1 pid=4242 host=builder-2\n");
    await assert.rejects(openFileStoreWith(path, {}, { lock: "files" }), refusedBy(/locked by process 4242 on host builder-2/));
    // A generation file that is not ours to read is held too.
    writeFileSync(join(locks, "g8"), "something else\n");
    await assert.rejects(openFileStoreWith(path, {}, { lock: "files" }), refusedBy(/locked by another process/));
  });

  test("W15: a lock directory of MAX_LOCK_DIR_ENTRIES entries is read; one more is a store error naming the bound", async () => {
    const path = join(tempDir(), "actions.jsonl");
    const locks = `${realTarget(path)}.locks`;
    mkdirSync(locks);
    for (let i = 0; i < MAX_LOCK_DIR_ENTRIES - 1; i++) writeFileSync(join(locks, `x${i}`), "");
    // Listed with MAX_LOCK_DIR_ENTRIES - 1 entries, then (its generation made) with MAX_LOCK_DIR_ENTRIES.
    await (await openFileStoreWith(path, {}, { lock: "files" })).close();
    assert.equal(readdirSync(locks).length, MAX_LOCK_DIR_ENTRIES + 1, "and its release makes one more");
    await assert.rejects(openFileStoreWith(path, {}, { lock: "files" }), refusedBy(/MAX_LOCK_DIR_ENTRIES/));
  });
});

describe("W15: asking a socket lock's holder", { timeout: 60_000 }, () => {
  /** Takes the store's abstract name with a server that answers as `answer` says. */
  async function squat(path: string, answer: (c: import("node:net").Socket) => void): Promise<Server> {
    mkdirSync(join(path, ".."), { recursive: true });
    const server = createServer(answer);
    await new Promise<void>((resolve) => server.listen({ path: socketName(realTarget(path)) }, resolve));
    return server;
  }

  test("W15: a holder that never answers is waited for LOCK_PROBE_TIMEOUT_MS at most; the refusal names no pid", async () => {
    const path = join(tempDir(), "actions.jsonl");
    const server = await squat(path, () => undefined);
    try {
      const t0 = Date.now();
      await assert.rejects(openFileStoreWith(path, {}, { lock: "socket" }), refusedBy(/locked by another process/));
      const took = Date.now() - t0;
      assert.ok(took >= LOCK_PROBE_TIMEOUT_MS - 50 && took < LOCK_PROBE_TIMEOUT_MS + 2_000, `waited ${took} ms`);
    } finally {
      server.close();
    }
  });

  test("W15: a holder's answer is read up to LOCK_PROBE_MAX_BYTES: a flood names no pid, a pid within the bound is named", async () => {
    const path = join(tempDir(), "actions.jsonl");
    let reply = "7".repeat(LOCK_PROBE_MAX_BYTES * 100);
    const server = await squat(path, (c) => c.end(reply));
    try {
      await assert.rejects(openFileStoreWith(path, {}, { lock: "socket" }), refusedBy(/locked by another process/));
      reply = "31337\n";
      await assert.rejects(openFileStoreWith(path, {}, { lock: "socket" }), refusedBy(/locked by process 31337\b/));
    } finally {
      server.close();
    }
  });

  test("W15: the lock's server never keeps a process alive", async () => {
    const path = join(tempDir(), "actions.jsonl");
    const url = new URL("../../src/node/file-store.js", import.meta.url).href;
    // The child opens the store and returns from its module without closing it: it must exit on its own.
    const child = spawn(process.execPath, ["--input-type=module", "-e", `const { openFileStoreWith } = await import(${JSON.stringify(url)}); await openFileStoreWith(${JSON.stringify(path)}, {}, { lock: "socket" }); console.log("open");`], { stdio: ["ignore", "pipe", "inherit"] });
    const code = await new Promise<number | null>((resolve) => {
      const t = setTimeout(() => (child.kill("SIGKILL"), resolve(-1)), 10_000);
      child.on("exit", (c) => (clearTimeout(t), resolve(c)));
    });
    assert.equal(code, 0, "the child exited by itself");
    const held = await tryLock(path, "socket");
    assert.ok(isHeld(held), "and its lock went with it");
    await held.release();
  });
});

describe("W15: the journal fence (two holders past the lock)", { timeout: 60_000 }, () => {
  const twoHolders = async () => {
    const path = join(tempDir(), "actions.jsonl");
    const first = await openFileStoreWith(path, {}, { lock: "none" });
    return { path, first };
  };

  test("W15: the displaced holder's move is refused as a store error; the later holder's move is made and replays", async () => {
    const { path, first } = await twoHolders();
    const a = await approved(first);
    // A second process opens the journal past the lock: it reads `a` approved, as the first does.
    const second = await openFileStoreWith(path, {}, { lock: "none" });
    await assert.rejects(first.claim({ workerId: "w-first", now: Date.now(), leaseMs: 60_000 }), refusedBy(/another process wrote the action journal/));
    const claimed = await second.claim({ workerId: "w-second", now: Date.now(), leaseMs: 60_000 });
    assert.equal(claimed?.id, a.id);
    // The displaced store is closed for good.
    await assert.rejects(first.get(a.id), refusedBy(/another process wrote/));
    await second.close();
    await first.close();
    const again = await openFileStoreWith(path, {}, { lock: "none" });
    assert.equal((await again.get(a.id))?.leaseOwner, "w-second");
    await again.close();
  });

  test("W15: two holders racing to move the same actions: each action is moved by at most one of them", async () => {
    const { path, first } = await twoHolders();
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push((await approved(first)).id);
    const second = await openFileStoreWith(path, {}, { lock: "none" });
    // Both claim everything at once, in many small steps, interleaving their appends and syncs.
    const won = new Map<string, string[]>();
    const claimAll = async (store: FileActionStore, who: string) => {
      for (let i = 0; i < ids.length; i++) {
        try {
          const c = await store.claim({ workerId: who, now: Date.now(), leaseMs: 60_000 });
          if (c) won.set(c.id, [...(won.get(c.id) ?? []), who]);
        } catch (e) {
          assert.equal((e as Coded).code, "store");
          return;
        }
      }
    };
    await Promise.all([claimAll(first, "first"), claimAll(second, "second"), claimAll(second, "second-b")]);
    for (const [id, by] of won) assert.equal(by.length, 1, `${id} was claimed by ${by.join(" and ")}`);
    assert.ok([...won.values()].every((by) => by[0] !== "first"), "the displaced holder moved nothing");
    await first.close();
    await second.close();
    const again = await openFileStoreWith(path, {}, { lock: "none" });
    for (const [id, by] of won) assert.equal((await again.get(id))?.leaseOwner, by[0]);
    await again.close();
  });

  test("W15: a displaced holder's late lines count for nothing when the journal is read back", async () => {
    const { path, first } = await twoHolders();
    const a = await approved(first);
    const second = await openFileStoreWith(path, {}, { lock: "none" });
    await second.close();
    // The first one's append lands (it is written and synced) but is refused: on replay it is not there.
    await assert.rejects(first.claim({ workerId: "late", now: Date.now(), leaseMs: 60_000 }), { code: "store" });
    assert.match(readFileSync(path, "utf8"), /"leaseOwner":"late"/, "the late line is in the file");
    const again = await openFileStoreWith(path, {}, { lock: "none" });
    assert.deepEqual(await again.get(a.id), a, "and counts for nothing");
    await again.close();
  });

  test("W15: a line another process appends while the store opens (between its read and its holder line) fails the open", async () => {
    const { path, first } = await twoHolders();
    const a = await approved(first);
    await first.close();
    // The holder of the journal appends a claim just after a second opener read the journal,
    // before that opener's holder line lands: the line counts (its writer held the journal then).
    let landed = false;
    const fs: StoreFs = {
      ...nodeStoreFs,
      write: (fd, data, offset, length) => {
        if (!landed) {
          landed = true;
          plantRecord(path, { ...a, fence: a.fence + 1, leaseOwner: "w-first", leaseUntil: Date.now() + 60_000 });
        }
        return nodeStoreFs.write(fd, data, offset, length);
      },
    };
    await assert.rejects(openFileStoreWith(path, {}, { lock: "none", fs }), refusedBy(/while this store was opening it/));
    const again = await openFileStoreWith(path, {}, { lock: "none" });
    assert.equal((await again.get(a.id))?.leaseOwner, "w-first", "the opener that failed never acted on the journal without that line");
    await again.close();
  });

  test("W15: a displaced holder cannot compact the journal away from the later holder", async () => {
    const { path, first } = await twoHolders();
    await approved(first);
    const second = await openFileStoreWith(path, {}, { lock: "none" });
    const b = await approved(second);
    await assert.rejects(first.compact(), refusedBy(/another process wrote/));
    const c = await approved(second);
    await second.close();
    const again = await openFileStoreWith(path, {}, { lock: "none" });
    assert.equal((await again.get(b.id))?.state, "approved");
    assert.equal((await again.get(c.id))?.state, "approved");
    await again.close();
  });

  test("W15: after the later holder compacts, the displaced holder's next move is refused (the journal was replaced)", async () => {
    const { path, first } = await twoHolders();
    const a = await approved(first);
    const second = await openFileStoreWith(path, {}, { lock: "none" });
    await second.compact();
    await assert.rejects(first.claim({ workerId: "w", now: Date.now(), leaseMs: 1_000 }), refusedBy(/another process wrote/));
    assert.equal((await second.claim({ workerId: "w2", now: Date.now(), leaseMs: 1_000 }))?.id, a.id);
    await second.close();
    await first.close();
  });
});
