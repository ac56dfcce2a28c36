/**
 * `run` with an action store (W8, W14, U5; ACTIONS.md "Proposer", "Resumer"): write
 * and confirm calls are prepared and recorded awaiting approval (the host told of
 * each once it is stored), the run pauses with a JSON run state, and a resumed run
 * answers each call with the outcome read FROM THE STORE, an operator's resolution
 * told apart from the server's answer. The run state is not an authority: it only names actions; an optional
 * HMAC (crypto.subtle) lets a host detect a state that was changed in transit.
 *
 * @module
 */
import { proposer, type OnAwaitingApproval } from "../actions/propose.js";
import type { RunSpan } from "../trace/agent.js";
import { toHex } from "../actions/hash.js";
import { isTerminal } from "../actions/states.js";
import type { ActionRecord, ActionResolution, ActionStore } from "../actions/types.js";
import { ConfigError, LimitError, ValidationError } from "../errors.js";
import { MAX_ACTION_ID_CHARS, MAX_RUN_STATE_BYTES, MAX_TOOL_CALLS_PER_TURN } from "../limits.js";
import type { Logger } from "../log.js";
import { canonicalKey } from "../schema/equal.js";
import type { ConfirmTool, Identity, ToolResult, WriteTool } from "../tools/types.js";
import { isRec } from "../util/record.js";
import { utf8Length } from "../actions/record.js";
import { lastAnswer, parseMessages, toolCallsOf, type Message, type ToolCallPart } from "./messages.js";
import { errorResult, thrownResult } from "./tool-results.js";
import type { AgentEvent, ProposedCall } from "./events.js";

/** The action options of `run`. */
export interface RunActions {
  /** Where proposed actions are recorded and outcomes are read. */
  store: ActionStore;
  /** The run's id, recorded on each action (default a random UUID; kept across resumes). */
  runId?: string;
  /** How long a proposal waits for approval (default `DEFAULT_APPROVAL_TTL_MS`). */
  approvalTtlMs?: number;
  /** A host secret: the run state is signed (HMAC-SHA-256) and a resume refuses a state whose signature does not match. */
  signingKey?: string | Uint8Array;
  /**
   * Told of each proposed action once the store's `create` resolved (the record is
   * durable in a durable store), with a copy of the record: notify the approvers here.
   * It is not awaited and never fails the run; what it throws or rejects with goes to
   * `onError`.
   */
  onAwaitingApproval?: OnAwaitingApproval;
  /** Told of what `onAwaitingApproval` threw or rejected with. Without it, the failure goes to the run's `logger` as an `error` entry. */
  onError?: (error: unknown) => void;
}

/** One call a paused run waits for. */
export interface PendingCall {
  callId: string;
  toolName: string;
  actionId: string;
}

/** A paused run, as plain JSON: pass it back as `run({ resume })`. It names actions; it never carries their outcomes. */
export interface RunState {
  kind: "yada.run";
  version: 1;
  runId: string;
  actorId: string;
  tenantId: string;
  /** The conversation so far; the pending calls are its only unanswered ones. */
  messages: Message[];
  pending: PendingCall[];
  /** HMAC-SHA-256 (hex) over the canonical JSON of the other members, when the run has a `signingKey`. */
  signature?: string;
}

async function hmac(key: string | Uint8Array, state: Omit<RunState, "signature">): Promise<string> {
  const raw = typeof key === "string" ? new TextEncoder().encode(key) : new Uint8Array(key);
  const k = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return toHex(await crypto.subtle.sign("HMAC", k, new TextEncoder().encode(canonicalKey(state))));
}

/** Compares two hex strings in time independent of where they differ. */
function sameHex(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return d === 0;
}

/** Checks the action options of a run. @throws ConfigError (`config`). */
export function checkRunActions(value: unknown): RunActions | undefined {
  if (value === undefined) return undefined;
  if (!isRec(value) || !isRec(value.store) || typeof value.store.create !== "function" || typeof value.store.get !== "function") {
    throw new ConfigError("run: actions needs a store");
  }
  if (value.runId !== undefined && (typeof value.runId !== "string" || value.runId === "" || value.runId.length > MAX_ACTION_ID_CHARS)) throw new ConfigError("run: actions.runId must be a short nonempty string");
  for (const f of ["onAwaitingApproval", "onError"] as const) {
    if (value[f] !== undefined && typeof value[f] !== "function") throw new ConfigError(`run: actions.${f} must be a function`);
  }
  const key = value.signingKey;
  if (key !== undefined && !((typeof key === "string" && key.length >= 16) || (key instanceof Uint8Array && key.length >= 16))) {
    throw new ConfigError("run: actions.signingKey must be at least 16 characters or bytes");
  }
  return value as unknown as RunActions;
}

/** Builds (and signs) the state of a run paused on `pending`. */
export async function pausedState(actions: RunActions, runId: string, identity: Identity, messages: Message[], pending: PendingCall[]): Promise<RunState> {
  const state: RunState = { kind: "yada.run", version: 1, runId, actorId: identity.actorId, tenantId: identity.tenantId, messages: structuredClone(messages), pending };
  if (actions.signingKey !== undefined) state.signature = await hmac(actions.signingKey, state);
  return state;
}

/**
 * Parses and verifies a run state for `identity`.
 *
 * @throws ValidationError (`validation`) for a malformed state, one of another
 * identity, or a signature that is missing or does not match; LimitError (`limit`) over `MAX_RUN_STATE_BYTES`.
 */
export async function parseRunState(value: unknown, actions: RunActions, identity: Identity): Promise<RunState> {
  const bad = (why: string) => new ValidationError(`run: resume state ${why}`);
  if (!isRec(value) || value.kind !== "yada.run" || value.version !== 1) throw bad("is not a yada run state");
  const size = utf8Length(JSON.stringify(value));
  if (size > MAX_RUN_STATE_BYTES) throw new LimitError("MAX_RUN_STATE_BYTES", MAX_RUN_STATE_BYTES, `run: resume state is ${size} bytes, over MAX_RUN_STATE_BYTES (${MAX_RUN_STATE_BYTES})`);
  const { runId, actorId, tenantId, pending, signature } = value;
  if (typeof runId !== "string" || runId === "" || runId.length > MAX_ACTION_ID_CHARS) throw bad("has no run id");
  if (actorId !== identity.actorId || tenantId !== identity.tenantId) throw bad("belongs to another identity");
  if (!Array.isArray(pending) || pending.length === 0 || pending.length > MAX_TOOL_CALLS_PER_TURN) throw bad("has no pending calls");
  const calls: PendingCall[] = pending.map((p: unknown) => {
    if (!isRec(p) || typeof p.callId !== "string" || typeof p.toolName !== "string" || typeof p.actionId !== "string") throw bad("has a malformed pending call");
    return { callId: p.callId, toolName: p.toolName, actionId: p.actionId };
  });
  const messages = parseMessages(value.messages);
  // The pending calls are exactly the unanswered calls of the last answer: a state cannot smuggle in its own results.
  const last = lastAnswer(messages);
  const answered = new Set(messages.map((m) => m.role === "tool" && m.toolCallId));
  const open = last ? toolCallsOf(last).filter((c) => !answered.has(c.id)) : [];
  if (open.length !== calls.length || !open.every((c) => calls.some((p) => p.callId === c.id && p.toolName === c.name)) || messages.at(-1)?.role === "user") {
    throw bad("does not match its conversation's unanswered calls");
  }
  const state: RunState = { kind: "yada.run", version: 1, runId, actorId, tenantId, messages, pending: calls };
  if (actions.signingKey !== undefined) {
    if (typeof signature !== "string" || !sameHex(signature, await hmac(actions.signingKey, state))) throw bad("signature does not match");
    state.signature = signature;
  }
  return state;
}

/**
 * Prepares and records the write / confirm calls of a turn. A call whose preparation
 * fails is answered with that error (the model can react); the others are proposed.
 */
export async function proposeCalls(
  actions: RunActions,
  runId: string,
  identity: Identity,
  calls: ReadonlyArray<{ call: ToolCallPart; tool: WriteTool | ConfirmTool }>,
  signal: AbortSignal | undefined,
  answer: (call: ToolCallPart, result: ToolResult) => void,
  logger?: Logger,
  traced?: RunSpan,
): Promise<{ proposed: ProposedCall[]; pending: PendingCall[] }> {
  const propose = proposer({ store: actions.store, approvalTtlMs: actions.approvalTtlMs, onAwaitingApproval: actions.onAwaitingApproval, onError: actions.onError, logger, trace: traced?.trace });
  const proposed: ProposedCall[] = [];
  const pending: PendingCall[] = [];
  // O1: each call's preparation and proposal is its execute_tool span; a failed preparation is its error result.
  const proposeOne = async (call: ToolCallPart, tool: WriteTool | ConfirmTool): Promise<ToolResult | undefined> => {
    let prepared;
    try {
      prepared = await tool.prepare(call.arguments, { identity, ...(signal ? { signal } : {}) });
      if (!isRec(prepared) || prepared.tool !== tool.name || prepared.version !== tool.version || !isRec(prepared.arguments)) {
        throw new ValidationError(`the preparation of ${tool.name} returned an action for another tool or version`);
      }
    } catch (e) {
      return thrownResult(e);
    }
    const record = await propose(prepared, { identity, effect: tool.effect, runId, callId: call.id });
    const p: ProposedCall = { callId: call.id, toolName: call.name, effect: tool.effect, arguments: call.arguments, actionId: record.id };
    if (record.preview !== undefined) p.preview = record.preview;
    proposed.push(p);
    pending.push({ callId: call.id, toolName: call.name, actionId: record.id });
    return undefined;
  };
  for (const { call, tool } of calls) {
    const failed = await (traced ? traced.tracing.tool(traced, call, tool.effect, () => proposeOne(call, tool)) : proposeOne(call, tool));
    if (failed) answer(call, failed);
  }
  return { proposed, pending };
}


/**
 * The tool result of an action an operator resolved (W14): the person's verdict and
 * note, marked as theirs (`settled_by: "person"`), never the server's result. A
 * `failed` verdict is the error `resolved_failed`, not the server's `tool_failed`.
 */
export function resolvedResult(r: ActionResolution): ToolResult {
  const ok = r.outcome === "succeeded";
  const message = `The server's answer to this call was lost. A person checked the server and recorded that the call ${ok ? "took effect" : "did not take effect"}; it was not sent again.`;
  const body = { ...(ok ? {} : { error: "resolved_failed" }), outcome: r.outcome, settled_by: "person", message, note: r.note };
  return { content: [{ type: "text", text: JSON.stringify(body) }], isError: !ok };
}

/** The tool result the model sees for a terminal action (ACTIONS.md "Resumer"). */
export function outcomeResult(a: ActionRecord): ToolResult {
  if (a.resolution) return resolvedResult(a.resolution);
  switch (a.state) {
    case "succeeded":
    case "failed":
      return a.outcome?.result ?? errorResult("tool_failed", a.outcome?.reason ?? "the action failed");
    case "rejected":
      return errorResult("rejected", `rejected by the approver: ${a.rejection?.reason ?? "no reason given"}`);
    case "expired":
      return errorResult("expired", "not approved in time; not executed");
    default:
      return errorResult("outcome_unknown", "outcome unknown: not retried");
  }
}

/**
 * The events of the outcomes a resumed run feeds back (W8), in the order of its
 * pending calls: per call a `tool_execution_start` (the arguments the store holds:
 * those approved and run, whatever the run state's conversation claims) and a
 * `tool_execution_end` (the outcome read from the store), both marked
 * `resumed: true`, with turn 0 (before the run's own first turn), so a host that
 * renders a transcript shows them.
 */
export function resumedEvents(state: RunState, results: ReadonlyMap<string, ToolResult>, ran: ReadonlyMap<string, Record<string, unknown>>): AgentEvent[] {
  const events: AgentEvent[] = [];
  for (const p of state.pending) {
    const r = results.get(p.callId);
    if (!r) continue;
    const base = { turn: 0, callId: p.callId, toolName: p.toolName, resumed: true as const };
    events.push({ type: "tool_execution_start", ...base, arguments: ran.get(p.callId) ?? {} });
    events.push({ type: "tool_execution_end", ...base, content: r.content, isError: r.isError });
  }
  return events;
}

/**
 * Reads the outcomes of a paused run's actions from the store. Returns the results
 * by call id when every action is terminal, or the still-pending calls.
 *
 * @throws ValidationError (`validation`) when a named action does not exist or is not
 * this run's call for this identity (a forged or mixed-up state).
 */
export async function readOutcomes(
  store: ActionStore,
  state: RunState,
): Promise<{ results?: Map<string, ToolResult>; waiting: ProposedCall[]; ran: Map<string, Record<string, unknown>>; read: ActionRecord[] }> {
  const results = new Map<string, ToolResult>();
  const read: ActionRecord[] = []; // every record read, for the resume's spans
  const ran = new Map<string, Record<string, unknown>>(); // the stored arguments, by call id
  const waiting: ProposedCall[] = [];
  for (const p of state.pending) {
    const a = await store.get(p.actionId);
    if (!a || a.runId !== state.runId || a.callId !== p.callId || a.actorId !== state.actorId || a.tenantId !== state.tenantId || a.tool !== p.toolName) {
      throw new ValidationError("run: resume state names an action that is not this run's call");
    }
    read.push(a);
    if (isTerminal(a.state)) {
      results.set(p.callId, outcomeResult(a));
      ran.set(p.callId, a.arguments);
    } else {
      const w: ProposedCall = { callId: p.callId, toolName: p.toolName, effect: a.effect, arguments: a.arguments, actionId: a.id, state: a.state };
      if (a.preview !== undefined) w.preview = a.preview;
      waiting.push(w);
    }
  }
  return waiting.length ? { waiting, ran, read } : { results, waiting, ran, read };
}
