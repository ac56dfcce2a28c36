/**
 * `yada login --url URL` (A6): logs in to an OAuth-protected HTTP server. It
 * prints the authorization URL (never opens it through a shell), waits for the
 * browser's redirect on a one-shot loopback listener, and stores the tokens in the
 * token file, where later commands (`yada tools --url URL`, ...) find, use and
 * refresh them. Also {@link storedAuth}, the hook those commands use.
 *
 * `yada login --url URL --workload-token-file PATH` (A7): a workload (a pod, a CI
 * job) logs in with the JWT its platform issued it, a JWT bearer grant, no browser.
 * The file's path is kept beside the tokens, and later commands read the file again
 * whenever a new token is needed (platforms rotate it in place).
 *
 * @module
 */
import { open } from "node:fs/promises";
import { resolve } from "node:path";
import { OAuthClient } from "../auth/client.js";
import { workloadIdentity } from "../auth/workload.js";
import { resourceOf } from "../auth/discovery.js";
import { ConfigError } from "../errors.js";
import { MAX_WORKLOAD_TOKEN_FILE_BYTES } from "../limits.js";
import type { Logger } from "../log.js";
import { defaultTokenFile, FileTokenStore } from "../node/token-store.js";
import { startLoopbackRedirect } from "../node/loopback-redirect.js";
import { loggerOf, positionals, type CommandContext } from "./command.js";
import { EXIT, UsageError, errorCodeOf } from "./exit.js";
import { chooseServer, connectClient, describeServer } from "./server.js";

/** The store key under which `yada login --workload-token-file` keeps the file's path for a server. */
const workloadKey = (url: string): string => `cli workload ${resourceOf(url)}`;

/**
 * The JWT in the workload token file at `path`: at most `MAX_WORKLOAD_TOKEN_FILE_BYTES`,
 * surrounding whitespace trimmed (platforms end the file with a newline).
 *
 * @throws ConfigError (`config`) when the file cannot be read or is too large.
 */
export async function readWorkloadToken(path: string): Promise<string> {
  let handle;
  try {
    handle = await open(path, "r");
  } catch (e) {
    throw new ConfigError(`the workload token file ${path} cannot be read (${e instanceof Error && "code" in e ? String(e.code) : "error"})`);
  }
  try {
    const buffer = new Uint8Array(MAX_WORKLOAD_TOKEN_FILE_BYTES + 1);
    let n = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, n, buffer.length - n, null);
      if (bytesRead === 0) break;
      n += bytesRead;
      if (n > MAX_WORKLOAD_TOKEN_FILE_BYTES) throw new ConfigError(`the workload token file ${path} is larger than ${MAX_WORKLOAD_TOKEN_FILE_BYTES} bytes`);
    }
    return new TextDecoder().decode(buffer.subarray(0, n)).trim();
  } finally {
    await handle.close();
  }
}

function workloadAuth(store: FileTokenStore, file: string, logger: Logger | undefined): OAuthClient {
  return new OAuthClient({ store, grant: workloadIdentity(() => readWorkloadToken(file)), ...(logger && { logger }) });
}

/** The workload token file `yada login` recorded for the server at `url`, if it did. */
async function recordedWorkload(store: FileTokenStore, url: string): Promise<string | undefined> {
  const v = await store.get(workloadKey(url));
  if (v === undefined) return undefined;
  try {
    const o = JSON.parse(v.value) as { file?: unknown };
    return typeof o.file === "string" && o.file.length > 0 && o.file.length <= 4_096 ? o.file : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The OAuth client of a command against `url`: the token file's tokens for that
 * server, refreshed when due, or undefined when `yada login` never stored any
 * (the command then sends no authorization, as before). It never starts a login
 * that needs a browser: such a server fails with `oauth` / `interaction_required`.
 * After a workload login it obtains new tokens from the recorded workload token file.
 */
export async function storedAuth(url: string, env: Readonly<Record<string, string | undefined>>, logger?: Logger): Promise<OAuthClient | undefined> {
  const store = new FileTokenStore(defaultTokenFile(env));
  const workload = await recordedWorkload(store, url);
  if (workload !== undefined) return workloadAuth(store, workload, logger);
  if ((await store.get(`tokens ${resourceOf(url)}`)) === undefined) return undefined;
  return new OAuthClient({ store, clientName: "yada CLI", ...(logger && { logger }) });
}

async function overwriteKey(store: FileTokenStore, key: string, value: string | undefined): Promise<void> {
  for (let i = 0; i < 8; i++) {
    const cur = await store.get(key);
    if (await store.set(key, value, cur?.version)) return;
  }
}

/** `yada login --url URL [--workload-token-file PATH]`. */
export async function loginCommand(ctx: CommandContext): Promise<number> {
  positionals(ctx, 0, 0, "login --url <url>");
  if (ctx.args.url === undefined) throw new UsageError("login needs --url <url>");
  const choice = chooseServer(ctx.args, ctx.io.env);
  if (choice.kind !== "http") throw new UsageError("login applies to HTTP servers (--url)");
  const file = defaultTokenFile(ctx.io.env);
  const logger = loggerOf(ctx);
  const store = new FileTokenStore(file);
  if (ctx.args.workloadTokenFile !== undefined) {
    const tokenFile = resolve(ctx.args.workloadTokenFile);
    await readWorkloadToken(tokenFile); // readable now, or a config error before anything is sent
    const auth = workloadAuth(store, tokenFile, logger);
    await auth.logout(choice.url);
    const client = await connectClient(choice, { signal: ctx.signal, auth, ...(logger && { logger }) });
    await client.close();
    if ((await auth.tokens(choice.url)) === undefined) {
      ctx.io.out(`${describeServer(choice)} did not ask for a login\n`);
      return EXIT.ok;
    }
    await overwriteKey(store, workloadKey(choice.url), JSON.stringify({ file: tokenFile }));
    ctx.io.out(`Logged in to ${describeServer(choice)} as a workload (the JWT in ${tokenFile}); tokens stored in ${file}\n`);
    return EXIT.ok;
  }
  // The page the browser lands on says whether the login succeeded (P4).
  const listener = await startLoopbackRedirect({ reportOutcome: true });
  try {
    const auth = new OAuthClient({
      store,
      redirectUri: listener.redirectUri,
      clientName: "yada CLI",
      applicationType: "native",
      ...(logger && { logger }),
      authorize: async ({ url, signal }) => {
        // Printed, never handed to a shell or an opener (A3).
        ctx.io.out(`Open this URL in your browser to log in:\n\n  ${url}\n\nWaiting for the redirect to ${listener.redirectUri} ...\n`);
        return listener.wait(signal);
      },
    });
    await auth.logout(choice.url);
    // A browser login replaces a workload login for this server.
    await overwriteKey(store, workloadKey(choice.url), undefined);
    const client = await connectClient(choice, { signal: ctx.signal, auth, ...(logger && { logger }) }).catch((e: unknown) => {
      listener.report({ ok: false, message: `The login to ${describeServer(choice)} did not succeed (${errorCodeOf(e)}); see the terminal for why. Nothing was stored.` });
      throw e;
    });
    await client.close();
    const stored = await auth.tokens(choice.url);
    listener.report({ ok: true, message: `yada is logged in to ${describeServer(choice)}. You can close this window.` });
    ctx.io.out(stored ? `Logged in to ${describeServer(choice)}; tokens stored in ${file}\n` : `${describeServer(choice)} did not ask for a login\n`);
    if (stored?.refreshTokenMissing) ctx.io.out("The server issued no refresh token: run yada login again when the token expires.\n");
    return EXIT.ok;
  } finally {
    listener.close();
  }
}
