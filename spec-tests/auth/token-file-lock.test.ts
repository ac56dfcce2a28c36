// W15 (A5): the token file store's lock. A set waits while another process writes,
// never past TOKEN_LOCK_WAIT_MS; a writer killed with SIGKILL leaves no lock behind;
// and processes racing to compare-and-set one entry never both win with one version.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileTokenStore } from "../../src/node/token-store.js";
import { isHeld, tryLock, type HeldLock, type LockMechanism } from "../../src/node/lock.js";
import { TOKEN_LOCK_RETRY_MS, TOKEN_LOCK_WAIT_MS } from "../../src/limits.js";

const tokenFile = (): string => join(mkdtempSync(join(tmpdir(), "yada-token-lock-")), "cfg", "tokens.json");

async function hold(path: string, lock: LockMechanism): Promise<HeldLock> {
  const got = await tryLock(path, lock);
  assert.ok(isHeld(got), "the test takes the lock");
  return got;
}

const moduleUrl = (p: string) => JSON.stringify(new URL(`../../src/node/${p}`, import.meta.url).href);

for (const lock of ["socket", "files"] as const) {
  describe(`W15: the token file's ${lock} lock`, { timeout: 60_000 }, () => {
    test(`W15 (${lock}): a set waits while another writer holds the lock (polling every TOKEN_LOCK_RETRY_MS), then goes ahead`, async () => {
      const path = tokenFile();
      const store = new FileTokenStore(path, { lock });
      assert.equal(await store.set("k", "v1", undefined), true);
      const held = await hold(path, lock);
      const t0 = Date.now();
      setTimeout(() => void held.release(), 150);
      const v = (await store.get("k"))?.version;
      assert.equal(await store.set("k", "v2", v), true);
      const took = Date.now() - t0;
      assert.ok(took >= 140 && took < 150 + 50 * TOKEN_LOCK_RETRY_MS, `went ahead after ${took} ms`);
      assert.equal((await store.get("k"))?.value, "v2");
    });

    test(`W15 (${lock}): past TOKEN_LOCK_WAIT_MS a set is a store error naming the holder, and changes nothing`, async () => {
      const path = tokenFile();
      const store = new FileTokenStore(path, { lock });
      await store.set("k", "v1", undefined);
      const held = await hold(path, lock);
      try {
        const t0 = Date.now();
        await assert.rejects(store.set("k", "v2", (await store.get("k"))?.version), (e: Error & { code?: string }) => e.code === "store" && e.message.includes(`process ${process.pid}`) && e.message.includes("TOKEN_LOCK_WAIT_MS"));
        const took = Date.now() - t0;
        assert.ok(took >= TOKEN_LOCK_WAIT_MS - 20 && took < TOKEN_LOCK_WAIT_MS + 2_000, `gave up after ${took} ms`);
        assert.equal((await store.get("k"))?.value, "v1");
      } finally {
        await held.release();
      }
    });

    test(`W15 (${lock}): a writer killed with SIGKILL while holding the lock leaves none: the next set goes ahead at once`, async () => {
      const path = tokenFile();
      await new FileTokenStore(path, { lock }).set("k", "v1", undefined);
      const child = spawn(process.execPath, ["--input-type=module", "-e", `const { tryLock } = await import(${moduleUrl("lock.js")}); const got = await tryLock(${JSON.stringify(path)}, ${JSON.stringify(lock)}); console.log("release" in got ? "held" : "refused"); setInterval(() => {}, 1000);`], { stdio: ["ignore", "pipe", "inherit"] });
      const exited = new Promise((resolve) => child.on("exit", resolve));
      const said = await new Promise<string>((resolve) => child.stdout.once("data", (d: Buffer) => resolve(d.toString().trim())));
      assert.equal(said, "held");
      child.kill("SIGKILL");
      await exited;
      const store = new FileTokenStore(path, { lock });
      const t0 = Date.now();
      assert.equal(await store.set("k", "v2", (await store.get("k"))?.version), true);
      assert.ok(Date.now() - t0 < 1_000, `went ahead after ${Date.now() - t0} ms`);
    });

    test(`W15 (${lock}): eight processes compare-and-setting one counter: no two win with one version, none is lost`, async () => {
      const path = tokenFile();
      await new FileTokenStore(path, { lock }).set("n", "0", undefined);
      const rounds = 15;
      const code = `const { FileTokenStore } = await import(${moduleUrl("token-store.js")});
const store = new FileTokenStore(${JSON.stringify(path)}, { lock: ${JSON.stringify(lock)} });
let wins = 0;
while (wins < ${rounds}) {
  const cur = await store.get("n");
  try {
    if (await store.set("n", String(Number(cur.value) + 1), cur.version)) wins++;
  } catch (e) {
    // Seven others ahead of it on a loaded disk: waiting past TOKEN_LOCK_WAIT_MS is a store error; a host tries again.
    if (e.code !== "store" || !e.message.includes("TOKEN_LOCK_WAIT_MS")) throw e;
  }
}
console.log(wins);`;
      const kids = Array.from({ length: 8 }, () => spawn(process.execPath, ["--input-type=module", "-e", code], { stdio: ["ignore", "pipe", "inherit"] }));
      const wins = await Promise.all(
        kids.map(
          (k) =>
            new Promise<number>((resolve) => {
              let out = "";
              k.stdout.on("data", (d: Buffer) => (out += d.toString()));
              k.on("exit", () => resolve(Number(out.trim())));
            }),
        ),
      );
      assert.deepEqual(wins, Array(8).fill(rounds));
      assert.equal((await new FileTokenStore(path, { lock }).get("n"))?.value, String(8 * rounds), "every win counted once");
    });
  });
}
