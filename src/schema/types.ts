/**
 * Shapes shared by the schema compiler and its keyword closures.
 *
 * @module
 */
import type { ValidationIssue } from "../errors.js";

/** A JSON Schema dialect this validator implements. 2019-09 is validated with 2020-12 rules. */
export type Dialect = "draft-07" | "2019-09" | "2020-12";

/**
 * Annotations gathered at one instance location for `unevaluatedProperties` and
 * `unevaluatedItems` (2020-12 §11). Only allocated when a schema uses them.
 */
export interface Evaluated {
  /** Property names some adjacent keyword evaluated. */
  props: Set<string> | null;
  /** Every property was evaluated (additionalProperties, unevaluatedProperties). */
  allProps: boolean;
  /** Items below this index were evaluated (prefixItems). */
  items: number;
  /** Every item was evaluated (items, unevaluatedItems). */
  allItems: boolean;
  /** Indices matched by `contains`. */
  itemSet: Set<number> | null;
}

/** One schema resource (a document root or a subschema with `$id`). */
export interface Resource {
  /** Absolute URI without fragment. */
  readonly uri: string;
  /** Anchors (`$anchor`, `$dynamicAnchor`, draft 7 `$id: "#name"`) to their raw subschema. */
  readonly anchors: Map<string, unknown>;
  /** `$dynamicAnchor` names (and "" for 2019-09 `$recursiveAnchor: true`) to their raw subschema. */
  readonly dynamic: Map<string, unknown>;
  /** Compiled dynamic anchors, filled by the compiler for `$dynamicRef` lookups. */
  readonly dynamicNodes: Map<string, SchemaNode>;
}

/** An instance key: a property name, an index, or a property's path segment escaped in advance. */
export type Key = string | number | { readonly seg: string };

/** Per-validation state. One object per compiled schema, reset at each call. */
export interface Ctx {
  /** Issues collected, or null on the fast pass (which stops at the first failure). */
  errs: ValidationIssue[] | null;
  /** Instance path segments, maintained only while collecting issues. */
  path: Key[];
  /**
   * Fast pass: the last failure reported. Its instance path is gathered while the
   * failure unwinds: `trail[0..trailLength)` holds the segments, innermost first.
   */
  failAt: string;
  failMessage: string;
  failKey: string | number | undefined;
  trail: Key[];
  trailLength: number;
  /** Current instance nesting. */
  depth: number;
  /** Current nesting of subschema evaluations (bounds the call stack). */
  nest: number;
  /** `$ref` expansions so far. */
  refs: number;
  /** Work units left of `MAX_SCHEMA_WORK` (Y1): visits, walked keys and items, pattern steps. */
  work: number;
  /** Dynamic scope (resources entered), only when the schema uses `$dynamicRef`. */
  scope: Resource[] | null;
}

/** A keyword (or a whole subschema) compiled to a closure. */
export type Check = (inst: unknown, ctx: Ctx, ev: Evaluated | null) => boolean;

/** A compiled subschema. `v` is filled after compilation, so cycles through `$ref` work. */
export interface SchemaNode {
  v: Check;
  /** The resource this subschema belongs to (pushed on the dynamic scope by `$ref`). */
  readonly resource: Resource;
}

/** Fresh annotation record. */
export function newEvaluated(): Evaluated {
  return { props: null, allProps: false, items: 0, allItems: false, itemSet: null };
}

/**
 * Adds `from` into `into` (annotations of a passing subschema flow to the parent).
 * Returns the entries copied, for the caller to charge (Y1).
 */
export function mergeEvaluated(into: Evaluated, from: Evaluated): number {
  const copied = (from.props?.size ?? 0) + (from.itemSet?.size ?? 0);
  if (from.allProps) into.allProps = true;
  else if (from.props !== null && !into.allProps) {
    if (into.props === null) into.props = new Set(from.props);
    else for (const k of from.props) into.props.add(k);
  }
  if (from.allItems) into.allItems = true;
  else if (!into.allItems) {
    if (from.items > into.items) into.items = from.items;
    if (from.itemSet !== null) {
      if (into.itemSet === null) into.itemSet = new Set(from.itemSet);
      else for (const i of from.itemSet) into.itemSet.add(i);
    }
  }
  return copied;
}
