/**
 * What the CLI says when an HTTP server wants a login (A6, P4): a stored login
 * that has expired or was revoked, and a 401 with a challenge before any login,
 * both say "run `yada login --url <url>`" and exit 8 (`EXIT.login`).
 *
 * @module
 */
import { HttpError, OAuthError } from "../errors.js";
import type { Logger } from "../log.js";
import type { HttpAuth } from "../transport/http-auth.js";
import { CliExit, EXIT, LOGIN_KINDS } from "./exit.js";
import { storedAuth } from "./login.js";
import type { ServerChoice } from "./server.js";
import { shellWord } from "./store.js";
import { oneLine } from "./terminal.js";

/** The OAuth of a choice: the stored login of an HTTP server, if `yada login` stored one. */
export async function loginOf(choice: ServerChoice, env: Readonly<Record<string, string | undefined>>, logger?: Logger): Promise<HttpAuth | undefined> {
  return choice.kind === "http" ? storedAuth(choice.url, env, logger) : undefined;
}

/**
 * `e` with the login advice added where it applies: a login-kind OAuth failure of
 * a stored login (expired, revoked, refused) and an HTTP 401 with a challenge when
 * no login was stored and no `Authorization` header given. Anything else is `e`.
 */
export function withLoginAdvice(e: unknown, choice: ServerChoice, auth: HttpAuth | undefined): unknown {
  if (choice.kind !== "http") return e;
  const url = choice.url;
  const advice = `run yada login --url ${shellWord(url)}`;
  const where = oneLine(new URL(url).origin + new URL(url).pathname, 200);
  if (e instanceof OAuthError && auth !== undefined && LOGIN_KINDS.has(e.kind)) {
    const why = e.kind === "interaction_required" || e.kind === "token_error" ? "the login has expired or was revoked" : oneLine(e.message, 300);
    return new CliExit("oauth", EXIT.login, `${where}: ${why}: ${advice}`);
  }
  const sentAuthorization = choice.headers.some(([n]) => n.toLowerCase() === "authorization");
  // The transport says whether a challenge came (never its content, which may carry tokens); the CLI test of this advice holds the wording.
  const challenged = e instanceof HttpError && e.status === 401 && e.message.endsWith("(a WWW-Authenticate challenge is present)");
  if (challenged && auth === undefined && !sentAuthorization) {
    return new CliExit("login_required", EXIT.login, `${where} needs a login (HTTP 401 with a challenge): ${advice}`);
  }
  return e;
}
