/**
 * {@link FileTokenStore}: the Node {@link TokenStore} (A5). One JSON file, written
 * with mode 0600 in a directory created 0700, replaced atomically (a temporary file
 * written and fsynced, renamed over the file, the directory fsynced before the write
 * is acknowledged) under the file's lock (W15, ./lock.ts): a socket the kernel frees
 * when its holder dies (Linux) or generation files (elsewhere), so two processes
 * refreshing at once end with one winner, a crashed writer never leaves a lock that
 * a live one could be mistaken for, and a power cut never leaves half a file or
 * loses an acknowledged write.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { homedir } from "node:os";
import { randomBytes } from "node:crypto";
import { StoreError } from "../errors.js";
import { MAX_TOKEN_FILE_BYTES, TOKEN_LOCK_RETRY_MS, TOKEN_LOCK_WAIT_MS } from "../limits.js";
import type { StoredValue, TokenStore } from "../auth/store.js";
import { isRec } from "../util/record.js";
import { isHeld, platformLockMechanism, tryLock, type LockMechanism } from "./lock.js";
import { nodeStoreFs, syncDir, type StoreFs } from "./store-fs.js";

/**
 * Test seams of {@link FileTokenStore}: the file system (a recording one, to replay
 * power cuts) and the lock mechanism. Leave them out; they are not meant for hosts.
 */
export interface TokenStoreSeams {
  fs?: StoreFs;
  lock?: LockMechanism;
}

/** The CLI's token file: `YADA_TOKEN_FILE`, else `$XDG_CONFIG_HOME/yada/tokens.json`, else `~/.config/yada/tokens.json`. */
export function defaultTokenFile(env: Readonly<Record<string, string | undefined>>): string {
  if (env.YADA_TOKEN_FILE !== undefined && env.YADA_TOKEN_FILE !== "") return env.YADA_TOKEN_FILE;
  const base = env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== "" ? env.XDG_CONFIG_HOME : join(homedir(), ".config");
  return join(base, "yada", "tokens.json");
}

type Entries = Record<string, StoredValue>;

/**
 * A {@link TokenStore} in one file (Node entry).
 *
 * @throws StoreError (`store`) when the file is unreadable, oversized
 * (`MAX_TOKEN_FILE_BYTES`) or not a token file, or another process held its lock for
 * `TOKEN_LOCK_WAIT_MS` (the message names it), or the file cannot be written.
 *
 * @example
 * ```ts
 * import { FileTokenStore, OAuthClient } from "yada-mcp/node";
 * const auth = new OAuthClient({ store: new FileTokenStore("/home/me/.config/my-app/tokens.json"), redirectUri, authorize });
 * ```
 */
export class FileTokenStore implements TokenStore {
  readonly path: string;
  readonly #fs: StoreFs;
  readonly #lock: LockMechanism;

  /** @param seams internal test seams; leave out. */
  constructor(path: string, seams: TokenStoreSeams = {}) {
    this.path = path;
    this.#fs = seams.fs ?? nodeStoreFs;
    this.#lock = seams.lock ?? platformLockMechanism();
  }

  async get(key: string): Promise<StoredValue | undefined> {
    return this.#read()[key];
  }

  async set(key: string, value: string | undefined, ifVersion: string | undefined): Promise<boolean> {
    return this.#locked(async () => {
      const entries = this.#read();
      if (entries[key]?.version !== ifVersion) return false;
      if (value === undefined) delete entries[key];
      else entries[key] = { value, version: randomBytes(9).toString("base64url") };
      await this.#write(entries);
      return true;
    });
  }

  #read(): Entries {
    let text: string;
    try {
      const size = this.#fs.stat(this.path)?.size;
      if (size === undefined) return Object.create(null) as Entries;
      if (size > MAX_TOKEN_FILE_BYTES) throw new StoreError(`the token file ${this.path} is larger than ${MAX_TOKEN_FILE_BYTES} bytes`);
      const bytes = this.#fs.readFile(this.path);
      if (bytes === undefined) return Object.create(null) as Entries;
      if (bytes.length > MAX_TOKEN_FILE_BYTES) throw new StoreError(`the token file ${this.path} is larger than ${MAX_TOKEN_FILE_BYTES} bytes`);
      text = new TextDecoder().decode(bytes);
    } catch (e) {
      if (e instanceof StoreError) throw e;
      throw new StoreError(`the token file ${this.path} cannot be read`, { cause: e });
    }
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      throw new StoreError(`the token file ${this.path} is not JSON`);
    }
    const entries = isRec(doc) && doc.yada === "tokens" && isRec(doc.entries) ? doc.entries : undefined;
    if (entries === undefined) throw new StoreError(`the token file ${this.path} is not a yada token file`);
    const out = Object.create(null) as Entries;
    for (const [k, v] of Object.entries(entries)) {
      if (isRec(v) && typeof v.value === "string" && typeof v.version === "string") out[k] = { value: v.value, version: v.version };
    }
    return out;
  }

  /** Replaces the file: written whole and fsynced beside it, renamed over it, the directory fsynced. */
  async #write(entries: Entries): Promise<void> {
    const fs = this.#fs;
    const tmp = `${this.path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    const fd = fs.open(tmp, "wx", 0o600);
    try {
      const data = new TextEncoder().encode(JSON.stringify({ yada: "tokens", entries }));
      for (let at = 0; at < data.length; ) at += fs.write(fd, data, at, data.length - at);
      await fs.sync(fd);
    } catch (e) {
      fs.close(fd);
      fs.unlink(tmp);
      throw e;
    }
    fs.close(fd);
    fs.rename(tmp, this.path);
    await syncDir(fs, dirname(this.path));
  }

  /** Runs `work` holding the file's lock, waiting up to `TOKEN_LOCK_WAIT_MS` for another process's write. */
  async #locked<T>(work: () => Promise<T>): Promise<T> {
    try {
      this.#fs.mkdirs(dirname(this.path));
    } catch (e) {
      throw new StoreError(`the directory of the token file ${this.path} cannot be created`, { cause: e });
    }
    const deadline = Date.now() + TOKEN_LOCK_WAIT_MS;
    for (;;) {
      const last = Date.now() + TOKEN_LOCK_RETRY_MS >= deadline;
      // Only the last refusal asks the holder who it is, for the message.
      const got = await tryLock(this.path, this.#lock, { probe: last });
      if (isHeld(got)) {
        try {
          return await work();
        } catch (e) {
          throw e instanceof StoreError ? e : new StoreError(`the token file ${this.path} cannot be written`, { cause: e });
        } finally {
          await got.release();
        }
      }
      if (last) {
        const by = got.pid === undefined ? "another process" : `process ${got.pid}${got.host ? ` on host ${got.host}` : ""}`;
        throw new StoreError(`the token file ${this.path} stayed locked by ${by} for ${TOKEN_LOCK_WAIT_MS} ms (TOKEN_LOCK_WAIT_MS; ${got.where})`);
      }
      await new Promise((r) => setTimeout(r, TOKEN_LOCK_RETRY_MS));
    }
  }
}
