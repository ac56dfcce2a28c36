/**
 * What a CLI login keeps and reads besides the tokens (A7): the credential files a
 * login without a browser reads (a workload's platform JWT, a user's ID token from
 * the host's single sign-on tool), each read within a byte bound, and the records
 * `yada login` writes into the token file beside the tokens so that later commands
 * obtain new tokens the same way.
 *
 * @module
 */
import { open } from "node:fs/promises";
import { ConfigError } from "../errors.js";
import type { FileTokenStore } from "../node/token-store.js";

/**
 * The token in the file at `path` (`what` names it in errors): at most `max` bytes,
 * surrounding whitespace trimmed (tools end such a file with a newline).
 *
 * @throws ConfigError (`config`) when the file cannot be read or is larger.
 */
export async function readCredentialFile(path: string, what: string, max: number): Promise<string> {
  let handle;
  try {
    handle = await open(path, "r");
  } catch (e) {
    throw new ConfigError(`${what} ${path} cannot be read (${e instanceof Error && "code" in e ? String(e.code) : "error"})`);
  }
  try {
    const buffer = new Uint8Array(max + 1);
    let n = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, n, buffer.length - n, null);
      if (bytesRead === 0) break;
      n += bytesRead;
      if (n > max) throw new ConfigError(`${what} ${path} is larger than ${max} bytes`);
    }
    return new TextDecoder().decode(buffer.subarray(0, n)).trim();
  } finally {
    await handle.close();
  }
}

/** Sets (or with undefined deletes) `key` in the token file, whatever another process wrote there meanwhile. */
export async function overwriteKey(store: FileTokenStore, key: string, value: string | undefined): Promise<void> {
  for (let i = 0; i < 8; i++) {
    const cur = await store.get(key);
    if (await store.set(key, value, cur?.version)) return;
  }
}

/** The store key under which `yada login --workload-token-file` keeps the file's path for a server. */
export const workloadKey = (resource: string): string => `cli workload ${resource}`;

/** The store key under which `yada login --id-token-file` keeps its enterprise sign-in for a server. */
export const enterpriseKey = (resource: string): string => `cli enterprise ${resource}`;

/** Forgets how the last login to `resource` obtained its tokens: a new login of any mode replaces it. */
export async function forgetLoginMode(store: FileTokenStore, resource: string): Promise<void> {
  await overwriteKey(store, workloadKey(resource), undefined);
  await overwriteKey(store, enterpriseKey(resource), undefined);
}
