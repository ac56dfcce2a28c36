// What the fault loops of fixtures/actions (fault-loop.mjs, do-fault-loop.mjs, file-fault-loop.mjs) report (W9, W12).

/** A fault loop's figures: kills, sends, final states and the judge's counts. */
export interface FaultLoopResult {
  actions: number;
  kills: number;
  settled: boolean;
  /** The file store's loop: its last worker stopped within its grace after SIGTERM. */
  stoppedCleanly?: boolean;
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
  /** Settled by a reconcile window (a person looks at each), and how many of them the server performed. */
  outcomeUnknown?: number;
  unknownPerformed?: number;
  /** With `transport: "http-faults"` or the file store's stdio loop: server kills; how each uncertain action settled. */
  serverKills?: number;
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
