/**
 * Object keywords: properties, patternProperties, additionalProperties,
 * required, propertyNames, min/maxProperties, dependencies (draft 7),
 * dependentRequired, dependentSchemas, unevaluatedProperties (2020-12 core
 * §10.3.2, §11.3; validation §6.5). Instance keys are read with Object.hasOwn
 * only, so `__proto__` or `constructor` in data are plain names.
 *
 * @module
 */
import { OBJECT, simpleType, typeIs, type Build } from "./build.js";
import { isRec } from "../util/record.js";
import { compileRegex } from "./pattern.js";
import type { LinearRegex } from "./regex.js";
import { apply, descend, inlineOk, ownOnly, probeChild, report } from "./runtime.js";
import type { Evaluated, SchemaNode } from "./types.js";

type Obj = Record<string, unknown>;

function mark(ev: Evaluated, key: string): void {
  if (ev.allProps) return;
  if (ev.props === null) ev.props = new Set();
  ev.props.add(key);
}

function patternsOf(b: Build): [LinearRegex, SchemaNode][] {
  return b.map("patternProperties").map(([src, node]) => [compileRegex(src, b.at("patternProperties", src)), node]);
}

interface PropEntry {
  readonly node: SchemaNode;
  readonly required: boolean;
  /** {@link simpleType} of the property schema: tested inline, the node runs only on a mismatch. */
  readonly simple: number;
}

/**
 * properties, patternProperties and additionalProperties in one pass over the
 * instance's keys; `required` names that `properties` also lists are counted in
 * the same pass, so the common tool schema costs one hash lookup per key.
 * Returns whether `required` was handled here.
 */
function objectPass(b: Build, required: readonly string[] | null): boolean {
  const entries = b.has("properties") ? b.map("properties") : [];
  const reqSet = new Set(required ?? []);
  const absorbs = required !== null && entries.length > 0 && [...reqSet].every((k) => entries.some((e) => e[0] === k));
  const rawProps = b.get("properties") as Obj;
  // A prototype-less table: a keyed load is cheaper than a Map lookup, and
  // instance keys such as "__proto__" or "constructor" find nothing inherited.
  const props = Object.create(null) as Record<string, PropEntry | undefined>;
  for (const [k, node] of entries) props[k] = { node, required: absorbs && reqSet.has(k), simple: simpleType(rawProps[k], b.place) };
  const nReq = absorbs ? reqSet.size : 0;
  const reqNames = [...reqSet];
  const reqMsgs = reqNames.map((k) => `must have required property '${k}'`);
  const reqAt = b.at("required");
  const pats = b.has("patternProperties") ? patternsOf(b) : [];
  const nPats = pats.length;
  const extra = b.has("additionalProperties") ? b.one("additionalProperties") : null;
  const never = b.get("additionalProperties") === false;
  const extraAt = b.at("additionalProperties");
  if (entries.length === 0 && nPats === 0 && extra === null) return false;
  b.add(OBJECT, (inst, ctx, ev) => {
    const o = inst as Obj;
    let ok = true;
    let seen = 0;
    // for-in skips the per-key hasOwn when it can only yield own keys (see ownOnly).
    const own = ownOnly(o, ctx);
    const inline = inlineOk(ctx);
    for (const k in o) {
      if (!own && !Object.hasOwn(o, k)) continue;
      const e = props[k];
      let matched = e !== undefined;
      if (e !== undefined) {
        if (e.required) seen++;
        if (ev !== null) mark(ev, k);
        const v = o[k];
        if (!(inline && typeIs(e.simple, v)) && !descend(e.node, v, k, ctx)) {
          if (ctx.errs === null) return false;
          ok = false;
        }
      }
      for (let i = 0; i < nPats; i++) {
        const [re, node] = pats[i] as [LinearRegex, SchemaNode];
        if (!re.test(k)) continue;
        matched = true;
        if (ev !== null) mark(ev, k);
        if (!descend(node, o[k], k, ctx)) {
          if (ctx.errs === null) return false;
          ok = false;
        }
      }
      if (matched || extra === null) continue;
      if (!(never ? report(ctx, extraAt, "must not have additional properties", k) : descend(extra, o[k], k, ctx))) {
        if (ctx.errs === null) return false;
        ok = false;
      }
    }
    if (seen < nReq) {
      for (let i = 0; i < reqNames.length; i++) {
        if (Object.hasOwn(o, reqNames[i] as string)) continue;
        report(ctx, reqAt, reqMsgs[i] as string);
        if (ctx.errs === null) return false;
      }
      ok = false;
    }
    // additionalProperties evaluates every remaining property (2020-12 core §10.3.2.3).
    if (ev !== null && extra !== null) ev.allProps = true;
    return ok;
  });
  return absorbs;
}

function requiredCheck(b: Build, kw: string, names: readonly string[]): void {
  const at = b.at(kw);
  const msgs = names.map((k) => `must have required property '${k}'`);
  b.add(OBJECT, (inst, ctx) => {
    const o = inst as Obj;
    let ok = true;
    for (let i = 0; i < names.length; i++) {
      if (Object.hasOwn(o, names[i] as string)) continue;
      report(ctx, at, msgs[i] as string);
      if (ctx.errs === null) return false;
      ok = false;
    }
    return ok;
  });
}

function propertyNamesCheck(b: Build): void {
  const node = b.one("propertyNames");
  const at = b.at("propertyNames");
  b.add(OBJECT, (inst, ctx) => {
    let ok = true;
    for (const k of Object.keys(inst as Obj)) {
      if (probeChild(node, k, ctx)) continue;
      report(ctx, at, "property name must match the propertyNames schema", k);
      if (ctx.errs === null) return false;
      ok = false;
    }
    return ok;
  });
}

function countProps(o: Obj): number {
  let n = 0;
  for (const k in o) if (Object.hasOwn(o, k)) n++;
  return n;
}

function sizeChecks(b: Build): void {
  if (b.has("maxProperties")) {
    const max = b.get("maxProperties") as number;
    const at = b.at("maxProperties");
    const msg = `must have at most ${max} properties`;
    b.add(OBJECT, (inst, ctx) => countProps(inst as Obj) <= max || report(ctx, at, msg));
  }
  if (b.has("minProperties")) {
    const min = b.get("minProperties") as number;
    const at = b.at("minProperties");
    const msg = `must have at least ${min} properties`;
    b.add(OBJECT, (inst, ctx) => countProps(inst as Obj) >= min || report(ctx, at, msg));
  }
}

/** `dependencies` (draft 7 §6.5.7) splits into the two 2019-09 keywords. */
function dependencyChecks(b: Build, kw: string, allowNames: boolean, allowSchemas: boolean): void {
  const deps = b.get(kw) as Obj;
  for (const key of Object.keys(deps)) {
    const d = deps[key];
    if (Array.isArray(d) && allowNames) {
      const names = d as string[];
      const at = b.at(kw, key);
      b.add(OBJECT, (inst, ctx) => {
        const o = inst as Obj;
        if (!Object.hasOwn(o, key)) return true;
        let ok = true;
        for (const n of names) {
          if (Object.hasOwn(o, n)) continue;
          report(ctx, at, `must have property '${n}' when property '${key}' is present`);
          if (ctx.errs === null) return false;
          ok = false;
        }
        return ok;
      });
    } else {
      const node = b.child(d, kw, key);
      b.add(OBJECT, (inst, ctx, ev) => !Object.hasOwn(inst as Obj, key) || apply(node, inst, ctx, ev));
    }
  }
}

/** Adds the object keywords present in `b`, except unevaluatedProperties. */
export function addObjectKeywords(b: Build): void {
  const required = b.has("required") ? (b.get("required") as string[]) : null;
  if (!objectPass(b, required) && required !== null) requiredCheck(b, "required", required);
  if (b.has("propertyNames")) propertyNamesCheck(b);
  sizeChecks(b);
  if (b.has("dependentRequired")) dependencyChecks(b, "dependentRequired", true, false);
  if (b.has("dependentSchemas")) dependencyChecks(b, "dependentSchemas", false, true);
  // Kept in 2020-12 too: older MCP servers still emit it, and it only ever adds checks.
  if (b.has("dependencies")) dependencyChecks(b, "dependencies", true, true);
}

/** unevaluatedProperties (2020-12 core §11.3): runs last, after every annotation is in. */
export function addUnevaluatedProperties(b: Build): void {
  const node = b.one("unevaluatedProperties");
  const at = b.at("unevaluatedProperties");
  const never = b.get("unevaluatedProperties") === false;
  b.tracked = true;
  b.add(OBJECT, (inst, ctx, ev) => {
    const seen = ev as Evaluated;
    if (seen.allProps) return true;
    const o = inst as Obj;
    let ok = true;
    for (const k of Object.keys(o)) {
      if (seen.props !== null && seen.props.has(k)) continue;
      if (!(never ? report(ctx, at, "must not have unevaluated properties", k) : descend(node, o[k], k, ctx))) {
        if (ctx.errs === null) return false;
        ok = false;
      }
    }
    seen.allProps = true;
    return ok;
  });
}
