/**
 * The tool model the agent loop runs: every tool has an `effect`. A `"read"`
 * tool executes directly; `"write"` (contract-bound, W1–W6) and `"confirm"`
 * (one approval, at most once, W7) tools never execute inside a plain `run`: they
 * prepare an action that a host approves and a worker executes (W8).
 *
 * @module
 */

/** Who acts: comes from the host's authenticated backend, never from the model (T1). */
export interface Identity {
  /** The authenticated actor (user or service). */
  actorId: string;
  /** The tenant the actor acts in. */
  tenantId: string;
}

/**
 * The host's permission check, awaited on every invocation with the original
 * remote tool name (T4). Return `true` to allow.
 */
export type Authorize = (identity: Identity, toolName: string) => boolean | Promise<boolean>;

/** A JSON Schema object as given to a model provider. */
export type JsonSchemaObject = Record<string, unknown>;

/** A text part of a tool result. */
export interface TextPart {
  type: "text";
  text: string;
}
/** An image part of a tool result (base64), within the bounds of T7. */
export interface ImagePart {
  type: "image";
  mimeType: string;
  data: string;
}
/** One part of what a tool returns to the model. */
export type ToolResultPart = TextPart | ImagePart;

/** What a tool returns to the model. `isError` results go back with is_error (R4). */
export interface ToolResult {
  content: ToolResultPart[];
  isError: boolean;
}

/** Progress of a running tool (R2 tool execution update). */
export interface ToolUpdate {
  progress?: number;
  total?: number;
  message?: string;
}

/** What the agent loop passes to a tool call. */
export interface ToolCallContext {
  /** The caller; tools bound to an identity refuse any other (T1). */
  identity: Identity;
  /** Aborts the call (T10). */
  signal?: AbortSignal;
  /** Receives progress updates. */
  onUpdate?: (update: ToolUpdate) => void;
  /**
   * For an approved action's `execute` (W13): the tool calls it once, the moment it
   * hands the request to its transport (from then on the request may reach the
   * server). The worker starts recording the next action's `executing` only then, so
   * a worker that dies strands at most the one action it was sending. A tool that
   * never calls it is treated as sending until its `execute` settles.
   */
  onSent?: () => void;
}

/** What every tool has. */
export interface ToolBase {
  /** The name the model sees (for MCP tools `server__tool`, T2). */
  name: string;
  /** What the model reads about the tool (untrusted when it comes from a server). */
  description: string;
  /** JSON Schema of the arguments. */
  inputSchema: JsonSchemaObject;
}

/** A tool that only reads: the agent loop executes it directly. */
export interface ReadTool extends ToolBase {
  readonly effect: "read";
  /**
   * Runs the tool. Failures the model can react to come back as `isError` results;
   * it throws for cancellation and for failures of the caller or the connection
   * rather than of the call (for MCP tools: `unauthorized` identity, `stale_contract`,
   * `session_expired`, `connection_closed`).
   */
  execute(args: unknown, context: ToolCallContext): Promise<ToolResult>;
}

/** A prepared, not yet approved write: what a host shows a person (W8). */
export interface PreparedAction {
  /** The tool's model-facing name. */
  tool: string;
  /** The reviewed contract version the approval covers (W6, W7). */
  version: string;
  /** The validated arguments. */
  arguments: Record<string, unknown>;
  /** For contract writes: the state version the preparation returned (W3). */
  stateVersion?: string;
  /** For contract writes: the preparation's summary for the approver (untrusted text). */
  preview?: string;
}

/**
 * The outcome of executing or reconciling an approved action (W5).
 *
 * - `succeeded`: the server's definitive success; `result` is what the model sees.
 * - `failed`: definitive; `result` is an error result (`tool_failed` for a remote
 *   failure; `version_changed`, `unauthorized`, `validation` for a refusal before the send).
 * - `unknown`: the request may have reached the server and its outcome is not
 *   established (transport failure, timeout, malformed or non-strict answer, server
 *   error, status `unknown`): write tools reconcile by receipt, confirmed tools end
 *   `outcome_unknown`. Never sent again.
 *
 * `notSent: true` says no byte of the request can have reached the server (a
 * refusal before the send; a refused connection, a failed name lookup, a 401 / 403
 * challenge). Only then may the same operation be sent again (ACTIONS.md).
 */
export type ActionOutcome =
  | { status: "succeeded"; result: ToolResult }
  | { status: "failed"; result: ToolResult; notSent?: boolean }
  | { status: "unknown"; reason: string; notSent?: boolean };

/** An approved action handed to the worker. */
export interface ApprovedAction extends PreparedAction {
  /** Unique per action; the server's idempotency key (W2). */
  operationId: string;
}

/** A contract-bound write tool (W1–W6): prepare, execute once, reconcile by receipt. */
export interface WriteTool extends ToolBase {
  readonly effect: "write";
  /** Reviewed version plus the contract fingerprint (W6). */
  readonly version: string;
  /**
   * Checks identity, connection, cancellation, `authorize` for the mutation and the
   * preparation helper, and the arguments; then calls the helper and returns its
   * strict `{stateVersion, preview}` (W3, W4).
   *
   * @throws UnauthorizedError (`unauthorized`), ValidationError (`validation`),
   * LimitError (`limit`), ToolFailedError (`tool_failed`: the helper answered
   * `isError`), ContractError (`contract`: a non-strict envelope), and call errors.
   */
  prepare(args: unknown, context: ToolCallContext): Promise<PreparedAction>;
  /**
   * Sends the mutation once, with `operationId` and the approved `stateVersion` in
   * the envelope (W2, W4, W5). Throws only when nothing was sent; every later
   * failure is an outcome, an uncertain one `unknown`.
   */
  execute(action: ApprovedAction, context: ToolCallContext): Promise<ActionOutcome>;
  /**
   * Asks the receipt helper for the operation's outcome (W5); never sends the
   * mutation. A missing, ambiguous or non-strict answer is `unknown`.
   */
  reconcile(action: ApprovedAction, context: ToolCallContext): Promise<ActionOutcome>;
}

/** A mutating tool behind one approval, run at most once, never retried (W7). */
export interface ConfirmTool extends ToolBase {
  readonly effect: "confirm";
  /** Covers the tool name and input schema (W7). */
  readonly version: string;
  prepare(args: unknown, context: ToolCallContext): Promise<PreparedAction>;
  execute(action: ApprovedAction, context: ToolCallContext): Promise<ActionOutcome>;
}

/** Any tool the agent loop can be given. */
export type Tool = ReadTool | WriteTool | ConfirmTool;

/** The effects a tool can have. */
export type ToolEffect = Tool["effect"];
