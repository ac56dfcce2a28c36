/**
 * `x-mcp-header` tool parameters (revision 2026-07-28, Streamable HTTP "Custom
 * Headers"): which declarations are valid, and the `Mcp-Param-*` headers that
 * mirror a call's arguments (V2).
 *
 * @module
 */
import { encodeHeaderValue } from "../transport/http-headers.js";
import { isRecord, type JsonRecord } from "./types.js";

/** One valid declaration: the property path from the arguments root and the header suffix. */
export interface ParamHeader {
  path: readonly string[];
  name: string;
}

/** The result of checking a tool's declarations: the valid ones, or why the tool is invalid. */
export type ParamHeaderCheck = ParamHeader[] | string;

// RFC 9110 token characters.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * Finds every `x-mcp-header` declaration of an input schema and checks the rules:
 * a non-empty token, unique case-insensitively, on a `string`, `integer` or
 * `boolean` property reached only through `properties` keys. Any violation makes
 * the whole tool invalid (the client must then leave the tool out). The walk stops
 * 64 JSON levels down (32 levels of `properties`): a declaration deeper than that
 * is not seen, so no header is sent for it.
 */
export function checkParamHeaders(inputSchema: JsonRecord): ParamHeaderCheck {
  const headers: ParamHeader[] = [];
  const seen = new Set<string>();
  let problem: string | undefined;
  // One walk of the whole schema. `path` is the property path while the walk has
  // gone only through `properties` keys from the root; a declaration anywhere else
  // (the root, items, combinators, $ref targets, $defs) is invalid.
  const walk = (v: unknown, path: string[] | undefined, depth: number): void => {
    if (depth > 64 || problem) return;
    if (Array.isArray(v)) {
      for (const x of v) walk(x, undefined, depth + 1);
      return;
    }
    if (!isRecord(v)) return;
    const declared = v["x-mcp-header"];
    if (declared !== undefined) {
      const key = path?.at(-1);
      if (!path || key === undefined) {
        problem = "an x-mcp-header is declared outside a chain of properties from the root";
      } else if (typeof declared !== "string" || !TOKEN.test(declared)) {
        problem = `property '${key}' has an x-mcp-header that is not a header token`;
      } else if (v.type !== "string" && v.type !== "integer" && v.type !== "boolean") {
        problem = `property '${key}' has an x-mcp-header but is not a string, integer or boolean`;
      } else if (seen.has(declared.toLowerCase())) {
        problem = `x-mcp-header '${declared}' is declared twice`;
      } else {
        seen.add(declared.toLowerCase());
        headers.push({ path, name: declared });
      }
    }
    for (const [k, x] of Object.entries(v)) {
      if (k === "properties" && path && isRecord(x)) for (const [name, sub] of Object.entries(x)) walk(sub, [...path, name], depth + 2);
      else walk(x, undefined, depth + 1);
    }
  };
  walk(inputSchema, [], 0);
  return problem ?? headers;
}

/**
 * The `Mcp-Param-*` headers of one call: for each declaration whose argument is
 * present and not null, its value (string as is, integer in decimal, boolean as
 * `true` / `false`), encoded as `Mcp-Name` is: as is when it is plain visible ASCII, else
 * `=?base64?<base64 of UTF-8>?=`. A value of the wrong
 * type is left out (argument validation reports it).
 */
export function paramHeaderValues(declarations: readonly ParamHeader[], args: JsonRecord): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of declarations) {
    let v: unknown = args;
    for (const key of d.path) v = isRecord(v) && Object.hasOwn(v, key) ? v[key] : undefined;
    if (v === undefined || v === null) continue;
    let text: string;
    if (typeof v === "string") text = v;
    else if (typeof v === "boolean") text = v ? "true" : "false";
    else if (typeof v === "number" && Number.isInteger(v) && Math.abs(v) <= MAX_SAFE) text = String(v);
    else continue;
    out[`Mcp-Param-${d.name}`] = encodeHeaderValue(text);
  }
  return out;
}
