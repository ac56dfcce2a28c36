/**
 * Change notifications in the modern era (V5): one `subscriptions/listen` request
 * kept open for as long as the client has listeners, re-sent with backoff when it
 * ends unexpectedly, and the subscription id that tells its notifications apart.
 *
 * @module
 */
import type { RequestId } from "../jsonrpc/messages.js";
import type { RequestOptions } from "../jsonrpc/session.js";
import { LISTEN_RETRY_MAX_MS, LISTEN_RETRY_MIN_MS } from "../limits.js";
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
}

/** Keeps one `subscriptions/listen` open while anything is wanted. */
export class Subscriptions {
  readonly #host: ListenHost;
  readonly #ids = new Set<RequestId>();
  readonly #uris = new Set<string>();
  #lists = false;
  #current: AbortController | undefined;
  #currentId: RequestId | undefined;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #delay = LISTEN_RETRY_MIN_MS;

  constructor(host: ListenHost) {
    this.#host = host;
  }

  /** Whether a notification belongs to one of our subscriptions. */
  owns(params: JsonRecord | undefined): boolean {
    const meta = params?._meta;
    const id = isRecord(meta) ? meta[`${META}subscriptionId`] : undefined;
    return (typeof id === "string" || typeof id === "number") && this.#ids.has(id);
  }

  /** Handles `notifications/subscriptions/acknowledged` and server-side ends of a subscription. */
  onNotification(method: string, params: JsonRecord | undefined): void {
    if (method === "notifications/subscriptions/acknowledged" && this.owns(params) && isRecord(params?.notifications)) {
      this.#delay = LISTEN_RETRY_MIN_MS;
      this.#host.resync(params.notifications);
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

  /** Wants list-changed notifications (or not). */
  wantLists(on: boolean): void {
    if (this.#lists === on) return;
    this.#lists = on;
    this.#restart();
  }

  /** Adds or removes one resource URI to watch. */
  watch(uri: string, on: boolean): void {
    if (on === this.#uris.has(uri)) return;
    if (on) this.#uris.add(uri);
    else this.#uris.delete(uri);
    this.#restart();
  }

  /** Ends the subscription for good. */
  close(): void {
    this.#lists = false;
    this.#uris.clear();
    this.#stop();
  }

  #wanted(): boolean {
    return (this.#lists || this.#uris.size > 0) && !this.#host.closed();
  }

  #filter(): Filter {
    const f: Filter = {};
    if (this.#lists) {
      f.toolsListChanged = true;
      f.promptsListChanged = true;
      f.resourcesListChanged = true;
    }
    if (this.#uris.size) f.resourceSubscriptions = [...this.#uris];
    return f;
  }

  #stop(): void {
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    const c = this.#current;
    this.#current = undefined;
    c?.abort();
  }

  #restart(): void {
    this.#stop();
    if (!this.#wanted()) return;
    const controller = new AbortController();
    this.#current = controller;
    this.#currentId = undefined;
    let id: RequestId | undefined;
    this.#host
      .request("subscriptions/listen", { notifications: this.#filter() }, { timeoutMs: null, longLived: true, signal: controller.signal, onId: (x) => {
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
    this.#retryLater(error);
  }

  // The server closed the stream or it broke: listen again, with growing delays.
  #retryLater(error: unknown): void {
    if (!this.#wanted()) return;
    this.#host.log("info", "subscriptions/listen ended; listening again", { server: this.#host.name, error: error === undefined ? undefined : String(error) });
    const delay = this.#delay;
    this.#delay = Math.min(this.#delay * 2, LISTEN_RETRY_MAX_MS);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#restart();
    }, delay * (0.75 + Math.random() * 0.5));
  }
}
