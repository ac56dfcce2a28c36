// Shared pieces of the inbox tests (U1–U4): an inbox over a memory store whose
// authentication is a test header (`x-user: <actor>@<tenant>`), requests built as a
// browser or a JSON client sends them, and a reader of the forms a page carries.
import assert from "node:assert/strict";
import { createActions, type Actions } from "../../src/actions/approvals.js";
import { MemoryActionStore } from "../../src/actions/memory-store.js";
import type { ActionRecord, ActionStore } from "../../src/actions/types.js";
import { createApprovalInbox } from "../../src/inbox/inbox.js";
import type { ApprovalInboxOptions } from "../../src/inbox/options.js";
import type { Identity } from "../../src/tools/types.js";

export const ORIGIN = "https://inbox.test";
export const alice: Identity = { actorId: "alice", tenantId: "acme" };
export const bob: Identity = { actorId: "bob", tenantId: "acme" };
export const eve: Identity = { actorId: "eve", tenantId: "evil" };

/** The test's authentication: `x-user: actor@tenant`. */
export const byHeader = (request: Request): Identity | undefined => {
  const v = request.headers.get("x-user");
  if (!v) return undefined;
  const [actorId, tenantId] = v.split("@");
  return actorId && tenantId ? { actorId, tenantId } : undefined;
};
const userHeader = (who: Identity | undefined): Record<string, string> => (who ? { "x-user": `${who.actorId}@${who.tenantId}` } : {});

export interface Setup {
  store: ActionStore;
  actions: Actions;
  inbox: (request: Request) => Promise<Response>;
  clock: { now: number };
  /** A confirm action proposed by alice (or `who`). */
  propose(over?: { tool?: string; arguments?: Record<string, unknown>; preview?: string; stateVersion?: string; who?: Identity; runId?: string }): Promise<ActionRecord>;
  /** GET `path` as `who` (a browser, or JSON with `json`). */
  get(path: string, who?: Identity, json?: boolean, headers?: Record<string, string>): Promise<Response>;
  /** POST a form to `path` as `who`, from the inbox's own origin unless `headers` say otherwise. */
  post(path: string, fields: Record<string, string>, who?: Identity, headers?: Record<string, string>): Promise<Response>;
}

/** An inbox over a memory store (or `store`), with a clock the test moves. */
export function setup(options: Partial<ApprovalInboxOptions> = {}): Setup {
  const store = options.store ?? new MemoryActionStore();
  const clock = { now: Date.UTC(2026, 4, 1, 9, 0, 0) };
  const now = () => clock.now;
  const actions = createActions({ store, mayApprove: () => true, now });
  const inbox = createApprovalInbox({
    store,
    authenticate: byHeader,
    mayApprove: (approver, action) => approver.actorId !== action.actorId,
    now,
    ...options,
  });
  return {
    store,
    actions,
    inbox,
    clock,
    async propose(over = {}) {
      const prepared = {
        tool: over.tool ?? "items__rename",
        version: "v1",
        arguments: over.arguments ?? { id: "A", name: "Apples" },
        ...(over.stateVersion !== undefined ? { stateVersion: over.stateVersion } : {}),
        ...(over.preview !== undefined ? { preview: over.preview } : {}),
      };
      const a = await actions.propose(prepared, { identity: over.who ?? alice, effect: over.stateVersion ? "write" : "confirm", ...(over.runId ? { runId: over.runId } : {}) });
      clock.now += 1_000;
      return a;
    },
    get: (path, who, json, headers = {}) =>
      inbox(new Request(`${ORIGIN}${path}`, { headers: { ...userHeader(who), ...(json ? { accept: "application/json" } : { accept: "text/html,application/xhtml+xml" }), ...headers } })),
    post: (path, fields, who, headers = {}) =>
      inbox(
        new Request(`${ORIGIN}${path}`, {
          method: "POST",
          headers: { ...userHeader(who), "content-type": "application/x-www-form-urlencoded", origin: ORIGIN, "sec-fetch-site": "same-origin", ...headers },
          body: new URLSearchParams(fields).toString(),
        }),
      ),
  };
}

const unescape = (s: string): string => s.replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&#39;/g, "'").replace(/&amp;/g, "&");

/** The forms of a page: action → hidden fields, as a browser would post them. */
export function formsOf(page: string): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  for (const m of page.matchAll(/<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/g)) {
    const fields: Record<string, string> = {};
    for (const f of (m[2] ?? "").matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)) fields[f[1]!] = unescape(f[2]!);
    out.set(unescape(m[1]!), fields);
  }
  return out;
}

/** The approve form's fields of `id` on its page, read as `who` sees it. */
export async function approveForm(s: Setup, id: string, who: Identity = bob, verb: "approve" | "reject" = "approve"): Promise<Record<string, string>> {
  const res = await s.get(`/actions/${encodeURIComponent(id)}`, who);
  assert.equal(res.status, 200);
  const form = formsOf(await res.text()).get(`/actions/${encodeURIComponent(id)}/${verb}`);
  assert.ok(form, `the page of ${id} has no ${verb} form`);
  return form;
}

/** The text of `page` between <main> and </main>, tags removed and entities read. */
export function mainText(page: string): string {
  const main = page.slice(page.indexOf("<main>"), page.indexOf("</main>"));
  return unescape(main.replace(/<[^>]*>/g, " ")).replace(/ {2,}/g, " ");
}
