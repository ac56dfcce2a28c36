// Validates client messages against the official MCP JSON Schema of a revision
// (fixtures/mcp-schema/<revision>/schema.json) with yada's own validator (X4).
import { readFileSync } from "node:fs";
import assert from "node:assert/strict";
import { compileSchema } from "../../src/schema/index.js";
import type { CompiledSchema } from "../../src/schema/index.js";
import { fixturePath } from "./paths.js";

const cache = new Map<string, CompiledSchema>();

function defsKey(schema: Record<string, unknown>): "$defs" | "definitions" {
  return "$defs" in schema ? "$defs" : "definitions";
}

/** A validator for one definition of the revision's schema. */
export function mcpDefinition(revision: string, name: string): CompiledSchema {
  const key = `${revision}#${name}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const schema = JSON.parse(readFileSync(fixturePath("mcp-schema", revision, "schema.json"), "utf8")) as Record<string, unknown>;
  const defs = defsKey(schema);
  const defined = schema[defs] as Record<string, unknown>;
  assert.ok(name in defined, `${revision} has no definition ${name}`);
  const compiled = compileSchema({ ...schema, $ref: `#/${defs}/${name}` });
  cache.set(key, compiled);
  return compiled;
}

function has(revision: string, name: string): boolean {
  const schema = JSON.parse(readFileSync(fixturePath("mcp-schema", revision, "schema.json"), "utf8")) as Record<string, unknown>;
  return name in (schema[defsKey(schema)] as Record<string, unknown>);
}

function check(revision: string, name: string, value: unknown, what: string): void {
  const r = mcpDefinition(revision, name).validate(value);
  assert.ok(r.valid, `${what} is not a valid ${name} of ${revision}: ${r.valid ? "" : JSON.stringify(r.issues.slice(0, 3))}\n${JSON.stringify(value).slice(0, 400)}`);
}

/**
 * Asserts that `message`, sent by the client, is valid for its revision (the one
 * its `_meta` names, else `legacyRevision`): a request
 * is a ClientRequest in a JSON-RPC request envelope, a notification a
 * ClientNotification, a response a ClientResult (or a JSON-RPC error).
 */
export function checkClientMessage(legacyRevision: string, message: unknown): void {
  assert.ok(typeof message === "object" && message !== null);
  const m = message as Record<string, unknown>;
  // A modern request names its own revision in _meta (the discover probe of a legacy session does too).
  const params = m.params as Record<string, unknown> | undefined;
  const meta = params?._meta as Record<string, unknown> | undefined;
  const declared = meta?.["io.modelcontextprotocol/protocolVersion"];
  const revision = typeof declared === "string" ? declared : legacyRevision;
  const what = typeof m.method === "string" ? m.method : `response ${JSON.stringify(m.id)}`;
  if (typeof m.method === "string" && "id" in m) {
    check(revision, "JSONRPCRequest", m, what);
    check(revision, "ClientRequest", m, what);
  } else if (typeof m.method === "string") {
    check(revision, "JSONRPCNotification", m, what);
    check(revision, "ClientNotification", m, what);
  } else if ("error" in m) {
    check(revision, has(revision, "JSONRPCErrorResponse") ? "JSONRPCErrorResponse" : "JSONRPCError", m, what);
  } else {
    check(revision, has(revision, "JSONRPCResultResponse") ? "JSONRPCResultResponse" : "JSONRPCResponse", m, what);
    check(revision, "ClientResult", m.result, what);
  }
}
