/**
 * Every bound and default of yada, in one place. An auditor reads this file to
 * learn every limit. Each line cites where the number comes from: a feature row
 * (a feature ID such as S8, listed in docs/features.md), the MCP specification, or
 * "ours".
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
/** Bytes of server stderr kept for error messages (S3: "the last few KB"). */
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

/** Bound on the whole connect handshake (S5: 60 seconds). */
export const DEFAULT_HANDSHAKE_TIMEOUT_MS = 60_000;
/** Bound on one tool call, counted from when it is sent (S6: five minutes). */
export const DEFAULT_CALL_TIMEOUT_MS = 5 * 60_000;
/** Bound on list requests, ping and other non-call requests (ours). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** Pages followed for one list operation, prompts included (V3, T12: "at most 100 cursor pages"). */
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
/** Instructions one schema pattern may expand to in the linear-time matcher (T5, T9, Y1; ours: one input character costs at most about this many steps). */
export const MAX_REGEX_PROGRAM = 2_000;
/** Deepest nesting (arrays and objects) of a validated instance, of a tool result's structuredContent, and of values hashed into a contract or confirm version (ours; MCP values are shallow JSON). */
export const MAX_INSTANCE_DEPTH = 128;
/** Nested subschema evaluations (refs, applicators, descents) in one validation (ours; keeps the stack bounded). */
export const MAX_SCHEMA_EVAL_NESTING = 1_024;
/** `$ref` / `$dynamicRef` expansions in one validation (ours; stops exponential ref fan-out). */
export const MAX_SCHEMA_REF_EXPANSIONS = 200_000;
/** Validation issues collected with `allIssues` before the validator stops looking; by default it stops at the first (ours). */
export const MAX_SCHEMA_ISSUES = 20;

// ── Streamable HTTP transport (src/transport) ──────────────────────────────────

/** Idle read bound of one HTTP exchange, reset on every read (H5: 120 seconds). */
export const DEFAULT_HTTP_IDLE_TIMEOUT_MS = 120_000;
/** Largest SSE event held while it is assembled (H2; ours, the S8 line bound): 16 MiB. */
export const MAX_SSE_EVENT_BYTES = 16 * 1024 * 1024;
/** Largest application/json answer body (H1; ours, the S8 line bound): 16 MiB. */
export const MAX_HTTP_JSON_BYTES = 16 * 1024 * 1024;
/** Bytes of a 400 / 404 body read to find a JSON-RPC error for the request (spec 2026-07-28 "Request Metadata"; ours). */
export const MAX_HTTP_ERROR_BODY_BYTES = 64 * 1024;
/** Longest Mcp-Session-Id accepted from a server (H6; spec: visible ASCII only; ours). */
export const MAX_SESSION_ID_CHARS = 1_024;
/** Bound on the DELETE that releases a session on close (H6: teardown is best-effort; ours). */
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

/** Largest tool arguments sent, as UTF-8 bytes of their JSON (T6: 32,000 UTF-8 bytes). */
export const MAX_TOOL_ARGUMENT_BYTES = 32_000;
/** Largest rendered tool result text, in UTF-8 bytes, cut marker included (T6: 32,000 UTF-8 bytes). */
export const MAX_TOOL_RESULT_BYTES = 32_000;
/** Longest `tool_failed` message, in characters (T8: "bounded to 4,000 characters"). */
export const MAX_TOOL_ERROR_CHARS = 4_000;
/** Longest model-facing tool name `server__tool` (T2: the provider-compatible 64-character limit). */
export const MAX_TOOL_NAME_CHARS = 64;
/** Largest decoded image passed to the model as an image part (T7: "within 5 MB"). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Image parts in one tool result; later images become placeholders (T7: "at most 4 per result"). */
export const MAX_IMAGES_PER_RESULT = 4;
/** Longest text `<server>__list_resources` / `<server>__read_resource` return, in characters (T11: 32,000). */
export const MAX_RESOURCE_TEXT_CHARS = 32_000;
/** Wait after a failed reconnect before reconnectingMcp tries again (W10: 30 seconds). */
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
/** Characters of a thrown tool error's message sent to the model (R4; T8 bounds tool_failed messages to 4,000). */
export const MAX_AGENT_TOOL_ERROR_CHARS = 4_000;
/** UTF-8 bytes of text in one tool result sent to the model (R4; T6: rendered results ≤ 32,000 bytes). */
export const MAX_AGENT_TOOL_RESULT_BYTES = 32_000;
/** Image parts of one tool result sent to the model (R3; T7: at most 4 per result). */
export const MAX_AGENT_TOOL_RESULT_IMAGES = 4;
/** Base64 characters of one image part sent to the model (R3; T7: 5 MB, as base64). */
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
/** UTF-8 bytes of one tool call's streamed argument JSON; more becomes an error result (R3; ours: twice T6's 32,000-byte argument bound). */
export const MAX_TOOL_CALL_ARGUMENT_BYTES = 64_000;
/** `max_tokens` of an Anthropic request when the host sets none (R3; ours; the API requires a value). */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4_096;

// ── Node read-only built-in tools (src/node/builtins) ──────────────────────────

/** UTF-8 bytes of text one built-in returns to the model (R5; T6: results ≤ 32,000 bytes). */
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
/** Largest `--config` file of server configurations, in bytes (P4; ours: as `MAX_MCP_SERVERS_ENV_CHARS`, the same list). */
export const MAX_CLI_CONFIG_BYTES = 256 * 1024;
/** How long `yada actions` waits for a file store that a running `yada worker` holds for one pass (U6; ours: a pass holds it while it executes). */
export const CLI_STORE_BUSY_WAIT_MS = 15_000;
/** How often a `yada actions` waiting for the file store a `yada worker` holds tries it again (U6; ours). */
export const CLI_STORE_BUSY_POLL_MS = 100;
/** How long one pass of `yada worker` keeps claiming before it closes the file store, so `yada actions` gets a turn (U6; ours: well within `CLI_STORE_BUSY_WAIT_MS`). */
export const CLI_WORKER_PASS_CLAIM_MS = 1_000;
/** How long `yada worker` leaves the file store free after a pass for a `yada actions` that waits for it (U6; ours: ten of its tries, `CLI_STORE_BUSY_POLL_MS`). */
export const CLI_WORKER_YIELD_MS = 1_000;
/** Random bytes of the access token of `yada approvals` (U6; ours: 256 bits, as a session key). */
export const CLI_INBOX_TOKEN_BYTES = 32;
/** Connections one `yada worker` keeps open, one per server and identity; the least recently used is closed past it (U6; ours). */
export const MAX_CLI_WORKER_CONNECTIONS = 16;

// ── package and CLI behaviour (P1–P4) ──────────────────────────────────────────

/** Time `yada` keeps, once `--timeout` has passed, to close the server before it exits (exit 3): the process ends within `--timeout` plus this (P4; ours). */
export const CLI_TIMEOUT_GRACE_MS = 500;
// ── Schema work budget (src/schema); Node writing built-ins (src/node/builtins) ─

/** Work units one validation call may spend: subschema visits, keys and items walked, pattern steps, 16-character string scans (Y1; ours: measured at 10-50 ms of the event loop on the hostile fixture server). */
export const MAX_SCHEMA_WORK = 500_000;
/** Subschemas one compile may index (Y1; ours: bounds compile time; large real tool schemas have a few thousand). */
export const MAX_SCHEMA_SUBSCHEMAS = 10_000;
/** Deterministic states a pattern's lazily built automaton may keep; past it the matcher simulates the rest (Y1; ours: bounds memory per pattern). */
export const MAX_REGEX_DFA_STATES = 256;
/** Thread entries all those states may hold together (Y1; ours: about 32 KiB per pattern). */
export const MAX_REGEX_DFA_THREADS = 8_192;
/** Largest content writeFile writes, and file editFile edits, in bytes (R5; ours). */
export const MAX_BUILTIN_WRITE_BYTES = 1024 * 1024;
/** Replacements in one editFile call (R5; ours). */
export const MAX_BUILTIN_EDITS = 64;
/** Arguments of one runCommand call, program included (R5; ours). */
export const MAX_BUILTIN_COMMAND_ARGS = 256;
/** Time a runCommand process may run before it and its process group are killed (R5; ours). */
export const DEFAULT_BUILTIN_COMMAND_TIMEOUT_MS = 60_000;
/** Executed actions whose outcome a writing built-in remembers, so a repeated execute never runs twice (R5, W7; ours). */
export const MAX_BUILTIN_OUTCOMES_KEPT = 1_024;
// ── Hostile peers: server requests, streams (src/jsonrpc, src/mcp, src/transport) ──

/** Server-to-client requests one session holds at a time, handler running or reply not yet sent; beyond it a JSON-RPC error reply (Y2; ours). */
export const MAX_SERVER_REQUESTS_IN_FLIGHT = 64;
/** Error replies (refusals, unknown methods) waiting to be sent; beyond it a server request is dropped unanswered and logged (Y2; ours). */
export const MAX_QUEUED_REFUSALS = 64;
/** Replies to server requests being sent at once: stdio writes awaiting the pipe, or HTTP POSTs (Y2; ours). */
export const MAX_REPLY_SENDS_IN_FLIGHT = 4;
/** Calls of one host handler (sampling, elicitation form / url, roots) running at once per client; more wait their turn (Y2; ours). */
export const MAX_HOST_HANDLER_CONCURRENCY = 4;
/** Bytes written to a stdio server's stdin that it has not read yet; a send beyond it fails with a `limit` error instead of queuing (Y2; ours: 16 MiB, the S8 line bound). */
export const MAX_STDIN_QUEUED_BYTES = 16 * 1024 * 1024;
/** JSON-RPC error code of the reply to a server request beyond `MAX_SERVER_REQUESTS_IN_FLIGHT` (Y2; JSON-RPC 2.0 server-error range). */
export const RPC_TOO_MANY_REQUESTS = -32000;
// ── Tasks, legacy HTTP+SSE, completions, skills ─────────────────────────────────

/** Poll interval of `tasks/get` when the server suggests none (V8; ours). */
export const DEFAULT_TASK_POLL_MS = 1_000;
/** Shortest poll interval honoured, whatever the server suggests (V8; ours: a 0 ms suggestion is a busy loop). */
export const MIN_TASK_POLL_MS = 50;
/** Longest poll interval honoured (V8; ours: a huge suggestion would stall the call). */
export const MAX_TASK_POLL_MS = 30_000;
/** Bound on a whole task-augmented call when the call itself has none (V8; ours). */
export const DEFAULT_TASK_TIMEOUT_MS = 60 * 60 * 1000;
/** Most `tasks/get` polls one task may take (V8; ours: an hour at the shortest interval would be 72,000). */
export const MAX_TASK_POLLS = 10_000;
/** Longest task id accepted from a server (V8; ours). */
export const MAX_TASK_ID_CHARS = 256;
/** Bound on the best-effort `tasks/cancel` sent when a task call is aborted (V8; ours). */
export const TASK_CANCEL_TIMEOUT_MS = 5_000;
/** Most input requests one modern task may raise over its lifetime (V8, spec 2026-07-28 tasks; ours). */
export const MAX_TASK_INPUT_KEYS = 1_000;
/** Bound on the wait for a 2024-11-05 server's `endpoint` event once its stream is open (H14; ours). */
export const DEFAULT_LEGACY_ENDPOINT_TIMEOUT_MS = 10_000;
/** Longest `endpoint` event data accepted (H14; ours). */
export const MAX_LEGACY_ENDPOINT_CHARS = 2_048;
/** Most values one `completion/complete` answer may carry (V9; spec: "MUST NOT exceed 100 items"). */
export const MAX_COMPLETION_VALUES = 100;
/** Longest completion value accepted, in characters (V9; ours). */
export const MAX_COMPLETION_VALUE_CHARS = 4_096;
/** Files one skill may list (V9; the skills extension's "Resources per skill" limit). */
export const MAX_SKILL_RESOURCES = 512;
/** Bytes one skill's files may total (V9; the skills extension's "Total file size per skill", 16 MiB). */
export const MAX_SKILL_TOTAL_BYTES = 16 * 1024 * 1024;
/** Skills one `listSkills` returns across its pages (V9; ours). */
export const MAX_SKILLS_LISTED = 10_000;
/** Bytes of a SKILL.md frontmatter block parsed for verification (V9; ours). */
export const MAX_SKILL_FRONTMATTER_BYTES = 64 * 1024;
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
/** Leeway when an assertion's `exp` is checked before it is sent, in seconds (A7; RFC 7519 §4.1.4 "a small leeway"; ours). */
export const ASSERTION_CLOCK_SKEW_S = 30;
/** Longest identity assertion sent in a token exchange (an ID token, or a base64 SAML assertion), in characters (A7; ours). */
export const MAX_SUBJECT_TOKEN_CHARS = 64 * 1024;
/** Largest workload token file `yada login --workload-token-file` reads, in bytes (A7; ours: a platform JWT is a few KB). */
export const MAX_WORKLOAD_TOKEN_FILE_BYTES = 64 * 1024;
/** Largest ID token file `yada login --id-token-file` reads, in bytes (A7; ours: the longest assertion a token exchange sends, and a line ending). */
export const MAX_ID_TOKEN_FILE_BYTES = MAX_SUBJECT_TOKEN_CHARS + 2;
/** Largest token store file read, in bytes (A5; ours). */
export const MAX_TOKEN_FILE_BYTES = 1024 * 1024;
/** Largest request the loopback redirect listener reads, in bytes of its URL (A6; ours). */
export const MAX_CALLBACK_URL_CHARS = 8 * 1024;
/** How long the loopback login page waits to say whether the login succeeded (A6, P4; ours: the token exchange is bounded well inside it). */
export const LOOPBACK_OUTCOME_WAIT_MS = 60_000;
// ── actions (src/actions, src/node/file-store.ts) ───────────────────────────────

/** Largest stored action record, as UTF-8 JSON bytes (W9; ours: arguments are ≤ 32,000 by T6, the rest is bounded below). */
export const MAX_ACTION_RECORD_BYTES = 1024 * 1024;
/** Most actions one `list` returns, and its default (W8; ours). */
export const MAX_ACTIONS_LISTED = 1_000;
/** Longest action id, run id, call id, actor id, tenant id or lease owner (W8; ours). */
export const MAX_ACTION_ID_CHARS = 256;
/** Longest operation id (W3: nonempty, at most 256 characters). */
export const MAX_OPERATION_ID_CHARS = 256;
/** Longest preparation state version (W3: nonempty, at most 1,024 characters). */
export const MAX_STATE_VERSION_CHARS = 1_024;
/** Longest tool version an action binds (W6, W7; ours). */
export const MAX_ACTION_VERSION_CHARS = 1_024;
/** Longest preview kept for the approver, in characters (W8; ours). */
export const MAX_ACTION_PREVIEW_CHARS = 8_000;
/** Longest rejection or outcome reason, in characters (W8; ours). */
export const MAX_ACTION_REASON_CHARS = 2_000;
/** Longest note an operator records when resolving an outcome-unknown action, in characters; the model reads it (W14; ours, as a reason). */
export const MAX_RESOLUTION_NOTE_CHARS = 2_000;
/** Approval TTL when the host gives none: after it a pending action expires (W8; ours). */
export const DEFAULT_APPROVAL_TTL_MS = 24 * 60 * 60_000;
/** Longest approval TTL a host may set (W8; ours). */
export const MAX_APPROVAL_TTL_MS = 30 * 24 * 60 * 60_000;
/** A worker's lease on a claimed action: the call timeout plus a minute, so a live send is not taken over (W8; ours). */
export const DEFAULT_ACTION_LEASE_MS = 6 * 60_000;
/** First receipt-lookup back-off; doubles per attempt, jittered (W5; ours). */
export const RECONCILE_BASE_DELAY_MS = 1_000;
/** Longest receipt-lookup back-off: an unknown outcome keeps being looked up at this pace (W5; ours). */
export const RECONCILE_MAX_DELAY_MS = 5 * 60_000;
/** Sends of one execute that failed before any byte could reach the server (refused, 401/403) (ACTIONS.md "not sent"; ours: with NOT_SENT_RETRY_DELAY_MS, 4 to 7.5 s of tries, inside the lease). */
export const MAX_NOT_SENT_ATTEMPTS = 5;
/** First pause before an execute that provably never left is tried again; doubles per attempt, jittered to [½, 1], within the lease (W5, W8; ours: a server that restarts gets seconds, not milliseconds). */
export const NOT_SENT_RETRY_DELAY_MS = 500;
/** The reconcile window: the longest an action stays reconciling, and a worker's default; past it the action is outcome_unknown, never resent (W13; ours: a day of receipt lookups, as the approval TTL). */
export const MAX_RECONCILE_AGE_MS = 24 * 60 * 60_000;
/** How often a started worker looks for work when it found none (W8; ours). */
export const DEFAULT_WORKER_POLL_MS = 1_000;
/** Actions one `runOnce` handles at most (W8; ours: a pass is bounded in work). */
export const MAX_ACTIONS_PER_PASS = 100;
/** Largest serialized run state `run({ resume })` accepts, in bytes (W8; ours). */
export const MAX_RUN_STATE_BYTES = 16 * 1024 * 1024;
/** Largest file store journal before it is compacted on open or on demand (W9; ours). */
export const FILE_STORE_COMPACT_BYTES = 64 * 1024 * 1024;
/** Most actions one file store holds (W9; ours: it keeps them all in memory). */
export const MAX_FILE_STORE_ACTIONS = 100_000;
/** Longest a file lock waits for its socket to bind (W15; ours: binding is immediate, this only bounds a stuck kernel call). */
export const LOCK_LISTEN_TIMEOUT_MS = 5_000;
/** Longest an opener refused by a held lock waits for the holder to name its pid (W15; ours: the message names it when it answers). */
export const LOCK_PROBE_TIMEOUT_MS = 1_000;
/** Bytes of a lock holder's answer read at most (W15; ours: a pid and a newline). */
export const LOCK_PROBE_MAX_BYTES = 64;
/** Races for a lock generation one opener may lose in a row before it reports a `store` error (W15; ours: each loss means another opener won). */
export const LOCK_TAKEOVER_ATTEMPTS = 32;
/** Entries of a lock directory listed at most (W15; ours: a holder cleans it to a handful). */
export const MAX_LOCK_DIR_ENTRIES = 1_000;
/** Longest a token file store waits for another process's write to release the lock (A5, W15; ours: a write holds it for a few ms). */
export const TOKEN_LOCK_WAIT_MS = 2_000;
/** Pause between two tries of a token file store's lock while another process writes (A5, W15; ours). */
export const TOKEN_LOCK_RETRY_MS = 10;
/** Longest a worker's batch of moves waits for an action in flight that is slow to ask for its move (W9, W12; ours: normally none waits, a batch goes out once every action on its way has asked). */
export const COALESCE_MAX_WAIT_MS = 5;
/** Argument digests a process keeps, to check stored arguments against without a digest (W8; ours: a worker's actions in flight and the approvals waiting). */
export const HASH_MEMO_ENTRIES = 64;
/** Longest canonical arguments text whose digest is kept (W8; ours: 64 of them hold at most 256 Ki characters). */
export const HASH_MEMO_MAX_CHARS = 4096;
/** Bytes of one group commit of the file store: changes past it wait for the next write (W9; ours: one write, one fdatasync). */
export const FILE_STORE_GROUP_COMMIT_BYTES = 8 * 1024 * 1024;

// ── Action stores past one process (src/actions: PostgreSQL, Durable Objects) ──

/** Longest a PostgreSQL store waits for one query before it reports a `store` error (W9; ours: the statement may still commit, so callers treat it like a lost connection). */
export const PG_QUERY_TIMEOUT_MS = 30_000;
/** Longest a PostgreSQL store's waitForWork sleeps between polls when no notification arrives (W12; ours). */
export const PG_POLL_INTERVAL_MS = 1_000;
/** Records one list of a Durable Object store reads at most while it filters (W12; ours: bounds the work of one request). */
export const DO_LIST_SCAN_MAX = 10_000;
/** Largest request or answer between a Worker and its action store's Durable Object, in bytes (W12; ours: one record and its envelope). */
export const MAX_DO_MESSAGE_BYTES = 2 * 1024 * 1024;
/** Largest file store journal it opens, in bytes (W9; ours: it is read whole on open, as one string, and a JavaScript string holds at most 2^29 − 24 characters). */
export const FILE_STORE_MAX_JOURNAL_BYTES = 256 * 1024 * 1024;
// ── Approved writes and confirmed tools (src/tools: write, confirm, envelope) ──

/** Characters of a preparation's state version: non-empty, at most this (W3: at most 1,024 characters). */
export const MAX_CONTRACT_STATE_VERSION_CHARS = 1_024;
/** Characters of an operation id: non-empty, at most this (W3: at most 256 characters). */
export const MAX_CONTRACT_OPERATION_ID_CHARS = 256;
/** Characters of a preparation's preview shown to an approver; a longer one breaks the contract (W3; ours, as T8's 4,000-character tool_failed bound). */
export const MAX_CONTRACT_PREVIEW_CHARS = 4_000;
/** Characters of a receipt's message; a longer one breaks the contract (W3; ours, as T8's 4,000-character tool_failed bound). */
export const MAX_CONTRACT_MESSAGE_CHARS = 4_000;
/** Operation ids a write or confirmed tool remembers as sent, to refuse sending one twice on a connection; the oldest is forgotten first (W5, W7; ours). */
export const MAX_SENT_OPERATIONS_REMEMBERED = 10_000;
// ── CLI host handlers (src/cli/host-handlers.ts: --elicit, --sampling) ──

/** Fields of one form elicitation the CLI asks for; a larger form is cancelled unasked (V6; ours: the spec's forms are flat and small). */
export const MAX_CLI_ELICIT_FIELDS = 50;
/** Tries per field before the CLI cancels the elicitation (V6; ours). */
export const MAX_CLI_ELICIT_TRIES = 3;
/** Characters of an elicitation's message or a field's title / description shown on the terminal (V6; ours, as T8's 4,000-character bound). */
export const MAX_CLI_ELICIT_TEXT_CHARS = 4_000;
/** Characters of one answer typed at the terminal (V6; ours). */
export const MAX_CLI_ELICIT_ANSWER_CHARS = 10_000;
/** Time one sampling request of `--sampling` may take at the provider (V6; ours, as a model call of `run`). */
export const CLI_SAMPLING_TIMEOUT_MS = 120_000;
/** Characters of text in one sampling request passed to the provider (V6; ours). */
export const MAX_CLI_SAMPLING_INPUT_CHARS = 200_000;
/** Characters of the model's text returned to the server for one sampling request (V6; ours). */
export const MAX_CLI_SAMPLING_OUTPUT_CHARS = 100_000;
// ── Task status on the listen stream, HTTP+SSE reconnect (src/mcp/listen.ts, src/transport/legacy-sse.ts) ──

/** Tasks whose status one connection asks for on `subscriptions/listen` at once; more are only polled (V8, 2026-07-28 tasks extension `taskIds`; ours). */
export const MAX_LISTENED_TASKS = 64;
/** Shortest wait before re-opening a dropped HTTP+SSE event stream, whatever `retry` the server sent (H14; ours: a `retry: 0` cannot make the reconnect loop tight). */
export const MIN_LEGACY_RECONNECT_MS = 250;
// ── OAuth flow housekeeping, DPoP key persistence (src/auth/flows.ts, src/auth/dpop.ts) ──

/** Open authorization flows kept in a token store; past it the oldest is deleted (A3; ours: a user has a few logins open, not dozens). */
export const MAX_OPEN_FLOWS = 16;

// ── HTTP+SSE reconnect under a hostile server (src/transport/legacy-sse.ts) ──

/** An HTTP+SSE event stream open at least this long ends a run of failed reconnects; one that drops sooner counts as one (H14; ours: a server that announces and drops at once cannot reconnect forever). */
export const MIN_LEGACY_HEALTHY_STREAM_MS = 5_000;
// ── Action throughput (src/actions: batched claims and transitions, worker concurrency) ──

/** Actions one `claimMany` leases at most (W12; ours: one statement's worth, as a pass's `MAX_ACTIONS_PER_PASS`). */
export const MAX_CLAIM_BATCH = 100;
/** Tool-name prefixes one claim may be limited to (W12, U6; ours: one per server, as `MAX_MCP_SERVERS`). */
export const MAX_CLAIM_TOOL_PREFIXES = 64;
/** Compare-and-swaps one `transitionMany` applies at most (W12; ours: one statement's worth, as `MAX_CLAIM_BATCH`). */
export const MAX_TRANSITION_BATCH = 100;
/** Actions one worker keeps in flight when not told otherwise (W12; ours: a few sends overlap, one batch per statement). */
export const DEFAULT_WORKER_CONCURRENCY = 8;
/** Most actions one worker keeps in flight (W12; ours: a claim batch, `MAX_CLAIM_BATCH`; never over `MAX_TRANSITION_BATCH`, one batch holds all their moves). */
export const MAX_WORKER_CONCURRENCY = 100;
// ── stdio throughput (src/jsonrpc/session.ts) ──

/** Longest a session's one deadline timer is armed ahead; after the last timed request settles it lingers at most this long (S6; ours). */
export const DEADLINE_SWEEP_MS = 1_000;
// ── HTTP with SSE answers throughput (src/transport/http-exchange.ts) ──

/** Longest the one timer bounding a transport's exchanges (idle read, trailing read) is armed ahead; after the last exchange ends it lingers at most this long (H4, H5; ours). */
export const HTTP_BOUND_SWEEP_MS = 1_000;
/** SSE parsers one HTTP transport keeps for its next answers, reset, instead of building one per answer (H2; ours: 16 calls in flight reuse theirs). */
export const MAX_SPARE_SSE_PARSERS = 16;
// ── Approval inbox (src/inbox) and its Node adapter (src/node/fetch-adapter.ts) ──

/** Actions on one page of the inbox when the host sets no page size (U1, U4; ours). */
export const INBOX_PAGE_SIZE = 50;
/** Most actions on one page of the inbox, whatever the host or a `limit` parameter asks (U4; ours). */
export const MAX_INBOX_PAGE_SIZE = 200;
/** Largest request body the inbox reads (a decision's form), in bytes (U4; ours: a reason of `MAX_ACTION_REASON_CHARS` percent-encoded, and the bound fields). */
export const MAX_INBOX_BODY_BYTES = 64 * 1024;
/** Longest request URL the inbox reads, in characters (U4; ours). */
export const MAX_INBOX_URL_CHARS = 4_096;
/** Requests one inbox handles at once; more are answered 503 at once (U4; ours). */
export const MAX_INBOX_IN_FLIGHT = 64;
/** Longest a decision's request body may take to arrive, in ms (U4; ours). */
export const INBOX_BODY_TIMEOUT_MS = 10_000;
/** How long a decision form's CSRF token is honoured after its page was served, in ms (U3; ours: a working day). */
export const INBOX_CSRF_TTL_MS = 12 * 60 * 60_000;
/** Shortest CSRF secret a host may pass, in bytes (U3; ours: 256 bits, the HMAC-SHA-256 output). */
export const MIN_INBOX_CSRF_SECRET_BYTES = 32;
/** How far ahead of the verifying clock a CSRF token's issue time may be, in ms: another instance's clock (U3; ours). */
export const INBOX_CSRF_CLOCK_SKEW_MS = 60_000;
/** Longest CSRF token text the inbox reads; a longer one is refused unread (U3; ours: a token is at most 55 characters). */
export const MAX_INBOX_CSRF_TOKEN_CHARS = 128;
/** Characters of an `Accept` header the inbox reads to choose JSON or HTML (U1; ours). */
export const MAX_INBOX_ACCEPT_CHARS = 1_024;
/** A reconciling action joins the attention queue this long after its approval, in ms (U1, W13; ours). */
export const INBOX_ATTENTION_AFTER_MS = 15 * 60_000;
/** Characters of an untrusted string shown in a list row; the action's own page shows it whole (U2; ours). */
export const MAX_INBOX_CELL_CHARS = 80;
/** Longest inbox title, in characters (U1; ours). */
export const MAX_INBOX_TITLE_CHARS = 100;
/** Largest request body the Node adapter passes to a handler, in bytes (U7; ours: the inbox's `MAX_INBOX_BODY_BYTES`). */
export const NODE_ADAPTER_MAX_BODY_BYTES = 64 * 1024;
/** Most request headers the Node adapter accepts; more are answered 431 (U7; ours). */
export const NODE_ADAPTER_MAX_HEADERS = 100;
/** Longest one request may take in the Node adapter, body and answer included, in ms (U7; ours). */
export const NODE_ADAPTER_TIMEOUT_MS = 30_000;
/** Requests the Node adapter holds at once, bodies being read included; more are answered 503 unread (U4, U7; ours: at most 16 MiB of bodies at `NODE_ADAPTER_MAX_BODY_BYTES`). */
export const NODE_ADAPTER_MAX_IN_FLIGHT = 256;

// ── Traces (src/trace) ──

/** Longest tool argument, result, resource URI or error message recorded on a span with `traceContent`, in characters (O3; ours: enough to read, bounded for any exporter). */
export const MAX_TRACE_CONTENT_CHARS = 4_096;
/** Longest `tracestate` written into a request's `_meta`; a longer one is left out (O2; W3C Trace Context: 32 members, 512 characters are what every vendor must take). */
export const MAX_TRACESTATE_CHARS = 512;
