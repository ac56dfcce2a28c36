/**
 * The file action store as the CLI opens it (W9, U6, P4): `--store PATH`, checked
 * before it is opened (a directory is a `store` error; `yada actions` never
 * creates a store that does not exist), and the note a running `yada worker`
 * leaves beside it (`PATH.worker`: its process id and the servers it serves), so
 * `yada actions approve` can say what will execute an action, and the CLI waits
 * while a worker holds the store for one pass (leaving `PATH.waiting`, so that the
 * worker lets it have the store before the next).
 *
 * @module
 */
import { readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { StoreError } from "../errors.js";
import { CLI_STORE_BUSY_POLL_MS, CLI_STORE_BUSY_WAIT_MS } from "../limits.js";
import { DEFAULT_FILE_STORE_PATH, openFileStore, type FileActionStore } from "../node/file-store.js";
import { isRecord } from "../mcp/types.js";
import { oneLine, type Io } from "./terminal.js";

/** The store path of the command line (`--store`, default `.yada/actions.jsonl`). */
export const storePathOf = (store: string | undefined): string => store ?? DEFAULT_FILE_STORE_PATH;

/** `PATH` quoted for messages, bounded. */
const shown = (path: string): string => oneLine(path, 200);

/**
 * Checks `path` names a store journal: not a directory; when `mustExist`, present.
 *
 * @throws StoreError (`store`): `no action store at PATH`, or `PATH is a directory`.
 */
export function checkStorePath(path: string, mustExist: boolean): void {
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch (e) {
    if ((e as { code?: unknown }).code === "ENOENT" || (e as { code?: unknown }).code === "ENOTDIR") {
      if (mustExist) throw new StoreError(`no action store at ${shown(path)}`);
      return;
    }
    throw new StoreError(`cannot read the action store ${shown(path)}`, { cause: e });
  }
  if (isDir) throw new StoreError(`${shown(path)} is a directory; --store names the store's journal file (e.g. ${DEFAULT_FILE_STORE_PATH})`);
}

/** What a running `yada worker` leaves beside its store. */
export interface WorkerNote {
  pid: number;
  /** The server names (tool prefixes) it serves. */
  servers: string[];
}

const notePath = (store: string): string => `${store}.worker`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: unknown }).code === "EPERM";
  }
}

/** The live worker serving `store`, or undefined (none, or its process is gone). */
export function runningWorker(store: string): WorkerNote | undefined {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(notePath(store), "utf8").slice(0, 64 * 1024));
  } catch {
    return undefined;
  }
  if (!isRecord(value) || !Number.isSafeInteger(value.pid) || (value.pid as number) <= 0 || !Array.isArray(value.servers)) return undefined;
  const servers = value.servers.filter((s): s is string => typeof s === "string").slice(0, 256);
  const pid = value.pid as number;
  return alive(pid) ? { pid, servers } : undefined;
}

/**
 * Leaves this process's note beside `store` and returns the function that removes it.
 *
 * @throws StoreError (`store`) when another live worker serves the store already.
 */
export function announceWorker(store: string, servers: readonly string[]): () => void {
  const other = runningWorker(store);
  if (other && other.pid !== process.pid) throw new StoreError(`a yada worker (process ${other.pid}) already serves ${shown(store)}; one worker per file store`);
  writeFileSync(notePath(store), `${JSON.stringify({ pid: process.pid, servers })}\n`, { mode: 0o600 });
  return () => {
    const note = runningWorker(store);
    if (note === undefined || note.pid === process.pid) {
      try {
        unlinkSync(notePath(store));
      } catch {
        // already gone
      }
    }
  };
}

const waitingPath = (store: string): string => `${store}.waiting`;

/**
 * The live process (not this one) waiting for `store` while the worker holds it
 * (`PATH.waiting`, left by {@link openCliStore}), or undefined: the worker lets it
 * have the store before its next pass.
 */
export function waitingFor(store: string): number | undefined {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(waitingPath(store), "utf8").slice(0, 1024));
  } catch {
    return undefined;
  }
  if (!isRecord(value) || !Number.isSafeInteger(value.pid) || (value.pid as number) <= 0) return undefined;
  const pid = value.pid as number;
  return pid !== process.pid && alive(pid) ? pid : undefined;
}

/** Removes this process's waiting note beside `store`, if it is there. */
function stopWaiting(store: string): void {
  try {
    const value: unknown = JSON.parse(readFileSync(waitingPath(store), "utf8").slice(0, 1024));
    if (isRecord(value) && value.pid === process.pid) unlinkSync(waitingPath(store));
  } catch {
    // gone, or another's
  }
}

/**
 * Opens the store at `path`. A store held by the running worker for one of its
 * passes is waited for, up to `CLI_STORE_BUSY_WAIT_MS` (one line on stderr says so),
 * with a note beside the store (`PATH.waiting`) that has the worker leave it free
 * after the pass; any other holder is an error at once.
 *
 * @throws StoreError (`store`) as {@link checkStorePath} and `openFileStore` do.
 */
export async function openCliStore(io: Io, path: string, options: { mustExist: boolean; signal?: AbortSignal }): Promise<FileActionStore> {
  checkStorePath(path, options.mustExist);
  const until = Date.now() + CLI_STORE_BUSY_WAIT_MS;
  let said = false;
  try {
    for (;;) {
      try {
        return await openFileStore(path);
      } catch (e) {
        const worker = runningWorker(path);
        const busy = e instanceof StoreError && worker !== undefined && worker.pid !== process.pid;
        if (!busy || Date.now() > until || options.signal?.aborted) throw e;
        if (!said) {
          io.err(`yada: waiting for the action store: the yada worker (process ${worker.pid}) is using it for a pass\n`);
          // The worker sees this between two passes and leaves the store free for us
          // (a folder we cannot write to only means no hand-off: we wait as before).
          try {
            writeFileSync(waitingPath(path), `${JSON.stringify({ pid: process.pid })}\n`, { mode: 0o600 });
          } catch {
            // no note
          }
        }
        said = true;
        await new Promise((resolve) => setTimeout(resolve, CLI_STORE_BUSY_POLL_MS));
      }
    }
  } finally {
    if (said) stopWaiting(path);
  }
}

/** The server name an action's tool is prefixed with (`catalog__rename` → `catalog`), as a guess for messages. */
export const serverOfTool = (tool: string): string => {
  const at = tool.indexOf("__");
  return at > 0 ? tool.slice(0, at) : tool;
};

/** Quotes a word for a POSIX shell when it needs it, so a printed command can be pasted as is. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
