/**
 * The CLI's exit codes and error lines (X6). Every failure ends in one line on
 * stderr, `yada: <code>: <message>`, where `<code>` is the {@link YadaError} code
 * (or a CLI code: `usage`, `tool_error`, `approval_required`, `incomplete`,
 * `internal`), and an exit code from {@link EXIT_CODES}.
 *
 * @module
 */
import { OAuthError, YadaError, type OAuthErrorKind, type YadaErrorCode } from "../errors.js";
import { oneLine } from "./terminal.js";

/** The exit codes of `yada`, by name. Stable: scripts match on them. */
export const EXIT = {
  /** The command did what was asked (for `run`: the model gave its final answer). */
  ok: 0,
  /** `call`: the tool answered with `isError: true` (its content is printed). */
  toolError: 1,
  /** Bad command line or configuration: unknown command or flag, bad JSON, invalid header, unknown `--server`, no provider. */
  usage: 2,
  /** The server could not be reached, broke the protocol, timed out, went away, or exceeded a bound. */
  connection: 3,
  /** `run`: the model proposed calls that need approval; they are listed and were not executed. `call`: a tool not marked read-only, without `--yes`. */
  approval: 4,
  /** `run`: the model provider failed (key refused, rate limited, overloaded, bad answer). */
  provider: 5,
  /** The server refused the request: a JSON-RPC error (unknown tool, bad arguments, unknown resource or prompt). */
  refused: 6,
  /** `run`: stopped without a final answer (step limit or a repeated identical call), or approved calls not finished. */
  incomplete: 7,
  /** A login is needed, has expired, or was refused by the user or the authorization server: `yada login --url <url>`. */
  login: 8,
  /** OAuth is misconfigured or broken: discovery, metadata, registration, an insecure or redirected endpoint, a mix-up. */
  oauth: 9,
  /** An unexpected failure inside yada (a bug: please report it with the message). */
  internal: 70,
  /** Interrupted (Ctrl-C) or cancelled. */
  interrupted: 130,
} as const;

/** One exit code with what it means, for `yada --help` and the README. */
export interface ExitCodeDoc {
  code: number;
  meaning: string;
  /** The error codes printed with it. */
  errorCodes: readonly string[];
}

/** OAuth failures a person resolves by logging in (again): the rest are a misconfiguration (exit 9). */
export const LOGIN_KINDS: ReadonlySet<OAuthErrorKind> = new Set<OAuthErrorKind>(["interaction_required", "authorization_denied", "token_error", "step_up_limit"]);

/** The exit code table, in order (printed by `yada --help`). */
export const EXIT_CODES: readonly ExitCodeDoc[] = [
  { code: EXIT.ok, meaning: "success (run: the model gave its final answer)", errorCodes: [] },
  { code: EXIT.toolError, meaning: "call: the tool answered with isError (its content is printed)", errorCodes: ["tool_error", "tool_failed"] },
  { code: EXIT.usage, meaning: "usage or configuration error (flag, JSON, header, --server, provider)", errorCodes: ["usage", "config", "validation", "store"] },
  {
    code: EXIT.connection,
    meaning: "connection, transport or protocol error; timeout; a bound exceeded",
    errorCodes: ["transport", "protocol", "serialization", "connection_closed", "timeout", "session_expired", "http", "unsupported_version", "stale_contract", "limit", "schema"],
  },
  { code: EXIT.approval, meaning: "calls need approval (run: listed, not executed; call: a tool not marked read-only, without --yes)", errorCodes: ["approval_required"] },
  { code: EXIT.provider, meaning: "run: the model provider failed", errorCodes: ["provider"] },
  { code: EXIT.refused, meaning: "the server refused the request (JSON-RPC error, unknown tool)", errorCodes: ["jsonrpc", "tool_not_found", "unauthorized", "contract", "conflict"] },
  { code: EXIT.incomplete, meaning: "run: stopped without an answer (max steps, loop detected), or approved calls not finished", errorCodes: ["incomplete"] },
  {
    code: EXIT.login,
    meaning: `login needed, expired or refused by you or the server: run yada login --url <url> (oauth: ${[...LOGIN_KINDS].join(", ")})`,
    errorCodes: ["login_required", "oauth"],
  },
  { code: EXIT.oauth, meaning: "OAuth misconfigured or broken (oauth: every other kind: discovery, metadata, registration, insecure or redirected endpoint, ...)", errorCodes: ["oauth"] },
  { code: EXIT.internal, meaning: "internal error (a bug in yada)", errorCodes: ["internal"] },
  { code: EXIT.interrupted, meaning: "interrupted (Ctrl-C)", errorCodes: ["cancelled"] },
];

const BY_ERROR_CODE = new Map<string, number>(EXIT_CODES.flatMap((e) => e.errorCodes.map((c) => [c, e.code] as const)));

/**
 * A mistake on the command line (code `usage`, exit 2): an unknown command or
 * flag, a missing or malformed value.
 */
export class UsageError extends Error {
  /** Always `usage`. */
  readonly code = "usage";
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * A failure the CLI reports with its own code and exit code (a tool's `isError`,
 * an approval stop, an incomplete run), after printing what there is to print.
 * With `--json` it is also written as the `{code, message, exit}` object, unless
 * `inDocument` says the JSON document printed already carries it (`call`'s
 * result with `isError: true`).
 */
export class CliExit extends Error {
  readonly code: string;
  readonly exitCode: number;
  readonly inDocument: boolean;
  constructor(code: string, exitCode: number, message: string, options: { inDocument?: boolean } = {}) {
    super(message);
    this.name = "CliExit";
    this.code = code;
    this.exitCode = exitCode;
    this.inDocument = options.inDocument === true;
  }
}

/** The error code shown for `e`: its YadaError or CLI code, else `internal`. */
export function errorCodeOf(e: unknown): YadaErrorCode | string {
  if (e instanceof YadaError || e instanceof UsageError || e instanceof CliExit) return e.code;
  return "internal";
}

/** The exit code for `e` (see {@link EXIT_CODES}). */
export function exitCodeOf(e: unknown): number {
  if (e instanceof CliExit) return e.exitCode;
  if (e instanceof OAuthError) return LOGIN_KINDS.has(e.kind) ? EXIT.login : EXIT.oauth;
  return BY_ERROR_CODE.get(errorCodeOf(e)) ?? EXIT.internal;
}

/**
 * The one line printed on stderr for `e`: `yada: <code>: <message>`. The message
 * is made one line and stripped of control characters (it may quote server text).
 *
 * @example
 * ```ts
 * errorLine(new UsageError("unknown flag --foo")); // "yada: usage: unknown flag --foo"
 * ```
 */
export function errorLine(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  const hint = e instanceof UsageError ? " (see yada --help)" : systemCause(e);
  return `yada: ${errorCodeOf(e)}: ${oneLine(message)}${hint}`;
}

/**
 * ` (ECONNREFUSED)`: the operating system's error code found in the cause chain
 * of `e` (a refused connection, a failed DNS lookup), or "". Only such a code is
 * shown, never a cause's message, which might quote a request.
 */
function systemCause(e: unknown): string {
  let cause = e instanceof Error ? e.cause : undefined;
  for (let depth = 0; depth < 4 && typeof cause === "object" && cause !== null; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z0-9_]{2,30}$/.test(code)) return ` (${code})`;
    cause = (cause as { cause?: unknown }).cause;
  }
  return "";
}
