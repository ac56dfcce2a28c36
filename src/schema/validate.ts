/**
 * A compiled schema and its two entry points. Validation runs a fast boolean
 * pass first (no paths, no allocations on success); only when it fails does a
 * second pass collect issues with their paths.
 *
 * @module
 */
import { ValidationError, type ValidationIssue } from "../errors.js";
import { MAX_SCHEMA_ISSUES } from "../limits.js";
import type { IndexedResource } from "./refs.js";
import { hasCleanPrototype, STOP_COLLECTING } from "./runtime.js";
import type { Ctx, SchemaNode } from "./types.js";

/** What {@link CompiledSchema.validate} returns. */
export type ValidationResult = { valid: true } | { valid: false; issues: ValidationIssue[] };

const VALID: ValidationResult = Object.freeze({ valid: true });

/**
 * A schema compiled by {@link compileSchema}; reusable and cheap to call. Not
 * meant to be constructed directly.
 */
export class CompiledSchema {
  readonly #node: SchemaNode;
  readonly #root: IndexedResource;
  readonly #dynamic: boolean;
  readonly #ctx: Ctx = { errs: null, path: [], depth: 0, nest: 0, refs: 0, scope: null, cleanProto: true, maxIssues: MAX_SCHEMA_ISSUES };

  /** @internal Use {@link compileSchema}. */
  constructor(node: SchemaNode, root: IndexedResource, usesDynamic: boolean) {
    this.#node = node;
    this.#root = root;
    this.#dynamic = usesDynamic;
  }

  #reset(errs: ValidationIssue[] | null): Ctx {
    const ctx = this.#ctx;
    ctx.errs = errs;
    if (ctx.path.length !== 0) ctx.path.length = 0;
    ctx.depth = 0;
    ctx.nest = 0;
    ctx.refs = 0;
    // 2020-12 core §7.1: the dynamic scope starts at the root resource.
    if (this.#dynamic) ctx.scope = [this.#root];
    ctx.cleanProto = hasCleanPrototype();
    return ctx;
  }

  /**
   * Validates `instance` (a JSON value). Issues carry the instance path and the
   * schema path as JSON pointers and a short message; never an instance value.
   * At most `MAX_SCHEMA_ISSUES` issues are collected.
   *
   * @throws LimitError (code `limit`) when the instance nests deeper than
   *   `MAX_INSTANCE_DEPTH`, or evaluation exceeds `MAX_SCHEMA_EVAL_NESTING` or
   *   `MAX_SCHEMA_REF_EXPANSIONS` (for example a `{"$ref": "#"}` loop).
   *
   * @example
   * ```ts
   * const r = compileSchema({ type: "string" }).validate(42);
   * if (!r.valid) console.log(r.issues[0]); // { instancePath: "", schemaPath: "/type", message: "must be string" }
   * ```
   */
  validate(instance: unknown): ValidationResult {
    if (this.#node.v(instance, this.#reset(null), null)) return VALID;
    const issues: ValidationIssue[] = [];
    const ctx = this.#reset(issues);
    try {
      this.#node.v(instance, ctx, null);
    } catch (e) {
      if (e !== STOP_COLLECTING) throw e;
    } finally {
      ctx.errs = null;
    }
    if (issues.length === 0) issues.push({ instancePath: "", schemaPath: "", message: "does not match the schema" });
    return { valid: false, issues };
  }

  /**
   * Validates `instance` and throws when it does not match. `what` names the
   * value in the message (e.g. `"arguments of tool create_issue"`); the message
   * cites the first issue's paths, never an instance value.
   *
   * @throws ValidationError (code `validation`) carrying every collected issue.
   * @throws LimitError (code `limit`) as {@link CompiledSchema.validate} does.
   *
   * @example
   * ```ts
   * compileSchema({ type: "object", required: ["q"] }).assert({}, "search arguments");
   * // ValidationError: search arguments failed schema validation: must have required property 'q'
   * //   (instance path "", schema path "/required")
   * ```
   */
  assert(instance: unknown, what: string): void {
    const r = this.validate(instance);
    if (r.valid) return;
    const first = r.issues[0];
    const more = r.issues.length > 1 ? ` (+${r.issues.length - 1} more)` : "";
    const detail =
      first === undefined
        ? ""
        : `: ${first.message} (instance path "${first.instancePath}", schema path "${first.schemaPath}")`;
    throw new ValidationError(`${what} failed schema validation${detail}${more}`, r.issues);
  }
}
