/**
 * A compiled schema and its two entry points. Validation is one fast pass that
 * stops at the first failure (no paths, no allocations on success) and reports
 * that failure with its paths. Asked for every issue (`allIssues`), a failing
 * instance gets a second pass that collects up to `MAX_SCHEMA_ISSUES` of them.
 *
 * @module
 */
import { LimitError, ValidationError, type ValidationIssue } from "../errors.js";
import { MAX_SCHEMA_WORK } from "../limits.js";
import type { IndexedResource } from "./refs.js";
import { lastFailure, STOP_COLLECTING } from "./runtime.js";
import type { Ctx, SchemaNode } from "./types.js";

/** What {@link CompiledSchema.validate} returns. */
export type ValidationResult = { valid: true } | { valid: false; issues: ValidationIssue[] };

/** Options of {@link CompiledSchema.validate} and {@link CompiledSchema.assert}. */
export interface ValidateOptions {
  /**
   * Collect every issue (up to `MAX_SCHEMA_ISSUES`) instead of stopping at the
   * first one. Costs a second pass over an invalid instance. Default: the
   * `allIssues` option given to `compileSchema`, else false.
   */
  allIssues?: boolean;
}

const VALID: ValidationResult = Object.freeze({ valid: true });

/** The issue of a failure no keyword reported (none expected; kept so a result always has one). */
function noIssue(): ValidationIssue {
  return { instancePath: "", schemaPath: "", message: "does not match the schema" };
}

/**
 * A schema compiled by {@link compileSchema}; reusable and cheap to call. Not
 * meant to be constructed directly.
 */
export class CompiledSchema {
  readonly #node: SchemaNode;
  readonly #root: IndexedResource;
  readonly #dynamic: boolean;
  readonly #allIssues: boolean;
  readonly #ctx: Ctx = {
    errs: null,
    path: [],
    failAt: "",
    failMessage: "",
    failKey: undefined,
    trail: [],
    trailLength: 0,
    depth: 0,
    nest: 0,
    refs: 0,
    work: MAX_SCHEMA_WORK,
    scope: null,
  };

  /** Not for direct use: {@link compileSchema} makes one. */
  constructor(node: SchemaNode, root: IndexedResource, usesDynamic: boolean, allIssues = false) {
    this.#node = node;
    this.#root = root;
    this.#dynamic = usesDynamic;
    this.#allIssues = allIssues;
  }

  #reset(errs: ValidationIssue[] | null): Ctx {
    const ctx = this.#ctx;
    ctx.errs = errs;
    if (ctx.path.length !== 0) ctx.path.length = 0;
    ctx.failMessage = "";
    ctx.trailLength = 0;
    ctx.depth = 0;
    ctx.nest = 0;
    ctx.refs = 0;
    ctx.work = MAX_SCHEMA_WORK;
    // 2020-12 core §7.1: the dynamic scope starts at the root resource.
    if (this.#dynamic) ctx.scope = [this.#root];
    return ctx;
  }

  /**
   * Validates `instance` (a JSON value). Issues carry the instance path and the
   * schema path as JSON pointers and a short message; never an instance value.
   * By default validation stops at the first failing keyword and returns that
   * one issue; with `allIssues` it collects up to `MAX_SCHEMA_ISSUES` issues.
   *
   * @throws LimitError (code `limit`) when the instance nests deeper than
   *   `MAX_INSTANCE_DEPTH`, or evaluation exceeds `MAX_SCHEMA_EVAL_NESTING` or
   *   `MAX_SCHEMA_REF_EXPANSIONS` (for example a `{"$ref": "#"}` loop), or needs
   *   more than `MAX_SCHEMA_WORK` work units (subschema visits, keys and items
   *   walked, pattern steps): no schema holds the caller for more than a few
   *   tens of milliseconds, whatever its shape and the value's.
   *
   * @example
   * ```ts
   * const r = compileSchema({ type: "string" }).validate(42);
   * if (!r.valid) console.log(r.issues[0]); // { instancePath: "", schemaPath: "/type", message: "must be string" }
   * compileSchema({ items: { type: "string" } }).validate([1, 2], { allIssues: true }); // two issues
   * ```
   */
  validate(instance: unknown, options?: ValidateOptions): ValidationResult {
    const fast = this.#reset(null);
    if (this.#node.v(instance, fast, null)) return VALID;
    const first = fast.failMessage === "" ? noIssue() : lastFailure(fast);
    if (!(options?.allIssues ?? this.#allIssues)) return { valid: false, issues: [first] };
    const left = fast.work;
    const issues: ValidationIssue[] = [];
    const ctx = this.#reset(issues);
    // The collecting pass gets what the fast pass left of the budget (Y1); when it
    // runs out, the issue already found is the answer.
    ctx.work = left;
    try {
      this.#node.v(instance, ctx, null);
    } catch (e) {
      if (e instanceof LimitError && e.limit === "MAX_SCHEMA_WORK") return { valid: false, issues: [first] };
      if (e !== STOP_COLLECTING) throw e;
    } finally {
      ctx.errs = null;
    }
    if (issues.length === 0) issues.push(first);
    return { valid: false, issues };
  }

  /**
   * Validates `instance` and throws when it does not match. `what` names the
   * value in the message (e.g. `"arguments of tool create_issue"`); the message
   * cites the first issue's paths, never an instance value.
   *
   * @throws ValidationError (code `validation`) carrying the issues found (the
   *   first one, or up to `MAX_SCHEMA_ISSUES` with `allIssues`).
   * @throws LimitError (code `limit`) as {@link CompiledSchema.validate} does.
   *
   * @example
   * ```ts
   * compileSchema({ type: "object", required: ["q"] }).assert({}, "search arguments");
   * // ValidationError: search arguments failed schema validation: must have required property 'q'
   * //   (instance path "", schema path "/required")
   * ```
   */
  assert(instance: unknown, what: string, options?: ValidateOptions): void {
    const r = this.validate(instance, options);
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
