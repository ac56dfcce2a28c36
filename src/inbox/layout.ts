/**
 * The frame of every inbox page (U1, U2) and the inbox's own links. Links are built
 * only from the base path (checked when the inbox is made) and percent-encoded
 * segments, so no stored string can become a URL of its own.
 *
 * @module
 */
import type { ActionCursor, ActionRecord } from "../actions/types.js";
import type { Identity } from "../tools/types.js";
import { escapeHtml, formatCount, showCell, showText } from "./escape.js";
import { STYLE } from "./style.js";

/** The inbox's routes under its base path. */
export interface Routes {
  pending: string;
  history: string;
  attention: string;
  action(id: string): string;
  decide(id: string, verb: "approve" | "reject" | "resolve"): string;
}

/** The routes under `base` (`/` or a path without a trailing slash). */
export function routes(base: string): Routes {
  const root = base === "/" ? "" : base;
  return {
    pending: `${root}/`,
    history: `${root}/history`,
    attention: `${root}/attention`,
    action: (id) => `${root}/actions/${encodeURIComponent(id)}`,
    decide: (id, verb) => `${root}/actions/${encodeURIComponent(id)}/${verb}`,
  };
}

/** A cursor as a query parameter: `<createdAt>~<id>`. */
export const cursorParam = (c: ActionCursor): string => `${c.createdAt}~${c.id}`;

/** `path` with `?after=` the cursor (and `limit` when the page asked for one). */
export function pageHref(path: string, next: ActionCursor, limit?: number): string {
  const q = new URLSearchParams({ after: cursorParam(next) });
  if (limit !== undefined) q.set("limit", String(limit));
  return `${path}?${q}`;
}

/** Untrusted text in its own isolated box. */
export const iso = (s: string): string => `<bdi class="u">${showText(s)}</bdi>`;
/** Untrusted text in a list cell: cut, isolated. */
export const isoCell = (s: string): string => `<bdi class="u">${showCell(s)}</bdi>`;

/** An action's state as a badge (escaped: a host's own store may hand back anything). */
export const stateBadge = (state: ActionRecord["state"]): string => {
  const s = escapeHtml(String(state));
  return `<span class="state s-${s}">${s.replace(/_/g, " ")}</span>`;
};

/** The counts the header shows. */
export interface NavCounts {
  pending: number;
  attention: number;
}

/** A whole page: the header (title, links with counts, who is signed in), then `body`. */
export function page(o: { title: string; heading: string; who: Identity | undefined; routes: Routes; counts?: NavCounts; current?: string; body: string }): string {
  const link = (href: string, label: string, n?: number): string =>
    `<a href="${escapeHtml(href)}"${o.current === href ? ' aria-current="page"' : ""}>${label}${n === undefined ? "" : ` (${formatCount(n)})`}</a>`;
  const nav = o.who
    ? `<nav aria-label="Inbox">${link(o.routes.pending, "Pending", o.counts?.pending)}${link(o.routes.history, "History")}${link(o.routes.attention, "Attention", o.counts?.attention)}</nav>` +
      `<span class="who">Signed in as ${iso(o.who.actorId)} in ${iso(o.who.tenantId)}</span>`
    : "";
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(o.heading)} · ${escapeHtml(o.title)}</title><style>${STYLE}</style></head>` +
    `<body><header><span class="title">${escapeHtml(o.title)}</span>${nav}</header><main>${o.body}</main></body></html>`
  );
}
