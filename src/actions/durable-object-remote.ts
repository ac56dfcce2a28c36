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
import { MAX_ACTIONS_LISTED, MAX_DO_MESSAGE_BYTES } from "../limits.js";
import { concatBytes } from "../util/bytes.js";
import { isRec } from "../util/record.js";
import { parseActionRecord, utf8Length } from "./record.js";
import type { ActionExpectation, ActionPatch, ActionQuery, ActionRecord, ActionStore, ClaimOptions } from "./types.js";

/** Something with a fetch: a Durable Object stub, or `{ fetch }` for plain HTTP. */
export interface ActionStoreFetcher {
  fetch(input: string, init: { method: string; headers: Record<string, string>; body: string }): Promise<Response>;
}

const OPS = ["create", "get", "list", "transition", "claim"] as const;
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
 * import { DurableObjectActionStore, serveActionStore } from "yada";
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
      case "transition": {
        // A cleared field crosses as null (JSON has no undefined): it is undefined again here.
        const patch: Record<string, unknown> = isRec(a[2]) ? { ...a[2] } : {};
        for (const [k, v] of Object.entries(patch)) if (v === null) patch[k] = undefined;
        value = await store.transition(a[0] as string, a[1] as ActionExpectation, (isRec(a[2]) ? patch : a[2]) as ActionPatch, a[3] as number);
        break;
      }
      case "claim":
        value = (await store.claim(a[0] as ClaimOptions)) ?? null;
        break;
    }
    return json(200, { ok: true, value });
  } catch (e) {
    const error: Record<string, unknown> =
      e instanceof YadaError ? { code: e.code, message: e.message } : { code: "store", message: "action store: the operation failed" };
    if (e instanceof ActionConflictError) error["actionId"] = e.actionId;
    if (e instanceof LimitError) Object.assign(error, { limit: e.limit, max: e.max });
    return json(200, { ok: false, error });
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
 * import { remoteActionStore } from "yada";
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
    const err = isRec(msg["error"]) ? msg["error"] : {};
    const message = typeof err["message"] === "string" ? err["message"].slice(0, 2_000) : `${where}: ${op} failed`;
    switch (err["code"]) {
      case "conflict":
        throw new ActionConflictError(typeof err["actionId"] === "string" ? err["actionId"] : "", message);
      case "validation":
        throw new ValidationError(message);
      case "limit":
        throw new LimitError(typeof err["limit"] === "string" ? err["limit"] : "MAX_ACTION_RECORD_BYTES", typeof err["max"] === "number" ? err["max"] : 0, message);
      default:
        throw new StoreError(message);
    }
  }
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
      if (!Array.isArray(v) || v.length > MAX_ACTIONS_LISTED) throw new StoreError(`${where}: list: the answer is out of shape`);
      return v.map(record);
    },
    transition: async (id, expected, patch, now) => {
      // Explicit undefined (clear a field) does not survive JSON: send it as null.
      const wire: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(patch)) wire[k] = v === undefined ? null : v;
      return record(await call("transition", [id, expected, wire, now]));
    },
    claim: async (o) => maybe(await call("claim", [o])),
  };
}
