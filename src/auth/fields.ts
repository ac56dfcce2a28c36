/**
 * Field readers for OAuth answers: every member of every response is checked for
 * its type and bound before use (A2), with a message that names the document and
 * the field, never the value.
 *
 * @module
 */
import { OAuthError } from "../errors.js";
import { MAX_OAUTH_ARRAY_ITEMS, MAX_OAUTH_STRING_CHARS } from "../limits.js";
import { isRec, type Rec } from "../util/record.js";

/** `json` as an object, or a `bad_response` error naming `what`. */
export function objectOf(json: unknown, what: string): Rec {
  if (!isRec(json)) throw new OAuthError("bad_response", `${what} is not a JSON object`);
  return json;
}

/** An optional string member, 1 to `max` characters. */
export function optString(o: Rec, name: string, what: string, max = MAX_OAUTH_STRING_CHARS): string | undefined {
  const v = o[name];
  if (v === undefined) return undefined;
  if (typeof v !== "string" || v.length === 0 || v.length > max) throw new OAuthError("bad_response", `${what}: ${name} is not a string of 1 to ${max} characters`);
  return v;
}

/** A required string member. */
export function reqString(o: Rec, name: string, what: string, max = MAX_OAUTH_STRING_CHARS): string {
  const v = optString(o, name, what, max);
  if (v === undefined) throw new OAuthError("bad_response", `${what}: ${name} is missing`);
  return v;
}

/** An optional array of strings, at most `MAX_OAUTH_ARRAY_ITEMS`. */
export function optStrings(o: Rec, name: string, what: string): string[] | undefined {
  const v = o[name];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.length > MAX_OAUTH_ARRAY_ITEMS) throw new OAuthError("bad_response", `${what}: ${name} is not an array of at most ${MAX_OAUTH_ARRAY_ITEMS} strings`);
  const out: string[] = [];
  for (const item of v as unknown[]) {
    if (typeof item !== "string" || item.length > MAX_OAUTH_STRING_CHARS) throw new OAuthError("bad_response", `${what}: ${name} has an entry that is not a bounded string`);
    out.push(item);
  }
  return out;
}

/** An optional boolean member. */
export function optBool(o: Rec, name: string, what: string): boolean | undefined {
  const v = o[name];
  if (v === undefined) return undefined;
  if (typeof v !== "boolean") throw new OAuthError("bad_response", `${what}: ${name} is not a boolean`);
  return v;
}

/** Splits a space-delimited scope string (RFC 6749 §3.3) into its distinct scopes. */
export function scopeList(scope: string | undefined): string[] {
  if (scope === undefined) return [];
  return [...new Set(scope.split(" ").filter((s) => s !== ""))];
}
