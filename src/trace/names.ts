/**
 * Every span name and attribute key yada writes (O1), in one place so that an
 * operator reads them here. The keys and values follow the OpenTelemetry
 * semantic conventions for MCP (`docs/gen-ai/mcp.md`) and for generative AI
 * client, agent and tool spans (`gen-ai-spans.md`, `gen-ai-agent-spans.md`);
 * the `yada.*` keys and the `*_action` span names are yada's own, for the
 * lifecycle of an approved action (O2). `docs/traces.md` lists them with what
 * each span covers.
 *
 * Deliberately never written: `mcp.session.id` (over Streamable HTTP it is the
 * `Mcp-Session-Id` header value, and header values never go into a span, O3),
 * actor and tenant ids, HTTP headers, tokens. Tool arguments and results, resource
 * URIs and error messages only with the host's `traceContent: true`.
 *
 * @module
 */

// ── Span kinds and status (OpenTelemetry API `SpanKind`, `SpanStatusCode`) ──

/** `SpanKind.INTERNAL`. */
export const KIND_INTERNAL = 0;
/** `SpanKind.SERVER`: a request the server sent the client (MCP server span). */
export const KIND_SERVER = 1;
/** `SpanKind.CLIENT`: a request to an MCP server or a model. */
export const KIND_CLIENT = 2;
/** `SpanKind.PRODUCER`: an action recorded for a later approval and execution. */
export const KIND_PRODUCER = 3;
/** `SpanKind.CONSUMER`: a worker's execution or reconciliation of a recorded action. */
export const KIND_CONSUMER = 4;
/** `SpanStatusCode.ERROR`. */
export const STATUS_ERROR = 2;

// ── Trace context in `params._meta` (MCP conventions, "Context propagation"; SEP-414) ──

/** The W3C `traceparent` key, written unprefixed into a request's `params._meta`. */
export const META_TRACEPARENT = "traceparent";
/** The W3C `tracestate` key, beside it. */
export const META_TRACESTATE = "tracestate";

// ── MCP (semantic conventions for MCP: client and server spans) ──

/** The request or notification method, e.g. `tools/call`. Span name: `{method}` or `{method} {target}`. */
export const MCP_METHOD_NAME = "mcp.method.name";
/** The MCP revision in use, e.g. `2025-11-25`. */
export const MCP_PROTOCOL_VERSION = "mcp.protocol.version";
/** The URI of `resources/read` and `resources/subscribe` (only with `traceContent`: a URI may name private data). */
export const MCP_RESOURCE_URI = "mcp.resource.uri";
/** The JSON-RPC id of the request, as a string. */
export const JSONRPC_REQUEST_ID = "jsonrpc.request.id";
/** The JSON-RPC error code of an error answer, as a string. */
export const RPC_RESPONSE_STATUS_CODE = "rpc.response.status_code";
/** `pipe` over stdio, `tcp` over HTTP. */
export const NETWORK_TRANSPORT = "network.transport";
/** `http` over Streamable HTTP and HTTP+SSE. */
export const NETWORK_PROTOCOL_NAME = "network.protocol.name";
/** The server's or the model API's host name (never a path or a query). */
export const SERVER_ADDRESS = "server.address";
/** Its port. */
export const SERVER_PORT = "server.port";
/** A class of error, low in cardinality: a JSON-RPC code, a yada error code, `tool_error`, or `_OTHER`. */
export const ERROR_TYPE = "error.type";
/** `error.type` of a tool call answered `isError: true` (MCP conventions). */
export const TOOL_ERROR = "tool_error";
/** `error.type` of a failure that is no yada error. */
export const OTHER_ERROR = "_OTHER";

// ── Generative AI (semantic conventions for GenAI agent, inference and tool spans) ──

/** `invoke_agent`, `chat` or `execute_tool` (also on MCP `tools/call` spans). */
export const GEN_AI_OPERATION_NAME = "gen_ai.operation.name";
/** The operation of a run: span `invoke_agent`, kind internal. */
export const OP_INVOKE_AGENT = "invoke_agent";
/** The operation of one model call: span `chat {model}`, kind client. */
export const OP_CHAT = "chat";
/** The operation of one tool call: span `execute_tool {tool}`, kind internal. */
export const OP_EXECUTE_TOOL = "execute_tool";
/** The provider: `anthropic`, `openai`, or a host provider's name. */
export const GEN_AI_PROVIDER_NAME = "gen_ai.provider.name";
/** The model asked for. */
export const GEN_AI_REQUEST_MODEL = "gen_ai.request.model";
/** The model that answered. */
export const GEN_AI_RESPONSE_MODEL = "gen_ai.response.model";
/** Why the model stopped, one per answer: `["end"]`, `["tool_use"]`, ... */
export const GEN_AI_RESPONSE_FINISH_REASONS = "gen_ai.response.finish_reasons";
/** Input tokens (cached ones included). */
export const GEN_AI_USAGE_INPUT_TOKENS = "gen_ai.usage.input_tokens";
/** Output tokens. */
export const GEN_AI_USAGE_OUTPUT_TOKENS = "gen_ai.usage.output_tokens";
/** Input tokens read from the provider's cache. */
export const GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = "gen_ai.usage.cache_read.input_tokens";
/** Input tokens written to the provider's cache. */
export const GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS = "gen_ai.usage.cache_creation.input_tokens";
/** The run's id: one conversation across a pause for approval and its resume. */
export const GEN_AI_CONVERSATION_ID = "gen_ai.conversation.id";
/** The tool's name (the model's, `server__tool`, on run spans; the server's on MCP spans). */
export const GEN_AI_TOOL_NAME = "gen_ai.tool.name";
/** The model's id of the tool call. */
export const GEN_AI_TOOL_CALL_ID = "gen_ai.tool.call.id";
/** The prompt of `prompts/get`. */
export const GEN_AI_PROMPT_NAME = "gen_ai.prompt.name";
/** The tool's arguments as JSON (only with `traceContent`). */
export const GEN_AI_TOOL_CALL_ARGUMENTS = "gen_ai.tool.call.arguments";
/** The tool's result as JSON (only with `traceContent`). */
export const GEN_AI_TOOL_CALL_RESULT = "gen_ai.tool.call.result";

// ── yada's own: a run's stop and an action's lifecycle (O2) ──

/** Why a run stopped: `end`, `approval_required`, `max_steps`, `cancelled`, `loop_detected`. */
export const YADA_RUN_STOP_REASON = "yada.run.stop_reason";
/** The model calls a run made. */
export const YADA_RUN_STEPS = "yada.run.steps";
/** A tool's effect: `read`, `write` or `confirm`. */
export const YADA_TOOL_EFFECT = "yada.tool.effect";
/** The action's id (`ActionRecord.id`). */
export const YADA_ACTION_ID = "yada.action.id";
/** The action's state once the span's move is stored (e.g. `awaiting_approval`, `approved`, `succeeded`). */
export const YADA_ACTION_STATE = "yada.action.state";
/** Receipt lookups made so far, on a reconciliation. */
export const YADA_ACTION_ATTEMPTS = "yada.action.attempts";

/** An action recorded for approval (kind producer): `propose_action {tool}`. Its context is kept on the record. */
export const SPAN_PROPOSE = "propose_action";
/** An approval (kind internal, linked to the proposal): `approve_action {tool}`. */
export const SPAN_APPROVE = "approve_action";
/** A rejection (kind internal, linked to the proposal): `reject_action {tool}`. */
export const SPAN_REJECT = "reject_action";
/** An operator's settlement of an outcome-unknown action (kind internal, linked): `resolve_action {tool}`. */
export const SPAN_RESOLVE = "resolve_action";
/** A worker's execution (kind consumer, linked to the proposal): `execute_action {tool}`. */
export const SPAN_EXECUTE = "execute_action";
/** A worker's receipt lookup or recovery of a lapsed lease (kind consumer, linked): `reconcile_action {tool}`. */
export const SPAN_RECONCILE = "reconcile_action";
/** A worker's expiry of an action nobody decided in time (kind consumer, linked): `expire_action {tool}`. */
export const SPAN_EXPIRE = "expire_action";
/** A resumed run reading an action's outcome back into the conversation (kind internal, linked): `resume_action {tool}`. */
export const SPAN_RESUME = "resume_action";
