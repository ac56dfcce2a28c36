/**
 * Reaching a Durable Object's action store from a Worker (W12): the object serves
 * its store with {@link serveActionStore} from its `fetch`, and a Worker (or any
 * other host, over HTTP) uses {@link remoteActionStore} on the object's stub. One
 * POST per operation, JSON both ways, bounded by `MAX_DO_MESSAGE_BYTES`; typed
 * errors cross as their code and are rethrown as the same classes; every record
 * that comes back is parsed again before it is used.
 *
 * @module
 */
import { ActionConflictError, LimitError, StoreError, ValidationError, YadaError } from "../errors.js";
import { MAX_ACTIONS_LISTED, MAX_CLAIM_BATCH, MAX_DO_MESSAGE_BYTES } from "../limits.js";
import { concatBytes } from "../util/bytes.js";
import { isRec } from "../util/record.js";
import { parseActionRecord, utf8Length } from "./record.js";
import type { ActionCountQuery, ActionExpectation, ActionPatch, ActionQuery, ActionRecord, ActionStore, ActionTransition, ClaimManyOptions, ClaimOptions, TransitionOutcome } from "./types.js";

/** Something with a fetch: a Durable Object stub, or `{ fetch }` for plain HTTP. */
export interface ActionStoreFetcher {
  fetch(input: string, init: { method: string; headers: Record<string, string>; body: string }): Promise<Response>;
}

const OPS = ["create", "get", "list", "count", "transition", "claim", "claimMany", "transitionMany"] as const;
type Op = (typeof OPS)[number];

/** Reads at most `max` bytes of a body as text; more is a limit error. */
async function readText(body: ReadableStream<Uint8Array> | null, max: number, what: string): Promise<string> {
  if (!body) return "";
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > max) throw new LimitError("MAX_DO_MESSAGE_BYTES", max, `${what} is larger than ${max} bytes`);
      parts.push(value);
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
  return new TextDecoder().decode(concatBytes(parts));
}

const json = (status: number, value: unknown): Response =>
  new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });

/**
 * Serves `store` to {@link remoteActionStore}: call it from the Durable Object's
 * `fetch`. Accepts only `POST` with a JSON body `{ op, args }` of at most
 * `MAX_DO_MESSAGE_BYTES`; answers `{ ok: true, value }` or `{ ok: false, error }`
 * with the error's code. Never throws.
 *
 * @example
 * ```ts
 * import { DurableObjectActionStore, serveActionStore } from "yada-mcp";
 * export class ActionsObject {
 *   constructor(ctx) { this.store = new DurableObjectActionStore(ctx.storage); }
 *   fetch(request) { return serveActionStore(this.store, request); }
 * }
 * ```
 */
export async function serveActionStore(store: ActionStore, request: Request): Promise<Response> {
  if (request.method !== "POST") return json(405, { ok: false, error: { code: "validation", message: "action store: POST only" } });
  try {
    const text = await readText(request.body, MAX_DO_MESSAGE_BYTES, "action store request");
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      throw new ValidationError("action store: the request is not JSON");
    }
    const op = isRec(msg) ? msg["op"] : undefined;
    const args = isRec(msg) ? msg["args"] : undefined;
    if (typeof op !== "string" || !(OPS as readonly string[]).includes(op) || !Array.isArray(args) || args.length > 4) {
      throw new ValidationError("action store: the request names no operation");
    }
    const a = args as unknown[];
    let value: unknown;
    switch (op as Op) {
      case "create":
        value = await store.create(a[0] as ActionRecord);
        break;
      case "get":
        value = (await store.get(a[0] as string)) ?? null;
        break;
      case "list":
        value = await store.list(a[0] as ActionQuery);
        break;
      case "count":
        if (!store.count) throw new ValidationError("action store: this store does not count");
        value = await store.count(a[0] as ActionCountQuery);
        break;
      case "transition":
        value = await store.transition(a[0] as string, a[1] as ActionExpectation, fromWire(a[2]) as ActionPatch, a[3] as number);
        break;
      case "claim":
        value = (await store.claim(a[0] as ClaimOptions)) ?? null;
        break;
      case "claimMany":
        if (!store.claimMany) throw new ValidationError("action store: this store has no batched claim");
        value = await store.claimMany(a[0] as ClaimManyOptions);
        break;
      case "transitionMany": {
        if (!store.transitionMany) throw new ValidationError("action store: this store has no batched transition");
        const items = Array.isArray(a[0]) ? a[0].map((i: unknown) => (isRec(i) ? { ...i, patch: fromWire(i["patch"]) } : i)) : a[0];
        const outcomes = await store.transitionMany(items as ActionTransition[], a[1] as number);
        value = outcomes.map((o) => (o.ok ? { ok: true, value: o.record } : { ok: false, error: errorToWire(o.error) }));
        break;
      }
    }
    return json(200, { ok: true, value });
  } catch (e) {
    return json(200, { ok: false, error: errorToWire(e) });
  }
}

/** A cleared field crosses as null (JSON has no undefined): it is undefined again here. */
function fromWire(patch: unknown): unknown {
  if (!isRec(patch)) return patch;
  const out: Record<string, unknown> = { ...patch };
  for (const [k, v] of Object.entries(out)) if (v === null) out[k] = undefined;
  return out;
}

/** Explicit undefined (clear a field) does not survive JSON: it is sent as null. */
function toWire(patch: ActionPatch): Record<string, unknown> {
  const wire: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(patch)) wire[k] = v === undefined ? null : v;
  return wire;
}

function errorToWire(e: unknown): Record<string, unknown> {
  const error: Record<string, unknown> =
    e instanceof YadaError ? { code: e.code, message: e.message } : { code: "store", message: "action store: the operation failed" };
  if (e instanceof ActionConflictError) error["actionId"] = e.actionId;
  if (e instanceof LimitError) Object.assign(error, { limit: e.limit, max: e.max });
  return error;
}

/** The typed error an answer's `error` member names. */
function errorFromWire(value: unknown, fallback: string): YadaError {
  const err = isRec(value) ? value : {};
  const message = typeof err["message"] === "string" ? err["message"].slice(0, 2_000) : fallback;
  switch (err["code"]) {
    case "conflict":
      return new ActionConflictError(typeof err["actionId"] === "string" ? err["actionId"] : "", message);
    case "validation":
      return new ValidationError(message);
    case "limit":
      return new LimitError(typeof err["limit"] === "string" ? err["limit"] : "MAX_ACTION_RECORD_BYTES", typeof err["max"] === "number" ? err["max"] : 0, message);
    default:
      return new StoreError(message);
  }
}

/** Options of {@link remoteActionStore}. */
export interface RemoteActionStoreOptions {
  /** The URL each request is sent to (default `https://action-store/`; a stub ignores the host). */
  url?: string;
  /** A name for messages (e.g. the object's name). */
  name?: string;
}

/**
 * An {@link ActionStore} that forwards every operation to a store served by
 * {@link serveActionStore}, typically a Durable Object's stub:
 * `remoteActionStore(env.ACTIONS.get(env.ACTIONS.idFromName(tenantId)))`.
 *
 * Every answer is bounded by `MAX_DO_MESSAGE_BYTES` and every record in it parsed
 * again. Throws the served store's errors by their code (`conflict`, `store`,
 * `validation`, `limit`), and `store` when the object cannot be reached or answers
 * out of shape (an operation that failed in transit may still have been applied:
 * read the action again).
 *
 * @example
 * ```ts
 * import { remoteActionStore } from "yada-mcp";
 * const store = remoteActionStore(env.ACTIONS.get(env.ACTIONS.idFromName("acme")));
 * const pending = await store.list({ tenantId: "acme", state: "awaiting_approval" });
 * ```
 */
export function remoteActionStore(target: ActionStoreFetcher, options: RemoteActionStoreOptions = {}): ActionStore {
  if (!isRec(target) || typeof target.fetch !== "function") throw new ValidationError("remote action store: needs a stub with fetch");
  const url = options.url ?? "https://action-store/";
  const where = `remote action store${options.name ? ` ${JSON.stringify(options.name.slice(0, 64))}` : ""}`;

  async function call(op: Op, args: unknown[]): Promise<unknown> {
    const body = JSON.stringify({ op, args });
    if (utf8Length(body) > MAX_DO_MESSAGE_BYTES) throw new LimitError("MAX_DO_MESSAGE_BYTES", MAX_DO_MESSAGE_BYTES, `${where}: ${op} request is larger than ${MAX_DO_MESSAGE_BYTES} bytes`);
    let res: Response;
    try {
      res = await target.fetch(`${url}${op}`, { method: "POST", headers: { "content-type": "application/json" }, body });
    } catch (e) {
      throw new StoreError(`${where}: ${op}: the object could not be reached`, { cause: e });
    }
    let msg: unknown;
    try {
      msg = JSON.parse(await readText(res.body, MAX_DO_MESSAGE_BYTES, `${where}: ${op} answer`));
    } catch (e) {
      if (e instanceof YadaError) throw e;
      throw new StoreError(`${where}: ${op}: the answer is not JSON (HTTP ${res.status})`);
    }
    if (!isRec(msg) || typeof msg["ok"] !== "boolean") throw new StoreError(`${where}: ${op}: the answer is out of shape (HTTP ${res.status})`);
    if (msg["ok"]) return msg["value"];
    throw errorFromWire(msg["error"], `${where}: ${op} failed`);
  }
  const shape = (op: Op): StoreError => new StoreError(`${where}: ${op}: the answer is out of shape`);
  const record = (v: unknown): ActionRecord => parseActionRecord(v, (m) => new StoreError(`${where}: answered ${m}`));
  const maybe = (v: unknown): ActionRecord | undefined => (v === null || v === undefined ? undefined : record(v));

  return {
    create: async (r) => record(await call("create", [r])),
    get: async (id) => {
      const r = maybe(await call("get", [id]));
      if (r && r.id !== id) throw new StoreError(`${where}: get answered another action`);
      return r;
    },
    list: async (q) => {
      const v = await call("list", [q]);
      if (!Array.isArray(v) || v.length > MAX_ACTIONS_LISTED) throw shape("list");
      return v.map(record);
    },
    count: async (q) => {
      const v = await call("count", [q]);
      if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) throw shape("count");
      return v;
    },
    transition: async (id, expected, patch, now) => record(await call("transition", [id, expected, toWire(patch), now])),
    claim: async (o) => maybe(await call("claim", [o])),
    claimMany: async (o) => {
      const v = await call("claimMany", [o]);
      if (!Array.isArray(v) || v.length > Math.min(MAX_CLAIM_BATCH, isRec(o) && typeof o.limit === "number" ? o.limit : 0)) {
        throw shape("claimMany");
      }
      return v.map(record);
    },
    transitionMany: async (items, now) => {
      const wire = Array.isArray(items) ? items.map((i) => (isRec(i) && isRec(i.patch) ? { ...i, patch: toWire(i.patch as ActionPatch) } : i)) : items;
      const v = await call("transitionMany", [wire, now]);
      if (!Array.isArray(v) || v.length !== items.length) throw shape("transitionMany");
      return v.map((o: unknown): TransitionOutcome => {
        if (isRec(o) && o["ok"] === true) return { ok: true, record: record(o["value"]) };
        if (isRec(o) && o["ok"] === false) return { ok: false, error: errorFromWire(o["error"], `${where}: transitionMany failed`) };
        throw shape("transitionMany");
      });
    },
  };
}
