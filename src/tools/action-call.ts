/**
 * What write and confirmed tools share (W2, W4, W5, W7): the checks before a
 * phase reaches the server, the checks of an approved action, and how a failed
 * send becomes an outcome.
 *
 * The rule of `execute`: it throws only when nothing was sent (another identity,
 * a closed or stale connection, a cancelled call, a malformed action). Once the
 * request may have left, every failure is an {@link ActionOutcome}, and an
 * uncertain one is `unknown`.
 *
 * @module
 */
import { CancelledError, LimitError, UnauthorizedError, ValidationError, YadaError } from "../errors.js";
import { MAX_SENT_OPERATIONS_REMEMBERED, MAX_CONTRACT_OPERATION_ID_CHARS, MAX_CONTRACT_STATE_VERSION_CHARS, MAX_QUOTED_TEXT_CHARS, MAX_TOOL_ARGUMENT_BYTES } from "../limits.js";
import { isRecord, type CallToolResult, type JsonRecord } from "../mcp/types.js";
import { cutChars, utf8Length } from "./bound.js";
import { isOperationId, isStateVersion } from "./envelope.js";
import type { ConnectionGate } from "./gate.js";
import { describeIssue, type SchemaValidator } from "./read-tool.js";
import { errorResult } from "./render.js";
import type { ActionOutcome, ApprovedAction, ToolCallContext } from "./types.js";

/**
 * Checks model arguments for a write or confirmed tool and returns a copy: a JSON
 * object without a top-level `_meta` member (W2: the model cannot reach the
 * envelope, not even as an argument a server might misread), at most
 * `MAX_TOOL_ARGUMENT_BYTES` as JSON (T6), valid against every schema given (T5).
 *
 * @throws ValidationError (`validation`) for a non-object, a `_meta` member or a
 * schema mismatch; LimitError (`limit`) for the size; what `validate` throws (depth).
 */
export function checkedArguments(name: string, args: unknown, schemas: readonly SchemaValidator[]): JsonRecord {
  if (!isRecord(args)) throw new ValidationError(`${name}: arguments must be a JSON object`);
  let json: string;
  try {
    json = JSON.stringify(args);
  } catch {
    throw new ValidationError(`${name}: arguments are not JSON`);
  }
  const bytes = utf8Length(json);
  if (bytes > MAX_TOOL_ARGUMENT_BYTES) {
    throw new LimitError("MAX_TOOL_ARGUMENT_BYTES", MAX_TOOL_ARGUMENT_BYTES, `${name}: arguments are ${bytes} UTF-8 bytes; the limit is ${MAX_TOOL_ARGUMENT_BYTES}`);
  }
  // What is checked is what is sent: the parsed copy (a getter or toJSON cannot
  // show the checks one value and the server another).
  const copy: unknown = JSON.parse(json);
  if (!isRecord(copy)) throw new ValidationError(`${name}: arguments must be a JSON object`);
  if (Object.hasOwn(copy, "_meta")) throw new ValidationError(`${name}: arguments may not have a "_meta" member; the action envelope is set by the host`);
  for (const schema of schemas) {
    const checked = schema.validate(copy);
    if (!checked.valid) throw new ValidationError(`${name}: arguments do not match the input schema: ${describeIssue(checked.issues[0])}`, checked.issues.slice(0, 1));
  }
  return copy;
}

/**
 * Admits one phase (W4): the caller must be the connection's identity, the
 * connection open and current, the call not cancelled, and the host must allow
 * every name in `authorizeAs` (awaited in order; the first `false` stops).
 *
 * @returns the first name the host denied, or undefined when all are allowed.
 * @throws UnauthorizedError (`unauthorized`) for another identity;
 * ConnectionClosedError (`connection_closed`), StaleContractError (`stale_contract`),
 * SessionExpiredError (`session_expired`); CancelledError (`cancelled`); what `authorize` throws.
 */
export async function admit(gate: ConnectionGate, name: string, context: ToolCallContext, authorizeAs: readonly string[]): Promise<string | undefined> {
  if (!isRecord(context)) throw new UnauthorizedError(`${name}: a call needs a context with the caller's identity`);
  await gate.enter(context.identity);
  const cancelled = (): void => {
    if (context.signal?.aborted) throw new CancelledError(`${name} was cancelled before it was sent`, { cause: context.signal.reason });
  };
  cancelled();
  for (const remote of authorizeAs) if (!(await gate.permit(remote))) return remote;
  cancelled();
  return undefined;
}

/** The checked copy of an approved action (W2, W3), for `tool`. */
export interface CheckedAction {
  operationId: string;
  version: string;
  stateVersion: string | undefined;
  arguments: unknown;
}

/**
 * Checks an approved action handed to `execute` or `reconcile`: for this tool, with
 * an operation id that is non-empty and at most `MAX_CONTRACT_OPERATION_ID_CHARS`,
 * a version string, and (when `needsStateVersion`) a state version that is
 * non-empty and at most `MAX_CONTRACT_STATE_VERSION_CHARS`.
 *
 * @throws ValidationError (`validation`) naming the field; nothing is sent.
 */
export function checkAction(name: string, action: ApprovedAction, needsStateVersion: boolean): CheckedAction {
  if (!isRecord(action)) throw new ValidationError(`${name}: the approved action must be an object`);
  if (action.tool !== name) throw new ValidationError(`${name}: the approved action is for another tool`);
  if (!isOperationId(action.operationId)) throw new ValidationError(`${name}: operationId must be a non-empty string of at most ${MAX_CONTRACT_OPERATION_ID_CHARS} characters`);
  if (typeof action.version !== "string") throw new ValidationError(`${name}: the approved action has no version`);
  if (needsStateVersion && !isStateVersion(action.stateVersion)) {
    throw new ValidationError(`${name}: stateVersion must be a non-empty string of at most ${MAX_CONTRACT_STATE_VERSION_CHARS} characters`);
  }
  return { operationId: action.operationId, version: action.version, stateVersion: action.stateVersion, arguments: action.arguments };
}

/**
 * Whether a failed send provably never reached the server (W5, ACTIONS.md "not
 * sent"): only what the session, the transport or the connection marked so
 * ({@link YadaError.notSent}: the connection was closed before the send, refused
 * or unresolvable, or an HTTP 401 / 403). Everything else after the send began is
 * uncertain; a cancellation, for one, never counts, whatever its abort reason says.
 *
 * @example
 * ```ts
 * if (provablyNotSent(e)) retryTheSendLater(); // same operation id
 * ```
 */
export function provablyNotSent(e: unknown): boolean {
  return e instanceof YadaError && e.notSent;
}

/** A short, bounded description of a failure for an outcome's `reason` (its code and our message; never a value). */
export function failureReason(e: unknown): string {
  return e instanceof YadaError ? cutChars(`${e.code}: ${e.message}`, MAX_QUOTED_TEXT_CHARS) : "the send failed unexpectedly";
}

/**
 * The outcome of a send that threw (W5): `unknown`, with `notSent: true` only
 * when {@link provablyNotSent}. The connection records a lost session or connection.
 */
export function sendFailure(gate: ConnectionGate, e: unknown): ActionOutcome {
  gate.fail(e);
  return provablyNotSent(e) ? { status: "unknown", reason: failureReason(e), notSent: true } : { status: "unknown", reason: failureReason(e) };
}

/** A failed outcome for something refused before the send: nothing was sent. */
export function refused(code: string, message: string): ActionOutcome {
  return { status: "failed", result: errorResult(code, message), notSent: true };
}

/**
 * The operation ids one tool has sent on a connection (W5, W7): `claim` refuses
 * one already sent, so one approval is sent at most once even when a caller
 * repeats it (concurrently too); `release` forgets one that provably never left.
 * The last `MAX_SENT_OPERATIONS_REMEMBERED` are kept, the oldest forgotten first.
 */
export interface SentOperations {
  /** @throws ValidationError (`validation`) when `operationId` was sent; nothing is sent. */
  claim(name: string, operationId: string): void;
  release(operationId: string): void;
}

/** A fresh {@link SentOperations}. */
export function sentOperations(): SentOperations {
  const sent = new Set<string>();
  return {
    claim(name, operationId) {
      if (sent.has(operationId)) throw new ValidationError(`${name}: this operation was already sent; an approved call is sent at most once`);
      sent.add(operationId);
      if (sent.size > MAX_SENT_OPERATIONS_REMEMBERED) for (const oldest of sent) if (sent.delete(oldest)) break;
    },
    release: (operationId) => void sent.delete(operationId),
  };
}

/** What {@link sendApproved} needs. */
export interface ApprovedSend {
  gate: ConnectionGate;
  name: string;
  version: string;
  sent: SentOperations;
  input: SchemaValidator;
  /** Write tools need a state version. */
  needsStateVersion: boolean;
  /** The remote names `authorize` must allow. */
  authorizeAs: readonly string[];
  /** Sends once; `onSent` is told when the request was handed to the transport (see `ToolCallContext.onSent`). */
  send(args: JsonRecord, action: CheckedAction, signal: AbortSignal | undefined, onSent: (() => void) | undefined): Promise<CallToolResult>;
}

/**
 * The execute phase up to the answer (W4–W7): checks the action (thrown), its
 * version (else `failed`, `version_changed`), the caller (thrown), `authorize`
 * (else `failed`, `unauthorized`) and the approved arguments (else `failed`,
 * `invalid_arguments`), all with `notSent`; claims the operation id (thrown when
 * already sent); then sends once. A send that throws is `unknown`.
 *
 * @returns `{answer}`: the server's answer to judge; or `{outcome}` when there is none.
 */
export async function sendApproved(p: ApprovedSend, action: ApprovedAction, context: ToolCallContext): Promise<{ answer: CallToolResult } | { outcome: ActionOutcome }> {
  const approved = checkAction(p.name, action, p.needsStateVersion);
  // W4: another caller is refused before its action is judged (no outcome for it).
  await p.gate.enter(isRecord(context) ? context.identity : undefined);
  if (approved.version !== p.version) return { outcome: refused("version_changed", `${p.name}: the tool's version is no longer the approved one; nothing was sent`) };
  const denied = await admit(p.gate, p.name, context, p.authorizeAs);
  if (denied !== undefined) return { outcome: refused("unauthorized", `${p.name}: the host denied ${JSON.stringify(denied)} to this caller; nothing was sent`) };
  let args: JsonRecord;
  try {
    args = checkedArguments(p.name, approved.arguments, [p.input]);
  } catch (e) {
    return { outcome: refused("invalid_arguments", failureReason(e)) };
  }
  p.sent.claim(p.name, approved.operationId);
  try {
    return { answer: await p.send(args, approved, context.signal, typeof context.onSent === "function" ? context.onSent : undefined) };
  } catch (e) {
    const outcome = sendFailure(p.gate, e);
    if (outcome.status === "unknown" && outcome.notSent === true) p.sent.release(approved.operationId);
    return { outcome };
  }
}
