/**
 * MCP spans of one `McpClient` session (O1–O3), after the OpenTelemetry semantic
 * conventions for MCP: a client span per request the client sends (`{method}` or
 * `{method} {tool or prompt}`), its trace context written into the request's
 * `params._meta` (`traceparent`, `tracestate`), and a server span per request the
 * server sends the client (sampling, elicitation, roots). The session is decorated
 * only when the host gave a tracer: without one nothing here runs (O3).
 *
 * A server's own `_meta.traceparent` is read only in its exact W3C form and only
 * as a link: a server never picks the trace a client span joins.
 *
 * @module
 */
import type { JsonRpcSession } from "../jsonrpc/session.js";
import { MAX_QUOTED_CHARS, MAX_TRACE_CONTENT_CHARS, MAX_TRACESTATE_CHARS } from "../limits.js";
import { META } from "../mcp/versions.js";
import type { Transport } from "../transport/types.js";
import { isRec, type Rec } from "../util/record.js";
import {
  GEN_AI_OPERATION_NAME,
  GEN_AI_PROMPT_NAME,
  GEN_AI_TOOL_CALL_ARGUMENTS,
  GEN_AI_TOOL_CALL_RESULT,
  GEN_AI_TOOL_NAME,
  JSONRPC_REQUEST_ID,
  KIND_CLIENT,
  KIND_SERVER,
  MCP_METHOD_NAME,
  MCP_PROTOCOL_VERSION,
  MCP_RESOURCE_URI,
  META_TRACEPARENT,
  META_TRACESTATE,
  NETWORK_PROTOCOL_NAME,
  NETWORK_TRANSPORT,
  OP_EXECUTE_TOOL,
  SERVER_ADDRESS,
  SERVER_PORT,
  TOOL_ERROR,
} from "./names.js";
import { contentOf, inSpan, markError, parseTraceparent, quietly, spanName, traceOf, traceparentOf } from "./span.js";
import type { McpTracing, Trace, TraceAttributes, TraceSpan } from "./types.js";

// Where a modern request names its revision (spec 2026-07-28 "_meta").
const VERSION_META = `${META}protocolVersion`;

/** `network.*` and `server.*` of a transport: `pipe` for stdio; `tcp`, `http`, host and port for HTTP (never a path). */
function peerOf(transport: Transport): TraceAttributes {
  if (transport.kind !== "http") return transport.kind === "stdio" ? { [NETWORK_TRANSPORT]: "pipe" } : {};
  const out: TraceAttributes = { [NETWORK_TRANSPORT]: "tcp", [NETWORK_PROTOCOL_NAME]: "http" };
  try {
    const u = new URL(transport.serverKey ?? "");
    out[SERVER_ADDRESS] = u.hostname;
    out[SERVER_PORT] = Number(u.port) || (u.protocol === "https:" ? 443 : 80);
  } catch {
    // a transport without a URL key names no server
  }
  return out;
}

/** The `_meta` members that carry `span`'s context to the server, or `undefined` for a span without a valid one. */
export function contextMeta(span: TraceSpan): Rec | undefined {
  const parent = traceparentOf(span);
  if (!parent) return undefined;
  const state = span.spanContext().traceState?.serialize();
  return state && state.length <= MAX_TRACESTATE_CHARS ? { [META_TRACEPARENT]: parent, [META_TRACESTATE]: state } : { [META_TRACEPARENT]: parent };
}

/**
 * Traces every request `session` sends and every server request it answers
 * through a handler registered from now on.
 */
function traceSession(session: JsonRpcSession, trace: Trace, transport: Transport): void {
  const peer = peerOf(transport);
  // Over stdio nothing can nest under a request's span: it is not made the active one, which
  // spares the host's context manager a switch per request. Over HTTP the host's fetch
  // instrumentation nests its HTTP spans under it, as the MCP conventions show.
  const leaf = transport.kind === "stdio";
  // The legacy era names its revision once, in the initialize answer; the modern one on every request.
  let negotiated: string | undefined;
  const request = session.request.bind(session);
  session.request = (method, params = {}, options = {}) => {
    const tool = method === "tools/call";
    const target = tool || method === "prompts/get" ? params.name : undefined;
    const meta = isRec(params._meta) ? params._meta : {};
    const version = meta[VERSION_META] ?? negotiated;
    const attributes: TraceAttributes = { ...peer, [MCP_METHOD_NAME]: method };
    if (typeof version === "string") attributes[MCP_PROTOCOL_VERSION] = version.slice(0, MAX_QUOTED_CHARS);
    if (typeof target === "string") attributes[tool ? GEN_AI_TOOL_NAME : GEN_AI_PROMPT_NAME] = target.slice(0, MAX_QUOTED_CHARS);
    if (tool) attributes[GEN_AI_OPERATION_NAME] = OP_EXECUTE_TOOL;
    if (trace.content) {
      if (typeof params.uri === "string") attributes[MCP_RESOURCE_URI] = params.uri.slice(0, MAX_TRACE_CONTENT_CHARS);
      if (tool) attributes[GEN_AI_TOOL_CALL_ARGUMENTS] = contentOf(params.arguments);
    }
    return inSpan(
      trace,
      spanName(method, target),
      { kind: KIND_CLIENT, attributes },
      (span) => {
        let context: Rec | undefined;
        try {
          context = contextMeta(span);
        } catch {
          // no context to carry: the request goes without
        }
        // The id is assigned synchronously, before request returns: one more than before, or
        // none for a request the session refused at once (closed, over its limit, aborted).
        const id = session.nextId;
        const sent = request(method, context ? { ...params, _meta: { ...meta, ...context } } : params, options);
        if (session.nextId === id + 1) quietly(() => span.setAttribute(JSONRPC_REQUEST_ID, String(id)));
        return sent;
      },
      (span, result) => {
        if (method === "initialize" && typeof result.protocolVersion === "string") {
          negotiated = result.protocolVersion.slice(0, MAX_QUOTED_CHARS);
          span.setAttribute(MCP_PROTOCOL_VERSION, negotiated);
        }
        if (tool && result.isError === true) markError(span, TOOL_ERROR);
        else if (tool && trace.content) span.setAttribute(GEN_AI_TOOL_CALL_RESULT, contentOf(result) ?? "");
      },
      leaf,
    );
  };
  const onRequest = session.onRequest.bind(session);
  session.onRequest = (method, handler) =>
    onRequest(method, (params, context) => {
      const remote = parseTraceparent(isRec(params?._meta) ? params._meta[META_TRACEPARENT] : undefined);
      const attributes = { ...peer, [MCP_METHOD_NAME]: method, [JSONRPC_REQUEST_ID]: String(context.id).slice(0, MAX_QUOTED_CHARS) };
      // A new trace: the session's reading context belongs to no request of the host.
      return inSpan(trace, method, { kind: KIND_SERVER, root: true, attributes, links: remote ? [{ context: remote }] : [] }, async () => handler(params, context));
    });
}

/**
 * MCP spans for `McpClient` and `connectMcp` (O1, O2): pass it as `tracing` with a
 * `tracer` (`yada-mcp/node` passes it). One client span per request, named and
 * attributed after the OpenTelemetry MCP conventions, its context in
 * `params._meta`; one server span per request the server sends.
 *
 * @example
 * ```ts
 * import { McpClient, HttpTransport, mcpTracing } from "yada-mcp";
 * import { trace } from "@opentelemetry/api";
 * const client = await McpClient.connect(new HttpTransport("https://mcp.example.com/mcp"), {
 *   tracer: trace.getTracer("my-app"),
 *   tracing: mcpTracing,
 * });
 * ```
 */
export const mcpTracing: McpTracing = {
  session(session, options, transport) {
    const trace = traceOf("McpClient.connect", options);
    if (trace) traceSession(session as JsonRpcSession, trace, transport as Transport);
  },
};
