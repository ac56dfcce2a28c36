/**
 * The action compatibility contract on the wire (W2, W3): the request envelope
 * `_meta["io.yada/action"]` every phase of a write tool carries, and the strict,
 * size-bounded result envelopes a server answers with in `structuredContent`.
 *
 * Requests:
 * - prepare: `{contractVersion: 1, tool, actorId, tenantId}`
 * - execute: the same plus `operationId` and the approved `stateVersion`
 * - receipt: the same as prepare plus `operationId` only
 *
 * Results (`structuredContent`, exactly these members, nothing else):
 * - prepare: `{stateVersion, preview}`, `isError: false`
 * - execute and receipt: `{operationId, status, message}` with `status` one of
 *   `"succeeded"`, `"failed"`, `"unknown"`, `operationId` the one sent, and
 *   `isError` true exactly when `status` is `"failed"`.
 *
 * @module
 */
import { ContractError } from "../errors.js";
import {
  MAX_CONTRACT_MESSAGE_CHARS,
  MAX_CONTRACT_OPERATION_ID_CHARS,
  MAX_CONTRACT_PREVIEW_CHARS,
  MAX_CONTRACT_STATE_VERSION_CHARS,
} from "../limits.js";
import { isRecord, type CallToolResult, type JsonRecord } from "../mcp/types.js";
import type { Identity } from "./types.js";

/** The `_meta` key of the request envelope (W2). */
export const ACTION_META_KEY = "io.yada/action";

/** The contract version this client speaks (W2). */
export const CONTRACT_VERSION = 1;

/** The phase a request belongs to. */
export type ContractPhase = "prepare" | "execute" | "receipt";

/** What the execute and receipt envelopes add. */
export interface EnvelopeExtras {
  operationId?: string;
  stateVersion?: string;
}

/**
 * The `_meta` object of one phase's `tools/call`: only `io.yada/action`, built
 * from the connection's identity and the durable action, never from model input (W2).
 *
 * @example
 * ```ts
 * actionMeta("execute", "rename", identity, { operationId, stateVersion });
 * // { "io.yada/action": { contractVersion: 1, tool: "rename", actorId, tenantId, operationId, stateVersion } }
 * ```
 */
export function actionMeta(phase: ContractPhase, tool: string, identity: Identity, extras: EnvelopeExtras = {}): JsonRecord {
  const envelope: JsonRecord = { contractVersion: CONTRACT_VERSION, tool, actorId: identity.actorId, tenantId: identity.tenantId };
  if (phase !== "prepare") envelope.operationId = extras.operationId ?? "";
  if (phase === "execute") envelope.stateVersion = extras.stateVersion ?? "";
  return { [ACTION_META_KEY]: envelope };
}

/** Is `value` a non-empty string of at most `max` characters (W3)? */
export function boundedId(value: unknown, max: number): value is string {
  return typeof value === "string" && value !== "" && value.length <= max;
}

/** A valid state version: non-empty, at most `MAX_CONTRACT_STATE_VERSION_CHARS` (W3). */
export const isStateVersion = (v: unknown): v is string => boundedId(v, MAX_CONTRACT_STATE_VERSION_CHARS);
/** A valid operation id: non-empty, at most `MAX_CONTRACT_OPERATION_ID_CHARS` (W3). */
export const isOperationId = (v: unknown): v is string => boundedId(v, MAX_CONTRACT_OPERATION_ID_CHARS);

/** A strict preparation result (W3). */
export interface PrepareEnvelope {
  stateVersion: string;
  preview: string;
}

/** The status a server reports for an operation. */
export type ReceiptStatus = "succeeded" | "failed" | "unknown";

/** A strict execution or receipt result (W3). */
export interface ReceiptEnvelope {
  operationId: string;
  status: ReceiptStatus;
  message: string;
}

/** The members of `value` are exactly `names` (W3: no extra, none missing)? */
function exactly(value: JsonRecord, names: readonly string[]): boolean {
  const keys = Object.keys(value);
  return keys.length === names.length && names.every((n) => Object.hasOwn(value, n));
}

/**
 * The strict preparation envelope of a helper's result (W3).
 *
 * @param where Names the server and tool in the message.
 * @throws ContractError (`contract`) for a result without `structuredContent`
 * (text-only, empty), with `isError` (callers check it first), with members other
 * than exactly `stateVersion` and `preview`, a state version that is empty or over
 * `MAX_CONTRACT_STATE_VERSION_CHARS`, or a preview over `MAX_CONTRACT_PREVIEW_CHARS`.
 *
 * @example
 * ```ts
 * const { stateVersion, preview } = parsePrepareEnvelope(result, "catalog: prepare_rename");
 * ```
 */
export function parsePrepareEnvelope(result: CallToolResult, where: string): PrepareEnvelope {
  const v = result.structuredContent;
  if (result.isError || !isRecord(v)) throw new ContractError(`${where}: the preparation result has no structuredContent envelope`);
  if (!exactly(v, ["stateVersion", "preview"])) throw new ContractError(`${where}: the preparation envelope must have exactly stateVersion and preview`);
  if (!isStateVersion(v.stateVersion)) {
    throw new ContractError(`${where}: stateVersion must be a non-empty string of at most ${MAX_CONTRACT_STATE_VERSION_CHARS} characters`);
  }
  if (typeof v.preview !== "string" || v.preview.length > MAX_CONTRACT_PREVIEW_CHARS) {
    throw new ContractError(`${where}: preview must be a string of at most ${MAX_CONTRACT_PREVIEW_CHARS} characters`);
  }
  return { stateVersion: v.stateVersion, preview: v.preview };
}

/**
 * The strict receipt envelope of an execution or receipt result (W3), for the
 * operation id that was sent.
 *
 * @returns the envelope, or a reason it does not establish anything (then the
 * outcome stays unknown: a text-only, empty, extra-member, missing-member,
 * out-of-bounds answer, another operation's receipt, or `isError` that does not
 * agree with the status).
 *
 * @example
 * ```ts
 * const receipt = parseReceiptEnvelope(result, action.operationId);
 * if (typeof receipt === "string") return { status: "unknown", reason: receipt };
 * ```
 */
export function parseReceiptEnvelope(result: CallToolResult, operationId: string): ReceiptEnvelope | string {
  const v = result.structuredContent;
  if (!isRecord(v)) return "the answer has no structuredContent receipt";
  if (!exactly(v, ["operationId", "status", "message"])) return "the receipt must have exactly operationId, status and message";
  if (v.operationId !== operationId) return "the receipt is not for this operation id";
  const status = v.status;
  if (status !== "succeeded" && status !== "failed" && status !== "unknown") return "the receipt status is not succeeded, failed or unknown";
  if (typeof v.message !== "string" || v.message.length > MAX_CONTRACT_MESSAGE_CHARS) {
    return `the receipt message must be a string of at most ${MAX_CONTRACT_MESSAGE_CHARS} characters`;
  }
  if (result.isError !== (status === "failed")) return "isError does not agree with the receipt status";
  return { operationId, status, message: v.message };
}
