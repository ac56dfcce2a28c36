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
  /** The failed request provably never left (see {@link YadaError.notSent}); set only where that is proven. */
  notSent?: boolean;
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
  /**
   * `true` only where it is proven that no byte of the failed request can have
   * reached the server (W5, W8): the connection was already closed, or the server
   * process gone, when the request was made; the connection was refused, or the
   * server's name did not resolve, before any byte; or the server answered HTTP
   * 401 / 403, an authorization refusal before the request was taken. `false`
   * otherwise: the request may have been delivered, and a mutation is never sent
   * again. The worker tries an approved call again only when it is `true`.
   */
  readonly notSent: boolean;
  constructor(code: YadaErrorCode, message: string, options?: YadaErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.notSent = options?.notSent === true;
    this.name = new.target.name;
  }
}

/** A connection or I/O failure (code `transport`). */
export class TransportError extends YadaError {
  /** P3: narrows on `code`. */
  declare readonly code: "transport";
  constructor(message: string, options?: YadaErrorOptions) {
    super("transport", message, options);
  }
}

/** The peer broke the protocol rules (code `protocol`). */
export class ProtocolError extends YadaError {
  /** P3: narrows on `code`. */
  declare readonly code: "protocol";
  constructor(message: string, options?: YadaErrorOptions) {
    super("protocol", message, options);
  }
}

/** The server answered with a JSON-RPC error object (code `jsonrpc`). */
export class JsonRpcError extends YadaError {
  /** P3: narrows on `code`. */
  declare readonly code: "jsonrpc";
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
  /** P3: narrows on `code`. */
  declare readonly code: "serialization";
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
  /**
   * For a request that failed because its connection dropped (H14): true when it had
   * been sent, so the server may have received and carried it out; it is never re-sent.
   */
  maybeDelivered?: boolean;
}

/** The connection ended (code `connection_closed`): carries exit status and stderr tail (S4). */
export class ConnectionClosedError extends YadaError {
  /** P3: narrows on `code`. */
  declare readonly code: "connection_closed";
  /** Exit status and kept stderr, when the peer was a spawned server. */
  readonly info: CloseInfo;
  constructor(message: string, info: CloseInfo = {}, options?: YadaErrorOptions) {
    super("connection_closed", message, options);
    this.info = info;
  }
}

/** A time bound expired (code `timeout`). The server may still carry the call out (J5). */
export class TimeoutError extends YadaError {
  /** P3: narrows on `code`. */
  declare readonly code: "timeout";
  /** The bound that expired, in milliseconds. */
  readonly timeoutMs: number;
  constructor(message: string, timeoutMs: number) {
    super("timeout", message);
    this.timeoutMs = timeoutMs;
  }
}

/** The caller's signal aborted the operation (code `cancelled`). */
export class CancelledError extends YadaError {
  /** P3: narrows on `code`. */
  declare readonly code: "cancelled";
  constructor(message: string, options?: YadaErrorOptions) {
    super("cancelled", message, options);
  }
}

/** A size or count bound was exceeded (code `limit`). */
export class LimitError extends YadaError {
  /** P3: narrows on `code`. */
  declare readonly code: "limit";
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
  /** P3: narrows on `code`. */
  declare readonly code: "session_expired";
  constructor(message: string, options?: YadaErrorOptions) {
    super("session_expired", message, options);
  }
}

/** An HTTP status the transport does not accept (code `http`). */
export class HttpError extends YadaError {
  /** P3: narrows on `code`. */
  declare readonly code: "http";
  /** The HTTP status code. */
  readonly status: number;
  constructor(status: number, message: string, options?: YadaErrorOptions) {
    super("http", message, options);
    this.status = status;
  }
}

/** The host denied a call, or the caller's identity is not the connection's (code `unauthorized`). */
export class UnauthorizedError extends YadaError {
  /** P3: narrows on `code`. */
  declare readonly code: "unauthorized";
  constructor(message: string) {
    super("unauthorized", message);
  }
}

/** The server's tool contract changed since connect (code `stale_contract`, T13). */
export class StaleContractError extends YadaError {
  /** P3: narrows on `code`. */
  declare readonly code: "stale_contract";
  constructor(message = "MCP tool contract changed; reconnect required", options?: YadaErrorOptions) {
    super("stale_contract", message, options);
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
  /** P3: narrows on `code`. */
  declare readonly code: "validation";
  /** The first failures found (bounded). */
  readonly issues: ValidationIssue[];
  constructor(message: string, issues: ValidationIssue[] = []) {
    super("validation", message);
    this.issues = issues;
  }
}

/** A JSON Schema could not be compiled (code `schema`). */
export class SchemaError extends YadaError {
  /** P3: narrows on `code`. */
  declare readonly code: "schema";
  constructor(message: string) {
    super("schema", message);
  }
}

/** A configuration value was invalid (code `config`). Never echoes secret values. */
export class ConfigError extends YadaError {
  /** P3: narrows on `code`. */
  declare readonly code: "config";
  constructor(message: string) {
    super("config", message);
  }
}

/** The server chose a protocol revision yada does not speak (code `unsupported_version`). */
export class UnsupportedVersionError extends YadaError {
  /** P3: narrows on `code`. */
  declare readonly code: "unsupported_version";
  /** What the server answered (truncated, untrusted). */
  readonly offered: string;
  constructor(message: string, offered: string) {
    super("unsupported_version", message);
    this.offered = offered;
  }
}

/** A named tool does not exist (code `tool_not_found`). */
export class ToolNotFoundError extends YadaError {
  /** P3: narrows on `code`. */
  declare readonly code: "tool_not_found";
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
  /** P3: narrows on `code`. */
  declare readonly code: "conflict";
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
  /** P3: narrows on `code`. */
  declare readonly code: "store";
  constructor(message: string, options?: YadaErrorOptions) {
    super("store", message, options);
  }
}

/** The error class of each code (P3); a code without a class of its own is a plain {@link YadaError}. */
export interface YadaErrorClasses {
  transport: TransportError;
  protocol: ProtocolError;
  jsonrpc: JsonRpcError;
  serialization: SerializationError;
  connection_closed: ConnectionClosedError;
  timeout: TimeoutError;
  cancelled: CancelledError;
  limit: LimitError;
  session_expired: SessionExpiredError;
  http: HttpError;
  unauthorized: UnauthorizedError;
  stale_contract: StaleContractError;
  validation: ValidationError;
  schema: SchemaError;
  config: ConfigError;
  unsupported_version: UnsupportedVersionError;
  tool_not_found: ToolNotFoundError;
  conflict: ActionConflictError;
  store: StoreError;
  provider: ProviderError;
}

/** The error a code narrows to: `YadaErrorOf<"jsonrpc">` is a {@link JsonRpcError}. */
export type YadaErrorOf<C extends YadaErrorCode> = C extends keyof YadaErrorClasses ? YadaErrorClasses[C] : YadaError & { readonly code: C };

/**
 * Is `e` a {@link YadaError} (optionally with the given code)? With a code it
 * narrows `e` to that code's class (P3).
 *
 * @example
 * ```ts
 * if (isYadaError(e, "jsonrpc")) console.log(e.rpcCode); // e is a JsonRpcError
 * ```
 */
export function isYadaError<C extends YadaErrorCode>(e: unknown, code: C): e is YadaErrorOf<C>;
export function isYadaError(e: unknown): e is YadaError;
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
  /** P3: narrows on `code`. */
  declare readonly code: "provider";
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
 * What went wrong in an OAuth step (A2–A5). Match on it; the message is for people.
 *
 * - `insecure_url`: an OAuth endpoint or metadata URL is not https (http is allowed on loopback only, A3).
 * - `redirect`: an OAuth request was answered with a redirect, which is never followed (A3).
 * - `bad_response`: a metadata, registration or token answer is malformed, oversized or has wrong-typed fields.
 * - `http_status`: an OAuth endpoint answered an unexpected HTTP status.
 * - `timeout`: an OAuth request, or the interactive step, took longer than its bound.
 * - `discovery`: no protected resource or authorization server metadata could be found.
 * - `resource_mismatch`: the protected resource metadata names another resource than the MCP server.
 * - `issuer_mismatch`: an authorization server's metadata does not echo the issuer it was fetched for.
 * - `pkce_unsupported`: the authorization server does not advertise PKCE S256 (and no opt-out names it).
 * - `state_mismatch`: a callback has no, a wrong, a repeated or an already used `state`.
 * - `iss_mismatch`: a callback's RFC 9207 `iss` is missing where required, or names another issuer (mix-up).
 * - `authorization_denied`: the authorization server answered the callback with an OAuth error.
 * - `registration`: no way to obtain a client id, or the registration was refused.
 * - `token_error`: the token endpoint answered with an OAuth error (`oauthError`, e.g. `invalid_grant`).
 * - `step_up_limit`: the server kept asking for more scope past the retry limit.
 * - `interaction_required`: the user must log in, and no interactive step was given.
 * - `wrong_issuer`: stored credentials belong to another authorization server than the server's.
 * - `dpop`: a DPoP key or proof could not be made, or the server's DPoP nonce was refused.
 * - `private_address`: a URL from a server's metadata or challenge is on a loopback, private, link-local or literal-IP address while the MCP server is not (`field` names it).
 * - `assertion_mismatch`: an assertion about to be sent (a workload JWT, an ID-JAG, an ID token) is not a JWT, has expired, or names another audience, resource, client or issuer than the request (`field` names the claim).
 * - `grant_unsupported`: the authorization server's metadata lists its grant types, and the one needed is not among them.
 */
export type OAuthErrorKind =
  | "insecure_url"
  | "redirect"
  | "bad_response"
  | "http_status"
  | "timeout"
  | "discovery"
  | "resource_mismatch"
  | "issuer_mismatch"
  | "pkce_unsupported"
  | "state_mismatch"
  | "iss_mismatch"
  | "authorization_denied"
  | "registration"
  | "token_error"
  | "step_up_limit"
  | "interaction_required"
  | "wrong_issuer"
  | "dpop"
  | "private_address"
  | "assertion_mismatch"
  | "grant_unsupported";

/** Options of an {@link OAuthError}. */
export interface OAuthErrorOptions extends YadaErrorOptions {
  /** The OAuth `error` code the server sent (e.g. `invalid_grant`), bounded; never its description. */
  oauthError?: string;
  /** The HTTP status, when there was one. */
  status?: number;
  /** For `interaction_required`: the authorization URL to send the user to (it carries no secret). */
  authorizationUrl?: string;
  /** The metadata field or claim a refusal is about (e.g. `registration_endpoint`, `aud`). */
  field?: string;
}

/**
 * An OAuth 2.1 step failed or a response broke the rules (code `oauth`); match on
 * `kind`. The message names the endpoint's origin and the step, never a token, a
 * secret, a code or a `state` value.
 *
 * @example
 * ```ts
 * try { await client.listTools(); }
 * catch (e) { if (e instanceof OAuthError && e.kind === "interaction_required") location.assign(e.authorizationUrl!); }
 * ```
 */
export class OAuthError extends YadaError {
  /** What went wrong. */
  readonly kind: OAuthErrorKind;
  /** The server's OAuth error code, when it sent one. */
  readonly oauthError: string | undefined;
  /** The HTTP status, when there was one. */
  readonly status: number | undefined;
  /** For `interaction_required`: where to send the user. */
  readonly authorizationUrl: string | undefined;
  /** The metadata field or claim a refusal is about, when it is about one. */
  readonly field: string | undefined;
  constructor(kind: OAuthErrorKind, message: string, options: OAuthErrorOptions = {}) {
    super("oauth", message, options);
    this.kind = kind;
    this.oauthError = options.oauthError;
    this.status = options.status;
    this.authorizationUrl = options.authorizationUrl;
    this.field = options.field;
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
