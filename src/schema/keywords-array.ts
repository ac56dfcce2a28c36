/**
 * Array keywords: prefixItems, items (schema and draft 7 array form),
 * additionalItems, contains with min/maxContains, min/maxItems, uniqueItems,
 * unevaluatedItems (2020-12 core §10.3.1, §11.2; validation §6.4; draft 7
 * validation §6.4).
 *
 * @module
 */
import { ARRAY, simpleOk, simpleType, type Build } from "./build.js";
import { canonicalKey } from "./equal.js";
import { overBudget } from "./program.js";
import { descend, inlineOk, probeChild, spend } from "./runtime.js";
import type { Evaluated, SchemaNode } from "./types.js";

type Arr = unknown[];

/** Items at indices below `nodes.length` each against their own schema. */
function tupleCheck(b: Build, nodes: SchemaNode[]): void {
  b.add(ARRAY, (inst, ctx, ev) => {
    const a = inst as Arr;
    const n = Math.min(a.length, nodes.length);
    let ok = true;
    for (let i = 0; i < n; i++) {
      if (!descend(nodes[i] as SchemaNode, a[i], i, ctx)) {
        if (ctx.errs === null) return false;
        ok = false;
      }
    }
    if (ev !== null && n > ev.items) ev.items = n;
    return ok;
  });
}

/**
 * Items from index `from` on against one schema. `sized`: maxItems and minItems
 * are checked here too, after the items (their order as separate keywords), and
 * with `type: "array"` the closure tests the type and may stand for the whole
 * subschema (see `assemble`).
 */
function restCheck(b: Build, kw: string, from: number, sized: boolean): void {
  const node = b.one(kw);
  const fail = b.fail(kw, "must not have more items");
  const never = b.get(kw) === false;
  const simple = simpleType(b.get(kw), b.place);
  const max = sized && b.has("maxItems") ? (b.get("maxItems") as number) : Infinity;
  const min = sized && b.has("minItems") ? (b.get("minItems") as number) : 0;
  const failMax = b.fail("maxItems", `must have at most ${max} items`);
  const failMin = b.fail("minItems", `must have at least ${min} items`);
  const typeOk = sized && b.typeCode === 7 ? b.typeOk : null;
  if (typeOk !== null) b.selfTyped = true;
  b.add(ARRAY, (inst, ctx, ev) => {
    if (typeOk !== null && !Array.isArray(inst)) return typeOk(inst, ctx, ev);
    const a = inst as Arr;
    let ok = true;
    const inline = simple !== 0 && inlineOk(ctx);
    // A unit per item walked (Y1), taken up front.
    if ((ctx.work -= a.length - from) < 0) throw overBudget();
    for (let i = from; i < a.length; i++) {
      if (inline && simpleOk(simple, a[i], ctx)) continue;
      if (!(never ? fail(ctx, i) : descend(node, a[i], i, ctx))) {
        if (ctx.errs === null) return false;
        ok = false;
      }
    }
    if (ev !== null) ev.allItems = true;
    if (a.length > max && !failMax(ctx)) {
      if (ctx.errs === null) return false;
      ok = false;
    }
    return (a.length >= min || failMin(ctx)) && ok;
  });
}

/** Adds the item keywords; returns whether maxItems and minItems were added with them. */
function itemsChecks(b: Build): boolean {
  const items = b.get("items");
  const legacy = b.dialect === "draft-07";
  if (!legacy && b.has("prefixItems")) {
    const prefix = b.many("prefixItems");
    tupleCheck(b, prefix);
    if (b.has("items")) restCheck(b, "items", prefix.length, false);
    return false;
  }
  if (!b.has("items")) return false;
  // The array form is draft 7's tuple; 2020-12 schemas from older generators still
  // use it, so it keeps that meaning there too (2020-12 has no array form).
  if (Array.isArray(items)) {
    const tuple = items.length === 0 ? [] : b.many("items");
    tupleCheck(b, tuple);
    if (b.has("additionalItems")) restCheck(b, "additionalItems", tuple.length, false);
    return false;
  }
  // With `contains`, which runs between the items and the counts, the counts stay apart.
  const sized = !b.has("contains");
  restCheck(b, "items", 0, sized);
  return sized;
}

function containsCheck(b: Build): void {
  const node = b.one("contains");
  const modern = b.dialect !== "draft-07";
  const min = modern && b.has("minContains") ? (b.get("minContains") as number) : 1;
  const max = modern && b.has("maxContains") ? (b.get("maxContains") as number) : Infinity;
  const tooFew = b.fail(
    min === 1 && !(modern && b.has("minContains")) ? "contains" : "minContains",
    `must contain at least ${min} matching item${min === 1 ? "" : "s"}`,
  );
  const tooMany = b.fail("maxContains", `must contain at most ${max} matching items`);
  b.add(ARRAY, (inst, ctx, ev) => {
    const a = inst as Arr;
    let found = 0;
    const all = ev !== null || max !== Infinity;
    for (let i = 0; i < a.length; i++) {
      if (!probeChild(node, a[i], ctx)) continue;
      found++;
      if (ev !== null) (ev.itemSet ??= new Set()).add(i);
      if (!all && found >= min) return true;
    }
    return found < min ? tooFew(ctx) : found <= max || tooMany(ctx);
  });
}

function sizeChecks(b: Build): void {
  if (b.has("maxItems")) {
    const max = b.get("maxItems") as number;
    const fail = b.fail("maxItems", `must have at most ${max} items`);
    b.add(ARRAY, (inst, ctx) => (inst as Arr).length <= max || fail(ctx));
  }
  if (b.has("minItems")) {
    const min = b.get("minItems") as number;
    const fail = b.fail("minItems", `must have at least ${min} items`);
    b.add(ARRAY, (inst, ctx) => (inst as Arr).length >= min || fail(ctx));
  }
}

/** Arrays up to this length are checked for duplicates pairwise. */
const SMALL = 16;

function uniqueCheck(b: Build): void {
  if (b.get("uniqueItems") !== true) return;
  const fail = b.fail("uniqueItems", "must not have duplicate items");
  b.add(ARRAY, (inst, ctx) => {
    const a = inst as Arr;
    if (a.length < 2) return true;
    spend(ctx, a.length);
    const small = a.length <= SMALL;
    // Primitives by SameValueZero (1 and 1.0 are one number in JS); objects and
    // arrays by a canonical key, so the check stays linear.
    let prims: Set<unknown> | null = null;
    let keys: Set<string> | null = null;
    for (let i = 0; i < a.length; i++) {
      const x = a[i];
      if (x === null || typeof x !== "object") {
        if (small) {
          // Few items: compare with the earlier ones in place, no allocation.
          for (let j = 0; j < i; j++) {
            const y = a[j];
            if (x === y || (x !== x && y !== y)) return fail(ctx, i);
          }
          continue;
        }
        prims ??= new Set();
        if (prims.has(x)) return fail(ctx, i);
        prims.add(x);
      } else {
        const k = canonicalKey(x);
        spend(ctx, k.length >> 4);
        keys ??= new Set();
        if (keys.has(k)) return fail(ctx, i);
        keys.add(k);
      }
    }
    return true;
  });
}

/** Adds the array keywords present in `b`, except unevaluatedItems. */
export function addArrayKeywords(b: Build): void {
  const sized = itemsChecks(b);
  if (b.has("contains")) containsCheck(b);
  if (!sized) sizeChecks(b);
  if (b.has("uniqueItems")) uniqueCheck(b);
}

/** unevaluatedItems (2020-12 core §11.2): runs last, after every annotation is in. */
export function addUnevaluatedItems(b: Build): void {
  const node = b.one("unevaluatedItems");
  const fail = b.fail("unevaluatedItems", "must not have unevaluated items");
  const never = b.get("unevaluatedItems") === false;
  b.tracked = true;
  b.add(ARRAY, (inst, ctx, ev) => {
    const seen = ev as Evaluated;
    if (seen.allItems) return true;
    const a = inst as Arr;
    let ok = true;
    spend(ctx, Math.max(0, a.length - seen.items));
    for (let i = seen.items; i < a.length; i++) {
      if (seen.itemSet !== null && seen.itemSet.has(i)) continue;
      if (!(never ? fail(ctx, i) : descend(node, a[i], i, ctx))) {
        if (ctx.errs === null) return false;
        ok = false;
      }
    }
    seen.allItems = true;
    return ok;
  });
}
