/**
 * The tracer yada takes (O1), typed after the OpenTelemetry API by structure
 * alone: `trace.getTracer(name)` of `@opentelemetry/api`, over any SDK, fits it
 * as it is, and yada depends on neither. Only what yada calls is named here.
 *
 * Spans nest through the host's context manager, as every OpenTelemetry
 * instrumentation's do (`startActiveSpan`): in Node, Deno and Bun the SDK's
 * async-context one. What goes from one program to another (an action's proposal, its
 * approval, its execution) is joined by links instead, from the trace context
 * kept on the action record (O2).
 *
 * @module
 */

/** A span attribute value, as OpenTelemetry takes it (`AttributeValue`). */
export type TraceAttributeValue = string | number | boolean | Array<null | undefined | string> | Array<null | undefined | number> | Array<null | undefined | boolean>;

/** Span attributes by key (see `docs/traces.md` for every key yada sets). */
export type TraceAttributes = Record<string, TraceAttributeValue | undefined>;

/** A span's identity: W3C trace context ids (OpenTelemetry `SpanContext`). */
export interface TraceSpanContext {
  /** 32 lowercase hex digits, not all zero. */
  traceId: string;
  /** 16 lowercase hex digits, not all zero. */
  spanId: string;
  /** W3C trace flags (bit 0: sampled). */
  traceFlags: number;
  /** True when the context came from another service or worker. */
  isRemote?: boolean;
  /** Vendor state (`tracestate`), serialized when propagated. */
  traceState?: TraceState;
}

/** W3C `tracestate` (OpenTelemetry `TraceState`); yada only serializes it. */
export interface TraceState {
  set(key: string, value: string): TraceState;
  unset(key: string): TraceState;
  get(key: string): string | undefined;
  serialize(): string;
}

/** A link to a span of another trace, service or worker (OpenTelemetry `Link`). */
export interface TraceLink {
  context: TraceSpanContext;
  attributes?: TraceAttributes;
}

/** How a span starts (OpenTelemetry `SpanOptions`). */
export interface TraceSpanOptions {
  /** OpenTelemetry `SpanKind`: 0 internal, 1 server, 2 client, 3 producer, 4 consumer. */
  kind?: number;
  attributes?: TraceAttributes;
  links?: TraceLink[];
  /** Starts a new trace instead of a child of the active span. */
  root?: boolean;
}

/** A span as yada uses it (OpenTelemetry `Span`). */
export interface TraceSpan {
  spanContext(): TraceSpanContext;
  setAttribute(key: string, value: TraceAttributeValue): unknown;
  /** `code`: OpenTelemetry `SpanStatusCode` (0 unset, 1 ok, 2 error). */
  setStatus(status: { code: number; message?: string }): unknown;
  recordException(exception: { name?: string; message?: string; stack?: string } | string): void;
  end(): void;
}

/**
 * The tracer option of `McpClient.connect`, `connectMcp`, `run`, `createActions`,
 * `createWorker` and `createApprovalInbox` (O1): an OpenTelemetry `Tracer`, e.g.
 * `trace.getTracer("my-app")`. Without one nothing is traced and nothing is paid (O3).
 *
 * A tracer follows the OpenTelemetry API's rule that its methods never throw; what
 * one throws after the traced operation returned is ignored.
 *
 * @example
 * ```ts
 * import { trace } from "@opentelemetry/api";
 * const client = await McpClient.connect(transport, { tracer: trace.getTracer("my-app") });
 * ```
 */
export interface Tracer {
  /** A span made the active one while `fn` runs: what `fn` starts nests under it. */
  startActiveSpan<F extends (span: TraceSpan) => unknown>(name: string, options: TraceSpanOptions, fn: F): ReturnType<F>;
  /** A span under the active one that does not become active (nothing nests under it). */
  startSpan(name: string, options: TraceSpanOptions): TraceSpan;
}

/** The tracing options every traced entry point takes (O1, O3). */
export interface TraceOptions {
  /** Spans go to this tracer (see {@link Tracer}); none are made without it. */
  tracer?: Tracer;
  /**
   * Records tool arguments and results (`gen_ai.tool.call.arguments`,
   * `gen_ai.tool.call.result`), resource URIs (`mcp.resource.uri`) and the messages
   * of errors on spans, each cut at `MAX_TRACE_CONTENT_CHARS` (O3). Off by default:
   * they may carry personal data or secrets. Tokens and header values are never recorded.
   */
  traceContent?: boolean;
}

/**
 * The MCP tracing module (O1), opted in as `tracing: mcpTracing` next to a
 * `tracer`: on the web entry `McpClient` and `connectMcp` carry no tracing code
 * unless it is imported (`yada-mcp/node` passes it). What it holds is yada's own.
 */
export interface McpTracing {
  /** Decorates a client's session with its spans; checks `tracer` first. @throws ConfigError (`config`). */
  session(session: object, options: TraceOptions, transport: object): void;
}

/** What is passed down, like the logger: the tracer and whether content is recorded. */
export interface Trace {
  tracer: Tracer;
  content: boolean;
}
