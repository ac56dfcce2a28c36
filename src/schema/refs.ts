/**
 * The resource index: every schema resource (document roots, `$id`
 * subschemas), anchor and dynamic anchor of a compile, and `$ref` resolution
 * against it. Nothing is ever fetched: a reference must land in the schema
 * itself or in the caller's registry (2020-12 core §9.1.2 lets an
 * implementation refuse to load remote schemas).
 *
 * @module
 */
import { LimitError, SchemaError } from "../errors.js";
import { MAX_QUOTED_TEXT_CHARS, MAX_SCHEMA_DEPTH, MAX_SCHEMA_SUBSCHEMAS } from "../limits.js";
import { isRec } from "../util/record.js";
import { ANY, DEPENDENCIES, ITEMS, KEYWORDS, SCHEMA, SCHEMAS, SHAPE } from "./keywords.js";
import type { Dialect, Resource } from "./types.js";

/** Where a raw subschema sits: its resource and its display location. */
export interface Place {
  readonly res: IndexedResource;
  /** JSON pointer from the document root, after `uri#` for registry documents. */
  readonly at: string;
}

/** A resource with what resolution needs. */
export interface IndexedResource extends Resource {
  readonly raw: unknown;
  root: Place;
  /** The rules of every subschema in the resource. */
  readonly dialect: Dialect;
  /** Enabled vocabularies (validation, applicator, ...) or null for all. */
  readonly vocab: ReadonlySet<string> | null;
}

/** Base URI of a schema without `$id`; a hierarchical URI so relative refs still resolve. */
export const ROOT_URI = "yada:/schema";

/** A fragment-only reference of printable ASCII (the URL parser would strip or re-encode nothing else). */
const SAME_DOCUMENT = /^#[\x21-\x7e]*$/;

/** Escapes one JSON pointer token (RFC 6901 §3). */
export function escapeToken(s: string | number): string {
  if (typeof s === "number") return String(s);
  return s.includes("~") || s.includes("/") ? s.replace(/~/g, "~0").replace(/\//g, "~1") : s;
}

/** The SchemaError for a subschema that is neither an object nor a boolean. */
export function notSchema(at: string): SchemaError {
  return new SchemaError(`schema at ${at || "/"} must be an object or a boolean`);
}

function own(o: Record<string, unknown>, k: string): unknown {
  return Object.hasOwn(o, k) ? o[k] : undefined;
}

function clip(s: string): string {
  return s.length > MAX_QUOTED_TEXT_CHARS ? s.slice(0, MAX_QUOTED_TEXT_CHARS) + "..." : s;
}

/** Parses `ref` against `base`; a SchemaError when it is not a URI reference. */
function parseUri(ref: string, base: string): URL {
  try {
    return new URL(ref, base);
  } catch {
    throw new SchemaError(`cannot resolve "${clip(ref)}" against base URI "${clip(base)}"`);
  }
}

/** Percent-decodes a URI fragment; a SchemaError when it is malformed. */
function decodeFragment(frag: string, ref: string): string {
  try {
    return decodeURIComponent(frag);
  } catch {
    throw new SchemaError(`malformed percent-encoding in URI fragment of "${clip(ref)}"`);
  }
}

function splitFragment(url: URL): [uri: string, fragment: string] {
  const hash = url.hash;
  url.hash = "";
  let uri = url.href;
  if (uri.endsWith("#")) uri = uri.slice(0, -1);
  return [uri, decodeFragment(hash.startsWith("#") ? hash.slice(1) : hash, url.href)];
}

/**
 * The dialect a `$schema` URI names, or null when it names none we know. Draft 4
 * and 6 are validated with draft 7 rules (plus draft 4's boolean
 * exclusiveMaximum / exclusiveMinimum); their differences rarely matter for tool schemas.
 */
export function knownDialect(uri: string): Dialect | null {
  const m = /^(?:https?:\/\/)?json-schema\.org\/(?:draft\/(2019-09|2020-12)|draft-0[467])\/schema#?$/.exec(uri);
  return m === null ? null : ((m[1] as Dialect | undefined) ?? "draft-07");
}

/** Every raw subschema of one compile, indexed by resource URI, anchor and object identity. */
export class SchemaIndex {
  readonly #resources = new Map<string, IndexedResource>();
  readonly #places = new Map<object, Place>();
  readonly #registry = new Map<string, unknown>();
  /** Registry documents not indexed yet. */
  readonly #pending: Map<string, unknown>;
  readonly #defaultDialect: Dialect;

  constructor(registry: ReadonlyMap<string, unknown>, defaultDialect: Dialect) {
    this.#defaultDialect = defaultDialect;
    for (const [k, v] of registry) this.#registry.set(splitFragment(parseUri(k, ROOT_URI))[0], v);
    this.#pending = new Map(this.#registry);
  }

  /** Indexes a whole document retrieved from `uri` (the root schema or a registry entry). */
  addDocument(raw: unknown, uri: string, label: string): IndexedResource {
    let rules = { dialect: this.#defaultDialect, vocab: null as ReadonlySet<string> | null };
    let id = uri;
    let anchor = "";
    if (isRec(raw)) {
      rules = this.#rulesOf(raw, rules.dialect);
      const idv = own(raw, "$id");
      if (typeof idv === "string" && !(rules.dialect === "draft-07" && own(raw, "$ref") !== undefined)) {
        [id, anchor] = splitFragment(parseUri(idv, uri));
      }
    }
    const res = this.#newResource(id, raw, label, rules.dialect, rules.vocab);
    if (anchor !== "" && rules.dialect === "draft-07") res.anchors.set(anchor, raw);
    this.#resources.set(id, res);
    if (!this.#resources.has(uri)) this.#resources.set(uri, res);
    this.#scan(raw, res.root, 0, true);
    return res;
  }

  #newResource(uri: string, raw: unknown, at: string, dialect: Dialect, vocab: ReadonlySet<string> | null): IndexedResource {
    const res: IndexedResource = { uri, raw, anchors: new Map(), dynamic: new Map(), dynamicNodes: new Map(), root: undefined as unknown as Place, dialect, vocab };
    res.root = { res, at };
    return res;
  }

  /** Dialect and vocabularies a resource root declares with `$schema` (2020-12 core §8.1.1). */
  #rulesOf(o: Record<string, unknown>, fallback: Dialect): { dialect: Dialect; vocab: ReadonlySet<string> | null } {
    const s = own(o, "$schema");
    if (typeof s !== "string") return { dialect: fallback, vocab: null };
    const known = knownDialect(s);
    if (known !== null) return { dialect: known, vocab: null };
    // A custom meta-schema from the registry: its own dialect, and its $vocabulary.
    const meta = this.#registry.get(splitFragment(parseUri(s, ROOT_URI))[0]);
    if (!isRec(meta)) return { dialect: "2020-12", vocab: null };
    const ms = own(meta, "$schema");
    const dialect = (typeof ms === "string" ? knownDialect(ms) : null) ?? "2020-12";
    const vocabulary = own(meta, "$vocabulary");
    if (!isRec(vocabulary) || dialect === "draft-07") return { dialect, vocab: null };
    const vocab = new Set<string>();
    for (const key of Object.keys(vocabulary)) {
      const m = /^https:\/\/json-schema\.org\/draft\/20(?:19-09|20-12)\/vocab\/([a-z-]+)$/.exec(key);
      if (m?.[1] !== undefined) vocab.add(m[1]);
    }
    return { dialect, vocab };
  }

  /** Indexes `raw` found at `place` (only objects not indexed yet). */
  #scan(raw: unknown, place: Place, depth: number, isDocRoot = false): void {
    if (!isRec(raw)) {
      if (Array.isArray(raw)) throw notSchema(place.at);
      return;
    }
    if (depth > MAX_SCHEMA_DEPTH) {
      throw new LimitError("MAX_SCHEMA_DEPTH", MAX_SCHEMA_DEPTH, `schema nested deeper than ${MAX_SCHEMA_DEPTH} levels`);
    }
    if (this.#places.has(raw)) return;
    // Y1: compile work is linear in the subschemas indexed; their number is bounded.
    if (this.#places.size >= MAX_SCHEMA_SUBSCHEMAS) {
      throw new LimitError("MAX_SCHEMA_SUBSCHEMAS", MAX_SCHEMA_SUBSCHEMAS, `schema has more than ${MAX_SCHEMA_SUBSCHEMAS} subschemas`);
    }
    const where = place.at || "/";
    const async = own(raw, "$async");
    if (async !== undefined && async !== false) throw new SchemaError(`$async schemas are not supported (at ${where})`);
    let p = place;
    const parent = p.res;
    const idv = own(raw, "$id");
    if (!isDocRoot && idv !== undefined && !(parent.dialect === "draft-07" && own(raw, "$ref") !== undefined)) {
      if (typeof idv !== "string") throw new SchemaError(`$id must be a string (at ${where})`);
      const [uri, frag] = splitFragment(parseUri(idv, parent.uri));
      if (uri === parent.uri) {
        if (frag !== "") parent.anchors.set(frag, raw);
      } else {
        const d = this.#rulesOf(raw, parent.dialect);
        const res = this.#newResource(uri, raw, p.at, d.dialect, Object.hasOwn(raw, "$schema") ? d.vocab : parent.vocab);
        if (frag !== "") res.anchors.set(frag, raw);
        if (!this.#resources.has(uri)) this.#resources.set(uri, res);
        p = res.root;
      }
    }
    this.#places.set(raw, p);
    const res = p.res;
    if (res.dialect !== "draft-07") {
      const a = own(raw, "$anchor");
      if (typeof a === "string") res.anchors.set(a, raw);
      const da = own(raw, "$dynamicAnchor");
      if (typeof da === "string") {
        res.anchors.set(da, raw);
        res.dynamic.set(da, raw);
      }
      if (own(raw, "$recursiveAnchor") === true && res.raw === raw) res.dynamic.set("", raw);
    }
    const next = depth + 1;
    for (const k in raw) {
      if (!Object.hasOwn(raw, k)) continue;
      const shape = (KEYWORDS.get(k) ?? ANY) & SHAPE;
      const v = raw[k];
      // Shapes SCHEMA to ITEMS hold subschemas.
      if (shape === ANY || shape > ITEMS || typeof v !== "object" || v === null) continue;
      const at = p.at + "/" + k;
      if (shape === SCHEMA || (shape === ITEMS && !Array.isArray(v))) this.#scan(v, { res, at }, next);
      else if (shape === SCHEMAS || shape === ITEMS) {
        if (Array.isArray(v)) for (let i = 0; i < v.length; i++) this.#scan(v[i], { res, at: at + "/" + i }, next);
      } else if (isRec(v)) {
        for (const name of Object.keys(v)) {
          const s = v[name];
          // `dependencies` mixes schemas and property-name arrays (draft 7 §6.5.7).
          if (shape !== DEPENDENCIES || !Array.isArray(s)) this.#scan(s, { res, at: at + "/" + escapeToken(name) }, next);
        }
      }
    }
  }

  /** The resource at `uri`, indexing registry documents on first use. */
  #resource(uri: string): IndexedResource | undefined {
    const hit = this.#resources.get(uri);
    if (hit !== undefined) return hit;
    if (this.#pending.has(uri)) {
      this.#load(uri);
      const r = this.#resources.get(uri);
      if (r !== undefined) return r;
    }
    // The URI may be an `$id` embedded in a registry document not indexed yet.
    for (const u of [...this.#pending.keys()]) this.#load(u);
    return this.#resources.get(uri);
  }

  #load(uri: string): void {
    const raw = this.#pending.get(uri);
    this.#pending.delete(uri);
    this.addDocument(raw, uri, uri + "#");
  }

  /**
   * Resolves a reference found at `from` (2020-12 core §8.2.3). Returns the raw
   * target, its place, and the anchor name when the fragment is a plain name.
   * Throws SchemaError when the target is not in the schema or the registry.
   */
  resolve(ref: string, from: Place): { raw: unknown; place: Place; anchor: string | null } {
    let uri: string;
    let frag: string;
    // "#..." in the current resource: no URI parse (it would keep the base and
    // only percent-encode characters the decoding restores).
    if (SAME_DOCUMENT.test(ref)) [uri, frag] = [from.res.uri, decodeFragment(ref.slice(1), ref)];
    else [uri, frag] = splitFragment(parseUri(ref, from.res.uri));
    const res = this.#resource(uri);
    const unresolved = (why: string) => new SchemaError(`$ref "${clip(ref)}" at ${from.at || "/"} ${why}`);
    if (res === undefined) throw unresolved("points outside the schema; remote schemas are never fetched, pass them in the registry option");
    if (frag === "") return { raw: res.raw, place: res.root, anchor: null };
    if (!frag.startsWith("/")) {
      if (!res.anchors.has(frag)) throw unresolved(`names no anchor in ${clip(uri)}`);
      const raw = res.anchors.get(frag);
      return { raw, place: this.placeOf(raw) ?? res.root, anchor: frag };
    }
    let cur: unknown = res.raw;
    // The place of the last indexed value on the way, and the pointer from it.
    let base = res.root;
    let rest = "";
    for (const tok of frag.slice(1).split("/")) {
      const key = tok.replace(/~1/g, "/").replace(/~0/g, "~");
      if (Array.isArray(cur) && /^(?:0|[1-9][0-9]*)$/.test(key) && Number(key) < cur.length) cur = cur[Number(key)];
      else if (isRec(cur) && Object.hasOwn(cur, key)) cur = cur[key];
      else throw unresolved(`does not resolve in ${clip(uri)}`);
      const known = this.placeOf(cur);
      if (known !== undefined) {
        base = known;
        rest = "";
      } else rest += "/" + escapeToken(key);
    }
    if (rest === "") return { raw: cur, place: base, anchor: null };
    const place: Place = { res: base.res, at: base.at + rest };
    // A pointer into a location the scan did not visit (e.g. an unknown keyword).
    if (isRec(cur)) this.#scan(cur, place, 0);
    return { raw: cur, place: this.placeOf(cur) ?? place, anchor: null };
  }

  /** The place recorded for `raw` (none for boolean schemas and unscanned spots). */
  placeOf(raw: unknown): Place | undefined {
    return typeof raw === "object" && raw !== null ? this.#places.get(raw) : undefined;
  }

  /** Every resource indexed so far (each once). */
  allResources(): IndexedResource[] {
    return [...new Set(this.#resources.values())];
  }
}
