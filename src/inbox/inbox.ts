/**
 * The approval inbox (U1–U4): a web-standard `(Request) => Promise<Response>`
 * handler that serves a tenant's approvers their pending actions, each action's
 * page with its approve and reject forms, the history of decided actions and the
 * attention queue, as HTML or, with `Accept: application/json`, as JSON. It mounts as
 * it is in a Worker, Deno, Bun or any fetch-style router (`toNodeListener` of
 * `yada-mcp/node` serves it on Node).
 *
 * Decisions go through `createActions` only: the inbox never writes the store
 * itself, so every check of an approval (tenant, `mayApprove`, the bound fields,
 * the stored arguments against their hash, the approval window, compare-and-swap)
 * holds here as anywhere.
 *
 * @module
 */
import { createActions } from "../actions/approvals.js";
import type { ActionCountQuery, ActionCursor, ActionRecord, ActionState } from "../actions/types.js";
import { checkCursor } from "../actions/query.js";
import { isYadaError } from "../errors.js";
import { MAX_ACTION_ID_CHARS, MAX_ACTION_REASON_CHARS, MAX_INBOX_PAGE_SIZE, MAX_RESOLUTION_NOTE_CHARS } from "../limits.js";
import type { Identity } from "../tools/types.js";
import { actionBody, type FormFields } from "./action-page.js";
import { escapeHtml } from "./escape.js";
import { csrfTokens } from "./csrf.js";
import { page, routes as makeRoutes, type NavCounts, cursorParam } from "./layout.js";
import { attentionBody, historyBody, pendingBody, type ListPage } from "./list-pages.js";
import { checkOptions, type ApprovalInboxOptions } from "./options.js";
import { checkOrigin, readFields, requestUrl, wantsJson, type Fields } from "./request.js";
import { InboxError, html, json, seeOther } from "./respond.js";
import { actionView } from "./views.js";

/** A fetch-style handler: what {@link createApprovalInbox} returns. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** The states of the history: every action a person (or the clock) decided. */
const DECIDED: readonly ActionState[] = ["approved", "executing", "reconciling", "succeeded", "failed", "outcome_unknown", "rejected", "expired"];
const DONE: Readonly<Record<string, string>> = {
  approved: "Approved. A worker sends it next.",
  rejected: "Rejected. The agent reads your reason.",
  resolved: "Settled. The agent reads your note when its run resumes.",
};

type Verb = "approve" | "reject" | "resolve";
type Route = { kind: "pending" | "history" | "attention" } | { kind: "action"; id: string } | { kind: "decide"; id: string; verb: Verb };

/** The route of `path` under `base`, or `undefined`. @throws InboxError 400 for a malformed id. */
function route(path: string, base: string): Route | undefined {
  const rest = base === "/" ? path : path === base ? "/" : path.startsWith(`${base}/`) ? path.slice(base.length) : undefined;
  if (rest === undefined) return undefined;
  if (rest === "/") return { kind: "pending" };
  if (rest === "/history") return { kind: "history" };
  if (rest === "/attention") return { kind: "attention" };
  const parts = rest.split("/");
  if (parts[1] !== "actions" || parts.length < 3 || parts.length > 4) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(parts[2]!);
  } catch {
    throw new InboxError(400, "bad_request", "the action id in the URL is not percent-encoded UTF-8");
  }
  if (id.length === 0 || id.length > MAX_ACTION_ID_CHARS) throw new InboxError(404, "not_found", "no such action");
  if (parts.length === 3) return { kind: "action", id };
  const verb = parts[3];
  return verb === "approve" || verb === "reject" || verb === "resolve" ? { kind: "decide", id, verb } : undefined;
}

/** The page's `limit` and `after` parameters, checked. @throws InboxError 400. */
function pageParams(url: URL, pageSize: number): { limit: number; asked: number | undefined; after: ActionCursor | undefined } {
  const l = url.searchParams.get("limit");
  let asked: number | undefined;
  if (l !== null) {
    asked = Number(l);
    if (!/^\d{1,4}$/.test(l) || asked < 1 || asked > MAX_INBOX_PAGE_SIZE) throw new InboxError(400, "bad_request", `limit is an integer from 1 to ${MAX_INBOX_PAGE_SIZE}`);
  }
  const a = url.searchParams.get("after");
  let after: ActionCursor | undefined;
  if (a !== null) {
    const tilde = a.indexOf("~");
    const at = a.slice(0, tilde);
    if (tilde < 1 || !/^\d{1,16}(\.\d{1,20})?$/.test(at)) throw new InboxError(400, "bad_request", "after is a cursor from a page's next link");
    try {
      after = checkCursor({ createdAt: Number(at), id: a.slice(tilde + 1) });
    } catch {
      throw new InboxError(400, "bad_request", "after is a cursor from a page's next link");
    }
  }
  return { limit: asked ?? pageSize, asked, after };
}

/**
 * The binding a decision form carries: SHA-256 (hex) of the JSON of every field an
 * approval binds (id, tool, version, arguments hash, state version, proposer, tenant),
 * of the preview the page showed and of the state it showed the action in (a form
 * made for one state never decides the action in another: an approval page's form
 * does not settle the action once its outcome became unknown). Any difference in any
 * of them is another hash.
 */
async function bindingOf(a: ActionRecord): Promise<string> {
  const text = JSON.stringify(["yada-inbox-binding/2", a.id, a.tool, a.version, a.argumentsHash, a.stateVersion ?? null, a.actorId, a.tenantId, a.preview ?? null, a.state]);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function validIdentity(who: unknown): who is Identity {
  if (typeof who !== "object" || who === null) return false;
  const { actorId, tenantId } = who as Record<string, unknown>;
  return typeof actorId === "string" && typeof tenantId === "string" && actorId.length > 0 && tenantId.length > 0 &&
    actorId.length <= MAX_ACTION_ID_CHARS && tenantId.length <= MAX_ACTION_ID_CHARS;
}

/**
 * Makes the approval inbox: see the module comment, and `docs/approvals.md` for every
 * route and its JSON.
 *
 * Bounds: URLs `MAX_INBOX_URL_CHARS`, bodies `MAX_INBOX_BODY_BYTES` arriving within
 * `INBOX_BODY_TIMEOUT_MS`, pages `MAX_INBOX_PAGE_SIZE`, reasons `MAX_ACTION_REASON_CHARS`,
 * `maxInFlight` requests at once (503 past it), CSRF tokens `INBOX_CSRF_TTL_MS`.
 *
 * The handler never throws: a failure of the store or of a host callback is a 500
 * page (and `onError`). Status codes: 401 without an identity, 403 for a refused
 * origin or CSRF token or an approver `mayApprove` refuses, 404 for an unknown action
 * or another tenant's, 409 when the stored action is not what the page showed.
 *
 * @throws ValidationError (`validation`) for options out of range (when it is made).
 *
 * @example
 * ```ts
 * import { createApprovalInbox, MemoryActionStore } from "yada-mcp";
 * const inbox = createApprovalInbox({
 *   store: new MemoryActionStore(),
 *   authenticate: (request) => (request.headers.get("x-user") === "bob" ? { actorId: "bob", tenantId: "acme" } : undefined),
 *   mayApprove: (approver, action) => approver.actorId !== action.actorId,
 * });
 * const res = await inbox(new Request("https://inbox.example/", { headers: { "x-user": "bob", accept: "application/json" } }));
 * console.log(res.status, (await res.json()).count); // 200 0
 * ```
 */
export function createApprovalInbox(options: ApprovalInboxOptions): FetchHandler {
  const config = checkOptions(options);
  const { store, authenticate, mayApprove, mayResolve, onError } = options;
  const now = options.now ?? Date.now;
  const tokens = csrfTokens(options.csrfSecret);
  // O2: a decision made here is a span linked to the action's proposal.
  const actions = createActions({ store, mayApprove, now, ...(mayResolve ? { mayResolve } : {}), tracer: options.tracer, traceContent: options.traceContent });
  const r = makeRoutes(config.basePath);
  let inFlight = 0;

  const report = (e: unknown): void => {
    try {
      onError?.(e);
    } catch {
      // a reporter that throws changes no answer
    }
  };
  // A count is a non-negative integer or no count at all (a host's own store may answer anything).
  const count = async (q: ActionCountQuery): Promise<number | undefined> => {
    const n: unknown = store.count ? await store.count(q) : undefined;
    return typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
  };

  async function listOf(who: Identity, url: URL, state: ActionState | readonly ActionState[], order: "oldest" | "newest"): Promise<ListPage> {
    const { limit, asked, after } = pageParams(url, config.pageSize);
    const [items, total] = await Promise.all([
      store.list({ tenantId: who.tenantId, state, order, limit, ...(after ? { after } : {}) }),
      count({ tenantId: who.tenantId, state }),
    ]);
    const last = items.at(-1);
    return { items, count: total, later: after !== undefined, limit: asked, next: items.length === limit && last ? { createdAt: last.createdAt, id: last.id } : undefined };
  }

  const attentionCount = (who: Identity) => count({ tenantId: who.tenantId, state: "outcome_unknown" });
  const navCounts = async (who: Identity): Promise<NavCounts | undefined> => {
    const [p, u] = await Promise.all([count({ tenantId: who.tenantId, state: "awaiting_approval" }), attentionCount(who)]);
    return p === undefined || u === undefined ? undefined : { pending: p, attention: u };
  };

  const listJson = (list: ListPage, at: number) => ({ count: list.count ?? null, items: list.items.map((a) => actionView(a, at)), next: list.next ? cursorParam(list.next) : null });

  /** The action of the approver's tenant, or a 404 that says nothing of other tenants. */
  async function ownAction(who: Identity, id: string): Promise<ActionRecord> {
    const a = await store.get(id);
    if (!a || a.tenantId !== who.tenantId) throw new InboxError(404, "not_found", "no such action");
    return a;
  }

  /** The form fields of `a` for `who`, when `who` may decide it (or settle it) now. */
  async function formFor(who: Identity, a: ActionRecord, at: number): Promise<{ form?: FormFields; settle?: FormFields; whyNot?: string }> {
    if (a.state === "outcome_unknown") {
      if (!mayResolve || !(await mayResolve(who, a))) return { whyNot: "You may not settle this action (the host's rule for operators)." };
      return { settle: { csrf: await tokens.issue(who, a.id, at), binding: await bindingOf(a) } };
    }
    if (a.state !== "awaiting_approval") return {};
    if (a.expiresAt <= at) return { whyNot: "Its approval window has passed." };
    if (!(await mayApprove(who, a))) return { whyNot: "You may not decide this action (the host's rule for approvers)." };
    return { form: { csrf: await tokens.issue(who, a.id, at), binding: await bindingOf(a) } };
  }

  async function show(request: Request, who: Identity, rt: Route, url: URL, asJson: boolean): Promise<Response> {
    const at = now();
    const frame = (heading: string, current: string, counts: NavCounts | undefined, body: string) =>
      html(200, page({ title: config.title, heading, who, routes: r, counts, current, body }));
    switch (rt.kind) {
      case "pending": {
        const [list, unknown] = await Promise.all([listOf(who, url, "awaiting_approval", "oldest"), asJson ? undefined : attentionCount(who)]);
        if (asJson) return json(200, { tenantId: who.tenantId, ...listJson(list, at) });
        return frame("Pending", r.pending, unknown === undefined || list.count === undefined ? undefined : { pending: list.count, attention: unknown }, pendingBody(r, list, at));
      }
      case "history": {
        const [list, counts] = await Promise.all([listOf(who, url, DECIDED, "newest"), navCounts(who)]);
        if (asJson) return json(200, { tenantId: who.tenantId, ...listJson(list, at) });
        return frame("History", r.history, counts, historyBody(r, list, at));
      }
      case "attention": {
        const [unknown, oldest, reconcilingCount, counts] = await Promise.all([
          listOf(who, url, "outcome_unknown", "oldest"),
          store.list({ tenantId: who.tenantId, state: "reconciling", limit: config.pageSize }),
          count({ tenantId: who.tenantId, state: "reconciling" }),
          navCounts(who),
        ]);
        const long = oldest.filter((a) => at - (a.approval?.at ?? a.createdAt) >= config.attentionAfterMs);
        const reconciling = { items: long, count: reconcilingCount, afterMs: config.attentionAfterMs };
        if (asJson) return json(200, { tenantId: who.tenantId, outcomeUnknown: listJson(unknown, at), reconciling: { count: reconciling.count ?? null, afterMs: reconciling.afterMs, items: long.map((a) => actionView(a, at)) } });
        return frame("Attention", r.attention, counts, attentionBody(r, unknown, reconciling, at));
      }
      case "action": {
        const a = await ownAction(who, rt.id);
        const [{ form, settle, whyNot }, counts] = await Promise.all([formFor(who, a, at), asJson ? undefined : navCounts(who)]);
        if (asJson) return json(200, { action: actionView(a, at), mayDecide: form !== undefined, mayResolve: settle !== undefined, form: form ?? settle ?? null });
        const done = url.searchParams.get("done");
        const notice = done !== null && Object.hasOwn(DONE, done) ? DONE[done] : undefined;
        return frame("Action", "", counts, actionBody({ action: a, now: at, routes: r, decide: form, settle, whyNot, notice }));
      }
      default:
        throw new InboxError(405, "method_not_allowed", "this route is posted to", { allow: "POST" });
    }
  }

  /** Approve, reject or resolve: the binding comes from the form, the decision from createActions. */
  async function decide(request: Request, who: Identity, id: string, verb: Verb, asJson: boolean): Promise<Response> {
    checkOrigin(request, config.origins ?? new Set([new URL(request.url).origin]));
    const fields: Fields = await readFields(request, config.bodyTimeoutMs);
    const a = await ownAction(who, id);
    if (!(await tokens.verify(fields.get("csrf"), who, a.id, now()))) {
      throw new InboxError(403, "csrf", "this form has expired or was not made for you; open the action again and decide there");
    }
    const reason = fields.get("reason");
    if (reason !== undefined && reason.length > MAX_ACTION_REASON_CHARS) throw new InboxError(400, "bad_request", `a reason is at most ${MAX_ACTION_REASON_CHARS} characters`);
    const note = fields.get("note") ?? "";
    const outcome = fields.get("outcome");
    if (verb === "resolve") {
      if (outcome !== "succeeded" && outcome !== "failed") throw new InboxError(400, "bad_request", "say what the server did: outcome succeeded or failed");
      if (note.trim() === "" || note.length > MAX_RESOLUTION_NOTE_CHARS) throw new InboxError(400, "bad_request", `a note of 1 to ${MAX_RESOLUTION_NOTE_CHARS} characters says what you checked`);
    }
    // What the page showed is what is stored, or nothing is decided. createActions then
    // compares the same fields again against what it reads, and moves the action by
    // compare-and-swap: a change in between is a conflict there.
    if (fields.get("binding") !== (await bindingOf(a))) throw new InboxError(409, "conflict", "the action is not what this page showed; nothing was decided");
    const shown = { id: a.id, tenantId: a.tenantId, tool: a.tool, version: a.version, argumentsHash: a.argumentsHash, actorId: a.actorId, stateVersion: a.stateVersion, preview: a.preview };
    try {
      const done =
        verb === "approve" ? await actions.approve(shown, who)
        : verb === "reject" ? await actions.reject(shown, who, reason)
        : await actions.resolve(shown, who, { outcome: outcome === "succeeded" ? "succeeded" : "failed", note });
      if (asJson) return json(200, { action: actionView(done, now()) });
      return seeOther(`${r.action(a.id)}?done=${verb === "approve" ? "approved" : verb === "reject" ? "rejected" : "resolved"}`);
    } catch (e) {
      if (isYadaError(e, "conflict")) throw new InboxError(409, "conflict", "the action is not what this page showed, or it was decided already; nothing was decided");
      if (isYadaError(e, "unauthorized")) throw new InboxError(403, "not_allowed", `you may not ${verb === "resolve" ? "settle" : "decide"} this action`);
      throw e;
    }
  }

  /** An error page (or JSON): the inbox's own words only, never a stored string. */
  async function failure(e: InboxError, who: Identity | undefined, actionId: string | undefined, asJson: boolean): Promise<Response> {
    if (asJson) return json(e.status, { error: { code: e.code, message: e.message } }, e.headers);
    const heading = e.status === 409 ? "Nothing was decided" : e.status === 401 ? "Sign in first" : e.status === 404 ? "Not found" : e.status >= 500 ? "Something failed" : "Refused";
    let body = `<h1>${heading}</h1><p class="notice${e.status === 409 || e.status === 403 ? " bad" : ""}">${escapeHtml(e.message)}</p>`;
    if (who && actionId !== undefined && (e.status === 409 || e.status === 403)) body += `<p><a href="${escapeHtml(r.action(actionId))}">Open the action as it is now</a></p>`;
    return html(e.status, page({ title: config.title, heading, who, routes: r, body }), e.headers);
  }

  return async function inbox(request: Request): Promise<Response> {
    const asJson = wantsJson(request);
    if (inFlight >= config.maxInFlight) return failure(new InboxError(503, "busy", "too many requests at once; try again in a moment", { "retry-after": "1" }), undefined, undefined, asJson);
    let who: Identity | undefined;
    let rt: Route | undefined;
    inFlight++;
    try {
      const url = requestUrl(request);
      rt = route(url.pathname, config.basePath);
      if (!rt) throw new InboxError(404, "not_found", "no such page");
      const target = rt;
      const post = target.kind === "decide";
      const method = request.method === "HEAD" ? "GET" : request.method;
      if (method !== (post ? "POST" : "GET")) throw new InboxError(405, "method_not_allowed", `this route answers ${post ? "POST" : "GET"}`, { allow: post ? "POST" : "GET, HEAD" });
      const found = await authenticate(request);
      if (found !== undefined && !validIdentity(found)) report(new InboxError(500, "internal", "authenticate returned an identity without a valid actorId and tenantId"));
      if (!validIdentity(found)) throw new InboxError(401, "unauthenticated", "sign in to see the approvals of your tenant");
      who = { actorId: found.actorId, tenantId: found.tenantId };
      const res = target.kind === "decide" ? await decide(request, who, target.id, target.verb, asJson) : await show(request, who, target, url, asJson);
      return request.method === "HEAD" ? new Response(null, { status: res.status, headers: res.headers }) : res;
    } catch (e) {
      const actionId = rt && "id" in rt ? rt.id : undefined;
      if (e instanceof InboxError) return failure(e, who, actionId, asJson);
      report(e);
      return failure(new InboxError(500, "internal", "the inbox failed to answer; open the action again to see where it stands"), who, actionId, asJson);
    } finally {
      inFlight--;
    }
  };
}
