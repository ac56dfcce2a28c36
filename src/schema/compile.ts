/**
 * `compileSchema`: indexes a schema's resources, then compiles each subschema
 * once into a closure tree. References are compiled from a work list, not by
 * recursion, so cycles through `$ref` and long reference chains need no stack.
 *
 * @module
 */
import { SchemaError } from "../errors.js";
import { addArrayKeywords, addUnevaluatedItems } from "./keywords-array.js";
import { addApplicators, addReferences } from "./keywords-applicator.js";
import { addCoreKeywords } from "./keywords-core.js";
import { addObjectKeywords, addUnevaluatedProperties } from "./keywords-object.js";
import { assemble, Build, type CompilerHooks } from "./build.js";
import { ROOT_URI, SchemaIndex, type Place } from "./refs.js";
import { report } from "./runtime.js";
import type { Dialect, SchemaNode } from "./types.js";
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
}

const DIALECTS: readonly Dialect[] = ["draft-07", "2019-09", "2020-12"];

function unfilled(): never {
  throw new SchemaError("internal: subschema used before it was compiled");
}

class Compiler implements CompilerHooks {
  usesDynamic = false;
  private readonly nodes = new Map<object, SchemaNode>();
  private readonly work: [SchemaNode, Record<string, unknown>, Place][] = [];

  constructor(
    readonly index: SchemaIndex,
    readonly assertFormats: boolean,
  ) {}

  node(raw: unknown, place: Place): SchemaNode {
    if (typeof raw === "boolean") {
      const at = place.label + place.pointer;
      return { v: raw ? () => true : (_i, ctx) => report(ctx, at, "no value is allowed here"), resource: place.res };
    }
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      throw new SchemaError(`schema at ${place.label + place.pointer || "/"} must be an object or a boolean`);
    }
    const hit = this.nodes.get(raw);
    if (hit !== undefined) return hit;
    const node: SchemaNode = { v: unfilled, resource: place.res };
    this.nodes.set(raw, node);
    this.work.push([node, raw as Record<string, unknown>, place]);
    return node;
  }

  /** Compiles queued subschemas until none is left, then every dynamic anchor if needed. */
  run(): void {
    for (;;) {
      let item;
      while ((item = this.work.pop()) !== undefined) {
        const [node, raw, place] = item;
        node.v = this.build(raw, place);
      }
      if (!this.usesDynamic) return;
      // $dynamicRef may land on any resource's dynamic anchor at run time.
      let added = false;
      for (const res of this.index.allResources()) {
        for (const [name, raw] of res.dynamic) {
          if (res.dynamicNodes.has(name)) continue;
          res.dynamicNodes.set(name, this.node(raw, this.index.placeOf(raw, res.root)));
          added = true;
        }
      }
      if (!added && this.work.length === 0) return;
    }
  }

  private build(raw: Record<string, unknown>, place: Place): ReturnType<typeof assemble> {
    const b = new Build(this, raw, place);
    const resourceRoot = place.res.raw === raw;
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
  if (typeof schema !== "boolean" && (typeof schema !== "object" || schema === null || Array.isArray(schema))) {
    throw new SchemaError("a schema must be an object or a boolean");
  }
  const index = new SchemaIndex(registryMap(options.registry), dialect);
  const root = index.addDocument(schema, ROOT_URI, "");
  const compiler = new Compiler(index, formats === "assert");
  const node = compiler.node(schema, root.root);
  compiler.run();
  return new CompiledSchema(node, root, compiler.usesDynamic);
}
