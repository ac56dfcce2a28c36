/**
 * The inbox's list pages (U1): what waits for the approver's tenant (oldest first,
 * with the time left before each expires), what was decided (newest first, who
 * decided, when, the outcome), and what needs a person's attention (outcomes no
 * one knows, actions still reconciling long after their approval).
 *
 * @module
 */
import type { ActionCursor, ActionRecord } from "../actions/types.js";
import { MAX_INBOX_CELL_CHARS } from "../limits.js";
import { escapeHtml, formatCount, formatDuration, formatTime, isoTime, showText } from "./escape.js";
import { isoCell, pageHref, stateBadge, type Routes } from "./layout.js";

/** A page of a list, as the routes read it. */
export interface ListPage {
  items: readonly ActionRecord[];
  /** The total of the selection (all pages); `undefined` when the store does not count. */
  count: number | undefined;
  /** Where the next page starts, when there may be one. */
  next: ActionCursor | undefined;
  /** Whether this is a later page (a link back to the first is shown). */
  later: boolean;
  /** A `limit` the request asked for (kept in the next page's link). */
  limit: number | undefined;
}

const ago = (now: number, at: number): string => (at <= now ? `${formatDuration(now - at)} ago` : `in ${formatDuration(at - now)}`);
// ISO times are the inbox's own text (digits, "-", ":", ".", "T", "Z"): nothing in them needs escaping.
function time(at: number, now: number): string {
  const iso = isoTime(at);
  return `<time datetime="${iso}" title="${formatTime(at, iso)}">${ago(now, at)}</time>`;
}

function pager(path: string, list: ListPage, what: string): string {
  const links: string[] = [];
  if (list.later) links.push(`<a href="${escapeHtml(path)}">First page</a>`);
  if (list.next) links.push(`<a href="${escapeHtml(pageHref(path, list.next, list.limit))}" rel="next">Next ${what}</a>`);
  return links.length ? `<p class="pages">${links.join("")}</p>` : "";
}

const toolLink = (r: Routes, a: ActionRecord): string => `<a href="${escapeHtml(r.action(a.id))}">${isoCell(a.tool)}</a>`;

/** A key as a summary writes it: bare when it is one word, else quoted as JSON (so a key such as `amount: 1, to` cannot pose as two members). */
const summaryKey = (k: string): string => (/^[A-Za-z0-9_$-]+$/.test(k) || /^[\p{L}\p{N}_$-]+$/u.test(k) ? k : JSON.stringify(k));

/**
 * The start of an action's arguments as a list cell's HTML, for telling one row from
 * the next: top-level members as `key: value`, strings cut before they are quoted,
 * nested values as `{…}` / `[…]`; never more than `max` characters, whatever the
 * arguments' size. Each key and each value is escaped (see `showText`) in an isolate
 * of its own (`<bdi>`): right-to-left text in one cannot move the separators, or a
 * value, to the other side of a key.
 */
export function argumentsCell(args: Record<string, unknown>, max = MAX_INBOX_CELL_CHARS): string {
  let left = max;
  let cut = false;
  /** `text` isolated, cut with "…" to what is left of the cell. */
  const piece = (text: string): string => {
    if (text.length <= left) {
      left -= text.length; // at least as many code points left as code units used
      return `<bdi>${showText(text)}</bdi>`;
    }
    const points = [...text.slice(0, 2 * left + 1)];
    if (points.length <= left) {
      left -= points.length;
      return `<bdi>${showText(text)}</bdi>`;
    }
    cut = true;
    return `<bdi>${showText(points.slice(0, left).join(""))}…</bdi>`;
  };
  let out = "";
  for (const [k, v] of Object.entries(args)) {
    if (out) {
      if (left <= 2) return `${out}, …`;
      out += ", ";
      left -= 2;
    }
    out += piece(summaryKey(k.length > max ? `${k.slice(0, max)}…` : k));
    if (cut) return out;
    if (left <= 2) return `${out}: …`;
    out += ": ";
    left -= 2;
    const value = typeof v === "string" ? JSON.stringify(v.length > max ? `${v.slice(0, max)}…` : v)
      : Array.isArray(v) ? "[…]" : v !== null && typeof v === "object" ? "{…}" : String(v);
    out += piece(value);
    if (cut) return out;
  }
  return out;
}

const what = (r: Routes, a: ActionRecord): string => `${toolLink(r, a)}<br><span class="muted mono"><bdi class="u">${argumentsCell(a.arguments)}</bdi></span>`;

/** The pending list. */
export function pendingBody(r: Routes, list: ListPage, now: number): string {
  const n = list.count ?? (list.items.length === 0 && !list.later ? 0 : undefined);
  const head = `<h1>${n === 0 ? "Nothing waits for approval" : n === undefined ? "Actions waiting for approval" : `${formatCount(n)} ${n === 1 ? "action waits" : "actions wait"} for approval`}</h1>`;
  if (list.items.length === 0) return head + (list.later ? pager(r.pending, list, "page") : `<p class="muted">When an agent proposes a write, it appears here.</p>`);
  const rows = list.items.map((a) => {
    const left = a.expiresAt - now;
    return `<tr><td>${what(r, a)}</td><td>${escapeHtml(String(a.effect))}</td><td>${isoCell(a.actorId)}</td><td>${time(a.createdAt, now)}</td>` +
      `<td>${left > 0 ? `<time datetime="${isoTime(a.expiresAt)}" title="${formatTime(a.expiresAt)}">${formatDuration(left)} left</time>` : `<span class="state s-expired">expired</span>`}</td></tr>`;
  });
  return head +
    `<p class="muted">Oldest first.</p><table><thead><tr><th scope="col">Tool and arguments</th><th scope="col">Effect</th><th scope="col">Proposed by</th><th scope="col">Proposed</th><th scope="col">Expires</th></tr></thead>` +
    `<tbody>${rows.join("")}</tbody></table>${pager(r.pending, list, "page")}`;
}

/** Who decided an action and when, as a list cell. */
function decidedBy(a: ActionRecord, now: number): string {
  if (a.resolution) return `${isoCell(a.resolution.actorId)} <span class="muted">settled it ${time(a.resolution.at, now)}</span>`;
  const d = a.rejection ?? a.approval;
  if (!d) return a.state === "expired" ? `<span class="muted">nobody (expired)</span>` : `<span class="muted">—</span>`;
  return `${isoCell(d.actorId)} <span class="muted">${time(d.at, now)}</span>`;
}

/** The history list. */
export function historyBody(r: Routes, list: ListPage, now: number): string {
  const head = `<h1>History</h1><p class="muted">${list.count === undefined ? "Decided actions" : `${formatCount(list.count)} decided ${list.count === 1 ? "action" : "actions"}`}, newest first.</p>`;
  if (list.items.length === 0) return head + pager(r.history, list, "page");
  const rows = list.items.map((a) => `<tr><td>${what(r, a)}</td><td>${stateBadge(a.state)}</td><td>${decidedBy(a, now)}</td><td>${isoCell(a.actorId)}</td><td>${time(a.createdAt, now)}</td></tr>`);
  return head +
    `<table><thead><tr><th scope="col">Tool and arguments</th><th scope="col">Outcome</th><th scope="col">Decided by</th><th scope="col">Proposed by</th><th scope="col">Proposed</th></tr></thead>` +
    `<tbody>${rows.join("")}</tbody></table>${pager(r.history, list, "page")}`;
}

/** The attention queue: outcomes no one knows (paged), then long reconciliations. */
export function attentionBody(r: Routes, unknown: ListPage, reconciling: { items: readonly ActionRecord[]; count: number | undefined; afterMs: number }, now: number): string {
  const of = (n: number | undefined): string => (n === undefined ? "" : ` (${formatCount(n)})`);
  const rows = (items: readonly ActionRecord[], since: (a: ActionRecord) => number) =>
    items.map((a) => `<tr><td>${what(r, a)}</td><td>${stateBadge(a.state)}</td><td>${isoCell(a.actorId)}</td><td>${a.approval ? isoCell(a.approval.actorId) : "—"}</td><td>${time(since(a), now)}</td></tr>`).join("");
  const head = (last: string) => `<thead><tr><th scope="col">Tool and arguments</th><th scope="col">State</th><th scope="col">Proposed by</th><th scope="col">Approved by</th><th scope="col">${last}</th></tr></thead>`;
  let body = `<h1>Needs attention</h1><h2>Outcome unknown${of(unknown.count)}</h2>`;
  body += unknown.items.length
    ? `<p class="muted">These calls may or may not have been carried out by the server, and are never sent again. A person checks the server and settles each one.</p><table>${head("Last change")}<tbody>${rows(unknown.items, (a) => a.updatedAt)}</tbody></table>${pager(r.attention, unknown, "page")}`
    : `<p class="muted">None.</p>`;
  body += `<h2>Reconciling for over ${formatDuration(reconciling.afterMs)} (${formatCount(reconciling.items.length)}${reconciling.count === undefined ? "" : ` of ${formatCount(reconciling.count)}`} reconciling)</h2>`;
  body += reconciling.items.length
    ? `<p class="muted">The worker keeps asking the server's receipt for these; they settle by themselves once the server answers.</p><table>${head("Approved")}<tbody>${rows(reconciling.items, (a) => a.approval?.at ?? a.createdAt)}</tbody></table>`
    : `<p class="muted">None.</p>`;
  return body;
}
