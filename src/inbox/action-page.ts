/**
 * One action's page (U1, U2, U3): everything its approval binds (tool, effect,
 * arguments as formatted JSON, version, arguments hash, state version), the
 * server's preview and any result marked as the server's own text, who proposed
 * and decided it and when, and the forms that decide it. Each form carries what the
 * page showed (the bound fields and the preview's hash) and a CSRF token for this
 * approver and this action, so a decision posted from a page that no longer shows
 * the stored action changes nothing.
 *
 * @module
 */
import type { ActionRecord } from "../actions/types.js";
import type { ToolResult } from "../tools/types.js";
import { MAX_ACTION_REASON_CHARS, MAX_RESOLUTION_NOTE_CHARS } from "../limits.js";
import { escapeHtml, formatCount, formatDuration, formatTime, isoTime, showJson, showText } from "./escape.js";
import { iso, stateBadge, type Routes } from "./layout.js";

/**
 * What a decision form carries: the CSRF token and the binding, a SHA-256 of every
 * field the page showed that an approval binds (see `bindingOf`). A hash rather than
 * the fields themselves, so nothing of them is changed by the way a browser reads
 * attribute values (line breaks, NUL) on its way back.
 */
export interface FormFields {
  csrf: string;
  binding: string;
}

/** What the action page needs besides the record. */
export interface ActionPageInput {
  action: ActionRecord;
  now: number;
  routes: Routes;
  /** The approver may approve or reject it now (and the form fields to do so). */
  decide: FormFields | undefined;
  /** The operator may settle its unknown outcome now (W14), with these form fields. */
  settle: FormFields | undefined;
  /** Why there is no decision form, when the action waits. */
  whyNot: string | undefined;
  /** A word on what just happened (after a decision). */
  notice: string | undefined;
}

/** Past this many characters of JSON, the page says how long the arguments are. */
const LONG_ARGUMENTS = 2_000;

const EFFECTS = {
  write: "a contract-bound write: prepared by the server, sent once, confirmed by its receipt",
  confirm: "a confirmed call: sent at most once; if its outcome is unknown it is never sent again",
} as const;

const row = (label: string, value: string): string => `<dt>${label}</dt><dd>${value}</dd>`;
const mono = (s: string): string => `<span class="mono">${iso(s)}</span>`;
const at = (ms: number): string => {
  const iso = isoTime(ms);
  return `<time datetime="${iso}">${formatTime(ms, iso)}</time>`;
};

/** The hidden fields of a form (both are base64url or hex: nothing in them needs escaping, and they are escaped anyway). */
const hidden = (f: FormFields): string => `<input type="hidden" name="csrf" value="${escapeHtml(f.csrf)}"><input type="hidden" name="binding" value="${escapeHtml(f.binding)}">`;

/** A tool result from the server, shown as its text. */
function resultText(result: ToolResult): string {
  const parts = result.content.map((p) => (p.type === "text" ? p.text : `[an image, ${p.mimeType.slice(0, 40)}]`));
  return `<pre>${showText(parts.join("\n"), true)}</pre>`;
}

/** What became of a decided action. */
function decision(a: ActionRecord): string {
  let out = "";
  if (a.approval) out += `<p>Approved by ${iso(a.approval.actorId)} at ${at(a.approval.at)}.</p>`;
  if (a.rejection) {
    out += `<p>Rejected by ${iso(a.rejection.actorId)} at ${at(a.rejection.at)}.</p>`;
    if (a.rejection.reason) out += `<p class="muted">The reason the agent reads:</p><pre>${showText(a.rejection.reason, true)}</pre>`;
  }
  if (a.state === "expired") out += `<p>Nobody decided it before ${at(a.expiresAt)}; it expired and will never run.</p>`;
  if (a.resolution) {
    out += `<p>Its outcome was unknown; ${iso(a.resolution.actorId)} checked the server and settled it as <strong>${escapeHtml(String(a.resolution.outcome))}</strong> at ${at(a.resolution.at)}.</p>`;
    out += `<p class="muted">Their note (the agent reads it):</p><pre>${showText(a.resolution.note, true)}</pre>`;
  }
  const o = a.outcome;
  if (o?.result) {
    out += `<section class="server"><p class="from">Result — text from the server, shown as it is</p>${resultText(o.result)}</section>`;
  }
  if (o?.reason) out += `<p class="muted">Reason:</p><pre>${showText(o.reason, true)}</pre>`;
  return out ? `<h2>Decision and outcome</h2>${out}` : "";
}

/** The approve and reject forms. */
function forms(id: string, r: Routes, f: FormFields): string {
  return `<div class="decide">` +
    `<form method="post" action="${escapeHtml(r.decide(id, "approve"))}">${hidden(f)}<p>Approve exactly what this page shows: the worker then sends it once.</p><button class="approve" type="submit">Approve</button></form>` +
    `<form method="post" action="${escapeHtml(r.decide(id, "reject"))}">${hidden(f)}<label for="reason">Reason for rejecting (the agent reads it; optional)</label>` +
    `<textarea id="reason" name="reason" maxlength="${MAX_ACTION_REASON_CHARS}"></textarea><p><button class="reject" type="submit">Reject</button></p></form></div>`;
}

/** The form that settles an unknown outcome (W14): what the operator found, and a note. */
function settleForm(id: string, r: Routes, f: FormFields): string {
  return `<div class="decide"><form method="post" action="${escapeHtml(r.decide(id, "resolve"))}">${hidden(f)}` +
    `<fieldset><legend>What did the server do? Check it with the operation id above.</legend>` +
    `<label><input type="radio" name="outcome" value="succeeded" required> It took effect: settle as succeeded</label>` +
    `<label><input type="radio" name="outcome" value="failed"> It did not take effect: settle as failed</label></fieldset>` +
    `<label for="note">What you checked (required; the agent reads it)</label><textarea id="note" name="note" required maxlength="${MAX_RESOLUTION_NOTE_CHARS}"></textarea>` +
    `<p><button type="submit">Settle</button></p></form></div>`;
}

/** The action page's body. */
export function actionBody(p: ActionPageInput): string {
  const a = p.action;
  const waiting = a.state === "awaiting_approval";
  let body = p.notice ? `<p class="notice" role="status">${escapeHtml(p.notice)}</p>` : "";
  body += `<h1>${iso(a.tool)} ${stateBadge(a.state)}</h1>`;
  if (waiting && a.expiresAt <= p.now) body += `<p class="notice bad">Its approval window has passed: it can no longer be approved.</p>`;
  if (a.state === "outcome_unknown") body += `<p class="notice bad">Nobody knows whether the server carried this call out. It is never sent again; check the server with its operation id.</p>`;
  let facts = row("Effect", `${escapeHtml(String(a.effect))}: ${Object.hasOwn(EFFECTS, a.effect) ? EFFECTS[a.effect] : "an effect this inbox does not know"}`);
  facts += row("Proposed by", `${iso(a.actorId)} <span class="muted">in</span> ${iso(a.tenantId)}`);
  if (a.runId !== undefined) facts += row("Run", mono(a.runId));
  facts += row("Proposed", at(a.createdAt));
  facts += row(waiting ? "Expires" : "Approval window", `${at(a.expiresAt)}${waiting && a.expiresAt > p.now ? ` <span class="muted">(${formatDuration(a.expiresAt - p.now)} left)</span>` : ""}`);
  facts += row("Last change", at(a.updatedAt));
  facts += row("Tool version", mono(a.version));
  facts += row("Arguments hash", `<span class="mono">sha256:${escapeHtml(a.argumentsHash)}</span>`);
  if (a.stateVersion !== undefined) facts += row("State version", mono(a.stateVersion));
  facts += row("Operation id", mono(a.operationId));
  facts += row("Action id", mono(a.id));
  if (a.attempts > 0) facts += row("Receipt lookups", String(a.attempts));
  body += `<dl>${facts}</dl>`;
  const args = showJson(a.arguments);
  body += `<h2>Arguments</h2>`;
  // A long argument fills its box: say how long, so nobody approves what they did not scroll through.
  const chars = args.length > LONG_ARGUMENTS ? (JSON.stringify(a.arguments, null, 2) ?? "").length : 0;
  if (chars > LONG_ARGUMENTS) body += `<p class="notice">These arguments are ${formatCount(chars)} characters of JSON: scroll the box to read all of them.</p>`;
  body += `<pre aria-label="Arguments as JSON">${args}</pre>`;
  body += a.preview !== undefined
    ? `<section class="server" aria-label="Preview from the server"><p class="from">Preview — text from the server, not checked by this inbox</p><pre>${showText(a.preview, true)}</pre></section>`
    : `<p class="muted">No preview: the arguments above are exactly what will be sent.</p>`;
  body += decision(a);
  if (waiting || a.state === "outcome_unknown") {
    if (p.decide) body += forms(a.id, p.routes, p.decide);
    else if (p.settle) body += settleForm(a.id, p.routes, p.settle);
    else if (p.whyNot) body += `<p class="notice">${escapeHtml(p.whyNot)}</p>`;
  }
  return body;
}
