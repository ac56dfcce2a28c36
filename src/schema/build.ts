/**
 * The per-subschema builder handed to each keyword module: it reads keyword
 * values (their shapes checked by the compiler's walk, see compile.ts),
 * compiles child subschemas, and collects keyword closures into lists by the
 * instance type they apply to. {@link assemble} turns those lists into one
 * closure that dispatches on `typeof` once per instance.
 *
 * @module
 */
import { SchemaError } from "../errors.js";
import { isRec } from "../util/record.js";
import { escapeToken, type Place, type SchemaIndex } from "./refs.js";
import { enabled } from "./keywords.js";
import { MAX_INSTANCE_DEPTH, MAX_SCHEMA_EVAL_NESTING } from "../limits.js";
import { overBudget } from "./program.js";
import { report } from "./runtime.js";
import { mergeEvaluated, newEvaluated, type Check, type Ctx, type Dialect, type Evaluated, type SchemaNode } from "./types.js";

/** Which instances a keyword closure applies to. */
export const COMMON = 0;
export const STRING = 1;
export const NUMBER = 2;
export const OBJECT = 3;
export const ARRAY = 4;
export type Kind = typeof COMMON | typeof STRING | typeof NUMBER | typeof OBJECT | typeof ARRAY;

// The instances a single `type` lets through, by its typeIs code (boolean and null have no keyword list).
const KIND_OF: readonly Kind[] = [COMMON, STRING, NUMBER, NUMBER, COMMON, COMMON, OBJECT, ARRAY];

/** The check of a named format, or null for a format it does not know. */
export type FormatLookup = (name: string) => ((s: string) => boolean) | null;

/** What keyword modules need from the compiler. */
export interface CompilerHooks {
  readonly index: SchemaIndex;
  readonly assertFormats: boolean;
  /**
   * The format checks (`formats.ts`), or null when this compile carries none: then
   * only the format-assertion vocabulary asks for them, and that is a SchemaError.
   */
  readonly formats: FormatLookup | null;
  /** Set when a `$dynamicRef` / `$recursiveRef` needs the dynamic scope at run time. */
  usesDynamic: boolean;
  /**
   * The targets of each subschema's reference keywords, by subschema and
   * keyword: resolved once, by the compile-time walk, so a builder follows
   * exactly the subschema the walk checked (a later scan may rebind an anchor).
   */
  readonly targets: Map<object, Map<string, [SchemaNode, string | null]>>;
  node(raw: unknown, place: Place): SchemaNode;
}

// Keywords that never affect validation (2020-12 meta-data vocabulary, $comment).
const ANNOTATIONS = new Set(["description", "title", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly"]);
/** The JSON Schema type names, by their {@link typeIs} code. */
export const TYPE_CODES: Readonly<Record<string, number>> = { string: 1, number: 2, integer: 3, boolean: 4, null: 5, object: 6, array: 7 };

/**
 * The {@link typeIs} code of a subschema that is only `type` with one name
 * (plus annotations), as `{ "type": "string", "description": "..." }`, the most
 * common property schema of a tool; 8 + the item's code for an array of such
 * items (`{ "type": "array", "items": { "type": "string" } }`); 0 for any other.
 * Parents test such a child inline ({@link simpleOk}) and call it only when the
 * test fails, so it reports as usual.
 */
export function simpleType(raw: unknown, parent: Place): number {
  if (!isRec(raw) || parent.res.vocab !== null) return 0;
  const o = raw as Record<string, unknown>;
  let code = 0;
  let items = 0;
  for (const k in o) {
    if (!Object.hasOwn(o, k)) continue;
    if (k === "type") {
      const t = o[k];
      code = typeof t === "string" && Object.hasOwn(TYPE_CODES, t) ? (TYPE_CODES[t] as number) : 0;
      if (code === 0) return 0;
    } else if (k === "items") {
      items = simpleType(o[k], parent);
      if (items === 0 || items > 7) return 0;
    } else if (!ANNOTATIONS.has(k)) return 0;
  }
  return items === 0 ? code : code === 7 ? 8 + items : 0;
}

/**
 * Does `v` pass the subschema of {@link simpleType} code `code` (false for 0)?
 * An array of simple items is charged as its visit and items would be (Y1), and
 * is left to the subschema itself where its items would reach a nesting bound.
 */
export function simpleOk(code: number, v: unknown, ctx: Ctx): boolean {
  if (code < 8) return typeIs(code, v);
  if (!Array.isArray(v) || ctx.depth + 2 >= MAX_INSTANCE_DEPTH || ctx.nest + 2 >= MAX_SCHEMA_EVAL_NESTING) return false;
  if ((ctx.work -= v.length + 1) < 0) throw overBudget();
  for (let i = 0; i < v.length; i++) if (!typeIs(code - 8, v[i])) return false;
  return true;
}

/** Does `v` have the type of {@link simpleType} code `code`? */
export function typeIs(code: number, v: unknown): boolean {
  switch (code) {
    case 1:
      return typeof v === "string";
    case 2:
      return typeof v === "number";
    case 3:
      return Number.isInteger(v);
    case 4:
      return typeof v === "boolean";
    case 5:
      return v === null;
    case 6:
      return isRec(v);
    case 7:
      return Array.isArray(v);
    default:
      return false;
  }
}

/** Builder for one subschema object. */
export class Build {
  readonly lists: [Check[], Check[], Check[], Check[], Check[]] = [[], [], [], [], []];
  /** Uses unevaluated* keywords, so it gathers annotations. */
  tracked = false;
  /**
   * The {@link typeIs} code of a `type` that names one type (0 otherwise): lets
   * {@link assemble} skip the type dispatch. And the `type` closure.
   */
  typeCode = 0;
  typeOk: Check | null = null;
  /** The one closure of the type's list tests `type` itself (strings: keywords-core.ts; objects: the property walk). */
  selfTyped = false;
  /** `type` and `enum` as one closure, for a subschema of those two keywords only (see keywords-core.ts). */
  typeEnum: Check | null = null;

  constructor(
    readonly hooks: CompilerHooks,
    readonly raw: Record<string, unknown>,
    readonly place: Place,
  ) {}

  get dialect(): Dialect {
    return this.place.res.dialect;
  }

  /** Display location of this subschema plus `segs`, as a JSON pointer. */
  at(...segs: (string | number)[]): string {
    let at = this.place.at;
    for (const s of segs) at += "/" + escapeToken(s);
    return at;
  }

  /** Is keyword `kw` present (own property) and enabled by the vocabulary? */
  has(kw: string): boolean {
    return Object.hasOwn(this.raw, kw) && enabled(this.place, kw);
  }

  get(kw: string): unknown {
    return Object.hasOwn(this.raw, kw) ? this.raw[kw] : undefined;
  }

  add(kind: Kind, check: Check): void {
    this.lists[kind].push(check);
  }

  /** A reporter of `message` at keyword `kw` (plus an instance key): the location is built once. */
  fail(kw: string, message: string): (ctx: Ctx, key?: string | number) => false {
    const at = this.at(kw);
    return (ctx, key) => report(ctx, at, message, key);
  }

  bad(kw: string, what: string): SchemaError {
    return new SchemaError(`${kw} must be ${what} (at ${this.at(kw)})`);
  }

  /** The child subschema at this subschema's `segs` (its value passed in). */
  child(value: unknown, ...segs: (string | number)[]): SchemaNode {
    // The compiler refuses a value that is not a schema; boolean and unscanned
    // children get a place of their own.
    const hooks = this.hooks;
    return hooks.node(value, hooks.index.placeOf(value) ?? { res: this.place.res, at: this.at(...segs) });
  }

  /** The subschema value of keyword `kw`. */
  one(kw: string): SchemaNode {
    return this.child(this.get(kw), kw);
  }

  /** A non-empty array of subschemas. */
  many(kw: string): SchemaNode[] {
    const v = this.get(kw);
    if (!Array.isArray(v) || v.length === 0) throw this.bad(kw, "a non-empty array of schemas");
    return Array.from(v, (s, i) => this.child(s, kw, i));
  }

  /** An object whose values are subschemas. */
  map(kw: string): [string, SchemaNode][] {
    const v = this.get(kw);
    if (!isRec(v)) throw this.bad(kw, "an object of schemas");
    const o = v as Record<string, unknown>;
    return Object.keys(o).map((k) => [k, this.child(o[k], kw, k)]);
  }
}

function runAll(list: Check[], inst: unknown, ctx: Ctx, ev: Evaluated | null): boolean {
  let ok = true;
  for (let i = 0; i < list.length; i++) {
    if (!(list[i] as Check)(inst, ctx, ev)) {
      if (ctx.errs === null) return false;
      ok = false;
    }
  }
  return ok;
}

/**
 * One closure for a subschema. `typeof` is taken once, and only the keywords
 * that apply to that type run. A subschema with unevaluated* keywords gathers
 * annotations in its own record (siblings' annotations must not leak in, 2020-12
 * core §11.2) and hands them up when it passes.
 */
export function assemble(b: Build, resourceRoot: boolean): Check {
  const [common, str, num, obj, arr] = b.lists;
  const nCommon = common.length;
  const typed = str.length + num.length + obj.length + arr.length;
  let check: Check;
  const kind = KIND_OF[b.typeCode] as Kind;
  if (kind !== COMMON && nCommon === 1 && typed === b.lists[kind].length) {
    // `type` is the only common keyword and the typed keywords all apply to that
    // type: once `type` passes, they are the whole list. The type is tested
    // inline; its closure runs only to report a mismatch.
    const typeOk = common[0] as Check;
    const list = b.lists[kind];
    const code = b.typeCode;
    if (list.length === 0) check = typeOk;
    else if (list.length === 1 && b.selfTyped) check = list[0] as Check;
    else check = (inst, ctx, ev) => (typeIs(code, inst) ? runAll(list, inst, ctx, ev) : typeOk(inst, ctx, ev));
  } else if (typed === 0 && nCommon === 1) check = common[0] as Check;
  else if (typed === 0 && nCommon === 2 && b.typeEnum !== null) check = b.typeEnum;
  else if (typed === 0 && nCommon === 0) check = () => true;
  else {
    check = (inst, ctx, ev) => {
      let ok = nCommon === 0 || runAll(common, inst, ctx, ev);
      if (!ok && ctx.errs === null) return false;
      let list: Check[];
      switch (typeof inst) {
        case "string":
          list = str;
          break;
        case "number":
          list = num;
          break;
        case "object":
          if (inst === null) return ok;
          list = Array.isArray(inst) ? arr : obj;
          break;
        default:
          return ok;
      }
      if (list.length !== 0 && !runAll(list, inst, ctx, ev)) ok = false;
      return ok;
    };
  }
  // A subschema with many keyword checks (one per `dependencies` entry, say) costs
  // a unit of work per check at each visit; the common ones cost only the visit (Y1).
  const checks = nCommon + typed;
  if (checks > 8) {
    const inner = check;
    check = (inst, ctx, ev) => {
      if ((ctx.work -= checks) < 0) throw overBudget();
      return inner(inst, ctx, ev);
    };
  }
  if (b.tracked) {
    const inner = check;
    check = (inst, ctx, ev) => {
      const own = newEvaluated();
      const ok = inner(inst, ctx, own);
      if (ok && ev !== null && (ctx.work -= mergeEvaluated(ev, own)) < 0) throw overBudget();
      return ok;
    };
  }
  if (resourceRoot) {
    const inner = check;
    const res = b.place.res;
    check = (inst, ctx, ev) => {
      const scope = ctx.scope;
      if (scope === null) return inner(inst, ctx, ev);
      scope.push(res);
      const ok = inner(inst, ctx, ev);
      scope.pop();
      return ok;
    };
  }
  return check;
}
