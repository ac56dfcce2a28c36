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
/** Longest untrusted name (tool, method, key, media type) quoted in an error or log message, in characters (ours). */
export const MAX_QUOTED_CHARS = 80;
/** Longest untrusted text (a cause's message, a version list) quoted in an error message, in characters (ours). */
export const MAX_QUOTED_TEXT_CHARS = 200;
/**
 * Longest single timer, in ms (about 24.8 days): the largest delay `setTimeout`
 * honours; a longer one would fire at once. Longer time bounds are clamped to it (ours).
 */
export const MAX_TIMER_MS = 2_147_483_647;

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
/**
 * Time a server's stdout and stderr may stay open after the server process exited
 * (a grandchild may hold them) before they are let go and the close is reported (S4, S7; ours).
 */
export const EXIT_DRAIN_GRACE_MS = 2_000;

// ── MCP client (src/mcp) ───────────────────────────────────────────────────────

/** Bound on the whole connect handshake (S5; seed 000: 60 seconds). */
export const DEFAULT_HANDSHAKE_TIMEOUT_MS = 60_000;
/** Bound on one tool call, counted from when it is sent (S6; seed 000: five minutes). */
export const DEFAULT_CALL_TIMEOUT_MS = 5 * 60_000;
/** Bound on list requests, ping and other non-call requests (ours). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** Pages followed for one list operation, prompts included (V3, T12; seed 003: "at most 100 cursor pages"). */
export const MAX_LIST_PAGES = 100;
/** Items accepted across all pages of one list operation (V3; ours). */
export const MAX_LIST_ITEMS = 10_000;
/** Longest cursor string accepted from a server (V3; ours). */
export const MAX_CURSOR_CHARS = 4_096;
/** Bound on the `server/discover` probe before falling back to `initialize` (V2; spec 2026-07-28 stdio "reasonable timeout"; ours). */
export const DEFAULT_DISCOVER_TIMEOUT_MS = 5_000;
/** Request rounds of one call answering `input_required` before giving up (V2; spec: "implement iteration limits"; ours). */
export const MAX_INPUT_ROUNDS = 8;
/** Input requests answered in one `input_required` round (V2, V6; ours: each may be a model call or a question to a person). */
export const MAX_INPUT_REQUESTS = 16;
/** First delay before re-sending a `subscriptions/listen` that ended unexpectedly (V5; ours). */
export const LISTEN_RETRY_MIN_MS = 1_000;
/** Longest delay between `subscriptions/listen` attempts (V5; spec: "MUST apply jitter and backoff"; ours). */
export const LISTEN_RETRY_MAX_MS = 30_000;
/** Longest list-result freshness honoured from `ttlMs` (V2 caching; ours: one day). */
export const MAX_LIST_TTL_MS = 24 * 60 * 60_000;
/** Servers whose era is remembered (V2: "cached per server"; ours). */
export const MAX_ERA_CACHE_ENTRIES = 256;

// ── JSON Schema validator (src/schema) ─────────────────────────────────────────

/** Deepest nesting of subschemas accepted at compile time (ours; real tool schemas stay under 20). */
export const MAX_SCHEMA_DEPTH = 128;
/** Longest `pattern` / `patternProperties` regex source, in characters (ours; bounds regex compile cost). */
export const MAX_SCHEMA_PATTERN_CHARS = 2_048;
/** Instructions one schema pattern may expand to in the linear-time matcher (T5, T9; ours: bounds `x{1000}{1000}`). */
export const MAX_REGEX_PROGRAM = 20_000;
/** Deepest nesting (arrays and objects) of a validated instance, of a tool result's structuredContent, and of values hashed into a contract or confirm version (ours; MCP values are shallow JSON). */
export const MAX_INSTANCE_DEPTH = 128;
/** Nested subschema evaluations (refs, applicators, descents) in one validation (ours; keeps the stack bounded). */
export const MAX_SCHEMA_EVAL_NESTING = 1_024;
/** `$ref` / `$dynamicRef` expansions in one validation (ours; stops exponential ref fan-out). */
export const MAX_SCHEMA_REF_EXPANSIONS = 200_000;
/** Validation issues collected with `allIssues` before the validator stops looking; by default it stops at the first (ours). */
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

// ── Tool layer (src/tools) ─────────────────────────────────────────────────────

/** Largest tool arguments sent, as UTF-8 bytes of their JSON (T6; seed 003: 32,000 UTF-8 bytes). */
export const MAX_TOOL_ARGUMENT_BYTES = 32_000;
/** Largest rendered tool result text, in UTF-8 bytes, cut marker included (T6; seed 003: 32,000 UTF-8 bytes). */
export const MAX_TOOL_RESULT_BYTES = 32_000;
/** Longest `tool_failed` message, in characters (T8; seed 003: "bounded to 4,000 characters"). */
export const MAX_TOOL_ERROR_CHARS = 4_000;
/** Longest model-facing tool name `server__tool` (T2; seed 003: the provider-compatible 64-character limit). */
export const MAX_TOOL_NAME_CHARS = 64;
/** Largest decoded image passed to the model as an image part (T7; seed 003: "within 5 MB"). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Image parts in one tool result; later images become placeholders (T7; seed 003: "at most 4 per result"). */
export const MAX_IMAGES_PER_RESULT = 4;
/** Longest text `<server>__list_resources` / `<server>__read_resource` return, in characters (T11; seed 003: 32,000). */
export const MAX_RESOURCE_TEXT_CHARS = 32_000;
/** Wait after a failed reconnect before reconnectingMcp tries again (W10; seed 003: 30 seconds). */
export const RECONNECT_BACKOFF_MS = 30_000;
/** Largest `timeoutMs` in a server config or connect option (ours: the largest delay setTimeout honours). */
export const MAX_MCP_TIMEOUT_MS = 2_147_483_647;
/** Longest `YADA_MCP_SERVERS` value, in characters (T14; ours). */
export const MAX_MCP_SERVERS_ENV_CHARS = 256 * 1024;
/** Servers one `YADA_MCP_SERVERS` value may configure (T14; ours). */
export const MAX_MCP_SERVERS = 64;
/** Strings longer than this that look like base64 are replaced by their size when unknown content is rendered as JSON (T16; ours). */
export const MAX_INLINE_BASE64_CHARS = 256;
/** Nesting followed when an unknown content block is rendered as JSON; deeper values are elided (T16; ours). */
export const MAX_UNKNOWN_CONTENT_DEPTH = 32;

// ── Agent loop and providers (src/agent) ───────────────────────────────────────

/** Model calls one run makes before it stops with `max_steps` (R1; ours). */
export const DEFAULT_MAX_STEPS = 20;
/** Read-tool calls of one turn executed at the same time (R1; ours). */
export const DEFAULT_TOOL_CONCURRENCY = 4;
/** Consecutive identical tool calls (same tool, same arguments) that stop a run with `loop_detected` (R1; ours). */
export const DEFAULT_LOOP_THRESHOLD = 3;
/** Tool calls accepted in one model answer; more is a `bad_response` (R1; ours). */
export const MAX_TOOL_CALLS_PER_TURN = 64;
/** Characters of a thrown tool error's message sent to the model (R4; seed 003 bounds tool_failed messages to 4,000). */
export const MAX_AGENT_TOOL_ERROR_CHARS = 4_000;
/** UTF-8 bytes of text in one tool result sent to the model (R4; seed 003: rendered results ≤ 32,000 bytes). */
export const MAX_AGENT_TOOL_RESULT_BYTES = 32_000;
/** Image parts of one tool result sent to the model (R3; seed 003 T7: at most 4 per result). */
export const MAX_AGENT_TOOL_RESULT_IMAGES = 4;
/** Base64 characters of one image part sent to the model (R3; seed 003 T7: 5 MB, as base64). */
export const MAX_AGENT_IMAGE_BASE64_CHARS = Math.ceil((5 * 1024 * 1024) / 3) * 4;
/** Attempts of one model request: the first plus retries on 429 / 5xx / network failure before any output (R3; ours). */
export const DEFAULT_PROVIDER_MAX_ATTEMPTS = 3;
/** First retry wait when the provider sends no retry-after; doubled per attempt (R3; ours). */
export const PROVIDER_RETRY_BASE_DELAY_MS = 500;
/** Longest wait before a retry; a longer retry-after fails at once with the provider's error (R3; ours). */
export const PROVIDER_MAX_RETRY_DELAY_MS = 30_000;
/** Idle bound of a model stream, reset on every read (R3; H5's 120 s applied to providers; ours). */
export const DEFAULT_PROVIDER_IDLE_TIMEOUT_MS = 120_000;
/** Largest SSE event accepted from a model provider (R3; ours: real events are a few KB, thinking signatures included). */
export const MAX_PROVIDER_EVENT_BYTES = 1024 * 1024;
/** Bytes of one streamed model answer (R3; ours: far above any max_tokens a provider allows). */
export const MAX_PROVIDER_RESPONSE_BYTES = 32 * 1024 * 1024;
/** Bytes of a provider's error body read to classify the failure (R3; ours). */
export const MAX_PROVIDER_ERROR_BODY_BYTES = 64 * 1024;
/** Characters of a provider's error message kept in a ProviderError (R3; ours). */
export const MAX_PROVIDER_ERROR_MESSAGE_CHARS = 500;
/** UTF-8 bytes of one tool call's streamed argument JSON; more becomes an error result (R3; ours: twice seed 003's 32,000-byte argument bound). */
export const MAX_TOOL_CALL_ARGUMENT_BYTES = 64_000;
/** `max_tokens` of an Anthropic request when the host sets none (R3; ours; the API requires a value). */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4_096;

// ── Node read-only built-in tools (src/node/builtins) ──────────────────────────

/** UTF-8 bytes of text one built-in returns to the model (R5; seed 003: results ≤ 32,000 bytes). */
export const MAX_BUILTIN_OUTPUT_BYTES = 32_000;
/** Bytes readFile reads from one file (R5; ours). */
export const MAX_BUILTIN_FILE_BYTES = 8 * 1024 * 1024;
/** Characters of one line in built-in output; longer lines are cut (R5; ours). */
export const MAX_BUILTIN_LINE_CHARS = 2_000;
/** Entries listFiles returns (R5; ours). */
export const MAX_BUILTIN_LIST_ENTRIES = 1_000;
/** Directory levels listFiles and searchFiles descend (R5; ours). */
export const MAX_BUILTIN_DEPTH = 16;
/** Directory entries one listFiles or searchFiles call reads, across all directories it walks (R5; ours). */
export const MAX_BUILTIN_WALK_ENTRIES = 50_000;
/** Files searchFiles reads in one call (R5; ours). */
export const MAX_BUILTIN_SEARCH_FILES = 5_000;
/** Bytes of one file searchFiles reads; larger files are skipped (R5; ours). */
export const MAX_BUILTIN_SEARCH_FILE_BYTES = 1024 * 1024;
/** Matching lines searchFiles returns (R5; ours). */
export const MAX_BUILTIN_SEARCH_MATCHES = 200;
/** Characters of a searchFiles query or a path argument (R5; ours). */
export const MAX_BUILTIN_ARGUMENT_CHARS = 4_096;

// ── CLI (src/cli) ──────────────────────────────────────────────────────────────

/** Longest error line printed on stderr, in characters (ours: one readable line). */
export const MAX_ERROR_LINE_CHARS = 2_000;
/** Largest JSON argument read from a flag, a file or stdin, in bytes (ours; tool arguments are bounded to 32,000 by T6 downstream). */
export const MAX_CLI_JSON_BYTES = 1024 * 1024;
/** Largest `--script` plan file, in bytes (ours). */
export const MAX_SCRIPT_BYTES = 1024 * 1024;
/** Most steps in a `--script` plan (ours; the run's own step bound applies too). */
export const MAX_SCRIPT_STEPS = 1_000;
/** Longest `--stdio` command line, in characters (ours). */
export const MAX_COMMAND_LINE_CHARS = 32 * 1024;
/** Lines of a tool result shown under a call in `run` (ours; `--json` has them all). */
export const RUN_RESULT_LINES = 12;
/** Characters of a tool result shown under a call in `run` (ours). */
export const RUN_RESULT_CHARS = 1_500;
/** Characters of a call's arguments shown on its line in `run` (ours). */
export const RUN_ARGUMENT_CHARS = 300;
/** Off a terminal, at most one progress line per this many ms (ours: a server may send thousands of updates). */
export const PROGRESS_LOG_INTERVAL_MS = 100;
/** Time the CLI waits, once its work is done and closed, before exiting despite a handle a peer left open (ours). */
export const CLI_EXIT_GRACE_MS = 2_000;

// ── OAuth (src/auth) ───────────────────────────────────────────────────────────

/** Time bound of one OAuth HTTP request (discovery, registration, token), in ms (A2; ours). */
export const OAUTH_REQUEST_TIMEOUT_MS = 30_000;
/** Largest metadata, registration or token answer, in bytes (A2; ours: real documents are a few KB). */
export const MAX_OAUTH_RESPONSE_BYTES = 64 * 1024;
/** Longest WWW-Authenticate header parsed, in characters (A2; ours). */
export const MAX_WWW_AUTHENTICATE_CHARS = 8 * 1024;
/** Most auth-params read from one WWW-Authenticate header (A2; ours). */
export const MAX_CHALLENGE_PARAMS = 32;
/** Longest access or refresh token kept, in characters (A5; ours). */
export const MAX_TOKEN_CHARS = 16 * 1024;
/** Longest URL, scope or identifier read from OAuth metadata, in characters (A2; ours). */
export const MAX_OAUTH_STRING_CHARS = 4_096;
/** Most entries of an array in OAuth metadata (A2; ours). */
export const MAX_OAUTH_ARRAY_ITEMS = 256;
/** Most scopes in a requested scope set (A2 step-up union; ours). */
export const MAX_SCOPES = 64;
/** Step-up re-authorizations for insufficient_scope in a row (A2; spec "Step-Up Authorization Flow" asks for a limit; the conformance suite allows 3). */
export const MAX_STEP_UPS = 2;
/** Times one HTTP request is re-sent after its 401 / 403 was handled (A5: one refresh, one re-authorization, a DPoP nonce; ours). */
export const MAX_AUTH_RETRIES = 3;
/** Refresh this long before `expires_in` runs out, in ms (A5 proactive refresh; ours). */
export const TOKEN_REFRESH_SKEW_MS = 60_000;
/** Time the interactive step (the user's login) may take, in ms (A6; ours). */
export const OAUTH_INTERACTION_TIMEOUT_MS = 5 * 60_000;
/** Time a started authorization flow stays valid, in ms (A3; ours: a login takes minutes). */
export const OAUTH_FLOW_TTL_MS = 10 * 60_000;
/** Lifetime of a private_key_jwt client assertion, in seconds (A5; RFC 7523 asks for short; ours). */
export const CLIENT_ASSERTION_TTL_S = 60;
/** Largest token store file read, in bytes (A5; ours). */
export const MAX_TOKEN_FILE_BYTES = 1024 * 1024;
/** Largest request the loopback redirect listener reads, in bytes of its URL (A6; ours). */
export const MAX_CALLBACK_URL_CHARS = 8 * 1024;
