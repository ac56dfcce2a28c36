/**
 * Every error yada throws is a {@link YadaError} with a stable string `code`.
 *
 * Messages name the server and the method, never a header value, a token or an
 * argument value. Callers match on `code` (or `instanceof` a subclass), never on
 * the message text.
 *
 * @module
 */

/**
 * The stable error codes. Each is documented in the README and tested.
 *
 * - `transport`: the connection or an I/O operation failed (spawn, write, fetch).
 * - `protocol`: the peer broke the MCP or JSON-RPC rules (bad shape, wrong version).
 * - `jsonrpc`: the server answered a request with a JSON-RPC error object.
 * - `serialization`: a message could not be encoded or decoded as JSON.
 * - `connection_closed`: the connection ended (process exit, stream end, close()).
 * - `timeout`: a bound on time expired; the server may still carry the call out.
 * - `cancelled`: the caller's AbortSignal fired; the server may still carry the call out.
 * - `limit`: a size or count bound from `limits.ts` was exceeded.
 * - `session_expired`: the HTTP server answered 404 for the session (H7).
 * - `http`: an HTTP status the transport does not accept (incl. redirects, H11).
 * - `unauthorized`: the host's authorize callback denied a call, or identities differ.
 * - `stale_contract`: the server's tool contract changed since connect (T13).
 * - `validation`: a value did not match its JSON Schema, or a config was invalid.
 * - `schema`: a JSON Schema could not be compiled (bad keyword, unresolvable `$ref`).
 * - `config`: a configuration value (env var, server config, header) was invalid.
 * - `unsupported_version`: the server chose a protocol revision yada does not speak (V1).
 * - `tool_not_found`: a named tool does not exist on the server or in the registry.
 * - `provider`: a model provider failed (see `kind` on the subclass).
 * - `conflict`: an action store refused a transition: the action is not in the expected state or fence (W8, W9).
 * - `store`: an action store cannot be used: it is locked by another process, or a stored record is impossible (W9).
 * - `oauth`: an OAuth 2.1 step failed or a response broke the rules (A2–A5).
 * - `contract`: a write tool's server broke the action compatibility contract: a result envelope that is not strict, bounded and complete (W3).
 * - `tool_failed`: a write tool's preparation or a confirmed tool answered `isError: true` (W3, W7).
 */
export type YadaErrorCode =
  | "transport"
  | "protocol"
  | "jsonrpc"
  | "serialization"
  | "connection_closed"
  | "timeout"
  | "cancelled"
  | "limit"
  | "session_expired"
  | "http"
  | "unauthorized"
  | "stale_contract"
  | "validation"
  | "schema"
  | "config"
  | "unsupported_version"
  | "tool_not_found"
  | "provider"
  | "conflict"
  | "store"
  | "oauth"
  | "contract"
  | "tool_failed";

/** Options common to every {@link YadaError}. */
export interface YadaErrorOptions {
  /** The underlying error, when one exists. */
  cause?: unknown;
}

/**
 * Base class of every error yada throws.
 *
 * @example
 * ```ts
 * try { await client.callTool("x", {}); }
 * catch (e) { if (e instanceof YadaError && e.code === "timeout") retryLater(); }
 * ```
 */
export class YadaError extends Error {
  /** Stable, documented error code. */
  readonly code: YadaErrorCode;
  constructor(code: YadaErrorCode, message: string, options?: YadaErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.name = new.target.name;
  }
}

/** A connection or I/O failure (code `transport`). */
export class TransportError extends YadaError {
  constructor(message: string, options?: YadaErrorOptions) {
    super("transport", message, options);
  }
}

/** The peer broke the protocol rules (code `protocol`). */
export class ProtocolError extends YadaError {
  constructor(message: string, options?: YadaErrorOptions) {
    super("protocol", message, options);
  }
}

/** The server answered with a JSON-RPC error object (code `jsonrpc`). */
export class JsonRpcError extends YadaError {
  /** The JSON-RPC error code the server sent (e.g. -32601). */
  readonly rpcCode: number;
  /** The server's `data` member, if any; untrusted. */
  readonly data: unknown;
  /** The server's message, verbatim (untrusted text). */
  readonly rpcMessage: string;
  constructor(method: string, rpcCode: number, rpcMessage: string, data?: unknown) {
    super("jsonrpc", `${method}: server error ${rpcCode}: ${rpcMessage}`);
    this.rpcCode = rpcCode;
    this.rpcMessage = rpcMessage;
    this.data = data;
  }
}

/** A message could not be encoded or decoded (code `serialization`). */
export class SerializationError extends YadaError {
  constructor(message: string, options?: YadaErrorOptions) {
    super("serialization", message, options);
  }
}

/** What is known about how a connection ended. */
export interface CloseInfo {
  /** Process exit code, when a child process exited. */
  exitCode?: number | null;
  /** Signal that ended the child process, if any. */
  signal?: string | null;
  /** The last few KB the server wrote to stderr (S3), if any. */
  stderrTail?: string;
  /** The last stdout lines that were not JSON (S2), if any. */
  skippedLines?: string[];
}

/** The connection ended (code `connection_closed`): carries exit status and stderr tail (S4). */
export class ConnectionClosedError extends YadaError {
  /** Exit status and kept stderr, when the peer was a spawned server. */
  readonly info: CloseInfo;
  constructor(message: string, info: CloseInfo = {}, options?: YadaErrorOptions) {
    super("connection_closed", message, options);
    this.info = info;
  }
}

/** A time bound expired (code `timeout`). The server may still carry the call out (J5). */
export class TimeoutError extends YadaError {
  /** The bound that expired, in milliseconds. */
  readonly timeoutMs: number;
  constructor(message: string, timeoutMs: number) {
    super("timeout", message);
    this.timeoutMs = timeoutMs;
  }
}

/** The caller's signal aborted the operation (code `cancelled`). */
export class CancelledError extends YadaError {
  constructor(message: string, options?: YadaErrorOptions) {
    super("cancelled", message, options);
  }
}

/** A size or count bound was exceeded (code `limit`). */
export class LimitError extends YadaError {
  /** The name of the bound in `limits.ts` (e.g. `MAX_LINE_BYTES`). */
  readonly limit: string;
  /** The bound's value. */
  readonly max: number;
  constructor(limit: string, max: number, message: string) {
    super("limit", message);
    this.limit = limit;
    this.max = max;
  }
}

/** The HTTP server no longer knows the session (404, H7) (code `session_expired`). */
export class SessionExpiredError extends YadaError {
  constructor(message: string) {
    super("session_expired", message);
  }
}

/** An HTTP status the transport does not accept (code `http`). */
export class HttpError extends YadaError {
  /** The HTTP status code. */
  readonly status: number;
  constructor(status: number, message: string) {
    super("http", message);
    this.status = status;
  }
}

/** The host denied a call, or the caller's identity is not the connection's (code `unauthorized`). */
export class UnauthorizedError extends YadaError {
  constructor(message: string) {
    super("unauthorized", message);
  }
}

/** The server's tool contract changed since connect (code `stale_contract`, T13). */
export class StaleContractError extends YadaError {
  constructor(message = "MCP tool contract changed; reconnect required") {
    super("stale_contract", message);
  }
}

/** One validation failure: where in the instance, where in the schema, what. */
export interface ValidationIssue {
  /** JSON pointer into the instance ("" for the root). */
  instancePath: string;
  /** JSON pointer into the schema to the failing keyword. */
  schemaPath: string;
  /** Short message; never contains instance values. */
  message: string;
}

/** A value did not match its schema or rules (code `validation`). */
export class ValidationError extends YadaError {
  /** The first failures found (bounded). */
  readonly issues: ValidationIssue[];
  constructor(message: string, issues: ValidationIssue[] = []) {
    super("validation", message);
    this.issues = issues;
  }
}

/** A JSON Schema could not be compiled (code `schema`). */
export class SchemaError extends YadaError {
  constructor(message: string) {
    super("schema", message);
  }
}

/** A configuration value was invalid (code `config`). Never echoes secret values. */
export class ConfigError extends YadaError {
  constructor(message: string) {
    super("config", message);
  }
}

/** The server chose a protocol revision yada does not speak (code `unsupported_version`). */
export class UnsupportedVersionError extends YadaError {
  /** What the server answered (truncated, untrusted). */
  readonly offered: string;
  constructor(message: string, offered: string) {
    super("unsupported_version", message);
    this.offered = offered;
  }
}

/** A named tool does not exist (code `tool_not_found`). */
export class ToolNotFoundError extends YadaError {
  constructor(message: string) {
    super("tool_not_found", message);
  }
}

/**
 * An action store refused a transition (code `conflict`, W8, W9): the action was not
 * in the expected state, or its lease fence moved on (another worker claimed it).
 * Nothing was changed.
 */
export class ActionConflictError extends YadaError {
  /** The action's id. */
  readonly actionId: string;
  constructor(actionId: string, message: string) {
    super("conflict", message);
    this.actionId = actionId;
  }
}

/**
 * An action store cannot be used (code `store`, W9): another process holds its
 * lock, or a stored record is impossible (read as this error, never executed).
 */
export class StoreError extends YadaError {
  constructor(message: string, options?: YadaErrorOptions) {
    super("store", message, options);
  }
}

/** Is `e` a {@link YadaError} (optionally with the given code)? */
export function isYadaError(e: unknown, code?: YadaErrorCode): e is YadaError {
  return e instanceof YadaError && (code === undefined || e.code === code);
}

/**
 * What went wrong with a model provider (R3):
 *
 * - `auth`: the key was refused (401 / 403); never retried.
 * - `rate_limited`: 429 after the bounded retries, or a retry-after longer than the retry bound.
 * - `overloaded`: 5xx / 529 (or an in-stream overload error) after the bounded retries.
 * - `context_overflow`: the conversation does not fit the model's context (413, or a 400 that says so).
 * - `bad_response`: the answer broke the wire format (bad JSON, missing events, a spliced or truncated stream).
 * - `invalid_request`: any other 4xx (unknown model, bad parameter); never retried.
 */
export type ProviderErrorKind = "auth" | "rate_limited" | "overloaded" | "context_overflow" | "bad_response" | "invalid_request";

/** Options of a {@link ProviderError}. */
export interface ProviderErrorOptions extends YadaErrorOptions {
  /** The HTTP status, when the provider answered one. */
  status?: number;
  /** The wait the provider asked for (retry-after), in milliseconds. */
  retryAfterMs?: number;
}

/**
 * A model provider failed (code `provider`); match on `kind`. The message names
 * the provider and the HTTP status and carries the provider's own error text
 * (bounded), never a key or a request body.
 *
 * @example
 * ```ts
 * try { await run(options); }
 * catch (e) { if (e instanceof ProviderError && e.kind === "auth") askForANewKey(); }
 * ```
 */
export class ProviderError extends YadaError {
  /** What went wrong. */
  readonly kind: ProviderErrorKind;
  /** The provider's name (e.g. `anthropic`). */
  readonly provider: string;
  /** The HTTP status, when there was one. */
  readonly status: number | undefined;
  /** The provider's retry-after, in milliseconds, when it sent one. */
  readonly retryAfterMs: number | undefined;
  constructor(kind: ProviderErrorKind, provider: string, message: string, options: ProviderErrorOptions = {}) {
    super("provider", `${provider}: ${message}`, options);
    this.kind = kind;
    this.provider = provider;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/**
 * A write tool's server broke the action compatibility contract (code `contract`,
 * W3): a preparation, execution or receipt result whose `structuredContent` is
 * missing, has extra or missing fields, or a value out of its bounds. Never counts
 * as a success. The message names the server and the tool, never a value.
 */
export class ContractError extends YadaError {
  constructor(message: string, options?: YadaErrorOptions) {
    super("contract", message, options);
  }
}

/**
 * A write tool's preparation answered `isError: true` (code `tool_failed`, W3): the
 * server declined to prepare. The message is the server's text (untrusted, bounded).
 */
export class ToolFailedError extends YadaError {
  constructor(message: string, options?: YadaErrorOptions) {
    super("tool_failed", message, options);
  }
}
