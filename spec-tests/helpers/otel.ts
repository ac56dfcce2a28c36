// The real OpenTelemetry SDK for the trace tests (O1-O3): a tracer provider of
// @opentelemetry/sdk-trace-base with its in-memory exporter, under the
// AsyncLocalStorage context manager an SDK registers in Node.
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

/** One process's tracing: its tracer and the spans it has ended so far. */
export interface Otel {
  tracer: ReturnType<BasicTracerProvider["getTracer"]>;
  spans(): ReadableSpan[];
  /** The ended span named `name` (the only one, or the `n`-th). */
  span(name: string, n?: number): ReadableSpan;
}

/** A tracer provider exporting to memory; `service` names its tracer. */
export function otel(service = "yada-test"): Otel {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
  return {
    tracer: provider.getTracer(service),
    spans,
    span(name, n = 0) {
      const found = spans().filter((s) => s.name === name)[n];
      if (!found) throw new Error(`no span ${JSON.stringify(name)} (#${n}); spans: ${spans().map((s) => s.name).join(", ")}`);
      return found;
    },
  };
}

/** The id of `span`'s parent, or undefined for a root. */
export const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

/** The `traceparent` of `span`. */
export const traceparentOf = (span: ReadableSpan): string => {
  const c = span.spanContext();
  return `00-${c.traceId}-${c.spanId}-${c.traceFlags.toString(16).padStart(2, "0")}`;
};

/** Every attribute value, link attribute, event attribute, status message and name of `spans`, as one string, to search for secrets. */
export function everythingExported(spans: readonly ReadableSpan[]): string {
  return JSON.stringify(
    spans.map((s) => ({
      name: s.name,
      attributes: s.attributes,
      status: s.status,
      events: s.events.map((e) => ({ name: e.name, attributes: e.attributes })),
      links: s.links.map((l) => l.attributes ?? {}),
      resource: s.resource.attributes,
    })),
  );
}
