/**
 * Object keywords: properties, patternProperties, additionalProperties,
 * required, propertyNames, min/maxProperties, dependencies (draft 7),
 * dependentRequired, dependentSchemas, unevaluatedProperties (2020-12 core
 * §10.3.2, §11.3; validation §6.5). Instance keys are read as own properties
 * only, so `__proto__` or `constructor` in data are plain names.
 *
 * @module
 */
import { OBJECT, simpleOk, simpleType, type Build } from "./build.js";
import { isRec } from "../util/record.js";
import { compileRegex } from "./pattern.js";
import type { LinearRegex } from "./regex.js";
import { overBudget } from "./program.js";
import { apply, descend, inlineOk, probeChild, report, spend } from "./runtime.js";
import { escapeToken } from "./refs.js";
import type { Ctx, Evaluated, SchemaNode } from "./types.js";

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
  /** 1 when `required` names it (counted by the walk), else 0. */
  readonly required: number;
  /** {@link simpleType} of the property schema: tested inline, the node runs only on a mismatch. */
  readonly simple: number;
  /** The instance path segment of the property, escaped once (a failure's path is built from it). */
  readonly seg: string;
}

/** Instance key positions whose last key and entry {@link objectPass} remembers. */
const MEMO = 16;

/**
 * properties, patternProperties and additionalProperties in one pass over the
 * instance's keys; `required` names that `properties` also lists are counted in
 * the same pass. The key at each position of the last instance walked is
 * remembered with its entry: instances of one shape cost a string comparison
 * per key instead of a hash lookup.
 * Returns whether `required` was handled here.
 */
function objectPass(b: Build, required: readonly string[] | null): boolean {
  if (!b.has("properties") && !b.has("patternProperties") && !b.has("additionalProperties")) return false;
  const entries = b.has("properties") ? b.map("properties") : [];
  const reqSet = new Set(required ?? []);
  const names = new Set(entries.map((e) => e[0]));
  const absorbs = required !== null && entries.length > 0 && [...reqSet].every((k) => names.has(k));
  const rawProps = b.get("properties") as Obj;
  // A prototype-less table: a keyed load is cheaper than a Map lookup, and
  // instance keys such as "__proto__" or "constructor" find nothing inherited.
  const props = Object.create(null) as Record<string, PropEntry | undefined>;
  for (const [k, node] of entries) {
    props[k] = { node, required: absorbs && reqSet.has(k) ? 1 : 0, simple: simpleType(rawProps[k], b.place), seg: "/" + escapeToken(k) };
  }
  // Filled in advance with a key and its entry, so the comparison only ever meets
  // strings (V8 then compares internalized keys by identity, inline).
  const memoKeys: string[] = new Array<string>(MEMO).fill("");
  const memoEntries: (PropEntry | undefined)[] = new Array<PropEntry | undefined>(MEMO).fill(props[""]);
  const nReq = absorbs ? reqSet.size : 0;
  const reqNames = [...reqSet];
  const reqMessages = requiredMessages(reqNames, "");
  const reqAt = b.at("required");
  const pats = b.has("patternProperties") ? patternsOf(b) : [];
  const nPats = pats.length;
  const extra = b.has("additionalProperties") ? b.one("additionalProperties") : null;
  const never = b.get("additionalProperties") === false;
  const fail = b.fail("additionalProperties", "must not have additional properties");
  if (entries.length === 0 && nPats === 0 && extra === null) return false;
  // With `type: "object"` the walk tests the type too, and may stand for the whole subschema (see `assemble`).
  const typeOk = b.typeCode === 6 ? b.typeOk : null;
  if (typeOk !== null) b.selfTyped = true;
  b.add(OBJECT, (inst, ctx, ev) => {
    if (typeOk !== null && !isRec(inst)) return typeOk(inst, ctx, ev);
    const o = inst as Obj;
    let ok = true;
    let seen = 0;
    const inline = inlineOk(ctx);
    let at = 0;
    for (const k in o) {
      // Inside for-in, V8 reduces hasOwnProperty of the loop's key to a check of the
      // object's shape (Object.hasOwn stays a call): own keys cost almost nothing, and
      // inherited enumerable ones (a polluted or custom prototype) are skipped.
      if (!Object.prototype.hasOwnProperty.call(o, k)) continue;
      let e: PropEntry | undefined;
      if (at < MEMO) {
        if (memoKeys[at] === k) e = memoEntries[at];
        else {
          e = props[k];
          memoKeys[at] = k;
          memoEntries[at] = e;
        }
      } else e = props[k];
      at++;
      let matched = e !== undefined;
      if (e !== undefined) {
        seen += e.required;
        if (ev !== null) mark(ev, k);
        const v = o[k];
        if (!(inline && simpleOk(e.simple, v, ctx)) && !descend(e.node, v, e, ctx)) {
          if (ctx.errs === null) return false;
          ok = false;
        }
        if (nPats === 0) continue;
      }
      for (let i = 0; i < nPats; i++) {
        const [re, node] = pats[i] as [LinearRegex, SchemaNode];
        if (!re.test(k, ctx)) continue;
        matched = true;
        if (ev !== null) mark(ev, k);
        if (!descend(node, o[k], k, ctx)) {
          if (ctx.errs === null) return false;
          ok = false;
        }
      }
      if (matched || extra === null) continue;
      if (!(never ? fail(ctx, k) : descend(extra, o[k], k, ctx))) {
        if (ctx.errs === null) return false;
        ok = false;
      }
    }
    // A unit per key walked (Y1), charged once the walk is done.
    if ((ctx.work -= at) < 0) throw overBudget();
    if (seen < nReq && !missing(o, reqNames, reqMessages, reqAt, ctx)) {
      if (ctx.errs === null) return false;
      ok = false;
    }
    // additionalProperties evaluates every remaining property (2020-12 core §10.3.2.3).
    if (ev !== null && extra !== null) ev.allProps = true;
    return ok;
  });
  return absorbs;
}

/** The message for each of `names` when missing; `when` names the property that requires them. */
function requiredMessages(names: readonly string[], when: string): string[] {
  return names.map((n) => (when === "" ? `must have required property '${n}'` : `must have property '${n}' when property '${when}' is present`));
}

/** Reports each of `names` that `o` lacks with its message; returns whether none is missing. */
function missing(o: Obj, names: readonly string[], messages: readonly string[], at: string, ctx: Ctx): boolean {
  spend(ctx, names.length);
  let ok = true;
  for (let i = 0; i < names.length; i++) {
    if (Object.hasOwn(o, names[i] as string)) continue;
    report(ctx, at, messages[i] as string);
    if (ctx.errs === null) return false;
    ok = false;
  }
  return ok;
}

function propertyNamesCheck(b: Build): void {
  const node = b.one("propertyNames");
  const fail = b.fail("propertyNames", "property name must match the propertyNames schema");
  b.add(OBJECT, (inst, ctx) => {
    let ok = true;
    for (const k of Object.keys(inst as Obj)) {
      if (probeChild(node, k, ctx)) continue;
      fail(ctx, k);
      if (ctx.errs === null) return false;
      ok = false;
    }
    return ok;
  });
}

function countProps(o: Obj, ctx: Ctx): number {
  let n = 0;
  for (const k in o) if (Object.prototype.hasOwnProperty.call(o, k)) n++;
  spend(ctx, n);
  return n;
}

function sizeChecks(b: Build): void {
  if (b.has("maxProperties")) {
    const max = b.get("maxProperties") as number;
    const fail = b.fail("maxProperties", `must have at most ${max} properties`);
    b.add(OBJECT, (inst, ctx) => countProps(inst as Obj, ctx) <= max || fail(ctx));
  }
  if (b.has("minProperties")) {
    const min = b.get("minProperties") as number;
    const fail = b.fail("minProperties", `must have at least ${min} properties`);
    b.add(OBJECT, (inst, ctx) => countProps(inst as Obj, ctx) >= min || fail(ctx));
  }
}

/** `dependencies` (draft 7 §6.5.7) splits into the two 2019-09 keywords. */
function dependencyChecks(b: Build, kw: string): void {
  const deps = b.get(kw) as Obj;
  for (const key of Object.keys(deps)) {
    const d = deps[key];
    // The compiler checked the shapes: an array lists property names, anything else is a schema.
    if (Array.isArray(d)) {
      const at = b.at(kw, key);
      const messages = requiredMessages(d as string[], key);
      b.add(OBJECT, (inst, ctx) => !Object.hasOwn(inst as Obj, key) || missing(inst as Obj, d as string[], messages, at, ctx));
    } else {
      const node = b.child(d, kw, key);
      b.add(OBJECT, (inst, ctx, ev) => !Object.hasOwn(inst as Obj, key) || apply(node, inst, ctx, ev));
    }
  }
}

/** Adds the object keywords present in `b`, except unevaluatedProperties. */
export function addObjectKeywords(b: Build): void {
  const required = b.has("required") ? (b.get("required") as string[]) : null;
  if (!objectPass(b, required) && required !== null) {
    const at = b.at("required");
    const messages = requiredMessages(required, "");
    b.add(OBJECT, (inst, ctx) => missing(inst as Obj, required, messages, at, ctx));
  }
  if (b.has("propertyNames")) propertyNamesCheck(b);
  sizeChecks(b);
  // `dependencies` is kept in 2020-12 too: older MCP servers still emit it, and it only ever adds checks.
  for (const kw of ["dependentRequired", "dependentSchemas", "dependencies"]) if (b.has(kw)) dependencyChecks(b, kw);
}

/** unevaluatedProperties (2020-12 core §11.3): runs last, after every annotation is in. */
export function addUnevaluatedProperties(b: Build): void {
  const node = b.one("unevaluatedProperties");
  const fail = b.fail("unevaluatedProperties", "must not have unevaluated properties");
  const never = b.get("unevaluatedProperties") === false;
  b.tracked = true;
  b.add(OBJECT, (inst, ctx, ev) => {
    const seen = ev as Evaluated;
    if (seen.allProps) return true;
    const o = inst as Obj;
    let ok = true;
    const keys = Object.keys(o);
    spend(ctx, keys.length);
    for (const k of keys) {
      if (seen.props !== null && seen.props.has(k)) continue;
      if (!(never ? fail(ctx, k) : descend(node, o[k], k, ctx))) {
        if (ctx.errs === null) return false;
        ok = false;
      }
    }
    seen.allProps = true;
    return ok;
  });
}
