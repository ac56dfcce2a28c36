/**
 * `yada login --url URL` (A6): logs in to an OAuth-protected HTTP server. It
 * prints the authorization URL (never opens it through a shell), waits for the
 * browser's redirect on a one-shot loopback listener, and stores the tokens in the
 * token file, where later commands (`yada tools --url URL`, ...) find, use and
 * refresh them. Also {@link storedAuth}, the hook those commands use.
 *
 * @module
 */
import { OAuthClient } from "../auth/client.js";
import { resourceOf } from "../auth/discovery.js";
import type { Logger } from "../log.js";
import { defaultTokenFile, FileTokenStore } from "../node/token-store.js";
import { startLoopbackRedirect } from "../node/loopback-redirect.js";
import { loggerOf, positionals, type CommandContext } from "./command.js";
import { EXIT, UsageError, errorCodeOf } from "./exit.js";
import { chooseServer, connectClient, describeServer } from "./server.js";

/**
 * The OAuth client of a command against `url`: the token file's tokens for that
 * server, refreshed when due, or undefined when `yada login` never stored any
 * (the command then sends no authorization, as before). It never starts a login:
 * a server that needs one fails with `oauth` / `interaction_required`.
 */
export async function storedAuth(url: string, env: Readonly<Record<string, string | undefined>>, logger?: Logger): Promise<OAuthClient | undefined> {
  const store = new FileTokenStore(defaultTokenFile(env));
  if ((await store.get(`tokens ${resourceOf(url)}`)) === undefined) return undefined;
  return new OAuthClient({ store, clientName: "yada CLI", ...(logger && { logger }) });
}

/** `yada login --url URL`. */
export async function loginCommand(ctx: CommandContext): Promise<number> {
  positionals(ctx, 0, 0, "login --url <url>");
  if (ctx.args.url === undefined) throw new UsageError("login needs --url <url>");
  const choice = chooseServer(ctx.args, ctx.io.env);
  if (choice.kind !== "http") throw new UsageError("login applies to HTTP servers (--url)");
  const file = defaultTokenFile(ctx.io.env);
  const logger = loggerOf(ctx);
  // The page the browser lands on says whether the login succeeded (P4).
  const listener = await startLoopbackRedirect({ reportOutcome: true });
  try {
    const auth = new OAuthClient({
      store: new FileTokenStore(file),
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
    const client = await connectClient(choice, { signal: ctx.signal, auth, ...(logger && { logger }) }).catch((e: unknown) => {
      listener.report({ ok: false, message: `The login to ${describeServer(choice)} did not succeed (${errorCodeOf(e)}); see the terminal for why. Nothing was stored.` });
      throw e;
    });
    await client.close();
    const stored = await auth.tokens(choice.url);
    listener.report({ ok: true, message: `yada is logged in to ${describeServer(choice)}. You can close this window.` });
    ctx.io.out(stored ? `Logged in to ${describeServer(choice)}; tokens stored in ${file}\n` : `${describeServer(choice)} did not ask for a login\n`);
    return EXIT.ok;
  } finally {
    listener.close();
  }
}
