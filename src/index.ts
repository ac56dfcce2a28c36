/**
 * yada's web entry: web-standard only (fetch, streams, TextEncoder/Decoder,
 * AbortSignal, crypto.subtle, URL). Runs on Node 20+, Deno, Bun, Cloudflare
 * workerd and browsers.
 *
 * Every bound is a named constant of the `yada-mcp/limits` entry (`src/limits.ts`);
 * each option that sets a bound defaults to its constant there.
 *
 * @module
 */
export * from "./errors.js";
export type { Logger, LogLevel } from "./log.js";
export * from "./jsonrpc/messages.js";
export { JsonRpcSession, RpcErrorReply } from "./jsonrpc/session.js";
export type { Progress, RequestOptions, RequestContext, RequestHandler, NotificationListener, SessionOptions } from "./jsonrpc/session.js";
export type { Transport, TransportSink, SendOptions } from "./transport/types.js";
export { McpClient } from "./mcp/client.js";
export { DEFAULT_CLIENT_INFO, type ClientOptions, type CallOptions, type ListKind, type LoggingLevel, type ServerLogEntry } from "./mcp/client-options.js";
export type { ClientHandlers, Root, SamplingRequest, SamplingResult, FormElicitation, UrlElicitation, ElicitationAnswer, HandlerContext } from "./mcp/handlers.js";
export * from "./mcp/types.js";
export * from "./schema/index.js";
export { LEGACY_VERSIONS, LATEST_LEGACY_VERSION, MODERN_VERSIONS, LATEST_MODERN_VERSION, SUPPORTED_VERSIONS, type LegacyVersion, type ModernVersion, type Era } from "./mcp/versions.js";
export { HttpTransport } from "./transport/http.js";
export type { HttpTransportOptions, FetchFunction } from "./transport/http-options.js";
export { createSseParser, type SseEvent, type SseParser, type SseParserOptions } from "./transport/sse.js";
export { run, runStream, type RunOptions, type RunResult, type RunStream } from "./agent/run.js";
export type { RunResultFields, RunFinished, RunLoopDetected, RunPaused, RunApprovalRequired, StoredRunResult } from "./agent/run.js";
export type { AgentEvent, AgentEventType, StopReason, ProposedCall, EventError } from "./agent/events.js";
export { parseMessages, userMessage, textOf, emptyUsage, addUsage, type Message, type UserMessage, type AssistantMessage, type ToolResultMessage, type ThinkingPart, type ToolCallPart, type Usage, type ModelStopReason } from "./agent/messages.js";
export type { Provider, ModelRequest, ModelDelta, GenerateOptions, ToolSpec } from "./agent/provider.js";
export type { DetectedLoop } from "./agent/loop-guard.js";
export type { ProviderRetryOptions } from "./agent/retry.js";
export { anthropic, type AnthropicOptions } from "./agent/anthropic.js";
export { openaiChat, OPENAI_TOOL_ERROR_PREFIX, type OpenAiChatOptions } from "./agent/openai-chat.js";
export { scripted, type ScriptedProvider, type ScriptedStep, type ScriptedStepSource, type ScriptedToolCall } from "./agent/scripted.js";
export type { Identity, Authorize, Tool, ReadTool, WriteTool, ConfirmTool, ToolEffect, ToolResult, ToolResultPart, TextPart, ImagePart, ToolUpdate, ToolCallContext, ToolBase, PreparedAction, ApprovedAction, ActionOutcome, JsonSchemaObject } from "./tools/types.js";
export { forgetServerEra } from "./mcp/handshake.js";
export { connectMcp, httpTransportFactory, type ConnectOptions, type McpConnection, type PromptCallOptions, type TransportContext, type TransportFactory } from "./tools/connect.js";
export { reconnectingMcp, type ReconnectOptions } from "./tools/reconnect.js";
export { mcpServersFromEnv, MCP_SERVERS_ENV } from "./tools/env.js";
export { mcpTools, type McpToolsOptions } from "./tools/adapter.js";
export { parseServerConfig, type McpServerConfig, type McpReadConfig, type McpHttpServer, type McpStdioServer, type McpServerBase, type McpWriteMapping, type McpWriteRoles } from "./tools/config.js";
export { assertUniqueToolNames, prefixedToolName, checkToolName } from "./tools/names.js";
export { renderToolResult, renderContent, type RenderStyle, type RenderedContent } from "./tools/render.js";
export type { McpAccess } from "./tools/gate.js";
export type { McpPromptText } from "./tools/prompts.js";
export { LegacySseTransport, type LegacySseOptions } from "./transport/legacy-sse.js";
export { TASKS_EXTENSION, type TaskSupport, type TaskStatus } from "./mcp/tasks.js";
export { complete, type Completion, type CompletionRef, type CompletionRequest } from "./mcp/completions.js";
export { getSkill, listSkills, loadSkill, serverHasSkills, SKILLS_EXTENSION, type LoadedSkill, type Skill, type SkillFile, type SkillsClient } from "./mcp/skills.js";
export { OAuthClient } from "./auth/client.js";
export type { OAuthClientOptions, PreRegisteredClient, AuthorizeStep, AssertionRequest, WorkloadTokenSource, IdentityAssertion, EnterpriseOptions } from "./auth/options.js";
export { addressKind, type AddressKind } from "./auth/reach.js";
export { workloadIdentity } from "./auth/workload.js";
export { enterpriseSignIn } from "./auth/enterprise.js";
export type { TokenGrant } from "./auth/grants.js";
export { MemoryTokenStore, type TokenStore, type StoredValue } from "./auth/store.js";
export type { TokensRecord } from "./auth/records.js";
export { parseChallenges, type Challenge } from "./auth/challenge.js";
export type { HttpAuth, AuthRequest } from "./transport/http-auth.js";
export { PostgresActionStore, type PostgresActionStoreOptions, type PgQuery, type PgPrepared, type PgListen, type MigrationResult } from "./actions/postgres-store.js";
export { DurableObjectActionStore, type DurableObjectStorageLike, type DurableObjectStorageOps } from "./actions/durable-object-store.js";
export { serveActionStore, remoteActionStore, type ActionStoreFetcher, type RemoteActionStoreOptions } from "./actions/durable-object-remote.js";
export type { ActionState, ActionDecision, ActionResolution, ActionResult, ActionRecord, ActionExpectation, ActionPatch, ActionQuery, ActionCountQuery, ActionCursor, ClaimOptions, ActionStore } from "./actions/types.js";
export type { ActionRecordFields, SettledResult } from "./actions/types.js";
export type { AsyncDisposer, AsyncDisposeKey } from "./util/dispose.js";
export { MemoryActionStore, type MemoryStoreOptions } from "./actions/memory-store.js";
export { argumentsHash } from "./actions/hash.js";
export { createActions, type Actions, type ActionsOptions, type ApprovalBinding, type MayApprove, type ResolutionVerdict } from "./actions/approvals.js";
export type { OnAwaitingApproval, ProposeContext } from "./actions/propose.js";
export { createWorker, type ActionWorker, type WorkerOptions, type ToolResolver } from "./actions/worker.js";
export type { RunActions, RunState, PendingCall } from "./agent/run-actions.js";
export { taskCalls, type TaskCalls } from "./mcp/task-module.js";
export { hostHandlers, type HostHandling, type HostAnswer } from "./mcp/host-module.js";
export { legacySse } from "./transport/legacy-fallback.js";
export { mcpWrites, type McpWrites } from "./tools/action-tools.js";
export { mcpResources, type McpResources } from "./tools/resources.js";
export type { LegacyFallback } from "./transport/http-options.js";
export type { SchemaCompiler } from "./mcp/handlers.js";
export type { ClaimManyOptions, ActionTransition, TransitionOutcome } from "./actions/types.js";
export { createApprovalInbox, type FetchHandler } from "./inbox/inbox.js";
export type { ApprovalInboxOptions, Authenticate } from "./inbox/options.js";
export type { ActionView } from "./inbox/views.js";
export { mcpTracing } from "./trace/mcp.js";
export { runTracing, type RunTracing } from "./trace/agent.js";
export type { McpTracing, Tracer, TraceOptions, TraceSpan, TraceSpanOptions, TraceSpanContext, TraceState, TraceLink, TraceAttributes, TraceAttributeValue } from "./trace/types.js";
