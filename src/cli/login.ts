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
import { resolve } from "node:path";
import { OAuthClient } from "../auth/client.js";
import { workloadIdentity } from "../auth/workload.js";
import { resourceOf } from "../auth/discovery.js";
import { MAX_WORKLOAD_TOKEN_FILE_BYTES } from "../limits.js";
import type { Logger } from "../log.js";
import { defaultTokenFile, FileTokenStore } from "../node/token-store.js";
import { startLoopbackRedirect } from "../node/loopback-redirect.js";
import { loggerOf, positionals, type CommandContext } from "./command.js";
import { EXIT, UsageError, errorCodeOf } from "./exit.js";
import { enterpriseLogin, recordedEnterprise } from "./enterprise-login.js";
import { forgetLoginMode, overwriteKey, readCredentialFile, workloadKey } from "./login-store.js";
import { chooseServer, connectClient, describeServer } from "./server.js";

/**
 * The JWT in the workload token file at `path`: at most `MAX_WORKLOAD_TOKEN_FILE_BYTES`,
 * surrounding whitespace trimmed (platforms end the file with a newline).
 *
 * @throws ConfigError (`config`) when the file cannot be read or is too large.
 */
export function readWorkloadToken(path: string): Promise<string> {
  return readCredentialFile(path, "the workload token file", MAX_WORKLOAD_TOKEN_FILE_BYTES);
}

function workloadAuth(store: FileTokenStore, file: string, logger: Logger | undefined): OAuthClient {
  return new OAuthClient({ store, grant: workloadIdentity(() => readWorkloadToken(file)), ...(logger && { logger }) });
}

/** The workload token file `yada login` recorded for the server at `url`, if it did. */
async function recordedWorkload(store: FileTokenStore, url: string): Promise<string | undefined> {
  const v = await store.get(workloadKey(resourceOf(url)));
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
  const enterprise = await recordedEnterprise(store, url, logger);
  if (enterprise !== undefined) return enterprise;
  const workload = await recordedWorkload(store, url);
  if (workload !== undefined) return workloadAuth(store, workload, logger);
  if ((await store.get(`tokens ${resourceOf(url)}`)) === undefined) return undefined;
  return new OAuthClient({ store, clientName: "yada CLI", ...(logger && { logger }) });
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
  if (ctx.args.idTokenFile !== undefined) {
    if (ctx.args.workloadTokenFile !== undefined) throw new UsageError("login takes --workload-token-file or --id-token-file, not both");
    return enterpriseLogin(ctx, choice, store, file, logger);
  }
  if (ctx.args.idpIssuer !== undefined || ctx.args.idpTokenEndpoint !== undefined || ctx.args.idpClientId !== undefined || ctx.args.clientId !== undefined) {
    throw new UsageError("--idp-issuer, --idp-token-endpoint, --idp-client-id and --client-id go with --id-token-file");
  }
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
    await forgetLoginMode(store, resourceOf(choice.url));
    await overwriteKey(store, workloadKey(resourceOf(choice.url)), JSON.stringify({ file: tokenFile }));
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
    // A browser login replaces a workload or enterprise login for this server.
    await forgetLoginMode(store, resourceOf(choice.url));
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
