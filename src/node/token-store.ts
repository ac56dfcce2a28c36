/**
 * {@link FileTokenStore}: the Node {@link TokenStore} (A5). One JSON file, written
 * with mode 0600 in a directory created 0700, replaced atomically (a temporary
 * file, fsync, rename) under a lock file, so that two processes refreshing at once
 * end with one winner and a crash never leaves half a file.
 *
 * @module
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { homedir } from "node:os";
import { randomBytes } from "node:crypto";
import { StoreError } from "../errors.js";
import { MAX_TOKEN_FILE_BYTES } from "../limits.js";
import type { StoredValue, TokenStore } from "../auth/store.js";
import { isRec } from "../util/record.js";

const LOCK_WAIT_MS = 2_000; // ours: a write holds the lock for a few ms
const LOCK_STALE_MS = 10_000; // ours: a lock older than this was left by a crash

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
 * (`MAX_TOKEN_FILE_BYTES`) or not a token file, or the lock cannot be taken.
 *
 * @example
 * ```ts
 * import { FileTokenStore, OAuthClient } from "yada-mcp/node";
 * const auth = new OAuthClient({ store: new FileTokenStore("/home/me/.config/my-app/tokens.json"), redirectUri, authorize });
 * ```
 */
export class FileTokenStore implements TokenStore {
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  async get(key: string): Promise<StoredValue | undefined> {
    return this.#read()[key];
  }

  async set(key: string, value: string | undefined, ifVersion: string | undefined): Promise<boolean> {
    return this.#locked(() => {
      const entries = this.#read();
      if (entries[key]?.version !== ifVersion) return false;
      if (value === undefined) delete entries[key];
      else entries[key] = { value, version: randomBytes(9).toString("base64url") };
      this.#write(entries);
      return true;
    });
  }

  #read(): Entries {
    let text: string;
    try {
      if (statSync(this.path).size > MAX_TOKEN_FILE_BYTES) throw new StoreError(`the token file ${this.path} is larger than ${MAX_TOKEN_FILE_BYTES} bytes`);
      text = readFileSync(this.path, "utf8");
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT") return Object.create(null) as Entries;
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

  #write(entries: Entries): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const tmp = `${this.path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    const fd = openSync(tmp, "wx", 0o600);
    try {
      writeSync(fd, JSON.stringify({ yada: "tokens", entries }));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.path);
  }

  async #locked<T>(work: () => T): Promise<T> {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const lock = `${this.path}.lock`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        closeSync(openSync(lock, "wx", 0o600));
        break;
      } catch (e) {
        if ((e as { code?: string }).code !== "EEXIST") throw new StoreError(`the token file lock ${lock} cannot be created`, { cause: e });
        try {
          if (Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) rmSync(lock, { force: true });
        } catch {
          // Removed meanwhile: try again.
        }
        if (Date.now() > deadline) throw new StoreError(`the token file ${this.path} stayed locked for ${LOCK_WAIT_MS} ms`);
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    try {
      return work();
    } finally {
      rmSync(lock, { force: true });
    }
  }
}
