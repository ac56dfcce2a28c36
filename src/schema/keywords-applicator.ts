/**
 * In-place applicators: allOf, anyOf, oneOf, not, if/then/else, and the
 * references $ref, $dynamicRef (2020-12 core §8.2.3.2) and $recursiveRef
 * (2019-09 core §8.2.4.2). Branches whose failure is expected (anyOf, oneOf,
 * not, if) run without collecting issues and are reported as one issue.
 *
 * @module
 */
import { COMMON, type Build } from "./build.js";
import { apply, follow, probe, report, spend } from "./runtime.js";
import { mergeEvaluated, newEvaluated, type Check, type SchemaNode } from "./types.js";

function allOfCheck(b: Build): void {
  const nodes = b.many("allOf");
  b.add(COMMON, (inst, ctx, ev) => {
    let ok = true;
    for (let i = 0; i < nodes.length; i++) {
      if (!apply(nodes[i] as SchemaNode, inst, ctx, ev)) {
        if (ctx.errs === null) return false;
        ok = false;
      }
    }
    return ok;
  });
}

function anyOfCheck(b: Build): void {
  const nodes = b.many("anyOf");
  const fail = b.fail("anyOf", "must match at least one schema in anyOf");
  b.add(COMMON, (inst, ctx, ev) => {
    if (ev === null) {
      for (let i = 0; i < nodes.length; i++) if (probe(nodes[i] as SchemaNode, inst, ctx, null)) return true;
      return fail(ctx);
    }
    // Annotations are wanted: every passing branch contributes (2020-12 core §10.2.1.2).
    let any = false;
    for (let i = 0; i < nodes.length; i++) {
      const own = newEvaluated();
      if (probe(nodes[i] as SchemaNode, inst, ctx, own)) {
        spend(ctx, mergeEvaluated(ev, own));
        any = true;
      }
    }
    return any || fail(ctx);
  });
}

function oneOfCheck(b: Build): void {
  const nodes = b.many("oneOf");
  const at = b.at("oneOf");
  const message = "must match exactly one schema in oneOf";
  b.add(COMMON, (inst, ctx, ev) => {
    let passed = 0;
    let kept = null;
    for (let i = 0; i < nodes.length; i++) {
      const own = ev === null ? null : newEvaluated();
      if (!probe(nodes[i] as SchemaNode, inst, ctx, own)) continue;
      if (++passed > 1) return report(ctx, at, message + ", but matches several");
      kept = own;
    }
    if (passed === 0) return report(ctx, at, message);
    if (ev !== null && kept !== null) spend(ctx, mergeEvaluated(ev, kept));
    return true;
  });
}

function notCheck(b: Build): void {
  const node = b.one("not");
  const fail = b.fail("not", "must not match the schema in not");
  b.add(COMMON, (inst, ctx) => !probe(node, inst, ctx, null) || fail(ctx));
}

function conditionalCheck(b: Build): void {
  const cond = b.one("if");
  const then = b.has("then") ? b.one("then") : null;
  const otherwise = b.has("else") ? b.one("else") : null;
  b.add(COMMON, (inst, ctx, ev) => {
    // Without then / else, `if` matters only for the annotations it may add.
    if (ev === null && then === null && otherwise === null) return true;
    const own = ev === null ? null : newEvaluated();
    if (probe(cond, inst, ctx, own)) {
      if (ev !== null && own !== null) spend(ctx, mergeEvaluated(ev, own));
      return then === null || apply(then, inst, ctx, ev);
    }
    return otherwise === null || apply(otherwise, inst, ctx, ev);
  });
}

/**
 * The node reference keyword `kw` (`$ref`, `$dynamicRef`, `$recursiveRef`) of
 * `b` points to and, when the reference is dynamic, the anchor name it is
 * re-resolved by: only an anchor that is itself a `$dynamicAnchor` (or a
 * `$recursiveAnchor: true` root) makes it so. Resolved once per subschema (see
 * `CompilerHooks.targets`).
 */
export function reference(b: Build, kw: string): [SchemaNode, string | null] {
  const hooks = b.hooks;
  let known = hooks.targets.get(b.raw);
  if (known === undefined) hooks.targets.set(b.raw, (known = new Map()));
  let hit = known.get(kw);
  if (hit === undefined) {
    const target = hooks.index.resolve(b.get(kw) as string, b.place);
    const name = kw === "$dynamicRef" ? target.anchor : kw === "$recursiveRef" ? "" : null;
    hit = [hooks.node(target.raw, target.place), name !== null && target.place.res.dynamic.get(name) === target.raw ? name : null];
    known.set(kw, hit);
  }
  return hit;
}

/**
 * A reference that starts static but, when it lands on a dynamic anchor, is
 * re-resolved at run time to the outermost resource in the dynamic scope that
 * declares the same anchor.
 */
function dynamicCheck(b: Build, node: SchemaNode, name: string): Check {
  b.hooks.usesDynamic = true;
  return (inst, ctx, ev) => {
    let target = node;
    const scope = ctx.scope;
    if (scope !== null) {
      for (let i = 0; i < scope.length; i++) {
        const hit = (scope[i] as (typeof scope)[number]).dynamicNodes.get(name);
        if (hit !== undefined) {
          target = hit;
          break;
        }
      }
    }
    return follow(target, inst, ctx, ev);
  };
}

/** Adds the references present in `b` ($dynamicRef and $recursiveRef are not draft 7 keywords). */
export function addReferences(b: Build): void {
  for (const kw of ["$ref", "$dynamicRef", "$recursiveRef"]) {
    if (!b.has(kw) || (kw !== "$ref" && b.dialect === "draft-07")) continue;
    const [node, name] = reference(b, kw);
    b.add(COMMON, name === null ? (inst, ctx, ev) => follow(node, inst, ctx, ev) : dynamicCheck(b, node, name));
  }
}

/** Adds the in-place applicators present in `b`. */
export function addApplicators(b: Build): void {
  if (b.has("allOf")) allOfCheck(b);
  if (b.has("anyOf")) anyOfCheck(b);
  if (b.has("oneOf")) oneOfCheck(b);
  if (b.has("not")) notCheck(b);
  if (b.has("if")) conditionalCheck(b);
}
