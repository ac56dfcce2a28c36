/**
 * Read tools of a connection (T1, T4, T5, T6, T8, T9, T10): every invocation
 * checks the caller, awaits the host's authorization, validates and bounds the
 * arguments, and only then reaches the server. What comes back is rendered and
 * bounded for the model.
 *
 * @module
 */
import { CancelledError, SchemaError, YadaError, type ValidationIssue } from "../errors.js";
import { MAX_TOOL_ARGUMENT_BYTES } from "../limits.js";
import type { McpClient } from "../mcp/client.js";
import { isRecord, type CallToolResult, type JsonRecord, type McpTool } from "../mcp/types.js";
import type { CompiledSchema, ValidationResult } from "../schema/index.js";
import { compileWith } from "../schema/compile.js";
import { quote } from "../util/text.js";
import { utf8Length } from "./bound.js";
import type { ConnectionGate } from "./gate.js";
import { errorResult, renderToolResult, toolFailed } from "./render.js";
import { modelFacingMessage } from "./model-text.js";
import { prefixedToolName } from "./names.js";
import type { JsonSchemaObject, ReadTool, ToolBase, ToolCallContext, ToolResult } from "./types.js";

// Failures that concern the connection or the caller, not this call: they are
// thrown to the host (and reconnectingMcp) instead of shown to the model.
const THROWN = new Set(["cancelled", "connection_closed", "session_expired", "stale_contract", "unauthorized"]);

/**
 * One validation issue as text: the message and where; never the instance value.
 *
 * @example
 * ```ts
 * describeIssue({ message: "must be string", instancePath: "/sku", schemaPath: "/properties/sku/type" });
 * // 'must be string (at "/sku", schema "/properties/sku/type")'
 * ```
 */
export function describeIssue(issue: ValidationIssue | undefined): string {
  if (!issue) return "does not match the schema";
  return `${issue.message} (at "${issue.instancePath}", schema "${issue.schemaPath}")`;
}

/**
 * What a failed call becomes: connection-level failures are thrown (after a
 * session expiry or lost connection is recorded on the gate); every other
 * {@link YadaError} becomes an error result `{"error": code, "message": ...}`.
 *
 * @throws the error itself when it is not a YadaError, or has code `cancelled`,
 * `connection_closed`, `session_expired`, `stale_contract` or `unauthorized`.
 *
 * @example
 * ```ts
 * try { return await run(); } catch (e) { return callFailure(gate, e); }
 * ```
 */
export function callFailure(gate: ConnectionGate, e: unknown): ToolResult {
  gate.fail(e);
  if (!(e instanceof YadaError) || THROWN.has(e.code)) throw e;
  return errorResult(e.code, modelFacingMessage(e));
}

/** A frozen read tool (the shape every MCP read tool of this layer has). */
export function readTool(name: string, description: string, inputSchema: JsonSchemaObject, execute: ReadTool["execute"]): ReadTool {
  return Object.freeze({ effect: "read", name, description, inputSchema, execute });
}

/**
 * The checks of a tool's arguments before anything is sent: a JSON object (else
 * `invalid_arguments`), valid against `schema` when given (else
 * `invalid_arguments`, T5), at most `MAX_TOOL_ARGUMENT_BYTES` UTF-8 bytes as JSON
 * (else `limit`, T6). Returns the error result, or undefined when they pass.
 *
 * @throws what `schema.validate` throws (a `limit` on instance depth).
 */
export function checkArguments(name: string, args: unknown, schema?: SchemaValidator): ToolResult | undefined {
  if (!isRecord(args)) return errorResult("invalid_arguments", `${name}: arguments must be a JSON object`);
  // The size first: validation of an oversized value would be paid for nothing.
  let json: string;
  try {
    json = JSON.stringify(args);
  } catch {
    return errorResult("invalid_arguments", `${name}: arguments are not JSON`);
  }
  const bytes = utf8Length(json);
  if (bytes > MAX_TOOL_ARGUMENT_BYTES) return errorResult("limit", `${name}: arguments are ${bytes} UTF-8 bytes; the limit is ${MAX_TOOL_ARGUMENT_BYTES}`);
  const checked = schema?.validate(args);
  return checked && !checked.valid
    ? errorResult("invalid_arguments", `${name}: arguments do not match the input schema: ${describeIssue(checked.issues[0])}`)
    : undefined;
}

/** `tools/call` of `remote` with the call's signal and progress, bounded by `timeoutMs` (T10). */
export function callRemote(
  client: McpClient,
  remote: string,
  args: JsonRecord,
  { signal, onUpdate }: ToolCallContext,
  timeoutMs: number | null | undefined,
): Promise<CallToolResult> {
  return client.callTool(remote, args, { signal, timeoutMs, onProgress: onUpdate && ((p) => onUpdate(p)) });
}

/**
 * A read tool whose `execute` checks in this order: identity (thrown), connection
 * open and contract current (thrown), `authorize` (denial → an `unauthorized`
 * error result; nothing sent), arguments against the input schema (→
 * `invalid_arguments`), arguments at most `MAX_TOOL_ARGUMENT_BYTES` (→ `limit`).
 * Only then does `run` reach the server; failures it throws go through
 * {@link callFailure}.
 *
 * @param authorizeAs The name `authorize` receives (T4, T11).
 * @param input The compiled `inputSchema` of `tool`.
 * @throws (from `execute`) UnauthorizedError (`unauthorized`) for another identity;
 * StaleContractError (`stale_contract`); ConnectionClosedError (`connection_closed`);
 * SessionExpiredError (`session_expired`); CancelledError (`cancelled`).
 *
 * @example
 * ```ts
 * const echo = guardedTool(gate, "echo", { name: "srv__echo", description: "Echo", inputSchema }, compileSchema(inputSchema),
 *   async (args) => ({ content: [{ type: "text", text: String(args.text) }], isError: false }));
 * ```
 */
export function guardedTool(
  gate: ConnectionGate,
  authorizeAs: string,
  { name, description, inputSchema }: ToolBase,
  input: SchemaValidator,
  run: (args: JsonRecord, context: ToolCallContext) => Promise<ToolResult>,
): ReadTool {
  return readTool(name, description, inputSchema, async (args, context) => {
    await gate.enter(context.identity);
    if (context.signal?.aborted) throw new CancelledError(`${name} was cancelled before it was sent`, { cause: context.signal.reason });
    if (!(await gate.permit(authorizeAs))) return errorResult("unauthorized", `${name}: the host denied this call; nothing was sent`);
    try {
      return checkArguments(name, args, input) ?? (await run(args as JsonRecord, context));
    } catch (e) {
      return callFailure(gate, e);
    }
  });
}

/** What checking a value against a tool's schema needs: what {@link compile} returns, or a {@link CompiledSchema}. */
export interface SchemaValidator {
  /** As {@link CompiledSchema.validate}, with the compile's options. */
  validate(instance: unknown): ValidationResult;
}

/**
 * A tool's schema, checked now and compiled for validation at its first use, once
 * (T5, T9). Compiling walks every subschema and finds every error a schema can
 * cause, so a schema that does not compile is refused here, before its tool is
 * offered; what that walk builds is not kept. A connection to a catalog of hundreds
 * of tools, most never called, then holds their listings only (measured: keeping a
 * compiled schema for every tool doubled a large catalog's connect, in garbage
 * collection); a tool that is called compiles once more, at its first call, and keeps it.
 *
 * @throws SchemaError (`schema`) prefixed with `where`; LimitError (`limit`) for a
 * schema past the compile bounds. (From `validate`) as {@link CompiledSchema.validate}.
 *
 * @example
 * ```ts
 * const input = compile(tool.inputSchema, 'catalog: tool "lookup" input schema');
 * input.validate({ sku: "ABC-123" }); // compiled now, kept for the next call
 * ```
 */
export function compile(schema: Record<string, unknown>, where: string): SchemaValidator {
  const now = (): CompiledSchema => {
    try {
      return compileWith(schema, {}, null);
    } catch (e) {
      if (e instanceof SchemaError) throw new SchemaError(`${where}: ${e.message}`);
      throw e;
    }
  };
  now();
  let compiled: CompiledSchema | undefined;
  return { validate: (instance) => (compiled ??= now()).validate(instance) };
}

/**
 * The read tool for one selected MCP tool, named `server__tool` (T2) with its
 * schemas checked now and compiled at first use ({@link compile}; T5, T9): a {@link guardedTool} that calls `tools/call` with
 * the remote name, bounded by `timeoutMs` and the context's signal, then renders
 * the result (T7), wraps `isError` results as `tool_failed` (T8) and checks
 * `structuredContent` against the output schema (T9, error `invalid_output`).
 * Timeouts and server errors are error results.
 *
 * @throws LimitError (`limit`) for a combined name over 64 characters; ConfigError
 * (`config`) for a name with characters providers refuse; SchemaError (`schema`) for
 * a schema that does not compile (remote `$ref`, `$async`, malformed), naming the
 * tool. (From `execute`) as {@link guardedTool}.
 *
 * @example
 * ```ts
 * const tools = selectReadTools(config, listed).map((t) => mcpReadTool(gate, client, "catalog", t, 30_000));
 * ```
 */
export function mcpReadTool(gate: ConnectionGate, client: McpClient, server: string, remote: McpTool, timeoutMs: number | undefined): ReadTool {
  const name = prefixedToolName(server, remote.name);
  const where = `${server}: tool ${quote(remote.name)}`;
  const input = compile(remote.inputSchema, `${where} input schema`);
  const output = remote.outputSchema && compile(remote.outputSchema, `${where} output schema`);
  const base = { name, description: remote.description ?? remote.title ?? "", inputSchema: remote.inputSchema };
  return guardedTool(gate, remote.name, base, input, async (args, context) => {
    const result = await callRemote(client, remote.name, args, context, timeoutMs);
    if (result.isError) return toolFailed(result);
    if (output) {
      const structured = result.structuredContent;
      const checked = structured === undefined ? undefined : output.validate(structured);
      if (!checked?.valid) {
        return errorResult("invalid_output", `${name}: structuredContent ${checked ? `does not match the output schema: ${describeIssue(checked.issues[0])}` : "is missing despite the output schema"}`);
      }
    }
    return renderToolResult(result);
  });
}
