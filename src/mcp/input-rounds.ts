/**
 * Results and their `resultType` (V2): a missing type means complete; an
 * `input_required` result is answered through the host handlers and the request
 * is sent again with a new id, the original params, `inputResponses` and the
 * exact `requestState`.
 *
 * @module
 */
import { HttpError, LimitError, ProtocolError, TransportError, UnauthorizedError } from "../errors.js";
import { RpcErrorReply } from "../jsonrpc/session.js";
import { sentBefore } from "../transport/not-sent.js";
import { MAX_INPUT_REQUESTS, MAX_INPUT_ROUNDS, MAX_QUOTED_CHARS } from "../limits.js";
import type { HostAnswer } from "./host-module.js";
import { isRecord, readFields, type JsonRecord } from "./fields.js";

/** Methods on which a server may answer `input_required` (spec 2026-07-28 "Multi Round-Trip Requests"). */
export const INPUT_METHODS: readonly string[] = ["tools/call", "prompts/get", "resources/read"];

/** Sends one request with the given params (a new id each time) and returns its raw result. */
export type SendOnce = (params: JsonRecord) => Promise<JsonRecord>;

/**
 * Runs a request to completion: sends it (unless `first`, its first answer, is
 * given), answers every `input_required` round (at most `MAX_INPUT_ROUNDS`), and
 * returns the complete result.
 *
 * @throws ProtocolError (`protocol`) for an unknown `resultType`, an `input_required`
 * on a method that may not carry one, or a malformed input request.
 * @throws UnauthorizedError (`unauthorized`) when the server asks for input this
 * client has no handler for (the request is abandoned).
 * @throws LimitError (`limit`) after `MAX_INPUT_ROUNDS` rounds.
 */
export async function completeWithInput(
  where: string,
  method: string,
  params: JsonRecord,
  send: SendOnce,
  answer: HostAnswer | undefined,
  signal: AbortSignal | undefined,
  first?: JsonRecord,
): Promise<JsonRecord> {
  let extra: JsonRecord | undefined;
  for (let round = 0; ; round++) {
    // Round 0 sends the params as they are (or takes the answer the caller already has).
    let result: JsonRecord;
    try {
      result = round === 0 ? (first ?? (await send(params))) : await send({ ...params, ...extra });
    } catch (e) {
      throw round === 0 ? e : takenBefore(e, where);
    }
    const type = result.resultType;
    if (type === undefined || type === "complete") return result;
    // The tasks extension (V8): the caller of tools/call follows the task.
    if (type === "task" && method === "tools/call") return result;
    if (type !== "input_required") throw new ProtocolError(`${where}: unknown resultType '${String(type).slice(0, MAX_QUOTED_CHARS)}'`);
    if (!INPUT_METHODS.includes(method)) throw new ProtocolError(`${where}: ${method} may not answer input_required`);
    if (round + 1 >= MAX_INPUT_ROUNDS) {
      throw new LimitError("MAX_INPUT_ROUNDS", MAX_INPUT_ROUNDS, `${where}: the server asked for input more than ${MAX_INPUT_ROUNDS - 1} times`);
    }
    const { inputRequests, requestState } = readFields<{ inputRequests?: JsonRecord; requestState?: string }>(result, where, {
      inputRequests: "object?",
      requestState: "string?",
    });
    if (inputRequests === undefined && requestState === undefined) throw new ProtocolError(`${where}: input_required without inputRequests or requestState`);
    const next: JsonRecord = {};
    if (inputRequests) next.inputResponses = await answerAll(where, inputRequests, answer, signal);
    // The state is echoed exactly as received, and only on this retry (never invented).
    if (requestState !== undefined) next.requestState = requestState;
    extra = next;
  }
}

/**
 * W5: a later round's failure, when the first round already reached the server. A
 * refusal (HTTP 401 / 403) or a refused connection must not read as a request that
 * never left, so either becomes a TransportError without the status or the cause.
 */
function takenBefore(e: unknown, where: string): unknown {
  if (!(e instanceof HttpError || e instanceof TransportError)) return sentBefore(e);
  return new TransportError(`${where}: a later input round failed (${e instanceof HttpError ? `HTTP ${e.status}` : "transport"}) after the server took the request; its outcome is unknown`);
}

/**
 * Answers a set of input requests through the host handlers' `answer` (also used by the
 * tasks extension's `inputRequests`, V8).
 *
 * @throws LimitError (`limit`) past `MAX_INPUT_REQUESTS`; ProtocolError (`protocol`); UnauthorizedError (`unauthorized`).
 */
export async function answerAll(where: string, requests: JsonRecord, answer: HostAnswer | undefined, signal: AbortSignal | undefined): Promise<JsonRecord> {
  const context = { signal: signal ?? new AbortController().signal };
  // The keys are the server's: collected as pairs, so "__proto__" stays an own key.
  const out: [string, JsonRecord][] = [];
  const entries = Object.entries(requests);
  // Each input request may be a model call or a question to a person: bounded.
  if (entries.length > MAX_INPUT_REQUESTS) {
    throw new LimitError("MAX_INPUT_REQUESTS", MAX_INPUT_REQUESTS, `${where}: the server asked for ${entries.length} inputs at once; the limit is ${MAX_INPUT_REQUESTS}`);
  }
  for (const [key, request] of entries) {
    const params = isRecord(request) ? request.params : undefined;
    if (!isRecord(request) || typeof request.method !== "string" || (params !== undefined && !isRecord(params))) {
      throw new ProtocolError(`${where}: input request '${key.slice(0, MAX_QUOTED_CHARS)}' needs a method and object params`);
    }
    try {
      // Without host handlers nothing answers: the same refusal a missing handler gives.
      if (!answer) throw new RpcErrorReply(-32601, "Method not found");
      out.push([key, await answer(request.method, params, context, false)]);
    } catch (e) {
      // There is no error-shaped input response: the request is abandoned.
      throw e instanceof RpcErrorReply ? new UnauthorizedError(`${where}: this client cannot answer the server's ${request.method.slice(0, MAX_QUOTED_CHARS)} (${e.message})`) : e;
    }
  }
  return Object.fromEntries(out);
}
