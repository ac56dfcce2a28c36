// What the fault loops of fixtures/actions (fault-loop.mjs, do-fault-loop.mjs) report (W9, W12).

/** A fault loop's figures: kills, sends, final states and the judge's counts. */
export interface FaultLoopResult {
  actions: number;
  kills: number;
  settled: boolean;
  seconds: number;
  /** Execute requests the server logged for the loop's actions (repeated operation ids included). */
  sends: number;
  succeeded: number;
  failed: number;
  reconcilingUnsent: number;
  otherStates: number;
  duplicates: number;
  secondSends: number;
  lost: number;
  reconciled: number;
  reconciledBySecondSend: number;
  /** With `transport: "http-faults"`: server kills, proxy-counted sends and how each uncertain action settled. */
  serverKills?: number;
  outcomeUnknown?: number;
  notSentThenSent?: number;
  notSentThenSucceeded?: number;
  attentionCalls?: number;
  attentionTwice?: number;
  expiring?: number;
  expired?: number;
  expiredPerformed?: number;
  lateApprovals?: number;
  lateApprovalsRefused?: number;
  plans?: Record<string, number>;
}

/** A Durable Object loop's figures: workerd kills, and how many landed while a send was in flight. */
export interface DoFaultLoopResult extends FaultLoopResult {
  killsDuringSend: number;
}

/** Runs a loop of fixtures/actions with its options. */
export type RunLoop<R> = (o: Record<string, unknown>) => Promise<R>;
