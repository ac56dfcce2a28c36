/**
 * A transport that records every message it carries: the way to make transcripts
 * of any server, over any transport (X4).
 *
 * @module
 */
import type { JsonRpcMessage, RequestId } from "../jsonrpc/messages.js";
import type { SendOptions, Transport, TransportSink } from "./types.js";
import type { AsyncDisposer } from "../util/dispose.js";

/** One recorded message: `c2s` is client to server, `s2c` server to client. */
export interface TranscriptEntry {
  dir: "c2s" | "s2c";
  msg: unknown;
}

/**
 * Wraps `inner` and hands every message sent and received to `record`, in the
 * order they pass. Messages are passed as they are (the caller copies them if it
 * keeps them past the call).
 *
 * @example
 * ```ts
 * const entries: TranscriptEntry[] = [];
 * const client = await McpClient.connect(new RecordingTransport(new HttpTransport(url), (e) => entries.push(structuredClone(e))));
 * ```
 */
export class RecordingTransport implements Transport {
  readonly #inner: Transport;
  readonly #record: (entry: TranscriptEntry) => void;

  constructor(inner: Transport, record: (entry: TranscriptEntry) => void) {
    this.#inner = inner;
    this.#record = record;
  }

  get description(): string {
    return this.#inner.description;
  }
  get kind(): Transport["kind"] {
    return this.#inner.kind;
  }
  get serverKey(): string | undefined {
    return this.#inner.serverKey;
  }
  get needsRequestSignal(): boolean | undefined {
    return this.#inner.needsRequestSignal;
  }

  settled(id: RequestId): void {
    this.#inner.settled?.(id);
  }

  start(sink: TransportSink): Promise<void> {
    return this.#inner.start({
      message: (value) => {
        this.#record({ dir: "s2c", msg: value });
        sink.message(value);
      },
      requestError: (id, error) => sink.requestError(id, error),
      closed: (error) => sink.closed(error),
    });
  }

  send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    this.#record({ dir: "c2s", msg: message });
    return this.#inner.send(message, options);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  /**
   * {@link close}, for `await using`.
   * @internal Declared through {@link AsyncDisposer}, so the types load where the lib has no Symbol.asyncDispose.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  setProtocolVersion(version: string | undefined): void {
    this.#inner.setProtocolVersion?.(version);
  }

  openInbound(): void {
    this.#inner.openInbound?.();
  }
}

/** {@link RecordingTransport.close} for `await using` (P7: see {@link AsyncDisposer}). */
export interface RecordingTransport extends AsyncDisposer {}
