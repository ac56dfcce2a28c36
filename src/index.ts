/**
 * yada's web entry: web-standard only (fetch, streams, TextEncoder/Decoder,
 * AbortSignal, crypto.subtle, URL). Runs on Node 20+, Deno, Bun, Cloudflare
 * workerd and browsers.
 *
 * @module
 */
export * from "./errors.js";
export * as limits from "./limits.js";
export type { Logger, LogLevel } from "./log.js";
export * from "./jsonrpc/messages.js";
export { JsonRpcSession, RpcErrorReply } from "./jsonrpc/session.js";
export type { Progress, RequestOptions, RequestContext, RequestHandler, NotificationListener, SessionOptions } from "./jsonrpc/session.js";
export type { Transport, TransportSink, SendOptions } from "./transport/types.js";
export { createLineSplitter, type LineSink, type LineSplitter } from "./transport/ndjson.js";
export { McpClient, DEFAULT_CLIENT_INFO, type ClientOptions, type CallOptions, type ListKind, type LoggingLevel, type ServerLogEntry } from "./mcp/client.js";
export type { ClientHandlers, Root, SamplingRequest, SamplingResult, FormElicitation, UrlElicitation, ElicitationAnswer, HandlerContext } from "./mcp/handlers.js";
export * from "./mcp/types.js";
export * from "./schema/index.js";
export { LEGACY_VERSIONS, LATEST_LEGACY_VERSION, type LegacyVersion } from "./mcp/versions.js";
