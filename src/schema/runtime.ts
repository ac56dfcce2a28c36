/**
 * What keyword closures share at validation time: issue reporting (paths are
 * built only when an issue is recorded, never on the success path) and the
 * guarded steps into a child instance or an in-place subschema that keep the
 * call stack and the work per validation bounded.
 *
 * @module
 */
import { LimitError, type ValidationIssue } from "../errors.js";
import {
  MAX_INSTANCE_DEPTH,
  MAX_SCHEMA_EVAL_NESTING,
  MAX_SCHEMA_ISSUES,
  MAX_SCHEMA_REF_EXPANSIONS,
} from "../limits.js";
import { tooDeep } from "./equal.js";
import { overBudget } from "./program.js";
import { escapeToken } from "./refs.js";
import type { Ctx, Evaluated, Key, SchemaNode } from "./types.js";

/** Thrown when enough issues were collected; caught by the validate entry point. */
export const STOP_COLLECTING: unique symbol = Symbol("stop collecting");

/** The instance path segment of a key. */
function segment(k: Key): string {
  return typeof k === "object" ? k.seg : "/" + escapeToken(k);
}

/**
 * Records an issue at the current instance location (plus `key`), returns false.
 * On the fast pass it only notes the failure; {@link descend} adds the instance
 * path segments as the failure unwinds, so nothing is built unless it is kept.
 */
export function report(ctx: Ctx, schemaPath: string, message: string, key?: string | number): false {
  const errs = ctx.errs;
  if (errs === null) {
    ctx.failAt = schemaPath;
    ctx.failMessage = message;
    ctx.failKey = key;
    ctx.trailLength = 0;
    return false;
  }
  let p = "";
  for (const s of ctx.path) p += segment(s);
  if (key !== undefined) p += "/" + escapeToken(key);
  errs.push({ instancePath: p, schemaPath, message });
  if (errs.length >= MAX_SCHEMA_ISSUES) throw STOP_COLLECTING;
  return false;
}

/** The failure the fast pass reported last, as an issue (the one that made the instance invalid). */
export function lastFailure(ctx: Ctx): ValidationIssue {
  let p = "";
  for (let i = ctx.trailLength - 1; i >= 0; i--) p += segment(ctx.trail[i] as Key);
  if (ctx.failKey !== undefined) p += "/" + escapeToken(ctx.failKey);
  return { instancePath: p, schemaPath: ctx.failAt, message: ctx.failMessage };
}

function tooNested(): LimitError {
  return new LimitError(
    "MAX_SCHEMA_EVAL_NESTING",
    MAX_SCHEMA_EVAL_NESTING,
    `schema evaluation nested deeper than ${MAX_SCHEMA_EVAL_NESTING} levels (recursive $ref?)`,
  );
}

/** Takes `units` from the validation's work budget (Y1). @throws LimitError (`MAX_SCHEMA_WORK`). */
export function spend(ctx: Ctx, units: number): void {
  if ((ctx.work -= units) < 0) throw overBudget();
}

/**
 * Validates a child instance (`key` of the current one) against `node`. One work
 * unit (Y1). A key may come as its path segment, escaped in advance (`{ seg }`).
 */
export function descend(node: SchemaNode, value: unknown, key: Key, ctx: Ctx): boolean {
  if (--ctx.work < 0) throw overBudget();
  if (++ctx.depth > MAX_INSTANCE_DEPTH) throw tooDeep();
  if (++ctx.nest > MAX_SCHEMA_EVAL_NESTING) throw tooNested();
  let ok: boolean;
  if (ctx.errs === null) {
    ok = node.v(value, ctx, null);
    // Unwinding a failure: its innermost report reset the trail (so it stays within the depth bound).
    if (!ok) ctx.trail[ctx.trailLength++] = key;
  } else {
    ctx.path.push(key);
    ok = node.v(value, ctx, null);
    ctx.path.pop();
  }
  ctx.depth--;
  ctx.nest--;
  return ok;
}

/**
 * May a child be accepted by an inline test (see `simpleType`) instead of a
 * {@link descend}? Only below the nesting bounds, so a bound is hit exactly where
 * descending would hit it.
 */
export function inlineOk(ctx: Ctx): boolean {
  return ctx.depth < MAX_INSTANCE_DEPTH && ctx.nest < MAX_SCHEMA_EVAL_NESTING;
}

/** Validates the current instance against an in-place subschema (allOf, then, ...). One work unit (Y1). */
export function apply(node: SchemaNode, inst: unknown, ctx: Ctx, ev: Evaluated | null): boolean {
  if (--ctx.work < 0) throw overBudget();
  if (++ctx.nest > MAX_SCHEMA_EVAL_NESTING) throw tooNested();
  const ok = node.v(inst, ctx, ev);
  ctx.nest--;
  return ok;
}

/** {@link apply} without collecting issues: for anyOf, oneOf, not, if, contains. */
export function probe(node: SchemaNode, inst: unknown, ctx: Ctx, ev: Evaluated | null): boolean {
  const errs = ctx.errs;
  if (errs === null) return apply(node, inst, ctx, ev);
  ctx.errs = null;
  try {
    return apply(node, inst, ctx, ev);
  } finally {
    ctx.errs = errs;
  }
}

/** {@link descend} without collecting issues. */
export function probeChild(node: SchemaNode, value: unknown, ctx: Ctx): boolean {
  const errs = ctx.errs;
  if (errs === null) return descend(node, value, 0, ctx);
  ctx.errs = null;
  try {
    return descend(node, value, 0, ctx);
  } finally {
    ctx.errs = errs;
  }
}

/** Follows a `$ref` to `node`, entering its resource in the dynamic scope when tracked. */
export function follow(node: SchemaNode, inst: unknown, ctx: Ctx, ev: Evaluated | null): boolean {
  if (--ctx.work < 0) throw overBudget();
  if (++ctx.refs > MAX_SCHEMA_REF_EXPANSIONS) {
    throw new LimitError(
      "MAX_SCHEMA_REF_EXPANSIONS",
      MAX_SCHEMA_REF_EXPANSIONS,
      `more than ${MAX_SCHEMA_REF_EXPANSIONS} $ref expansions in one validation`,
    );
  }
  if (++ctx.nest > MAX_SCHEMA_EVAL_NESTING) throw tooNested();
  const scope = ctx.scope;
  let ok: boolean;
  if (scope === null) ok = node.v(inst, ctx, ev);
  else {
    scope.push(node.resource);
    ok = node.v(inst, ctx, ev);
    scope.pop();
  }
  ctx.nest--;
  return ok;
}
