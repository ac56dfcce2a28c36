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
