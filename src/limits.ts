/**
 * Every bound and default of yada, in one place. An auditor reads this file to
 * learn every limit. Each line cites where the number comes from: a feature row
 * (../FEATURES.md IDs such as S8), a seed, the MCP specification, or "ours".
 *
 * @module
 */

// ── JSON-RPC engine (src/jsonrpc) ──────────────────────────────────────────────

/** Requests in flight per session before `request()` refuses a new one (ours). */
export const MAX_PENDING_REQUESTS = 1024;
/** Longest `reason` sent in notifications/cancelled, in characters (ours). */
export const MAX_CANCEL_REASON_CHARS = 200;
/** Longest JSON-RPC error message kept from a server, in characters (ours). */
export const MAX_RPC_ERROR_MESSAGE_CHARS = 4_000;
/** Hard maximum total time of a request whose timer is reset by progress (J6; ours): 1 hour. */
export const DEFAULT_MAX_TOTAL_TIMEOUT_MS = 60 * 60_000;

// ── stdio transport (src/node) ─────────────────────────────────────────────────

/** Longest stdout line accepted from a server (S8; ours): 16 MiB. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;
/** Bytes of server stderr kept for error messages (S3; seed 000 "the last few KB"). */
export const STDERR_TAIL_BYTES = 8 * 1024;
/** Non-JSON stdout lines remembered for the exit error (S2; ours). */
export const SKIPPED_LINES_KEPT = 5;
/** Characters of one skipped line kept (S2; ours). */
export const SKIPPED_LINE_CHARS = 200;
/** Time from end of stdin to SIGTERM on close() (S7; spec lifecycle "shutdown"; ours). */
export const CLOSE_STDIN_GRACE_MS = 2_000;
/** Time from SIGTERM to SIGKILL on close() (S7; ours). */
export const CLOSE_SIGTERM_GRACE_MS = 2_000;

// ── MCP client (src/mcp) ───────────────────────────────────────────────────────

/** Bound on the whole connect handshake (S5; seed 000: 60 seconds). */
export const DEFAULT_HANDSHAKE_TIMEOUT_MS = 60_000;
/** Bound on one tool call, counted from when it is sent (S6; seed 000: five minutes). */
export const DEFAULT_CALL_TIMEOUT_MS = 5 * 60_000;
/** Bound on list requests, ping and other non-call requests (ours). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** Pages followed for one list operation (V3; seed 003: "at most 100 cursor pages"). */
export const MAX_LIST_PAGES = 100;
/** Items accepted across all pages of one list operation (V3; ours). */
export const MAX_LIST_ITEMS = 10_000;
/** Longest cursor string accepted from a server (V3; ours). */
export const MAX_CURSOR_CHARS = 4_096;

// ── JSON Schema validator (src/schema) ─────────────────────────────────────────

/** Deepest nesting of subschemas accepted at compile time (ours; real tool schemas stay under 20). */
export const MAX_SCHEMA_DEPTH = 128;
/** Longest `pattern` / `patternProperties` regex source, in characters (ours; bounds regex compile cost). */
export const MAX_SCHEMA_PATTERN_CHARS = 2_048;
/** Deepest instance nesting (arrays and objects) validated (ours; MCP arguments are shallow JSON). */
export const MAX_INSTANCE_DEPTH = 128;
/** Nested subschema evaluations (refs, applicators, descents) in one validation (ours; keeps the stack bounded). */
export const MAX_SCHEMA_EVAL_NESTING = 1_024;
/** `$ref` / `$dynamicRef` expansions in one validation (ours; stops exponential ref fan-out). */
export const MAX_SCHEMA_REF_EXPANSIONS = 200_000;
/** Validation issues collected before the validator stops looking (ours). */
export const MAX_SCHEMA_ISSUES = 20;

// ── Streamable HTTP transport (src/transport) ──────────────────────────────────

/** Idle read bound of one HTTP exchange, reset on every read (H5; seed 000: 120 seconds). */
export const DEFAULT_HTTP_IDLE_TIMEOUT_MS = 120_000;
/** Largest SSE event held while it is assembled (H2; ours, the S8 line bound): 16 MiB. */
export const MAX_SSE_EVENT_BYTES = 16 * 1024 * 1024;
/** Largest application/json answer body (H1; ours, the S8 line bound): 16 MiB. */
export const MAX_HTTP_JSON_BYTES = 16 * 1024 * 1024;
/** Bytes of a 400 / 404 body read to find a JSON-RPC error for the request (spec 2026-07-28 "Request Metadata"; ours). */
export const MAX_HTTP_ERROR_BODY_BYTES = 64 * 1024;
/** Longest Mcp-Session-Id accepted from a server (H6; spec: visible ASCII only; ours). */
export const MAX_SESSION_ID_CHARS = 1_024;
/** Bound on the DELETE that releases a session on close (H6; seed 000: teardown is best-effort; ours). */
export const HTTP_DELETE_TIMEOUT_MS = 5_000;
/** Time a POST stream is still read after its response, for trailing frames and connection reuse (H4; ours). */
export const HTTP_TRAILING_READ_MS = 1_000;
/** Wait before re-GETting a stream whose server sent no `retry` field (H12; ours, WHATWG leaves it to the client). */
export const DEFAULT_SSE_RETRY_MS = 1_000;
/** Longest `retry` delay honoured; a larger one is clamped (H12; ours). */
export const MAX_SSE_RETRY_MS = 60_000;
/** Consecutive re-GETs of one stream that deliver nothing before giving up (H12; ours). */
export const MAX_SSE_RESUME_ATTEMPTS = 3;
/** Custom headers one HTTP transport carries (H10; ours). */
export const MAX_CUSTOM_HEADERS = 64;
/** Longest custom header value, in characters (H10; ours, a common server line limit is 8 KiB). */
export const MAX_HEADER_VALUE_CHARS = 8_192;
