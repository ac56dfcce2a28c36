/**
 * The transport contract: the JSON-RPC session above sends messages through it
 * and receives decoded JSON values from it. Two verbs out (`send`, `close`), one
 * sink in.
 *
 * @module
 */
import type { YadaError } from "../errors.js";
import type { JsonRpcMessage, RequestId } from "../jsonrpc/messages.js";

/** Where a transport delivers what it receives. */
export interface TransportSink {
  /** One decoded JSON value from the peer; the session validates it (J1). */
  message(value: unknown): void;
  /**
   * A failure that concerns one request only (for HTTP: its POST failed or its
   * response stream broke). The session rejects that request with `error`.
   */
  requestError(id: RequestId, error: YadaError): void;
  /** The transport ended for good; every pending request fails with `error`. */
  closed(error: YadaError): void;
  /**
   * Request `id` waits on the user (`held` true: an interactive login runs for it)
   * or no longer does (`false`): its time bound stops meanwhile (A2, S6).
   */
  hold?(id: RequestId, held: boolean): void;
}

/** Per-message options of {@link Transport.send}. */
export interface SendOptions {
  /**
   * Aborted when the request it carries is settled, timed out or cancelled, so a
   * transport can stop reading a response stream nobody waits for.
   */
  signal?: AbortSignal;
  /**
   * Extra HTTP headers for this message only (modern revision: `Mcp-Param-*`
   * mirrored from `x-mcp-header` tool parameters). Transports without headers ignore them.
   */
  headers?: Readonly<Record<string, string>>;
  /**
   * The answer stays open by design (`subscriptions/listen`): once answered, no idle
   * bound applies to it.
   */
  longLived?: boolean;
}

/** A bidirectional message channel to one MCP server. */
export interface Transport {
  /** Begins delivering incoming messages to `sink`. Called once, before any send. */
  start(sink: TransportSink): Promise<void>;
  /**
   * Sends one message. Resolves once the message is handed over (stdio: written to
   * the pipe; HTTP: the POST answered and, for a request, its response delivered to
   * the sink or a failure reported through `sink.requestError`).
   *
   * @throws YadaError when the message cannot be sent at all.
   */
  send(message: JsonRpcMessage, options?: SendOptions): Promise<void>;
  /** Ends the connection and releases every resource. Idempotent. */
  close(): Promise<void>;
  /**
   * Told the protocol revision in use (HTTP sends it as MCP-Protocol-Version, H9);
   * `undefined` forgets it (a legacy `initialize` after a modern probe carries none).
   */
  setProtocolVersion?(version: string | undefined): void;
  /** Called once the session is initialized: may open a channel for server-initiated messages (H12). */
  openInbound?(): void;
  /**
   * `true` when the transport wants `SendOptions.signal` on requests (it streams
   * responses and stops reading when a request settles). Creating that signal has
   * a cost per request, so transports that do not use it leave this unset.
   */
  readonly needsRequestSignal?: boolean | undefined;
  /**
   * Told that request `id` settled (answered, timed out, cancelled): a transport that
   * reads a response stream for it stops. The session calls it for every request it
   * sent; a transport that has it needs no `SendOptions.signal` (measured: an
   * AbortController per request, aborted on settle, cost more than this lookup).
   */
  settled?(id: RequestId): void;
  /**
   * The 2024-11-05 HTTP+SSE transport to the same server (H14): `McpClient.connect`
   * switches to it when `initialize` is answered HTTP 400, 404 or 405 (none: no fallback).
   */
  legacyFallback?(): Transport | undefined;
  /** What kind of transport this is: `http` enables the HTTP rules of the modern era (headers, cancellation by closing). */
  readonly kind?: "stdio" | "http" | "other" | undefined;
  /** Identifies the server across connections (command line, or URL): the key of the remembered era (V2). */
  readonly serverKey?: string | undefined;
  /** A short description for error messages: "stdio server 'x'", "HTTP server http://...". */
  readonly description: string;
  /**
   * Tells `listener` when some request starts waiting on the user (`true`: an
   * interactive login is under way) and when none does any more (`false`), so that
   * a connect's deadline stops meanwhile (A2, S5). Returns a function that removes it.
   */
  onHold?(listener: (held: boolean) => void): () => void;
}

/**
 * What {@link Transport.send} may return when it handed the message over at once and
 * nothing can fail it later: the session then attaches no failure handler to it
 * (measured: one promise and one job less per stdio request).
 */
export const HANDED_OVER: Promise<void> = Promise.resolve();
