/**
 * {@link OAuthClient}: OAuth 2.1 for one MCP server over HTTP (A2–A5), as the
 * transport's {@link HttpAuth}. On a 401 it discovers the server's authorization
 * server, registers (or uses a given client), runs the authorization code flow
 * with PKCE through the host's interactive step (or a grant that needs no browser:
 * `client_credentials`, a workload's JWT, an enterprise sign-in, A7), and stores the
 * tokens; it adds them to every request,
 * refreshes them before they expire (one refresh at a time), and steps up on a 403
 * `insufficient_scope`.
 *
 * @module
 */
import { ConfigError, OAuthError } from "../errors.js";
import { MAX_SCOPES, MAX_STEP_UPS, OAUTH_INTERACTION_TIMEOUT_MS, TOKEN_REFRESH_SKEW_MS } from "../limits.js";
import { silentLogger, type Logger } from "../log.js";
import type { AuthRequest, HttpAuth } from "../transport/http-auth.js";
import { oauthChallenge, type Challenge } from "./challenge.js";
import { discoverLegacy, discoverResource, discoverServer, resourceOf } from "./discovery.js";
import { DpopKey, storedDpopKey } from "./dpop.js";
import { scopeList } from "./fields.js";
import { clientFor, identityOf, type ClientDeps } from "./clients.js";
import { authorizationUrl, atRedirectUri, callbackCode, callbackState, interact } from "./flow.js";
import { flowKey, sweepFlows } from "./flows.js";
import { clientCredentialsGrant, type GrantContext } from "./grants.js";
import { reachOf } from "./reach.js";
import { overwrite, readFlow, readTokens, type FlowRecord, type TokensRecord } from "./records.js";
import { checkMetadataDocumentUrl } from "./registration.js";
import { endpointUrl, randomToken, secureUrl, withTimeout, type OAuthFetch } from "./request.js";
import type { OAuthClientOptions } from "./options.js";
import { MemoryTokenStore, type TokenStore } from "./store.js";
import { requestToken, type TokenSet } from "./token.js";
import { createWaiters, type Waiters } from "./waiters.js";

export type { AssertionRequest, AuthorizeStep, EnterpriseOptions, IdentityAssertion, OAuthClientOptions, PreRegisteredClient, WorkloadTokenSource } from "./options.js";

/** Per-request bookkeeping: what was done for this request's earlier attempts. */
interface Attempts {
  /** The access token the last attempt carried. */
  sent?: string;
  refreshed: boolean;
  authorized: boolean;
  stepUps: number;
}

const tokensKey = (key: string): string => `tokens ${key}`;
const OFFLINE = "offline_access";

/** What a token request is for: where the tokens are saved, and what they came from. */
interface Saving {
  key: string;
  /** The authorization server's identity (A4): its issuer, or the server's origin for default endpoints. */
  issuer: string;
  resource: string;
  clientId: string;
  tokenEndpoint: string;
  requested: string | undefined;
  defaultEndpoints: boolean;
  /** Where the resource metadata was found, when it was. */
  resourceMetadata: string | undefined;
}

/**
 * OAuth 2.1 for MCP servers over HTTP. Pass it as the `auth` of an
 * {@link HttpTransport} or of a `connectMcp` configuration; one instance may serve
 * several servers (tokens are kept per server, clients per issuer).
 *
 * Every check is strict by default: https endpoints (http on loopback only), no
 * redirects followed, PKCE S256 required, the metadata's issuer and resource
 * checked, `state` then `iss` checked on the callback, tokens sent only to a
 * server whose authorization server issued them.
 *
 * @throws OAuthError (`oauth`) from the transport's requests, by `kind`.
 *
 * @example
 * ```ts
 * import { McpClient, HttpTransport, OAuthClient } from "yada-mcp";
 * const auth = new OAuthClient({
 *   redirectUri: "http://127.0.0.1:8976/callback",
 *   authorize: async ({ url }) => { console.log(`Open ${url}`); return await waitForCallback(); },
 * });
 * const client = await McpClient.connect(new HttpTransport("https://mcp.example.com/mcp", { auth }));
 * ```
 */
export class OAuthClient implements HttpAuth {
  readonly #o: OAuthClientOptions;
  readonly #store: TokenStore;
  readonly #fetch: OAuthFetch;
  readonly #log: Logger;
  readonly #attempts = new WeakMap<AuthRequest, Attempts>();
  readonly #refreshing = new Map<string, Promise<TokensRecord | undefined>>();
  readonly #authorizing = new Map<string, { done: Promise<void>; waiters: Waiters }>();
  /** Servers whose authorization server was confirmed this session: key → issuer. */
  readonly #confirmed = new Map<string, string>();
  #dpop: Promise<DpopKey> | undefined;
  readonly #deps: ClientDeps;

  /** @throws OAuthError (`oauth`, `insecure_url`) for a redirect URI or document URL that is not https (or loopback http). */
  constructor(options: OAuthClientOptions = {}) {
    this.#o = options;
    const grant = options.grant;
    if (grant !== undefined && grant !== "authorization_code" && grant !== "client_credentials" && typeof grant?.obtain !== "function") {
      throw new ConfigError("grant must be authorization_code, client_credentials, or a grant such as workloadIdentity(...)");
    }
    if (options.redirectUri !== undefined) secureUrl(options.redirectUri, "the redirect URI");
    if (options.clientMetadataUrl !== undefined) checkMetadataDocumentUrl(options.clientMetadataUrl);
    this.#store = options.store ?? new MemoryTokenStore();
    const f: OAuthFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    const ms = options.requestTimeoutMs;
    if (ms !== undefined && (!Number.isSafeInteger(ms) || ms <= 0)) throw new ConfigError("requestTimeoutMs must be a positive integer");
    this.#fetch = ms === undefined ? f : withTimeout(f, ms);
    this.#log = options.logger ?? silentLogger;
    this.#deps = { options, store: this.#store, fetch: this.#fetch, log: this.#log };
  }

  /** The stored tokens of the server at `url`, when there are any (for a host's "logged in?" display; never log them). */
  async tokens(url: string): Promise<TokensRecord | undefined> {
    return readTokens(await this.#store.get(tokensKey(resourceOf(url))));
  }

  /** Forgets the tokens of the server at `url`. */
  async logout(url: string): Promise<void> {
    await overwrite(this.#store, tokensKey(resourceOf(url)), undefined);
    this.#confirmed.delete(resourceOf(url));
  }

  /** {@link HttpAuth.headers}: the stored token, refreshed first when it is about to expire. */
  async headers(request: AuthRequest): Promise<Record<string, string>> {
    const key = resourceOf(request.url);
    const a = this.#attemptsOf(request);
    a.sent = undefined;
    let t = readTokens(await this.#store.get(tokensKey(key)));
    if (t === undefined) return {};
    // A4/A5: a token goes only to a server whose authorization server issued it.
    if (!(await this.#confirm(key, request.url, t, request.signal))) return {};
    if (t.expiresAt !== undefined && t.expiresAt - Date.now() < TOKEN_REFRESH_SKEW_MS && t.refreshToken !== undefined) {
      t = await this.#refresh(key, t, request.signal);
      if (t === undefined) return {};
    }
    a.sent = t.accessToken;
    // A DPoP proof names the URL actually requested (an HTTP+SSE message endpoint, H14).
    return this.#authorization(t, request.method, request.target ?? request.url);
  }

  /** {@link HttpAuth.challenge}: refresh, log in, step up or pass a DPoP nonce on; false when none applies. */
  async challenge(response: Response, request: AuthRequest): Promise<boolean> {
    const key = resourceOf(request.url);
    const c = oauthChallenge(response);
    const a = this.#attemptsOf(request);
    if (c?.params.error === "use_dpop_nonce" && this.#o.dpop) {
      const key2 = await this.#dpopKey();
      return key2.noteNonce(request.url, response.headers);
    }
    if (this.#o.dpop && this.#dpop !== undefined) (await this.#dpop).noteNonce(request.url, response.headers);
    if (response.status === 403) {
      if (c?.params.error !== "insufficient_scope") return false;
      if (++a.stepUps > MAX_STEP_UPS) throw new OAuthError("step_up_limit", `the MCP server ${key} still asks for more scope after ${MAX_STEP_UPS} step-ups`);
      const t = readTokens(await this.#store.get(tokensKey(key)));
      const union = [...new Set([...scopeList(t?.requestedScope ?? t?.scope), ...scopeList(c.params.scope)])].slice(0, MAX_SCOPES).join(" ");
      this.#log("info", `OAuth: ${key} asks for more scope; re-authorizing`);
      await this.#authorizeOnce(key, request, c, union);
      a.authorized = true;
      return true;
    }
    if (response.status !== 401) return false;
    const t = readTokens(await this.#store.get(tokensKey(key)));
    // Another request refreshed (or logged in) while this one was under way: send it again with the new token.
    if (t !== undefined && a.sent !== undefined && t.accessToken !== a.sent && !a.refreshed) {
      a.refreshed = true;
      return true;
    }
    if (t !== undefined && t.refreshToken !== undefined && !a.refreshed && !a.authorized) {
      a.refreshed = true;
      if ((await this.#refresh(key, t, request.signal)) !== undefined) return true;
    }
    // A5: a 401 right after a login is the server's answer, not a reason to log in again.
    if (a.authorized || request.method === "DELETE") return false;
    await this.#authorizeOnce(key, request, c, undefined);
    a.authorized = true;
    return true;
  }

  #attemptsOf(request: AuthRequest): Attempts {
    let a = this.#attempts.get(request);
    if (a === undefined) this.#attempts.set(request, (a = { refreshed: false, authorized: false, stepUps: 0 }));
    return a;
  }

  /**
   * Completes a flow whose interactive step happened elsewhere (a web app that
   * redirected the page away): checks the callback URL the browser came back
   * with and stores the tokens.
   *
   * @throws OAuthError (`oauth`): `state_mismatch` (missing, unknown, replayed),
   * `iss_mismatch`, `authorization_denied`, `timeout`, `token_error`, ...
   */
  async finishAuthorization(callbackUrl: string, signal?: AbortSignal): Promise<void> {
    let cb: URL;
    try {
      cb = new URL(callbackUrl);
    } catch {
      throw new OAuthError("bad_response", "the authorization callback is not a URL");
    }
    // A3: state first; nothing else of the callback is read before its flow is found.
    const state = callbackState(cb);
    const stored = await this.#store.get(flowKey(state));
    const flow = readFlow(stored);
    if (stored === undefined || flow === undefined || flow.state !== state) throw new OAuthError("state_mismatch", "the authorization callback's state belongs to no open flow (unknown, or already used)");
    // One use: the flow is deleted before its code is exchanged (a replay finds nothing).
    if (!(await this.#store.set(flowKey(state), undefined, stored.version))) throw new OAuthError("state_mismatch", "the authorization callback's flow was already used");
    await sweepFlows(this.#store, { remove: state });
    if (!atRedirectUri(cb, flow.redirectUri)) throw new OAuthError("state_mismatch", "the authorization callback did not arrive at the flow's redirect URI");
    const code = callbackCode(cb, flow);
    // A8: the store is outside input: the code, verifier and client secret go only where metadata could have sent them.
    endpointUrl(flow.tokenEndpoint, "the stored flow", "token_endpoint", reachOf(flow.key));
    const client = await identityOf(this.#deps, flow.issuer, flow.clientId);
    const defaultEndpoints = flow.defaultEndpoints === true;
    const set = await requestToken(
      { fetch: this.#fetch, tokenEndpoint: flow.tokenEndpoint, issuer: defaultEndpoints ? undefined : flow.issuer, client, dpop: await this.#dpopOrNot(), signal },
      { grant_type: "authorization_code", code, redirect_uri: flow.redirectUri, code_verifier: flow.verifier, resource: flow.resource },
    );
    const { key, issuer, resource, clientId, tokenEndpoint, resourceMetadata } = flow;
    await this.#save({ key, issuer, resource, clientId, tokenEndpoint, requested: flow.scope, defaultEndpoints, resourceMetadata }, set);
  }

  // ── the flows ──

  /** One authorization at a time per server: concurrent 401s wait for the same one. */
  async #authorizeOnce(key: string, request: AuthRequest, c: Challenge | undefined, scope: string | undefined): Promise<void> {
    const running = this.#authorizing.get(key);
    if (running !== undefined) {
      running.waiters.add(request);
      return running.done;
    }
    const waiters = createWaiters();
    waiters.add(request);
    const done = this.#authorize(key, request, c, scope, waiters).finally(() => this.#authorizing.delete(key));
    this.#authorizing.set(key, { done, waiters });
    return done;
  }

  async #authorize(key: string, request: AuthRequest, c: Challenge | undefined, stepUpScope: string | undefined, waiters: Waiters): Promise<void> {
    const signal = request.signal;
    // A8: every URL the server's documents name is measured against the server's own host.
    const reach = reachOf(request.url);
    const prm = await discoverResource(this.#fetch, request.url, c?.params.resource_metadata, signal);
    const issuer = prm?.authorizationServers[0];
    const meta = issuer !== undefined ? await discoverServer(this.#fetch, issuer, signal, reach) : await discoverLegacy(this.#fetch, request.url, signal);
    // A4: the authorization server's identity keys its clients and tokens; default endpoints are the server's origin's.
    const recorded = meta.issuer ?? new URL(request.url).origin;
    const defaultEndpoints = meta.issuer === undefined;
    this.#confirmed.set(key, recorded);
    const resource = prm?.resource ?? key;
    const old = readTokens(await this.#store.get(tokensKey(key)));
    if (old !== undefined && old.issuer !== recorded) {
      this.#log("info", `OAuth: ${key} moved to another authorization server; its old tokens are dropped`);
      await overwrite(this.#store, tokensKey(key), undefined);
    }
    let scope = stepUpScope ?? c?.params.scope ?? prm?.scopesSupported?.join(" ");
    if (scope !== undefined && scopeList(scope).length > MAX_SCOPES) scope = scopeList(scope).slice(0, MAX_SCOPES).join(" ");
    const grant = this.#o.grant ?? "authorization_code";
    if (grant !== "authorization_code") {
      const ctx: GrantContext = { fetch: this.#fetch, meta, identity: recorded, resource, scope, dpop: await this.#dpopOrNot(), clients: this.#o.clients, signal };
      const { set, clientId } = grant === "client_credentials" ? await clientCredentialsGrant(ctx) : await grant.obtain(ctx);
      await this.#save({ key, issuer: recorded, resource, clientId, tokenEndpoint: meta.tokenEndpoint, requested: scope, defaultEndpoints, resourceMetadata: prm?.url }, set);
      return;
    }
    const redirectUri = this.#o.redirectUri;
    if (redirectUri === undefined) throw new OAuthError("interaction_required", "a login is needed but no redirectUri is configured");
    if (meta.authorizationEndpoint === undefined) throw new OAuthError("bad_response", `the authorization server ${recorded} has no authorization_endpoint`);
    // A3: PKCE S256 or nothing, unless the host named this issuer as known to support it.
    if (!meta.codeChallengeMethodsSupported?.includes("S256") && !this.#o.pkceWithoutMetadata?.includes(recorded)) {
      throw new OAuthError("pkce_unsupported", `the authorization server ${recorded} does not advertise PKCE S256; refusing to authorize`);
    }
    // Spec "Refresh Tokens": offline_access where the authorization server lists it.
    if (meta.scopesSupported?.includes(OFFLINE) && !scopeList(scope).includes(OFFLINE)) scope = [...scopeList(scope), OFFLINE].join(" ");
    const client = await clientFor(this.#deps, recorded, meta, redirectUri, reach, signal);
    const flow: FlowRecord = {
      state: randomToken(32),
      verifier: randomToken(32),
      issuer: recorded,
      issRequired: meta.issParameterSupported,
      key,
      resource,
      ...(scope !== undefined && scope !== "" && { scope }),
      redirectUri,
      clientId: client.clientId,
      tokenEndpoint: meta.tokenEndpoint,
      createdAt: Date.now(),
      ...(defaultEndpoints && { defaultEndpoints }),
      ...(prm !== undefined && { resourceMetadata: prm.url }),
      // OpenID Connect Core §11: providers issue a refresh token for offline_access on a consent prompt.
      ...(scopeList(scope).includes(OFFLINE) && meta.promptValuesSupported?.includes("consent") && { prompt: "consent" }),
    };
    await this.#store.set(flowKey(flow.state), JSON.stringify(flow), undefined);
    // A3: abandoned flows are deleted once they expire (and past MAX_OPEN_FLOWS).
    await sweepFlows(this.#store, { add: [flow.state, flow.createdAt] }, flow.createdAt);
    const url = await authorizationUrl(meta.authorizationEndpoint, flow);
    const step = this.#o.authorize;
    if (step === undefined) throw new OAuthError("interaction_required", `the MCP server ${key} needs a login`, { authorizationUrl: url });
    this.#log("info", `OAuth: ${key} needs a login at ${new URL(url).origin}`);
    // A2: the user's time in the interactive step holds the waiting requests' bounds; the step keeps its own.
    let callback: string;
    try {
      callback = await waiters.step(() => interact(step, url, signal, this.#o.interactionTimeoutMs ?? OAUTH_INTERACTION_TIMEOUT_MS));
    } catch (e) {
      // A3: a login the user abandoned (the step failed, timed out or was cancelled) leaves no flow behind.
      const left = await this.#store.get(flowKey(flow.state));
      if (left !== undefined) await this.#store.set(flowKey(flow.state), undefined, left.version);
      await sweepFlows(this.#store, { remove: flow.state });
      throw e;
    }
    await this.#finish(callback, signal);
  }

  #finish(callback: string, signal: AbortSignal): Promise<void> {
    return this.finishAuthorization(callback, signal);
  }

  // ── tokens (A5) ──

  async #save(s: Saving, set: TokenSet): Promise<TokensRecord> {
    // A refresh token was asked for (offline_access) and none came: said in the record, and logged.
    const missing = set.refreshToken === undefined && scopeList(s.requested).includes(OFFLINE);
    if (missing) this.#log("warn", `OAuth: ${s.key}: offline_access was requested but no refresh token was issued; a new login is needed when the token expires`);
    const record: TokensRecord = {
      issuer: s.issuer,
      resource: s.resource,
      clientId: s.clientId,
      tokenEndpoint: s.tokenEndpoint,
      accessToken: set.accessToken,
      tokenType: set.tokenType,
      ...(set.expiresAt !== undefined && { expiresAt: set.expiresAt }),
      ...(set.refreshToken !== undefined && { refreshToken: set.refreshToken }),
      ...(set.scope !== undefined && { scope: set.scope }),
      ...(s.requested !== undefined && { requestedScope: s.requested }),
      ...(missing && { refreshTokenMissing: true }),
      ...(s.defaultEndpoints && { defaultEndpoints: true }),
      ...(s.resourceMetadata !== undefined && { resourceMetadata: s.resourceMetadata }),
    };
    await overwrite(this.#store, tokensKey(s.key), record);
    this.#confirmed.set(s.key, s.issuer);
    return record;
  }

  /**
   * Refreshes `t` (A5): one refresh per server at a time in this process, and a
   * compare-and-swap in the store across processes (the loser uses the winner's
   * tokens). A refused refresh (`invalid_grant`: revoked, expired) drops the tokens.
   */
  #refresh(key: string, t: TokensRecord, signal: AbortSignal): Promise<TokensRecord | undefined> {
    const running = this.#refreshing.get(key);
    if (running !== undefined) return running;
    const p = this.#doRefresh(key, t, signal).finally(() => this.#refreshing.delete(key));
    this.#refreshing.set(key, p);
    return p;
  }

  async #doRefresh(key: string, t: TokensRecord, signal: AbortSignal): Promise<TokensRecord | undefined> {
    const before = await this.#store.get(tokensKey(key));
    const cur = readTokens(before);
    if (cur === undefined || before === undefined) return undefined;
    // Someone refreshed already (another request, process or tab): use theirs.
    if (cur.accessToken !== t.accessToken) return cur;
    if (cur.refreshToken === undefined) return undefined;
    // A8: the store is outside input too; its token endpoint is measured against the server like metadata is.
    endpointUrl(cur.tokenEndpoint, "the stored tokens", "token_endpoint", reachOf(key));
    let set: TokenSet;
    try {
      const client = await identityOf(this.#deps, cur.issuer, cur.clientId);
      set = await requestToken(
        { fetch: this.#fetch, tokenEndpoint: cur.tokenEndpoint, issuer: cur.defaultEndpoints ? undefined : cur.issuer, client, dpop: await this.#dpopOrNot(), signal },
        { grant_type: "refresh_token", refresh_token: cur.refreshToken, resource: cur.resource },
      );
    } catch (e) {
      if (e instanceof OAuthError && e.kind === "token_error") {
        this.#log("info", `OAuth: the refresh for ${key} was refused (${e.oauthError ?? "error"}); a new login is needed`);
        await this.#store.set(tokensKey(key), undefined, before.version);
        return undefined;
      }
      throw e;
    }
    const record: TokensRecord = {
      ...cur,
      accessToken: set.accessToken,
      tokenType: set.tokenType,
      ...(set.expiresAt !== undefined ? { expiresAt: set.expiresAt } : { expiresAt: undefined }),
      refreshToken: set.refreshToken ?? cur.refreshToken,
      ...(set.scope !== undefined && { scope: set.scope }),
    };
    if (record.expiresAt === undefined) delete record.expiresAt;
    if (!(await this.#store.set(tokensKey(key), JSON.stringify(record), before.version))) return readTokens(await this.#store.get(tokensKey(key)));
    return record;
  }

  /** Confirms, once per session, that the server's authorization server issued the stored tokens (A4). */
  async #confirm(key: string, url: string, t: TokensRecord, signal: AbortSignal): Promise<boolean> {
    let issuer = this.#confirmed.get(key);
    if (issuer === undefined) {
      // Where the login found the resource metadata first (a challenge's URL no well-known one reaches), checked again like a challenge's (A8).
      const prm = await discoverResource(this.#fetch, url, t.resourceMetadata, signal);
      issuer = prm?.authorizationServers[0] ?? (await discoverLegacy(this.#fetch, url, signal)).issuer ?? new URL(url).origin;
      this.#confirmed.set(key, issuer);
    }
    if (issuer === t.issuer) return true;
    this.#log("warn", `OAuth: the stored tokens for ${key} come from another authorization server than the server names; they are not sent`);
    return false;
  }

  async #authorization(t: TokensRecord, method: string, url: string): Promise<Record<string, string>> {
    if (t.tokenType === "dpop") {
      const key = await this.#dpopKey();
      return { authorization: `DPoP ${t.accessToken}`, dpop: await key.proof(method, url, t.accessToken) };
    }
    return { authorization: `Bearer ${t.accessToken}` };
  }

  #dpopKey(): Promise<DpopKey> {
    if (this.#dpop === undefined) {
      const p = this.#o.persistDpopKey ? storedDpopKey(this.#store, this.#log) : DpopKey.generate();
      this.#dpop = p.catch((e: unknown) => {
        this.#dpop = undefined;
        throw e;
      });
    }
    return this.#dpop;
  }

  async #dpopOrNot(): Promise<DpopKey | undefined> {
    return this.#o.dpop ? this.#dpopKey() : undefined;
  }
}
