/**
 * JSON-RPC 2.0 message types, a validating parser for incoming messages (J1) and
 * a prototype-safe JSON decoder (J7).
 *
 * @module
 */
import { ProtocolError, SerializationError } from "../errors.js";
import { isRec } from "../util/record.js";

/** A JSON-RPC id: a string or an integer (never null for requests, J1). */
export type RequestId = string | number;

/** Any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** A request: has `method` and `id`. */
export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}
/** A notification: has `method`, no `id`. */
export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
}
/** A success response. */
export interface JsonRpcSuccess {
  jsonrpc: "2.0";
  id: RequestId;
  result: Record<string, unknown>;
}
/** The error member of an error response. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}
/** An error response (id may be null when the request id could not be read). */
export interface JsonRpcFailure {
  jsonrpc: "2.0";
  id: RequestId | null;
  error: JsonRpcErrorObject;
}
/** Any JSON-RPC message. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcSuccess | JsonRpcFailure;
/** A response of either kind. */
export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;

/** Standard JSON-RPC and MCP error codes used by yada. */
export const RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
} as const;

/** The discriminated view of a validated incoming message. */
export type Incoming =
  | { kind: "request"; message: JsonRpcRequest }
  | { kind: "notification"; message: JsonRpcNotification }
  | { kind: "response"; message: JsonRpcResponse };

/** Is `v` a valid JSON-RPC id (string or safe integer)? */
export function isRequestId(v: unknown): v is RequestId {
  return typeof v === "string" || (typeof v === "number" && Number.isSafeInteger(v));
}

function fail(what: string): never {
  throw new ProtocolError(`JSON-RPC ${what}`);
}

/**
 * Validates one decoded JSON value as a JSON-RPC 2.0 message (J1).
 *
 * @throws ProtocolError (`protocol`) for anything that is not a valid message:
 * a non-object, a wrong `jsonrpc`, a bad id type, a request with a null id, a
 * response with both or neither of `result` / `error`, a malformed error object.
 */
export function classifyMessage(value: unknown): Incoming {
  if (!isRec(value)) fail("message is not an object");
  if (value.jsonrpc !== "2.0") fail('message lacks jsonrpc: "2.0"');
  const hasId = "id" in value;
  if ("method" in value) {
    if (typeof value.method !== "string") fail("method is not a string");
    if (value.params !== undefined && !isRec(value.params)) fail(`params of ${value.method} is not an object`);
    if (!hasId) return { kind: "notification", message: value as unknown as JsonRpcNotification };
    if (!isRequestId(value.id)) fail(`request ${value.method} has an invalid id`);
    return { kind: "request", message: value as unknown as JsonRpcRequest };
  }
  const hasResult = "result" in value;
  const hasError = "error" in value;
  if (hasResult === hasError) fail("response must carry exactly one of result and error");
  // Only an error response may carry a null id (the request's id could not be read).
  if (!isRequestId(value.id) && (hasResult || value.id !== null)) fail("response has an invalid id");
  if (hasResult) {
    if (!isRec(value.result)) fail("result is not an object");
  } else {
    const err = value.error;
    if (!isRec(err) || !Number.isInteger(err.code) || typeof err.message !== "string") fail("error object is malformed");
  }
  return { kind: "response", message: value as unknown as JsonRpcResponse };
}

// J7: JSON.parse defines "__proto__" as an own data property (it never invokes the
// setter), so parsing is safe; the danger is later code that copies such an object
// with assignment. We drop "__proto__" keys at decode time so no later copy can
// reach Object.prototype. The reviver is only used when the raw text could spell
// the key (literally, or with a \u escape): it is about 3x slower than a plain
// parse, and the checks are two indexOf.
function dropProtoReviver(this: unknown, key: string, value: unknown): unknown {
  return key === "__proto__" ? undefined : value;
}

/**
 * Decodes JSON text into a value with no `__proto__` keys (J7).
 *
 * @throws SerializationError (`serialization`) when the text is not JSON (including
 * nesting so deep that the engine's parser gives up).
 */
export function decodeJson(text: string): unknown {
  let value: unknown;
  try {
    // Any spelling of the key holds "__proto__" or, escaped, a "\u" sequence.
    value = text.includes("__proto__") || text.includes("\\u") ? JSON.parse(text, dropProtoReviver) : JSON.parse(text);
  } catch (e) {
    throw new SerializationError("message is not valid JSON", { cause: e });
  }
  return value;
}

/**
 * Encodes a message as one line of JSON text. `JSON.stringify` escapes every control
 * character inside strings, so the result never holds a raw newline (S1).
 *
 * @throws SerializationError (`serialization`) for values JSON cannot represent
 * (cycles, BigInt).
 */
export function encodeMessage(message: JsonRpcMessage): string {
  try {
    return JSON.stringify(message);
  } catch (e) {
    throw new SerializationError("message could not be encoded as JSON", { cause: e });
  }
}
