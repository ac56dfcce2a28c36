/**
 * The span helpers every traced place shares (O1–O3): one span around an
 * operation, its error recorded without a secret, W3C trace context written and
 * read with exact bounds, content cut to its bound.
 *
 * @module
 */
import { ConfigError, YadaError } from "../errors.js";
import { MAX_QUOTED_CHARS, MAX_TRACE_CONTENT_CHARS } from "../limits.js";
import { ERROR_TYPE, OTHER_ERROR, RPC_RESPONSE_STATUS_CODE, STATUS_ERROR } from "./names.js";
import type { Trace, TraceOptions, Tracer, TraceSpan, TraceSpanContext, TraceSpanOptions } from "./types.js";

// W3C Trace Context, version 00: exactly 55 characters; ids of all zeros are invalid.
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZEROS = /^0+$/;

/**
 * A `traceparent` read from outside (a server's request, a stored record), as a
 * remote span context: only the exact version-00 form of 55 characters with ids
 * that are not all zero; anything else is `undefined`, never partly read (O2).
 */
export function parseTraceparent(value: unknown): TraceSpanContext | undefined {
  const m = typeof value === "string" && value.length === 55 ? TRACEPARENT.exec(value) : null;
  if (!m || ZEROS.test(m[1] as string) || ZEROS.test(m[2] as string)) return undefined;
  return { traceId: m[1] as string, spanId: m[2] as string, traceFlags: parseInt(m[3] as string, 16), isRemote: true };
}

// The trace id of OpenTelemetry's invalid span context (a no-op tracer's spans): nothing to propagate.
const INVALID_TRACE_ID = "00000000000000000000000000000000";

/** The `traceparent` of a span, or `undefined` when its context is not a valid one (a no-op tracer's span). */
export function traceparentOf(span: TraceSpan): string | undefined {
  const c = span.spanContext();
  if (c.traceId === INVALID_TRACE_ID) return undefined;
  const value = `00-${c.traceId}-${c.spanId}-${(c.traceFlags & 255).toString(16).padStart(2, "0")}`;
  return parseTraceparent(value) && value;
}

/** `op` or `op target`, the target cut at `MAX_QUOTED_CHARS` (span names stay short and low in cardinality). */
export function spanName(op: string, target: unknown): string {
  return typeof target === "string" && target !== "" ? `${op} ${target.slice(0, MAX_QUOTED_CHARS)}` : op;
}

/** `value` as JSON cut at `MAX_TRACE_CONTENT_CHARS`, for the `traceContent` attributes; `undefined` when it is no JSON. */
export function contentOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value)?.slice(0, MAX_TRACE_CONTENT_CHARS);
  } catch {
    return undefined;
  }
}

/** The `error.type` of a failure: a JSON-RPC error's code (also of an error answer to the server), a yada error's code, else `_OTHER`. */
export function errorType(e: unknown): string {
  const rpc = (e as { rpcCode?: unknown } | undefined)?.rpcCode;
  return typeof rpc === "number" ? String(rpc) : e instanceof YadaError ? e.code : OTHER_ERROR;
}

/** Marks `span` failed: `error.type` (and the JSON-RPC code as `rpc.response.status_code`) and status error with `message`. */
export function markError(span: TraceSpan, type: string, message = type): void {
  span.setAttribute(ERROR_TYPE, type);
  if (/^-?\d+$/.test(type)) span.setAttribute(RPC_RESPONSE_STATUS_CODE, type);
  span.setStatus({ code: STATUS_ERROR, message });
}

/**
 * Marks `span` failed by `e` ({@link markError}) and records the exception as its
 * class and `error.type`. Only with `content` do the error's message and stack go
 * in: a server's message may quote an argument back (O3).
 */
export function failSpan(span: TraceSpan, e: unknown, content: boolean): void {
  const type = errorType(e);
  const message = content && e instanceof Error ? e.message.slice(0, MAX_TRACE_CONTENT_CHARS) : type;
  markError(span, type, message);
  span.recordException({ name: e instanceof Error ? e.name : typeof e, message, ...(content && e instanceof Error && e.stack ? { stack: e.stack } : {}) });
}

/** Calls `f`, ignoring what it throws: a span's telemetry never fails the operation it describes. */
export function quietly(f: () => void): void {
  try {
    f();
  } catch {
    // the tracer's failure, not the operation's
  }
}

/**
 * Runs `fn` inside a span named `name`: the active one while `fn` runs, or with
 * `leaf` one that never becomes active (`startSpan`: nothing nests under it, and
 * the host's context manager is not entered). A failure is recorded
 * ({@link failSpan}) and thrown on; `done` sees the value before the span ends.
 * What the tracer throws once `fn` settled is ignored (as what it throws from the
 * calls yada makes meanwhile, see {@link quietly}): the operation's outcome stands,
 * whatever its telemetry did.
 */
export function inSpan<T>(trace: Trace, name: string, options: TraceSpanOptions, fn: (span: TraceSpan) => Promise<T>, done?: (span: TraceSpan, value: T) => void, leaf = false): Promise<T> {
  const run = async (span: TraceSpan): Promise<T> => {
    let ok = false;
    let value: T | undefined;
    let failure: unknown;
    try {
      value = await fn(span);
      ok = true;
      return value;
    } catch (e) {
      failure = e;
      throw e;
    } finally {
      // Not through quietly: no closure per span on this path.
      try {
        if (ok) done?.(span, value as T);
        else failSpan(span, failure, trace.content);
      } catch {
        // the tracer's failure, not the operation's
      }
      try {
        span.end();
      } catch {
        // the same
      }
    }
  };
  return leaf ? run(trace.tracer.startSpan(name, options)) : trace.tracer.startActiveSpan(name, options, run);
}

/**
 * The trace an entry point runs with, from its `tracer` and `traceContent`
 * options; `undefined` without a tracer (nothing is traced, O3).
 *
 * @throws ConfigError (`config`) for a tracer without `startActiveSpan`.
 */
export function traceOf(where: string, options: TraceOptions): Trace | undefined {
  const tracer = options.tracer;
  if (tracer === undefined) return undefined;
  const t = tracer as Partial<Tracer> | null;
  if (typeof t?.startActiveSpan !== "function" || typeof t.startSpan !== "function") throw new ConfigError(`${where}: option tracer must be an OpenTelemetry Tracer (with startActiveSpan and startSpan)`);
  return { tracer, content: options.traceContent === true };
}
