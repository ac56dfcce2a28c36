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

/** The result of checking a tool's declarations. */
export type ParamHeaderCheck = { ok: true; headers: ParamHeader[] } | { ok: false; reason: string };

// RFC 9110 token characters.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * Finds every `x-mcp-header` declaration of an input schema and checks the rules:
 * a non-empty token, unique case-insensitively, on a `string`, `integer` or
 * `boolean` property reached only through `properties` keys. Any violation makes
 * the whole tool invalid (the client must then leave the tool out).
 */
export function checkParamHeaders(inputSchema: JsonRecord): ParamHeaderCheck {
  const headers: ParamHeader[] = [];
  const seen = new Set<string>();
  let problem: string | undefined;

  // Declarations reachable through `properties` chains are candidates; a declaration
  // anywhere else (items, combinators, $ref targets, $defs) is invalid.
  const reachable = new Set<unknown>();
  const walkProperties = (schema: JsonRecord, path: string[], depth: number): void => {
    if (depth > 32 || problem) return;
    const props = schema.properties;
    if (!isRecord(props)) return;
    for (const [key, sub] of Object.entries(props)) {
      if (!isRecord(sub)) continue;
      reachable.add(sub);
      const declared = sub["x-mcp-header"];
      if (declared !== undefined) {
        if (typeof declared !== "string" || declared.length === 0 || !TOKEN.test(declared)) {
          problem = `property '${key}' has an x-mcp-header that is not a header token`;
          return;
        }
        const type = sub.type;
        if (type !== "string" && type !== "integer" && type !== "boolean") {
          problem = `property '${key}' has an x-mcp-header but is not a string, integer or boolean`;
          return;
        }
        const lower = declared.toLowerCase();
        if (seen.has(lower)) {
          problem = `x-mcp-header '${declared}' is declared twice`;
          return;
        }
        seen.add(lower);
        headers.push({ path: [...path, key], name: declared });
      }
      walkProperties(sub, [...path, key], depth + 1);
    }
  };
  walkProperties(inputSchema, [], 0);
  if (problem) return { ok: false, reason: problem };

  const anywhere = (v: unknown, depth: number): void => {
    if (depth > 64 || problem) return;
    if (Array.isArray(v)) {
      for (const x of v) anywhere(x, depth + 1);
      return;
    }
    if (!isRecord(v)) return;
    if (v["x-mcp-header"] !== undefined && !reachable.has(v)) {
      problem = "an x-mcp-header is declared where it is not reachable through properties alone";
      return;
    }
    for (const x of Object.values(v)) anywhere(x, depth + 1);
  };
  anywhere(inputSchema, 0);
  return problem ? { ok: false, reason: problem } : { ok: true, headers };
}

/**
 * Encodes a value for an MCP header: as is when it is plain visible ASCII, else
 * `=?base64?<base64 of UTF-8>?=` (one encoder for `Mcp-Name` and `Mcp-Param-*`).
 */
export const encodeMcpHeaderValue = encodeHeaderValue;

/**
 * The `Mcp-Param-*` headers of one call: for each declaration whose argument is
 * present and not null, its value (string as is, integer in decimal, boolean as
 * `true` / `false`), encoded as {@link encodeMcpHeaderValue}. A value of the wrong
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
    out[`Mcp-Param-${d.name}`] = encodeMcpHeaderValue(text);
  }
  return out;
}
