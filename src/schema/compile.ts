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
import { addApplicators, addReferences, reference } from "./keywords-applicator.js";
import { addCoreKeywords, isTypeKeyword, TYPE_KEYWORD_SHAPE } from "./keywords-core.js";
import { addObjectKeywords, addUnevaluatedProperties } from "./keywords-object.js";
import { assemble, Build, type CompilerHooks, type FormatLookup } from "./build.js";
import { formatChecker } from "./formats.js";
import {
  ARRAY,
  BOOLEAN,
  COUNT,
  DEPENDENCIES,
  enabled,
  ITEMS,
  KEYWORDS,
  MODERN,
  NAME_LISTS,
  NUMBER,
  POSITIVE,
  SCHEMA,
  SCHEMA_MAP,
  SCHEMAS,
  SHAPE,
  STRING,
  STRINGS,
  TYPE,
} from "./keywords.js";
import { isRec } from "../util/record.js";
import { compileRegex } from "./pattern.js";
import { notSchema, ROOT_URI, SchemaIndex, type Place } from "./refs.js";
import { report, spend } from "./runtime.js";
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

/** Work units charged for building one subschema's closure on first use (Y1; measured, in visits), plus per direct child. */
const BUILD_COST = 300;
const BUILD_COST_PER_CHILD = 100;

/** The direct children a subschema's build creates (the entries of its keyword values, roughly). */
function childCount(raw: Record<string, unknown>): number {
  let n = 0;
  for (const k in raw) {
    const v = raw[k];
    if (typeof v === "object" && v !== null) n += Array.isArray(v) ? v.length : Object.keys(v).length;
  }
  return n;
}

function isNumber(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v);
}

function isStrings(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== "string") return false;
  return true;
}

class Compiler implements CompilerHooks {
  usesDynamic = false;
  readonly #nodes = new Map<object, SchemaNode>();
  readonly #work: [Record<string, unknown>, Place][] = [];
  /** Subschemas whose keyword values the walk checked: the only ones {@link #build} builds. */
  readonly #checked = new Set<object>();
  /** Set while {@link #run} drains the work list. */
  #walking = false;
  readonly targets = new Map<object, Map<string, [SchemaNode, string | null]>>();

  constructor(
    readonly index: SchemaIndex,
    readonly assertFormats: boolean,
    readonly formats: FormatLookup | null,
  ) {}

  node(raw: unknown, place: Place): SchemaNode {
    if (typeof raw === "boolean") {
      if (raw) return { v: ACCEPT, resource: place.res };
      return { v: (_i, ctx) => report(ctx, place.at, "no value is allowed here"), resource: place.res };
    }
    if (!isRec(raw)) throw notSchema(place.at);
    const hit = this.#nodes.get(raw);
    if (hit !== undefined) return hit;
    const obj = raw as Record<string, unknown>;
    // Built on first use; the closure then replaces this stub. Building is work
    // of the validation that needs it, charged to its budget (Y1).
    const node: SchemaNode = {
      v: (inst, ctx, ev) => {
        spend(ctx, BUILD_COST + BUILD_COST_PER_CHILD * childCount(obj));
        return (node.v = this.#build(obj, place))(inst, ctx, ev);
      },
      resource: place.res,
    };
    this.#nodes.set(raw, node);
    // Checked before it can be built, as the builders trust the shapes checked.
    // (The walk mirrors the builders and resolves their references, so building
    // meets no new subschema.)
    this.#work.push([obj, place]);
    if (!this.#walking) this.#run();
    return node;
  }

  /** Checks queued subschemas until none is left, then every dynamic anchor if needed. */
  #run(): void {
    this.#walking = true;
    try {
      this.#drain();
    } finally {
      // A failed check leaves the rest unchecked; #build checks them when it meets them.
      this.#walking = false;
      this.#work.length = 0;
    }
  }

  #drain(): void {
    for (;;) {
      let item;
      while ((item = this.#work.pop()) !== undefined) this.#check(item[0], item[1]);
      if (!this.usesDynamic) break;
      // $dynamicRef may land on any resource's dynamic anchor at run time.
      let added = false;
      for (const res of this.index.allResources()) {
        for (const [name, raw] of res.dynamic) {
          if (res.dynamicNodes.has(name)) continue;
          res.dynamicNodes.set(name, this.node(raw, this.index.placeOf(raw) ?? res.root));
          added = true;
        }
      }
      if (!added && this.#work.length === 0) break;
    }
  }

  /**
   * The compile-time half of {@link #build}: every shape the keyword builders rely
   * on (they read values without checking them again), every regex and reference,
   * and the subschemas they would compile, queued. Keywords the builders ignore
   * are ignored here too.
   */
  #check(raw: Record<string, unknown>, place: Place): void {
    const b = new Build(this, raw, place);
    const modern = place.res.dialect !== "draft-07";
    const tuple = Array.isArray(b.get("items")) && !(modern && b.has("prefixItems"));
    // Draft 7 §8.3: all other properties in a "$ref" object MUST be ignored.
    for (const kw of !modern && Object.hasOwn(raw, "$ref") ? ["$ref"] : Object.keys(raw)) {
      const entry = KEYWORDS.get(kw);
      if (entry === undefined || !enabled(place, kw) || (entry & MODERN && !modern)) continue;
      // Keywords that only mean something beside another one.
      if ((kw === "then" || kw === "else") && !b.has("if")) continue;
      if (kw.endsWith("Contains") && !b.has("contains")) continue;
      if (kw === "additionalItems" && !(tuple && b.has("items"))) continue;
      const v = raw[kw];
      // What the value must be, when it is not.
      let what = "";
      switch (entry & SHAPE) {
        case TYPE:
          if (!isTypeKeyword(v)) what = TYPE_KEYWORD_SHAPE;
          break;
        case ARRAY:
          if (!Array.isArray(v)) what = "an array";
          break;
        case NUMBER:
          // Draft 4 spelled exclusive bounds as booleans beside maximum / minimum.
          if (!isNumber(v) && (modern || typeof v !== "boolean" || !kw.startsWith("exclusive"))) what = "a number";
          break;
        case POSITIVE:
          if (!isNumber(v) || v <= 0) what = "a number greater than 0";
          break;
        case COUNT:
          if (!(typeof v === "number" && Number.isInteger(v) && v >= 0)) what = "a non-negative integer";
          break;
        case BOOLEAN:
          if (typeof v !== "boolean") what = "a boolean";
          break;
        case STRINGS:
          if (!isStrings(v)) what = "an array of strings";
          break;
        case STRING:
          if (typeof v !== "string") what = "a string";
          else if (kw === "pattern") compileRegex(v, b.at(kw));
          else if (kw === "$recursiveRef" && v !== "#") what = '"#"';
          else if (kw !== "format") {
            if (reference(b, kw)[1] !== null) this.usesDynamic = true;
          }
          break;
        case SCHEMA:
          b.one(kw);
          break;
        case SCHEMAS:
          b.many(kw);
          break;
        case SCHEMA_MAP:
          for (const [key] of b.map(kw)) if (kw === "patternProperties") compileRegex(key, b.at(kw, key));
          break;
        case ITEMS:
          // The array form is draft 7's tuple (see keywords-array.ts).
          if (!tuple) b.one(kw);
          else if ((v as unknown[]).length !== 0) b.many(kw);
          break;
        case NAME_LISTS:
        case DEPENDENCIES:
          what = this.#dependencies(b, kw, entry & SHAPE);
      }
      if (what !== "") throw b.bad(kw, what);
    }
    this.#checked.add(raw);
  }

  /**
   * Checks `dependentRequired` (property-name arrays) or draft 7 `dependencies`
   * (arrays or schemas); returns what the value must be when it is not.
   */
  #dependencies(b: Build, kw: string, shape: number): string {
    const what = shape === NAME_LISTS ? "an object of string arrays" : "an object of schemas or string arrays";
    const deps = b.get(kw);
    if (!isRec(deps)) return what;
    for (const key of Object.keys(deps)) {
      const d = deps[key];
      if (!Array.isArray(d)) {
        if (shape === NAME_LISTS) return what;
        b.child(d, kw, key);
      } else if (!isStrings(d)) return what;
    }
    return "";
  }

  /** Compiles one subschema's closure (its children stay stubs until they run). */
  #build(raw: Record<string, unknown>, place: Place): Check {
    // A walk that failed (at compile time, or at validation time) left it unchecked: check it now.
    if (!this.#checked.has(raw)) {
      this.#work.push([raw, place]);
      this.#run();
    }
    const b = new Build(this, raw, place);
    // Resource roots enter the dynamic scope, which exists only for $dynamicRef / $recursiveRef.
    const resourceRoot = this.usesDynamic && place.res.raw === raw;
    // Draft 7 §8.3: all other properties in a "$ref" object MUST be ignored.
    if (place.res.dialect === "draft-07" && Object.hasOwn(raw, "$ref")) {
      addReferences(b);
      return assemble(b, resourceRoot);
    }
    addCoreKeywords(b);
    addReferences(b);
    addApplicators(b);
    addObjectKeywords(b);
    addArrayKeywords(b);
    if (place.res.dialect !== "draft-07") {
      if (b.has("unevaluatedProperties")) addUnevaluatedProperties(b);
      if (b.has("unevaluatedItems")) addUnevaluatedItems(b);
    }
    return assemble(b, resourceRoot);
  }
}

function registryMap(r: CompileOptions["registry"]): Map<string, unknown> {
  if (r instanceof Map) return new Map([...r].filter(([k]) => typeof k === "string"));
  if (r !== undefined && (typeof r !== "object" || r === null)) throw new SchemaError("registry must be an object of schemas by URI");
  return new Map(Object.entries(r ?? {}));
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
 *   `MAX_SCHEMA_DEPTH`, a pattern is longer than `MAX_SCHEMA_PATTERN_CHARS` or
 *   its counted repetitions expand past `MAX_REGEX_PROGRAM`.
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
  return compileWith(schema, options, formatChecker);
}

/**
 * {@link compileSchema} with the format checks given, or none (`null`): the
 * compile of connectMcp's tool schemas, which never asks for format assertion, so
 * that a bundle of it leaves the format checks out. A schema that still asks for
 * them (the format-assertion vocabulary, or `formats: "assert"`) is a SchemaError.
 *
 * @throws as {@link compileSchema}.
 *
 * @example
 * ```ts
 * const input = compileWith(tool.inputSchema, {}, null);
 * ```
 */
export function compileWith(schema: unknown, options: CompileOptions, lookup: FormatLookup | null): CompiledSchema {
  const dialect = options.defaultDialect ?? "2020-12";
  if (!DIALECTS.includes(dialect)) throw new SchemaError(`defaultDialect must be one of ${DIALECTS.join(", ")}`);
  const formats = options.formats ?? "annotate";
  if (formats !== "annotate" && formats !== "assert") throw new SchemaError(`formats must be "annotate" or "assert"`);
  if (typeof schema !== "boolean" && !isRec(schema)) throw notSchema("");
  const index = new SchemaIndex(registryMap(options.registry), dialect);
  const root = index.addDocument(schema, ROOT_URI, "");
  if (formats === "assert" && lookup === null) throw new SchemaError('formats: "assert" needs the format checks of compileSchema');
  const compiler = new Compiler(index, formats === "assert", lookup);
  const node = compiler.node(schema, root.root);
  return new CompiledSchema(node, root, compiler.usesDynamic, options.allIssues === true);
}
