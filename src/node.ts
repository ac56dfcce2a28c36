/**
 * yada's Node entry: everything of the web entry plus the stdio transport and
 * Node-only helpers.
 *
 * @module
 */
export * from "./index.js";
export { McpClient, type StdioConnectOptions } from "./node/client.js";
export { StdioTransport, serverEnvironment, type StdioServerParams } from "./node/stdio.js";
export { nodeReadTools, type NodeReadToolsOptions } from "./node/builtins/index.js";
export { connectMcp, reconnectingMcp, nodeTransportFactory } from "./node/tools.js";
// Web-standard, but used with stdio servers and the CLI's recorder: kept out of the
// web bundle so that it stays small.
export { createLineSplitter, type LineSink, type LineSplitter } from "./transport/ndjson.js";
export { RecordingTransport, type TranscriptEntry } from "./transport/recording.js";
export { nodeWriteTools, type NodeWriteToolsOptions } from "./node/builtins/index.js";
export { openFileStore, FileActionStore, DEFAULT_FILE_STORE_PATH, type FileStoreOptions } from "./node/file-store.js";
export { FileTokenStore, defaultTokenFile } from "./node/token-store.js";
export { startLoopbackRedirect, type LoopbackRedirect, type LoopbackRedirectOptions } from "./node/loopback-redirect.js";
export { HttpTransport } from "./node/http.js";
export { toNodeListener, type NodeListenerOptions } from "./node/fetch-adapter.js";
