/**
 * `yada login --url URL --id-token-file PATH --idp-issuer URL --idp-client-id ID
 * --client-id ID` (A7): enterprise-managed authorization from a terminal. The
 * host's single sign-on tool signed the user in to the enterprise identity provider
 * and wrote the ID token to a file; yada exchanges it at the provider for an ID-JAG
 * and presents that to the MCP server's authorization server (`enterpriseSignIn`).
 * The client secrets come from the environment (`YADA_IDP_CLIENT_SECRET`,
 * `YADA_CLIENT_SECRET`), never from the command line, where other users could read
 * them. The sign-in is kept beside the tokens, and later commands read the ID token
 * file again whenever a new token is needed (the sign-on tool renews it in place).
 *
 * @module
 */
import { resolve } from "node:path";
import { checkAssertion } from "../auth/assertion.js";
import { OAuthClient } from "../auth/client.js";
import { resourceOf } from "../auth/discovery.js";
import { enterpriseSignIn } from "../auth/enterprise.js";
import { OAuthError } from "../errors.js";
import { MAX_ID_TOKEN_FILE_BYTES, MAX_OAUTH_STRING_CHARS } from "../limits.js";
import type { Logger } from "../log.js";
import type { FileTokenStore } from "../node/token-store.js";
import { isRec } from "../util/record.js";
import type { CommandContext } from "./command.js";
import { EXIT, UsageError } from "./exit.js";
import { enterpriseKey, forgetLoginMode, overwriteKey, readCredentialFile } from "./login-store.js";
import { connectClient, describeServer, type HttpChoice } from "./server.js";

/** An enterprise sign-in as `yada login` keeps it in the token file (beside the client secrets a registration keeps there). */
interface EnterpriseRecord {
  idTokenFile: string;
  idpIssuer: string;
  idpTokenEndpoint?: string;
  idpClientId: string;
  idpClientSecret?: string;
  /** The MCP server's authorization server the login found: later commands present the client there only. */
  issuer?: string;
  clientId: string;
  clientSecret?: string;
}

const FIELDS = ["idTokenFile", "idpIssuer", "idpTokenEndpoint", "idpClientId", "idpClientSecret", "issuer", "clientId", "clientSecret"] as const;
const REQUIRED = new Set<string>(["idTokenFile", "idpIssuer", "idpClientId", "clientId"]);

/** The record in `value`, when every field is a string of a sane length (the token file is outside input too). */
function readRecord(value: string): EnterpriseRecord | undefined {
  let o: unknown;
  try {
    o = JSON.parse(value);
  } catch {
    return undefined;
  }
  if (!isRec(o)) return undefined;
  const r: Record<string, string> = {};
  for (const f of FIELDS) {
    const v = o[f];
    if (v === undefined && !REQUIRED.has(f)) continue;
    if (typeof v !== "string" || v.length === 0 || v.length > MAX_OAUTH_STRING_CHARS) return undefined;
    r[f] = v;
  }
  return r as unknown as EnterpriseRecord;
}

/**
 * The ID token in the record's file, checked like `enterpriseSignIn` checks it. An
 * expired one is a sign-in to redo (`interaction_required`, exit 8), not a broken setup.
 */
async function idTokenOf(r: EnterpriseRecord): Promise<string> {
  const token = await readCredentialFile(r.idTokenFile, "the ID token file", MAX_ID_TOKEN_FILE_BYTES);
  try {
    checkAssertion(token, { what: `the ID token in ${r.idTokenFile}`, audience: [r.idpClientId], issuer: r.idpIssuer });
  } catch (e) {
    if (e instanceof OAuthError && e.field === "exp") {
      throw new OAuthError("interaction_required", `the ID token in ${r.idTokenFile} has expired: sign in again with your identity provider's tool`, { field: "exp" });
    }
    throw e;
  }
  return token;
}

function enterpriseAuth(store: FileTokenStore, r: EnterpriseRecord, logger: Logger | undefined): OAuthClient {
  return new OAuthClient({
    store,
    grant: enterpriseSignIn({
      issuer: r.idpIssuer,
      ...(r.idpTokenEndpoint !== undefined && { tokenEndpoint: r.idpTokenEndpoint }),
      client: { clientId: r.idpClientId, ...(r.idpClientSecret !== undefined && { clientSecret: r.idpClientSecret }) },
      identityAssertion: async () => ({ token: await idTokenOf(r) }),
    }),
    clients: [{ ...(r.issuer !== undefined && { issuer: r.issuer }), clientId: r.clientId, ...(r.clientSecret !== undefined && { clientSecret: r.clientSecret }) }],
    ...(logger && { logger }),
  });
}

/** The OAuth client of a later command against `url`, when `yada login --id-token-file` signed in to it. */
export async function recordedEnterprise(store: FileTokenStore, url: string, logger: Logger | undefined): Promise<OAuthClient | undefined> {
  const v = await store.get(enterpriseKey(resourceOf(url)));
  const r = v === undefined ? undefined : readRecord(v.value);
  return r === undefined ? undefined : enterpriseAuth(store, r, logger);
}

/**
 * The enterprise mode of `yada login`: the ID token is read and checked first (a
 * config or oauth error before anything is sent), then the server is connected with
 * the enterprise grant, and the sign-in recorded for later commands.
 *
 * @throws UsageError (`usage`) for a missing flag; ConfigError (`config`) for an
 * unreadable or oversized file; OAuthError (`oauth`) as `enterpriseSignIn`'s logins.
 */
export async function enterpriseLogin(ctx: CommandContext, choice: HttpChoice, store: FileTokenStore, file: string, logger: Logger | undefined): Promise<number> {
  const a = ctx.args;
  const env = ctx.io.env;
  if (a.idTokenFile === undefined || a.idpIssuer === undefined || a.idpClientId === undefined || a.clientId === undefined) {
    throw new UsageError("--id-token-file needs --idp-issuer, --idp-client-id and --client-id");
  }
  const idpSecret = env.YADA_IDP_CLIENT_SECRET;
  const secret = env.YADA_CLIENT_SECRET;
  const r: EnterpriseRecord = {
    idTokenFile: resolve(a.idTokenFile),
    idpIssuer: a.idpIssuer,
    ...(a.idpTokenEndpoint !== undefined && { idpTokenEndpoint: a.idpTokenEndpoint }),
    idpClientId: a.idpClientId,
    ...(idpSecret !== undefined && idpSecret !== "" && { idpClientSecret: idpSecret }),
    clientId: a.clientId,
    ...(secret !== undefined && secret !== "" && { clientSecret: secret }),
  };
  for (const f of FIELDS) {
    const v = r[f];
    if (v !== undefined && v.length > MAX_OAUTH_STRING_CHARS) throw new UsageError(`${f} is longer than ${MAX_OAUTH_STRING_CHARS} characters`);
  }
  await idTokenOf(r);
  // This login's client is not yet bound to an authorization server (the server names it). Its secret
  // still goes only with an ID-JAG the identity provider issued for that authorization server and this
  // client (enterpriseSignIn checks it), and the provider issues one only for servers its policy lists.
  const auth = enterpriseAuth(store, r, logger);
  await auth.logout(choice.url);
  const client = await connectClient(choice, { signal: ctx.signal, auth, ...(logger && { logger }) });
  await client.close();
  const tokens = await auth.tokens(choice.url);
  if (tokens === undefined) {
    ctx.io.out(`${describeServer(choice)} did not ask for a login\n`);
    return EXIT.ok;
  }
  const resource = resourceOf(choice.url);
  await forgetLoginMode(store, resource);
  // Later commands present the client (and its secret) to the authorization server this login found, only.
  await overwriteKey(store, enterpriseKey(resource), JSON.stringify({ ...r, issuer: tokens.issuer }));
  ctx.io.out(`Logged in to ${describeServer(choice)} with the enterprise sign-in in ${r.idTokenFile}; tokens stored in ${file}\n`);
  return EXIT.ok;
}
