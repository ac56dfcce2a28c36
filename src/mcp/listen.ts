/**
 * Change notifications in the modern era (V5): one `subscriptions/listen` request
 * kept open for as long as the client has listeners, re-sent with backoff when it
 * ends unexpectedly, and the subscription id that tells its notifications apart.
 * Status notifications of running tasks (V8, the 2026-07-28 tasks extension:
 * `notifications.taskIds`) ride on a second listen of their own, so a task
 * starting or ending never re-opens the list subscription.
 *
 * @module
 */
import type { RequestId } from "../jsonrpc/messages.js";
import type { RequestOptions } from "../jsonrpc/session.js";
import { JsonRpcError } from "../errors.js";
import { LISTEN_RETRY_MAX_MS, LISTEN_RETRY_MIN_MS, MAX_LISTENED_TASKS } from "../limits.js";
import type { Logger } from "../log.js";
import { isRecord, type JsonRecord } from "./types.js";
import { META } from "./versions.js";

/** What {@link Subscriptions} needs from the client. */
export interface ListenHost {
  /** Sends a modern request (with `_meta`) and resolves with its result. */
  request(method: string, params: JsonRecord, options: RequestOptions): Promise<JsonRecord>;
  /** Whether the connection has ended. */
  closed(): boolean;
  log: Logger;
  name: string;
  /**
   * Called when the server acknowledges a listen: changes made while no listen was
   * open were not announced, so every acknowledged list may have changed meanwhile.
   */
  resync(acknowledged: JsonRecord): void;
}

/** The filter of a `subscriptions/listen` request. */
interface Filter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  /** Tasks whose `notifications/tasks` are wanted (2026-07-28 tasks extension). */
  taskIds?: string[];
}

/** One `subscriptions/listen` request kept open while its filter wants anything. */
class Listen {
  readonly #host: ListenHost;
  readonly #filter: () => Filter | undefined;
  readonly #acknowledged: (notifications: JsonRecord) => void;
  /** Stop listening for good after a JSON-RPC refusal (a server without task subscriptions). */
  readonly #stopOnRefusal: boolean;
  readonly #ids = new Set<RequestId>();
  #current: AbortController | undefined;
  #currentId: RequestId | undefined;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #delay = LISTEN_RETRY_MIN_MS;
  #refused = false;

  constructor(host: ListenHost, filter: () => Filter | undefined, acknowledged: (notifications: JsonRecord) => void, stopOnRefusal: boolean) {
    this.#host = host;
    this.#filter = filter;
    this.#acknowledged = acknowledged;
    this.#stopOnRefusal = stopOnRefusal;
  }

  owns(params: JsonRecord | undefined): boolean {
    const meta = params?._meta;
    const id = isRecord(meta) ? meta[`${META}subscriptionId`] : undefined;
    return (typeof id === "string" || typeof id === "number") && this.#ids.has(id);
  }

  onNotification(method: string, params: JsonRecord | undefined): void {
    if (method === "notifications/subscriptions/acknowledged" && this.owns(params) && isRecord(params?.notifications)) {
      this.#delay = LISTEN_RETRY_MIN_MS;
      this.#acknowledged(params.notifications);
    }
    // A server may end a subscription with notifications/cancelled naming the listen
    // request (spec 2026-07-28 "Cancellation", stdio): it is over, so listen again.
    const current = this.#current;
    const id = params?.requestId;
    if (method === "notifications/cancelled" && current && id !== undefined && id === this.#currentId) {
      this.#current = undefined;
      current.abort(); // settles the pending listen request
      this.#retryLater(undefined);
    }
  }

  stop(): void {
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    const c = this.#current;
    this.#current = undefined;
    c?.abort();
  }

  #wanted(): Filter | undefined {
    return this.#refused || this.#host.closed() ? undefined : this.#filter();
  }

  restart(): void {
    this.stop();
    const filter = this.#wanted();
    if (!filter) return;
    const controller = new AbortController();
    this.#current = controller;
    this.#currentId = undefined;
    let id: RequestId | undefined;
    this.#host
      .request("subscriptions/listen", { notifications: filter }, { timeoutMs: null, longLived: true, signal: controller.signal, onId: (x) => {
        id = x;
        this.#ids.add(x);
        if (this.#current === controller) this.#currentId = x;
      } })
      .then(
        () => this.#ended(controller, id, undefined),
        (e: unknown) => this.#ended(controller, id, e),
      );
  }

  #ended(controller: AbortController, id: RequestId | undefined, error: unknown): void {
    if (id !== undefined) this.#ids.delete(id);
    if (controller.signal.aborted || this.#current !== controller) return;
    this.#current = undefined;
    // A server that refuses task status subscriptions is not asked again: its tasks are polled (V8).
    if (this.#stopOnRefusal && error instanceof JsonRpcError) this.#refused = true;
    else this.#retryLater(error);
  }

  // The server closed the stream or it broke: listen again, with growing delays.
  #retryLater(error: unknown): void {
    if (!this.#wanted()) return;
    this.#host.log("info", "subscriptions/listen ended; listening again", { server: this.#host.name, error: error === undefined ? undefined : String(error) });
    const delay = this.#delay;
    this.#delay = Math.min(this.#delay * 2, LISTEN_RETRY_MAX_MS);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.restart();
    }, delay * (0.75 + Math.random() * 0.5));
  }
}

/** Keeps the client's `subscriptions/listen` requests open while anything is wanted. */
export class Subscriptions {
  readonly #uris = new Set<string>();
  readonly #tasks = new Map<string, () => void>();
  #lists = false;
  readonly #changes: Listen;
  readonly #taskListen: Listen;

  constructor(host: ListenHost) {
    this.#changes = new Listen(host, () => this.#changeFilter(), (ack) => host.resync(ack), false);
    this.#taskListen = new Listen(
      host,
      () => (this.#tasks.size ? { taskIds: [...this.#tasks.keys()] } : undefined),
      (ack) => {
        // The server agreed to announce these tasks: changes before it did were not announced.
        const agreed = Array.isArray(ack.taskIds) ? ack.taskIds : [];
        for (const id of agreed) if (typeof id === "string") this.#tasks.get(id)?.();
      },
      true,
    );
  }

  /** Whether a notification belongs to one of our subscriptions. */
  owns(params: JsonRecord | undefined): boolean {
    return this.#changes.owns(params) || this.#taskListen.owns(params);
  }

  /** Handles `notifications/subscriptions/acknowledged` and server-side ends of a subscription. */
  onNotification(method: string, params: JsonRecord | undefined): void {
    this.#changes.onNotification(method, params);
    this.#taskListen.onNotification(method, params);
  }

  /** Wants list-changed notifications (or not). */
  wantLists(on: boolean): void {
    if (this.#lists === on) return;
    this.#lists = on;
    this.#changes.restart();
  }

  /** Adds or removes one resource URI to watch. */
  watch(uri: string, on: boolean): void {
    if (on === this.#uris.has(uri)) return;
    if (on) this.#uris.add(uri);
    else this.#uris.delete(uri);
    this.#changes.restart();
  }

  /**
   * Asks for the `notifications/tasks` of one task (V8, 2026-07-28) until the
   * returned function is called. `acknowledged` runs each time the server agrees to
   * announce it. Past `MAX_LISTENED_TASKS` tasks at once, a task is only polled.
   */
  watchTask(taskId: string, acknowledged: () => void): () => void {
    if (this.#tasks.has(taskId) || this.#tasks.size >= MAX_LISTENED_TASKS) return () => {};
    this.#tasks.set(taskId, acknowledged);
    this.#taskListen.restart();
    return () => {
      if (this.#tasks.get(taskId) !== acknowledged) return;
      this.#tasks.delete(taskId);
      this.#taskListen.restart();
    };
  }

  /** Ends every subscription for good. */
  close(): void {
    this.#lists = false;
    this.#uris.clear();
    this.#tasks.clear();
    this.#changes.stop();
    this.#taskListen.stop();
  }

  #changeFilter(): Filter | undefined {
    if (!this.#lists && this.#uris.size === 0) return undefined;
    const f: Filter = {};
    if (this.#lists) {
      f.toolsListChanged = true;
      f.promptsListChanged = true;
      f.resourcesListChanged = true;
    }
    if (this.#uris.size) f.resourceSubscriptions = [...this.#uris];
    return f;
  }
}
