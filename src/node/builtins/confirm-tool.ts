/**
 * What the writing built-ins (R5) share as confirm tools (W7): a version over
 * the tool's name, input schema and configuration (roots, allowed commands),
 * `prepare` that checks the arguments and returns a preview for the approver,
 * and `execute` that runs an approved action at most once: a second execute of
 * the same operation gets the first one's outcome, never a second run.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { ValidationError } from "../../errors.js";
import { MAX_BUILTIN_OUTCOMES_KEPT } from "../../limits.js";
import { canonicalKey } from "../../schema/equal.js";
import type { ActionOutcome, ApprovedAction, ConfirmTool, JsonSchemaObject, PreparedAction, ToolCallContext } from "../../tools/types.js";
import { failure, refusal } from "./output.js";
import { PathRefused } from "./roots.js";

/** A checked plan: the arguments to record, what the approver reads, and the state the plan was made on. */
export interface Plan {
  arguments: Record<string, unknown>;
  preview: string;
  /** The state the plan saw (a file's content hash): execute refuses to act on another. */
  stateVersion?: string;
}

/** How one writing built-in plans and performs. */
export interface BuiltinSpec {
  name: string;
  description: string;
  inputSchema: JsonSchemaObject;
  /** What else the approval covers (roots, allowed commands). */
  config: unknown;
  /** Checks model arguments and plans. @throws PathRefused for arguments to refuse. */
  plan(args: unknown): Promise<Plan>;
  /** Performs an approved plan (its arguments re-checked). Failures the approver should see are `failed` outcomes. */
  perform(action: ApprovedAction, context: ToolCallContext): Promise<ActionOutcome>;
}

/** `confirm:<sha-256>` of the tool name, input schema and configuration, as canonical JSON. */
export function builtinVersion(spec: Pick<BuiltinSpec, "name" | "inputSchema" | "config">): string {
  const key = canonicalKey({ tool: spec.name, inputSchema: spec.inputSchema, config: spec.config });
  return `confirm:${createHash("sha256").update(key).digest("hex")}`;
}

/** A failed outcome with `message` as the error result the model sees. */
export function failed(message: string): ActionOutcome {
  return { status: "failed", result: failure(message) };
}

/** A frozen confirm tool for `spec`. */
export function builtinConfirmTool(spec: BuiltinSpec): ConfirmTool {
  const version = builtinVersion(spec);
  // Outcomes by operation id (the oldest forgotten past the bound): execute runs once.
  const outcomes = new Map<string, Promise<ActionOutcome>>();
  const run = async (action: ApprovedAction, context: ToolCallContext): Promise<ActionOutcome> => {
    if (action.tool !== spec.name || action.version !== version) {
      return failed(`${spec.name}: the approved action is for another tool or version; nothing was done`);
    }
    try {
      return await spec.perform(action, context);
    } catch (e) {
      return { status: "failed", result: refusal(e) };
    }
  };
  return Object.freeze({
    effect: "confirm" as const,
    name: spec.name,
    description: spec.description,
    inputSchema: spec.inputSchema,
    version,
    async prepare(args: unknown): Promise<PreparedAction> {
      let plan: Plan;
      try {
        plan = await spec.plan(args);
      } catch (e) {
        if (e instanceof PathRefused) throw new ValidationError(`${spec.name}: ${e.message}`);
        throw new ValidationError(`${spec.name}: ${refusal(e).content.map((p) => (p.type === "text" ? p.text : "")).join("")}`);
      }
      const prepared: PreparedAction = { tool: spec.name, version, arguments: plan.arguments, preview: plan.preview };
      if (plan.stateVersion !== undefined) prepared.stateVersion = plan.stateVersion;
      return prepared;
    },
    execute(action: ApprovedAction, context: ToolCallContext): Promise<ActionOutcome> {
      const id = typeof action?.operationId === "string" ? action.operationId : "";
      const known = outcomes.get(id);
      if (known !== undefined) return known;
      const outcome = run(action, context);
      if (id !== "") {
        if (outcomes.size >= MAX_BUILTIN_OUTCOMES_KEPT) outcomes.delete(outcomes.keys().next().value as string);
        outcomes.set(id, outcome);
      }
      return outcome;
    },
  });
}
