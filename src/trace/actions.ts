/**
 * The spans of an action's lifecycle (O2): its proposal is a producer span whose
 * W3C context is kept on the action record (`traceparent`); every later move, in
 * whichever process makes it (a person's approval in the inbox, a worker's
 * execution, a resumed run), is a span of its own linked to that proposal. A trace
 * context read back from a store is used only in its exact W3C form.
 *
 * Without a tracer each helper runs the operation as it is.
 *
 * @module
 */
import type { ActionRecord } from "../actions/types.js";
import {
  GEN_AI_CONVERSATION_ID,
  GEN_AI_TOOL_NAME,
  KIND_INTERNAL,
  KIND_PRODUCER,
  SPAN_PROPOSE,
  SPAN_RESUME,
  YADA_ACTION_ATTEMPTS,
  YADA_ACTION_ID,
  YADA_ACTION_STATE,
  YADA_TOOL_EFFECT,
} from "./names.js";
import { inSpan, markError, parseTraceparent, quietly, spanName, traceparentOf } from "./span.js";
import type { Trace, TraceAttributes, TraceLink, TraceSpan } from "./types.js";

/** The link of a span about `action` to its proposal, when the record keeps a valid trace context. */
export function proposalLinks(action: { id: string; traceparent?: string | undefined }): TraceLink[] {
  const context = parseTraceparent(action.traceparent);
  return context ? [{ context, attributes: { [YADA_ACTION_ID]: action.id } }] : [];
}

/** What names an action on its spans: id, tool, effect, state and the run (conversation) it belongs to. */
function actionAttributes(action: ActionRecord): TraceAttributes {
  const out: TraceAttributes = {
    [YADA_ACTION_ID]: action.id,
    [GEN_AI_TOOL_NAME]: action.tool,
    [YADA_TOOL_EFFECT]: action.effect,
    [YADA_ACTION_STATE]: action.state,
  };
  if (action.runId !== undefined) out[GEN_AI_CONVERSATION_ID] = action.runId;
  if (action.state === "reconciling") out[YADA_ACTION_ATTEMPTS] = action.attempts;
  return out;
}

/** `yada.action.state` of what a move returned, when it is a record; with `outcomes`, a failed or unknown outcome is the span's error. */
function endState(span: TraceSpan, value: unknown, outcomes = false): void {
  const state = (value as { state?: unknown } | undefined)?.state;
  if (typeof state !== "string") return;
  span.setAttribute(YADA_ACTION_STATE, state);
  if (outcomes && (state === "failed" || state === "outcome_unknown")) markError(span, state);
}

/**
 * `move`, something done to `action`, inside span `op {tool}` of `kind`, linked to
 * the action's proposal; it ends with the state of the record `move` returns. With
 * `outcomes` (a worker's execution), an action that ended `failed` or
 * `outcome_unknown` makes the span an error of that type.
 */
export function tracedMove<T>(trace: Trace | undefined, op: string, kind: number, action: ActionRecord, move: () => Promise<T>, outcomes = false): Promise<T> {
  if (!trace) return move();
  return inSpan(trace, spanName(op, action.tool), { kind, attributes: actionAttributes(action), links: proposalLinks(action) }, move, (span, value) => endState(span, value, outcomes));
}

/**
 * Records a proposal inside its `propose_action {tool}` span (kind producer): `create`
 * gets the span's `traceparent` to keep on the record, which every later span of the
 * action links to.
 */
export function tracedProposal(trace: Trace | undefined, record: ActionRecord, create: (traceparent: string | undefined) => Promise<ActionRecord>): Promise<ActionRecord> {
  if (!trace) return create(undefined);
  return inSpan(trace, spanName(SPAN_PROPOSE, record.tool), { kind: KIND_PRODUCER, attributes: actionAttributes(record) }, (span) => {
    let traceparent: string | undefined;
    quietly(() => (traceparent = traceparentOf(span)));
    return create(traceparent);
  }, (span, value) => endState(span, value));
}

/** One `resume_action {tool}` span (kind internal) per action a resumed run read back, linked to its proposal. */
export async function tracedResume(trace: Trace | undefined, actions: readonly ActionRecord[]): Promise<void> {
  for (const a of actions) await tracedMove(trace, SPAN_RESUME, KIND_INTERNAL, a, async () => a);
}
