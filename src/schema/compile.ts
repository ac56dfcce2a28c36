/**
 * `compileSchema` in two steps. At compile time: index the schema's resources,
 * then walk every reachable subschema once to check each keyword's shape and
 * resolve each reference, so every error a schema can cause is thrown there.
 * Closures are built later, each subschema on its first use (memoized): a tool
 * list compiles fast, and subschemas never exercised cost nothing. The walk
 * uses a work list, not recursion, so cycles through `$ref` and long reference
 * chains need no stack.
 *
 * @module
 */
import { SchemaError } from "../errors.js";
import { addArrayKeywords, addUnevaluatedItems } from "./keywords-array.js";
import { addApplicators, addReferences } from "./keywords-applicator.js";
import { addCoreKeywords, isTypeKeyword, TYPE_KEYWORD_SHAPE } from "./keywords-core.js";
import { addObjectKeywords, addUnevaluatedProperties } from "./keywords-object.js";
import { assemble, Build, enabled, isCount, isNumber, isStrings, type CompilerHooks } from "./build.js";
import { isRec } from "../util/record.js";
import { compileRegex } from "./pattern.js";
import { ROOT_URI, SchemaIndex, type Place } from "./refs.js";
import { report } from "./runtime.js";
import type { Check, Dialect, SchemaNode } from "./types.js";
import { CompiledSchema } from "./validate.js";

/** Options of {@link compileSchema}. */
export interface CompileOptions {
  /**
   * Schemas a `$ref` may point to, by absolute URI (`{ "https://example.com/a.json": {...} }`).
   * Nothing else outside the compiled schema is reachable; nothing is ever fetched.
   */
  registry?: Readonly<Record<string, unknown>> | ReadonlyMap<string, unknown>;
  /** `"annotate"` (default, 2020-12 semantics) ignores `format`; `"assert"` checks the common formats. */
  formats?: "annotate" | "assert";
  /**
   * Dialect of a schema without `$schema`. Default `"2020-12"`, which MCP
   * specifies for tool schemas. A `$schema` the validator does not know is
   * treated as 2020-12 as well.
   */
  defaultDialect?: Dialect;
  /**
   * Default of `validate` / `assert`'s `allIssues`: collect up to
   * `MAX_SCHEMA_ISSUES` issues instead of stopping at the first. Default false.
   */
  allIssues?: boolean;
}

const DIALECTS: readonly Dialect[] = ["draft-07", "2019-09", "2020-12"];

const ACCEPT: Check = () => true;

/** Is keyword `kw` present in `raw` and enabled at `place`? */
function has(raw: Record<string, unknown>, place: Place, kw: string): boolean {
  return Object.hasOwn(raw, kw) && enabled(place, kw);
}


class Compiler implements CompilerHooks {
  usesDynamic = false;
  private readonly nodes = new Map<object, SchemaNode>();
  private readonly work: [Record<string, unknown>, Place][] = [];
  /** Set once compileSchema's walk is over; a node first met while building (none, as the walk mirrors the builders) is checked by its builder. */
  private walked = false;

  constructor(
    readonly index: SchemaIndex,
    readonly assertFormats: boolean,
  ) {}

  node(raw: unknown, place: Place): SchemaNode {
    if (typeof raw === "boolean") {
      if (raw) return { v: ACCEPT, resource: place.res };
      return { v: (_i, ctx) => report(ctx, place.label + place.pointer, "no value is allowed here"), resource: place.res };
    }
    if (!isRec(raw)) {
      throw new SchemaError(`schema at ${place.label + place.pointer || "/"} must be an object or a boolean`);
    }
    const hit = this.nodes.get(raw);
    if (hit !== undefined) return hit;
    const obj = raw as Record<string, unknown>;
    // Built on first use; the closure then replaces this stub.
    const node: SchemaNode = {
      v: (inst, ctx, ev) => (node.v = this.build(obj, place))(inst, ctx, ev),
      resource: place.res,
    };
    this.nodes.set(raw, node);
    if (!this.walked) this.work.push([obj, place]);
    return node;
  }

  /** Checks queued subschemas until none is left, then every dynamic anchor if needed. */
  run(): void {
    for (;;) {
      let item;
      while ((item = this.work.pop()) !== undefined) this.check(item[0], item[1]);
      if (!this.usesDynamic) break;
      // $dynamicRef may land on any resource's dynamic anchor at run time.
      let added = false;
      for (const res of this.index.allResources()) {
        for (const [name, raw] of res.dynamic) {
          if (res.dynamicNodes.has(name)) continue;
          res.dynamicNodes.set(name, this.node(raw, this.index.placeOf(raw, res.root)));
          added = true;
        }
      }
      if (!added && this.work.length === 0) break;
    }
    this.walked = true;
  }

  private dependencies(b: Build, kw: string, allowNames: boolean, allowSchemas: boolean): void {
    const v = b.get(kw);
    if (!isRec(v)) throw b.bad(kw, "an object");
    const deps = v as Record<string, unknown>;
    for (const key of Object.keys(deps)) {
      const d = deps[key];
      if (Array.isArray(d) && allowNames) {
        if (!isStrings(d)) throw b.bad(kw, "an array of strings");
      } else if (!Array.isArray(d) && allowSchemas) b.child(d, kw, key);
      else throw b.bad(kw, allowNames ? "an object of string arrays" : "an object of schemas");
    }
  }

  private ref(b: Build, kw: string): { raw: unknown; place: Place; anchor: string | null } {
    const v = b.get(kw);
    if (typeof v !== "string") throw b.bad(kw, "a string");
    if (kw === "$recursiveRef" && v !== "#") throw b.bad(kw, '"#"');
    const target = this.index.resolve(v, b.place);
    this.node(target.raw, target.place);
    return target;
  }

  /**
   * The compile-time half of {@link build}: every check the keyword builders
   * make (shapes, regexes, references), and the subschemas they would compile,
   * queued. Keywords the builders ignore are ignored here too.
   */
  private check(raw: Record<string, unknown>, place: Place): void {
    const b = new Build(this, raw, place);
    // Draft 7 §8.3: all other properties in a "$ref" object MUST be ignored.
    if (place.dialect === "draft-07" && Object.hasOwn(raw, "$ref")) {
      this.ref(b, "$ref");
      return;
    }
    const modern = place.dialect !== "draft-07";
    for (const kw in raw) {
      if (!Object.hasOwn(raw, kw)) continue;
      const v = raw[kw];
      switch (kw) {
        case "type":
          if (enabled(place, kw) && !isTypeKeyword(v)) throw b.bad(kw, TYPE_KEYWORD_SHAPE);
          break;
        case "enum":
          if (enabled(place, kw) && !Array.isArray(v)) throw b.bad(kw, "an array");
          break;
        case "maximum":
        case "minimum":
          if (enabled(place, kw) && !isNumber(v)) throw b.bad(kw, "a number");
          break;
        case "exclusiveMaximum":
        case "exclusiveMinimum":
          // Draft 4 spelled exclusive bounds as booleans beside maximum / minimum.
          if (enabled(place, kw) && !(place.dialect === "draft-07" && typeof v === "boolean") && !isNumber(v)) {
            throw b.bad(kw, "a number");
          }
          break;
        case "multipleOf":
          if (!enabled(place, kw)) break;
          if (!isNumber(v)) throw b.bad(kw, "a number");
          if (v <= 0) throw b.bad(kw, "a number greater than 0");
          break;
        case "maxLength":
        case "minLength":
        case "maxItems":
        case "minItems":
        case "maxProperties":
        case "minProperties":
          if (enabled(place, kw) && !isCount(v)) throw b.bad(kw, "a non-negative integer");
          break;
        case "minContains":
        case "maxContains":
          if (modern && has(raw, place, "contains") && enabled(place, kw) && !isCount(v)) throw b.bad(kw, "a non-negative integer");
          break;
        case "pattern":
          if (!enabled(place, kw)) break;
          if (typeof v !== "string") throw b.bad(kw, "a string");
          compileRegex(v, b.at(kw));
          break;
        case "format":
          if (typeof v !== "string") throw b.bad(kw, "a string");
          break;
        case "uniqueItems":
          if (enabled(place, kw) && typeof v !== "boolean") throw b.bad(kw, "a boolean");
          break;
        case "required":
          if (enabled(place, kw) && !isStrings(v)) throw b.bad(kw, "an array of strings");
          break;
        case "properties":
          if (enabled(place, kw)) b.map(kw);
          break;
        case "patternProperties":
          if (enabled(place, kw)) for (const [src] of b.map(kw)) compileRegex(src, b.at(kw, src));
          break;
        case "additionalProperties":
        case "propertyNames":
        case "contains":
        case "not":
        case "if":
          if (enabled(place, kw)) b.one(kw);
          break;
        case "then":
        case "else":
          if (has(raw, place, "if") && enabled(place, kw)) b.one(kw);
          break;
        case "allOf":
        case "anyOf":
        case "oneOf":
          if (enabled(place, kw)) b.many(kw);
          break;
        case "prefixItems":
          if (modern && enabled(place, kw)) b.many(kw);
          break;
        case "items":
          if (!enabled(place, kw)) break;
          if (modern && has(raw, place, "prefixItems")) b.one(kw);
          // The array form is draft 7's tuple (see keywords-array.ts).
          else if (Array.isArray(v)) {
            if (v.length !== 0) b.many(kw);
          } else b.one(kw);
          break;
        case "additionalItems":
          if (enabled(place, kw) && !(modern && has(raw, place, "prefixItems")) && has(raw, place, "items") && Array.isArray(raw.items)) b.one(kw);
          break;
        case "dependentRequired":
          if (enabled(place, kw)) this.dependencies(b, kw, true, false);
          break;
        case "dependentSchemas":
          if (enabled(place, kw)) this.dependencies(b, kw, false, true);
          break;
        case "dependencies":
          if (enabled(place, kw)) this.dependencies(b, kw, true, true);
          break;
        case "unevaluatedProperties":
        case "unevaluatedItems":
          if (modern && enabled(place, kw)) b.one(kw);
          break;
        case "$ref":
          this.ref(b, kw);
          break;
        case "$dynamicRef": {
          if (!modern) break;
          const target = this.ref(b, kw);
          // Only an anchor that is itself a $dynamicAnchor makes the reference dynamic.
          const name = target.anchor;
          if (name !== null && target.place.res.dynamic.get(name) === target.raw) this.usesDynamic = true;
          break;
        }
        case "$recursiveRef": {
          if (!modern) break;
          const target = this.ref(b, kw);
          if (target.place.res.dynamic.get("") === target.raw) this.usesDynamic = true;
          break;
        }
      }
    }
  }

  /** Compiles one subschema's closure (its children stay stubs until they run). */
  private build(raw: Record<string, unknown>, place: Place): Check {
    const b = new Build(this, raw, place);
    // Resource roots enter the dynamic scope, which exists only for $dynamicRef / $recursiveRef.
    const resourceRoot = this.usesDynamic && place.res.raw === raw;
    // Draft 7 §8.3: all other properties in a "$ref" object MUST be ignored.
    if (place.dialect === "draft-07" && Object.hasOwn(raw, "$ref")) {
      addReferences(b);
      return assemble(b, resourceRoot);
    }
    addCoreKeywords(b);
    addReferences(b);
    addApplicators(b);
    addObjectKeywords(b);
    addArrayKeywords(b);
    if (place.dialect !== "draft-07") {
      if (b.has("unevaluatedProperties")) addUnevaluatedProperties(b);
      if (b.has("unevaluatedItems")) addUnevaluatedItems(b);
    }
    return assemble(b, resourceRoot);
  }
}

function registryMap(r: CompileOptions["registry"]): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (r === undefined) return out;
  if (r instanceof Map) {
    for (const [k, v] of r) if (typeof k === "string") out.set(k, v);
    return out;
  }
  if (typeof r !== "object" || r === null) throw new SchemaError("registry must be an object of schemas by URI");
  const o = r as Readonly<Record<string, unknown>>;
  for (const k of Object.keys(o)) out.set(k, o[k]);
  return out;
}

/**
 * Compiles a JSON Schema (draft 7, 2019-09 or 2020-12; chosen by `$schema`)
 * into a reusable validator. Compile once, validate many times.
 *
 * Never fetches anything: every `$ref` must resolve inside `schema` or inside
 * `options.registry`. Asynchronous extensions (`$async`) are refused.
 *
 * @throws SchemaError (code `schema`) when the schema is malformed, a `$ref` does
 *   not resolve, a `pattern` is not a valid regex, or `$async` is used.
 * @throws LimitError (code `limit`) when the schema nests deeper than
 *   `MAX_SCHEMA_DEPTH` or a pattern is longer than `MAX_SCHEMA_PATTERN_CHARS`.
 *
 * @example
 * ```ts
 * const args = compileSchema({
 *   type: "object",
 *   properties: { owner: { type: "string" }, title: { type: "string", minLength: 1 } },
 *   required: ["owner", "title"],
 * });
 * args.validate({ owner: "octo" }); // { valid: false, issues: [{ instancePath: "", schemaPath: "/required", ... }] }
 * args.assert({ owner: "octo", title: "Bug" }, "create_issue arguments"); // passes
 * ```
 */
export function compileSchema(schema: unknown, options: CompileOptions = {}): CompiledSchema {
  const dialect = options.defaultDialect ?? "2020-12";
  if (!DIALECTS.includes(dialect)) throw new SchemaError(`defaultDialect must be one of ${DIALECTS.join(", ")}`);
  const formats = options.formats ?? "annotate";
  if (formats !== "annotate" && formats !== "assert") throw new SchemaError(`formats must be "annotate" or "assert"`);
  if (typeof schema !== "boolean" && !isRec(schema)) {
    throw new SchemaError("a schema must be an object or a boolean");
  }
  const index = new SchemaIndex(registryMap(options.registry), dialect);
  const root = index.addDocument(schema, ROOT_URI, "");
  const compiler = new Compiler(index, formats === "assert");
  const node = compiler.node(schema, root.root);
  compiler.run();
  return new CompiledSchema(node, root, compiler.usesDynamic, options.allIssues === true);
}
