/**
 * The options of the approval inbox (U1, U4) and their checks: every bound has its
 * default and maximum in limits.ts, and a host that passes something out of range
 * learns it when the inbox is made, not from a page.
 *
 * @module
 */
import type { SigningKey } from "../auth/jwt.js";
import type { MayApprove } from "../actions/approvals.js";
import type { ActionStore } from "../actions/types.js";
import { ValidationError } from "../errors.js";
import { INBOX_ATTENTION_AFTER_MS, INBOX_BODY_TIMEOUT_MS, INBOX_PAGE_SIZE, MAX_INBOX_IN_FLIGHT, MAX_INBOX_PAGE_SIZE, MAX_INBOX_TITLE_CHARS } from "../limits.js";
import type { Identity } from "../tools/types.js";
import type { TraceOptions } from "../trace/types.js";

/**
 * Who sent a request, as the host's own authentication says (a session cookie, a
 * bearer token, a header set by an authenticating proxy): an identity, or
 * `undefined` for nobody. The inbox never makes one up: without one it answers 401.
 */
export type Authenticate = (request: Request) => Identity | undefined | Promise<Identity | undefined>;

/**
 * Options of {@link createApprovalInbox}. With a `tracer` (O2), each approval,
 * rejection and resolution made through the inbox is a span linked to the action's
 * proposal, under the host's span of the HTTP request when it has one.
 */
export interface ApprovalInboxOptions extends TraceOptions {
  /** Where the actions live (any store of this package, or your own). */
  store: ActionStore;
  /** The host's authentication (see {@link Authenticate}). */
  authenticate: Authenticate;
  /** Whether an approver may approve or reject an action: the same callback `createActions` takes. */
  mayApprove: MayApprove;
  /** Whether an operator may settle an action whose outcome is unknown (without it nobody may). */
  mayResolve?: MayApprove;
  /** The path the inbox is mounted at (default `/`): `/approvals` serves `/approvals/`, `/approvals/actions/<id>`, ... */
  basePath?: string;
  /** The clock, in ms since the epoch (default `Date.now`). */
  now?: () => number;
  /**
   * The key of the CSRF tokens: at least `MIN_INBOX_CSRF_SECRET_BYTES` bytes (a string's
   * UTF-8 bytes), or an HMAC `CryptoKey`. Give one when more than one instance serves the
   * inbox (a load balancer, Workers isolates) or a form should survive a restart; without
   * it each inbox makes a random key of its own.
   */
  csrfSecret?: string | Uint8Array | SigningKey;
  /**
   * The origins a decision may be posted from (default: the origin of the request's own
   * URL). Behind a proxy that rewrites the URL, give the public origin,
   * e.g. `["https://approvals.example.com"]`.
   */
  origins?: readonly string[];
  /** Actions per page (default `INBOX_PAGE_SIZE`, at most `MAX_INBOX_PAGE_SIZE`). */
  pageSize?: number;
  /** The name in every page's header and title (default "Approvals", at most `MAX_INBOX_TITLE_CHARS`). */
  title?: string;
  /** A reconciling action joins the attention queue this long after its approval (default `INBOX_ATTENTION_AFTER_MS`). */
  attentionAfterMs?: number;
  /** Longest a decision's body may take to arrive, in ms (default and maximum `INBOX_BODY_TIMEOUT_MS`); a slower one is answered 408. */
  bodyTimeoutMs?: number;
  /** Requests handled at once; more are answered 503 (default and maximum `MAX_INBOX_IN_FLIGHT`). */
  maxInFlight?: number;
  /** Told of every failure answered with a 500 (a store that failed, a callback that threw), and of a malformed identity. */
  onError?: (error: unknown) => void;
}

/** The options, checked, with their defaults. */
export interface InboxConfig {
  basePath: string;
  pageSize: number;
  title: string;
  attentionAfterMs: number;
  maxInFlight: number;
  bodyTimeoutMs: number;
  origins: ReadonlySet<string> | undefined;
}

const BASE_PATH = /^(\/|(\/[A-Za-z0-9._~-]+)+)$/;

function positiveInt(v: unknown, name: string, fallback: number, max: number): number {
  if (v === undefined) return fallback;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 1 || v > max) throw new ValidationError(`inbox: ${name} must be an integer from 1 to ${max}`);
  return v;
}

/** @throws ValidationError (`validation`) naming the option. */
export function checkOptions(o: ApprovalInboxOptions): InboxConfig {
  if (typeof o !== "object" || o === null) throw new ValidationError("createApprovalInbox needs options");
  if (typeof o.store !== "object" || o.store === null || typeof o.store.list !== "function" || typeof o.store.get !== "function") throw new ValidationError("inbox: store must be an action store");
  if (typeof o.authenticate !== "function") throw new ValidationError("inbox: authenticate must be a function (the host's authentication)");
  if (typeof o.mayApprove !== "function") throw new ValidationError("inbox: mayApprove must be a function");
  if (o.mayResolve !== undefined && typeof o.mayResolve !== "function") throw new ValidationError("inbox: mayResolve must be a function");
  const basePath = o.basePath ?? "/";
  if (typeof basePath !== "string" || !BASE_PATH.test(basePath) || basePath.split("/").some((s) => s === "." || s === "..")) {
    throw new ValidationError("inbox: basePath must be / or a path of letters, digits and . _ ~ - segments, without a trailing slash");
  }
  const title = o.title ?? "Approvals";
  if (typeof title !== "string" || title.length === 0 || title.length > MAX_INBOX_TITLE_CHARS) throw new ValidationError(`inbox: title must be 1 to ${MAX_INBOX_TITLE_CHARS} characters`);
  let origins: Set<string> | undefined;
  if (o.origins !== undefined) {
    if (!Array.isArray(o.origins) || o.origins.length === 0) throw new ValidationError("inbox: origins must be a nonempty array of origins");
    origins = new Set();
    for (const origin of o.origins) {
      let parsed: URL | undefined;
      try {
        parsed = new URL(origin);
      } catch {
        parsed = undefined;
      }
      if (!parsed || (parsed.protocol !== "https:" && parsed.protocol !== "http:") || parsed.origin !== origin) throw new ValidationError("inbox: each of origins is an http(s) origin such as https://approvals.example.com");
      origins.add(origin);
    }
  }
  const after = o.attentionAfterMs ?? INBOX_ATTENTION_AFTER_MS;
  if (typeof after !== "number" || !Number.isFinite(after) || after < 0) throw new ValidationError("inbox: attentionAfterMs must be a non-negative number");
  if (o.now !== undefined && typeof o.now !== "function") throw new ValidationError("inbox: now must be a function");
  return {
    basePath,
    title,
    origins,
    attentionAfterMs: after,
    pageSize: positiveInt(o.pageSize, "pageSize", INBOX_PAGE_SIZE, MAX_INBOX_PAGE_SIZE),
    maxInFlight: positiveInt(o.maxInFlight, "maxInFlight", MAX_INBOX_IN_FLIGHT, MAX_INBOX_IN_FLIGHT),
    bodyTimeoutMs: positiveInt(o.bodyTimeoutMs, "bodyTimeoutMs", INBOX_BODY_TIMEOUT_MS, INBOX_BODY_TIMEOUT_MS),
  };
}
